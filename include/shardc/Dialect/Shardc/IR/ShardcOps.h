//===- ShardcOps.h - shardc operations --------------------------*- C++ -*-===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_H
#define SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "shardc/Common/MatmulPrecision.h"
#include "shardc/Dialect/Shardc/IR/ShardcAttrs.h"
#include "shardc/Dialect/Shardc/IR/ShardcDialect.h"
#include "shardc/Dialect/Shardc/Interfaces/ShardingRuleOpInterface.h"

namespace mlir::OpTrait {
/// Marks the collectives (all_reduce, all_gather, ...): ops of the
/// per-device view that communicate over mesh axes.
template <typename ConcreteType>
class ShardcCollective : public TraitBase<ConcreteType, ShardcCollective> {};
} // namespace mlir::OpTrait

#define GET_OP_CLASSES
#include "shardc/Dialect/Shardc/IR/ShardcOps.h.inc"

namespace shardc {
/// Whether `op` is one of the dialect's collectives.
inline bool isCollectiveOp(mlir::Operation *op) {
  return op->hasTrait<mlir::OpTrait::ShardcCollective>();
}
} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_H
