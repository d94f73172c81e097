//===- MatmulPrecision.cpp - --shardc-matmul-precision ---------------------===//

#include "shardc/Dialect/Shardc/Transforms/MatmulPrecision.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCMATMULPRECISION
#define GEN_PASS_DEF_SHARDCBF16OPERANDS
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

int64_t setMatmulPrecision(ModuleOp module, MatmulPrecision precision) {
  if (precision == MatmulPrecision::F32)
    return 0;
  int64_t count = 0;
  module.walk([&](DotGeneralOp op) {
    if (op.getPrecisionAttr() || !cast<ShapedType>(op.getLhs().getType()).getElementType().isF32())
      return;
    op.setPrecision(precision);
    ++count;
  });
  return count;
}

namespace {

bool isBf16Product(Operation *op) {
  auto dot = dyn_cast<DotGeneralOp>(op);
  return dot && dot.getPrecision() == MatmulPrecision::BF16;
}

/// Whether only bf16 products read `v`, directly or through layout ops that
/// move its elements without computing (collected into `layout`, each
/// before the layout ops that read it).
bool onlyBf16ProductsRead(Value v, llvm::SetVector<Operation *> &layout) {
  if (v.use_empty())
    return false;
  for (Operation *user : v.getUsers()) {
    if (isBf16Product(user))
      continue;
    if (!isa<ReshapeOp, TransposeOp, SliceOp>(user))
      return false;
    layout.insert(user);
    if (!onlyBf16ProductsRead(user->getResult(0), layout))
      return false;
  }
  return true;
}

RankedTensorType withBf16(Type type) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), BFloat16Type::get(t.getContext()), t.getEncoding());
}

} // namespace

int64_t storeBf16Operands(Operation *root) {
  // Ops in order, so a value is rounded before the layout ops reading it
  // are looked at (they are bf16 by then, and left alone).
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) { ops.push_back(op); });
  int64_t count = 0;
  for (Operation *op : ops) {
    if (op->getNumResults() != 1 || isa<ConvertOp>(op))
      continue;
    Value v = op->getResult(0);
    auto type = dyn_cast<RankedTensorType>(v.getType());
    llvm::SetVector<Operation *> layout;
    if (!type || !type.getElementType().isF32() || !onlyBf16ProductsRead(v, layout))
      continue;
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    auto rounded = ConvertOp::create(b, op->getLoc(), withBf16(type), v);
    v.replaceAllUsesExcept(rounded.getResult(), rounded);
    for (Operation *l : layout)
      l->getResult(0).setType(withBf16(l->getResult(0).getType()));
    ++count;
  }
  return count;
}

namespace {
struct ShardcBf16OperandsPass : impl::ShardcBf16OperandsBase<ShardcBf16OperandsPass> {
  void runOnOperation() override { storeBf16Operands(getOperation()); }
};

struct ShardcMatmulPrecisionPass : impl::ShardcMatmulPrecisionBase<ShardcMatmulPrecisionPass> {
  using ShardcMatmulPrecisionBase::ShardcMatmulPrecisionBase;
  /// Made by a compile with its precision as it is: the text option only
  /// says it, for a printed pipeline.
  explicit ShardcMatmulPrecisionPass(MatmulPrecision p) : given(p) {
    precision = matmulPrecisionName(p);
  }
  void runOnOperation() override {
    MatmulPrecision p = given.value_or(MatmulPrecision::F32);
    if (!given && !parseMatmulPrecision(precision, p)) {
      emitError(getOperation().getLoc()) << "--shardc-matmul-precision: precision '" << precision
                                         << "' is none of f32, bf16, tf32";
      return signalPassFailure();
    }
    setMatmulPrecision(getOperation(), p);
  }
  std::optional<MatmulPrecision> given;
};
} // namespace

std::unique_ptr<Pass> createMatmulPrecisionPass(MatmulPrecision precision) {
  return std::make_unique<ShardcMatmulPrecisionPass>(precision);
}

} // namespace shardc
