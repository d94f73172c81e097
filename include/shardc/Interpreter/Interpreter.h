//===- Interpreter.h - the reference interpreter ----------------*- C++ -*-===//
//
// Evaluates a function of the shardc dialect op by op on host arrays, with the
// reference kernels. It runs both views of a program:
//   - the global view on one device (shard_map regions run on every device of
//     their mesh, with the collectives inside them);
//   - the per-device view on N devices in lockstep: each op runs on every
//     device before the next, so a collective sees all its operands at once.
// It is the oracle for partitioning and for every backend: slow, simple, and
// deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_INTERPRETER_INTERPRETER_H
#define SHARDC_INTERPRETER_INTERPRETER_H

#include "shardc/Conversion/RuntimeTypes.h"
#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Sharding.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {
class MeshOp;
class ShardingAttr;

/// Runs `fn` on `numDevices` devices: `args[i][d]` is argument i on device d.
/// Returns `results[i][d]`. Errors (an index out of range, a collective whose
/// mesh does not match the device count, ...) are emitted as diagnostics at
/// the failing op.
mlir::FailureOr<std::vector<DeviceArrays>>
interpret(mlir::func::FuncOp fn, const std::vector<DeviceArrays> &args, int64_t numDevices);

/// Runs a partitioned function (one with `shardc.partitioned = @mesh`) on
/// the devices of its mesh: each global input is split by its argument's
/// sharding (device_put), the per-device program runs in lockstep, and each
/// result is assembled from the devices by its result sharding.
mlir::FailureOr<std::vector<Array>> interpretPartitioned(mlir::func::FuncOp fn,
                                                         const std::vector<Array> &globalArgs);

/// Runs `fn` on one device.
mlir::FailureOr<std::vector<Array>> interpret(mlir::func::FuncOp fn,
                                              const std::vector<Array> &args);

} // namespace shardc

#endif // SHARDC_INTERPRETER_INTERPRETER_H
