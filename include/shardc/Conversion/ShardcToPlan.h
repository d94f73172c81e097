//===- ShardcToPlan.h - lowering to the executable plan ---------*- C++ -*-===//
//
// Lowers a per-device function (partitioned, or one that uses no mesh) to the
// runtime's Plan: one step per op, values numbered, and every intermediate
// placed in the device arena by liveness so that buffers are reused.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_CONVERSION_SHARDCTOPLAN_H
#define SHARDC_CONVERSION_SHARDCTOPLAN_H

#include "shardc/Runtime/Plan.h"

#include "mlir/Support/LLVM.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

/// The all_reduce bucket size the lowering merges up to by default (see
/// MergeCollectives): 4 MiB.
constexpr int64_t kDefaultAllReduceBucketBytes = int64_t(4) << 20;

/// Fails, with a diagnostic at the offending op, on a function that still
/// needs partitioning or uses an op no backend runs. All_reduces of
/// independent values are merged into buckets of up to
/// `allReduceBucketBytes` (0 merges nothing). With `rowPrograms`, fused
/// chains may read back their row reductions (for the CPU backend).
mlir::FailureOr<Plan> lowerToPlan(mlir::func::FuncOp fn,
                                  int64_t allReduceBucketBytes = kDefaultAllReduceBucketBytes,
                                  bool rowPrograms = false);

} // namespace shardc

#endif // SHARDC_CONVERSION_SHARDCTOPLAN_H
