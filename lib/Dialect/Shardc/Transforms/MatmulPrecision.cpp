//===- MatmulPrecision.cpp - --shardc-matmul-precision ---------------------===//

#include "shardc/Dialect/Shardc/Transforms/MatmulPrecision.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCMATMULPRECISION
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

int64_t setMatmulPrecision(ModuleOp module, MatmulPrecision precision) {
  if (precision == MatmulPrecision::F32)
    return 0;
  StringAttr name = StringAttr::get(module.getContext(), matmulPrecisionName(precision));
  int64_t count = 0;
  module.walk([&](DotGeneralOp op) {
    if (op.getPrecisionAttr() || !cast<ShapedType>(op.getLhs().getType()).getElementType().isF32())
      return;
    op.setPrecisionAttr(name);
    ++count;
  });
  return count;
}

namespace {
struct ShardcMatmulPrecisionPass : impl::ShardcMatmulPrecisionBase<ShardcMatmulPrecisionPass> {
  using ShardcMatmulPrecisionBase::ShardcMatmulPrecisionBase;
  void runOnOperation() override {
    MatmulPrecision p;
    if (!parseMatmulPrecision(precision, p)) {
      emitError(getOperation().getLoc()) << "--shardc-matmul-precision: precision '" << precision
                                         << "' is none of f32, bf16, tf32";
      return signalPassFailure();
    }
    setMatmulPrecision(getOperation(), p);
  }
};
} // namespace

} // namespace shardc
