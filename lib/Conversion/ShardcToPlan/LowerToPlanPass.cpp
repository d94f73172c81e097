//===- LowerToPlanPass.cpp - --shardc-lower-to-plan -----------------------===//
//
// The lowering to the executable plan as a pass: each function's plan in its
// text form (describePlan), written to the `output` option.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/Passes.h"
#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Runtime/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDCLOWERTOPLAN
#include "shardc/Conversion/Passes.h.inc"

namespace {
struct ShardcLowerToPlanPass : impl::ShardcLowerToPlanBase<ShardcLowerToPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string text;
    for (auto fn : getOperation().getOps<mlir::func::FuncOp>()) {
      if (fn.isExternal() || (!entry.empty() && fn.getSymName() != entry))
        continue;
      mlir::FailureOr<Plan> plan =
          lowerToPlan(fn, bucketBytes, FuseOptions{rowPrograms, bf16Outputs});
      if (mlir::failed(plan) || mlir::failed(checkMemoryBudget(fn, *plan, memoryBudget)))
        return signalPassFailure();
      text += describePlan(*plan);
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = mlir::openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError("--shardc-lower-to-plan: ") << error;
      return signalPassFailure();
    }
    file->os() << text;
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace

} // namespace shardc
