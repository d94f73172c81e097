//===- Propagation.h - sharding propagation ---------------------*- C++ -*-===//
//
// The algorithm behind --shardc-propagate, callable directly so that tools
// can also learn where each sharding came from.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_PROPAGATION_H
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_PROPAGATION_H

#include "shardc/Common/CollectiveCost.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class Pass;
} // namespace mlir
namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

/// Where the axes of one dimension of a value came from: the annotation
/// ("argument 'x'", "sharding_constraint at model.mlir:12:8") and the ops the
/// sharding travelled through, in order. Empty `source`: replicated by
/// default, no annotation reached it.
struct DimOrigin {
  std::string source;
  std::vector<mlir::Operation *> path;
};

/// For each value of the function: one origin per dimension.
using ShardingProvenance = llvm::DenseMap<mlir::Value, std::vector<DimOrigin>>;

/// Propagates shardings through `fn` and writes them as attributes (see the
/// pass description). Fills `provenance` when given.
mlir::LogicalResult propagateShardings(mlir::func::FuncOp fn,
                                       ShardingProvenance *provenance = nullptr);

/// --shardc-propagate on `entry` (every function when empty), filling
/// `provenance` when given.
std::unique_ptr<mlir::Pass> createPropagatePass(const std::string &entry,
                                                ShardingProvenance *provenance);

class MeshOp;

/// The one mesh the shardings in `fn` (its signature, constraints and
/// shard_maps) refer to; null when none does. Two meshes are an error.
mlir::FailureOr<MeshOp> findFunctionMesh(mlir::func::FuncOp fn);

struct PartitionOptions {
  /// Pad dimensions their axes do not divide (`pad-uneven`); without it,
  /// only arguments marked `shardc.pad_uneven` may be padded.
  bool padUneven = false;
  /// The link its choices are ranked over (`link-latency-ns`,
  /// `link-bytes-per-s`); the default ranks by bytes, then collectives.
  LinkModel link;
};

/// Rewrites `fn`, whose values carry shardings (see --shardc-partition), into
/// its per-device program.
mlir::LogicalResult partitionFunction(mlir::func::FuncOp fn, const PartitionOptions &options = {});

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_PROPAGATION_H
