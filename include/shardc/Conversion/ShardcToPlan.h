//===- ShardcToPlan.h - lowering to the executable plan ---------*- C++ -*-===//
//
// Lowers a per-device function (partitioned, or one that uses no mesh) to the
// runtime's Plan: one step per op, values numbered, and every intermediate
// placed in the device arena by liveness so that buffers are reused.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_CONVERSION_SHARDCTOPLAN_H
#define SHARDC_CONVERSION_SHARDCTOPLAN_H

#include "shardc/Common/CompileOptions.h"
#include "shardc/Runtime/Plan.h"

#include "mlir/Support/LLVM.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

/// What fused steps may do beyond the chains every backend runs; only the
/// CPU backend runs these (the CUDA backend says so).
struct FuseOptions {
  /// A chain may read back the row reductions it makes (a softmax in one
  /// pass; FusedProgram::readsReductions).
  bool rowPrograms = false;
  /// A convert of a chain's f32 value to bf16 joins the chain, which then
  /// stores the value at bf16 only (FusedProgram::outputTypes).
  bool bf16Outputs = false;
};

/// Fails, with a diagnostic at the offending op, on a function that still
/// needs partitioning or uses an op no backend runs. All_reduces of
/// independent values are merged into buckets of up to
/// `allReduceBucketBytes` (0 merges nothing).
mlir::FailureOr<Plan> lowerToPlan(mlir::func::FuncOp fn,
                                  int64_t allReduceBucketBytes = kDefaultAllReduceBucketBytes,
                                  const FuseOptions &fuse = {});

/// Fails, with a diagnostic at `fn` naming what a device needs (its buffers
/// and its arguments' shards), where that is more than `budget` bytes
/// (--memory-budget; 0 is no limit).
mlir::LogicalResult checkMemoryBudget(mlir::func::FuncOp fn, const Plan &plan, int64_t budget);

} // namespace shardc

#endif // SHARDC_CONVERSION_SHARDCTOPLAN_H
