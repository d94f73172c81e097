//===- ShardcAttrs.h - sharding attributes and their checks -----*- C++ -*-===//
//
// `#shardc.sharding`, the enums of the dialect, and the helpers that relate a
// sharding to a mesh and a tensor type (verification, local shapes).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDCATTRS_H
#define SHARDC_DIALECT_SHARDC_IR_SHARDCATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include "shardc/Common/Reduction.h"

#include "shardc/Dialect/Shardc/IR/ShardcEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/Shardc/IR/ShardcAttrs.h.inc"

namespace shardc {
class MeshOp;

/// The attribute `#shardc<reduce_kind>` and the common Reduction have the
/// same numbers.
static_assert((int64_t)ReduceKind::Sum == (int64_t)Reduction::Sum &&
                  (int64_t)ReduceKind::Max == (int64_t)Reduction::Max &&
                  (int64_t)ReduceKind::Min == (int64_t)Reduction::Min &&
                  (int64_t)ReduceKind::Mean == (int64_t)Reduction::Mean,
              "#shardc<reduce_kind> and Reduction number kinds alike");
inline Reduction toReduction(ReduceKind kind) { return (Reduction)(int64_t)kind; }
inline ReduceKind toReduceKind(Reduction kind) { return (ReduceKind)(int64_t)kind; }

/// "model.mlir:12:8" for a file location (looking through names and
/// fusions), else MLIR's own printing. Used wherever a message names a place.
std::string formatLocation(mlir::Location loc);

/// "[4, 8]": a shape as diagnostics print it.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Finds the mesh `ref` names, from the symbol table nearest to `from`.
/// Returns null if there is none.
MeshOp lookupMesh(mlir::Operation *from, mlir::FlatSymbolRefAttr ref);

/// Checks `sharding` against `mesh` and, when `type` is given, against the
/// tensor type: known and unrepeated axes, matching rank, dividing sizes.
/// With `localType`, `type` is a per-device type and sizes are not checked.
/// With `allowPadding`, a dimension the axes do not divide is accepted: the
/// layout pads it, which partitioning allows only where asked to
/// (`pad-uneven`, `shardc.pad_uneven`) and reports otherwise.
mlir::LogicalResult verifySharding(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                   ShardingAttr sharding, MeshOp mesh, mlir::Type type,
                                   bool localType = false, bool allowPadding = false);

/// Convenience: looks the mesh up from `op` and verifies.
mlir::LogicalResult verifyShardingAt(mlir::Operation *op,
                                     llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                     ShardingAttr sharding, mlir::Type type, bool localType = false,
                                     bool allowPadding = false);

/// The per-device type of a tensor of type `global` sharded by `sharding`
/// (each split dimension divided by the product of its axis sizes).
mlir::RankedTensorType getLocalType(mlir::RankedTensorType global, ShardingAttr sharding,
                                    MeshOp mesh);

/// Number of devices in the group formed by `axes` of `mesh`.
int64_t getGroupSize(MeshOp mesh, llvm::ArrayRef<llvm::StringRef> axes);

/// `"a"`, or `"a":(1)2` for a sub-axis: how the attribute syntax writes it.
std::string axisSyntax(llvm::StringRef axis);

/// Whether `axis` shares devices' coordinates with one of `axes` (see
/// MeshOp::axesOverlap).
bool overlapsAny(MeshOp mesh, llvm::ArrayRef<llvm::StringRef> axes, llvm::StringRef axis);

/// The factor [pre, pre * size) of `axis` of `mesh`, by name: the axis
/// itself where that is all of it, else "axis:(pre)size" (kept alive by the
/// mesh's context).
llvm::StringRef subAxisOf(MeshOp mesh, llvm::StringRef axis, int64_t pre, int64_t size);

/// `axes` with each run of adjacent factors of one axis, major before minor,
/// merged: ["a:(1)2", "a:(2)2"] is ["a"]. Two layouts that split a
/// dimension alike then list the same names.
llvm::SmallVector<llvm::StringRef, 2> mergeSubAxes(MeshOp mesh,
                                                   llvm::ArrayRef<llvm::StringRef> axes);

/// Checks a list of collective axes: non-empty, known, unrepeated.
mlir::LogicalResult verifyMeshAxes(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                                   MeshOp mesh, llvm::ArrayRef<llvm::StringRef> axes);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCATTRS_H
