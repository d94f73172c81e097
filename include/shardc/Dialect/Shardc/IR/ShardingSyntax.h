//===- ShardingSyntax.h - the written form of a dimension sharding -*- C++ -*-===//
//
// Shardy's `sdy` dialect writes dimension shardings exactly as shardc does
// ({"a", ?}p0, sub-axes "a":(1)2); its reader (the StableHLO importer)
// parses them with shardc's own parser.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDINGSYNTAX_H
#define SHARDC_DIALECT_SHARDC_IR_SHARDINGSYNTAX_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

namespace shardc {

/// Parses one dimension's braces, with its priority: `{}`, `{"a", ?}p1`.
mlir::FailureOr<DimShardingAttr> parseDimShardingBraces(mlir::AsmParser &parser);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDINGSYNTAX_H
