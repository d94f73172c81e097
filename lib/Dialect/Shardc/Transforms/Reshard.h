//===- Reshard.h - moving a local value between layouts ---------*- C++ -*-===//
//
// A Layout is the axes of each dimension of a value (its sharding without the
// mesh). Reshard emits the collectives that take a per-device value from one
// layout to another: all_slice first where a dimension can be split at once
// (what moves after is smaller), collective_permute where dimensions change
// axes but not their number of blocks, all_to_all to move an axis between
// dimensions, all_gather to make dimensions whole, all_slice to split them.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_RESHARD_H
#define SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_RESHARD_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace shardc {

using Layout = llvm::SmallVector<llvm::SmallVector<llvm::StringRef, 2>, 4>;

Layout layoutOf(ShardingAttr sharding);
Layout replicatedLayout(int64_t rank);
/// `[{"data"}, {}]`
std::string layoutStr(const Layout &layout);

/// Local type of a `global` tensor under `layout`.
mlir::RankedTensorType localType(mlir::RankedTensorType global, const Layout &layout,
                                 MeshOp mesh);

/// Emits collectives taking `value` (local, in layout `from`, of global type
/// `global`) to layout `to`. Every op gets a location naming `cause`.
mlir::Value reshard(mlir::OpBuilder &b, mlir::Location at, const std::string &cause,
                    MeshOp mesh, mlir::Value value, mlir::RankedTensorType global,
                    const Layout &from, const Layout &to);

/// The location of an inserted collective: its cause, then where it was
/// needed.
mlir::Location causeLoc(mlir::Location at, const std::string &cause);

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_RESHARD_H
