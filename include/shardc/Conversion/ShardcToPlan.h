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

/// The all_reduce bucket size lowering merges up to (see MergeCollectives):
/// $SHARDC_ALLREDUCE_BUCKET_BYTES if set (0 merges nothing), else 4 MiB.
/// Part of every compile-cache key, since plans depend on it.
int64_t allReduceBucketBytes();

/// Fails, with a diagnostic at the offending op, on a function that still
/// needs partitioning or uses an op no backend runs.
mlir::FailureOr<Plan> lowerToPlan(mlir::func::FuncOp fn);

} // namespace shardc

#endif // SHARDC_CONVERSION_SHARDCTOPLAN_H
