//===- RuntimeTypes.h - the dialect's values as runtime types ---*- C++ -*-===//
//
// Conversions from the dialect to the runtime's plain types: element types,
// constants, meshes and shardings. The interpreter, the lowering to the
// plan and the driver all need them; they live with the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_RUNTIMETYPES_H
#define SHARDC_DIALECT_SHARDC_IR_RUNTIMETYPES_H

#include "shardc/Dialect/Shardc/IR/ShardcAttrs.h"
#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Sharding.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Types.h"

#include <optional>

namespace shardc {
class MeshOp;
class ShardingAttr;
class DotGeneralOp;

/// The runtime element type of an MLIR element type, if it has one.
std::optional<DType> toDType(mlir::Type elementType);
/// The elements of a constant as an Array; none when they cannot be read
/// (an elided or external `dense_resource`).
std::optional<Array> elementsToArray(mlir::ElementsAttr elements);
/// The attribute `#shardc<reduce_kind>` and the runtime's Reduction have
/// the same numbers (checked where they are defined).
inline Reduction toReduction(ReduceKind kind) { return (Reduction)(int64_t)kind; }
inline ReduceKind toReduceKind(Reduction kind) { return (ReduceKind)(int64_t)kind; }
/// An error at `op` when its first result, a tensor the runtime holds
/// whole (a constant's values, an iota), overflows 64 bits of bytes or
/// cannot fit in this machine's memory; success otherwise.
mlir::LogicalResult checkResultFitsInMemory(mlir::Operation *op);

/// Runtime views of the dialect's mesh and sharding.
Mesh toRuntimeMesh(MeshOp mesh);
NamedSharding toNamedSharding(ShardingAttr sharding, MeshOp mesh);
/// A dot_general's `precision` (F32 when it has none; the verifier has
/// checked the name).
MatmulPrecision matmulPrecisionOf(DotGeneralOp op);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_IR_RUNTIMETYPES_H
