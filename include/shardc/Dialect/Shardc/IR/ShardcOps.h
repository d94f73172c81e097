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

#include "shardc/Dialect/Shardc/IR/ShardcAttrs.h"
#include "shardc/Dialect/Shardc/IR/ShardcDialect.h"
#include "shardc/Dialect/Shardc/Interfaces/ShardingRuleOpInterface.h"

#define GET_OP_CLASSES
#include "shardc/Dialect/Shardc/IR/ShardcOps.h.inc"

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_H
