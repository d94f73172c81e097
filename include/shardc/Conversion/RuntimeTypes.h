//===- RuntimeTypes.h - the dialect's values as runtime types ---*- C++ -*-===//
//
// Conversions from the dialect to the runtime's plain types: element types,
// constants, meshes and shardings. The interpreter, the lowering to the
// plan and the driver all need them; they live between the dialect and the
// runtime (library ShardcRuntimeTypes), so that the dialect depends on MLIR
// and shardc/Common only.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_CONVERSION_RUNTIMETYPES_H
#define SHARDC_CONVERSION_RUNTIMETYPES_H

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
/// An error at `op` when its first result, a tensor the runtime holds
/// whole (a constant's values, an iota), overflows 64 bits of bytes or
/// cannot fit in this machine's memory; success otherwise.
mlir::LogicalResult checkResultFitsInMemory(mlir::Operation *op);

/// Runtime views of the dialect's mesh and sharding.
Mesh toRuntimeMesh(MeshOp mesh);
NamedSharding toNamedSharding(ShardingAttr sharding, MeshOp mesh);

} // namespace shardc

#endif // SHARDC_CONVERSION_RUNTIMETYPES_H
