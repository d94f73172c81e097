//===- Collectives.h - shard_map regions and their collectives --*- C++ -*-===//
//
// `sdy.manual_computation` (JAX's shard_map) becomes `shardc.shard_map`, and
// the StableHLO collectives of its body become shardc's: their replica
// groups (device ids, numbered row-major over the mesh) are matched to the
// mesh axes whose groups they are.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_COLLECTIVES_H
#define SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_COLLECTIVES_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace shardc::import {

/// The mesh a shard_map body runs on.
struct ManualMesh {
  mlir::FlatSymbolRefAttr ref;
  llvm::SmallVector<std::string> axes;
  llvm::SmallVector<int64_t> sizes;
};

/// Builds the shard_map for an sdy.manual_computation before it and moves
/// the body in (still StableHLO: the caller converts it, with `mesh` as
/// the body's mesh). In and out shardings keep only the manual axes: the
/// body's values are local along those, global along the others.
mlir::FailureOr<mlir::Operation *> buildShardMap(mlir::Operation *op, mlir::OpBuilder &b,
                                                 mlir::ModuleOp module, ManualMesh &mesh);

/// all_reduce, all_gather, reduce_scatter, all_to_all or
/// collective_permute, on `mesh`; `kind` is the reduction of all_reduce and
/// reduce_scatter (their body's one op).
mlir::FailureOr<mlir::Value> convertCollective(mlir::Operation *op, mlir::OpBuilder &b,
                                               const ManualMesh &mesh,
                                               std::optional<ReduceKind> kind);

} // namespace shardc::import

#endif // SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_COLLECTIVES_H
