//===- ShardcDialect.h - the shardc dialect ---------------------*- C++ -*-===//
//
// Include this to get the dialect, its attributes and its operations.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDCDIALECT_H
#define SHARDC_DIALECT_SHARDC_IR_SHARDCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "shardc/Dialect/Shardc/IR/ShardcDialect.h.inc"

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCDIALECT_H
