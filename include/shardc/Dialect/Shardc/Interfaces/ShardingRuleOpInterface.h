//===- ShardingRuleOpInterface.h - ops with a sharding rule -----*- C++ -*-===//

#ifndef SHARDC_DIALECT_SHARDC_INTERFACES_SHARDINGRULEOPINTERFACE_H
#define SHARDC_DIALECT_SHARDC_INTERFACES_SHARDINGRULEOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "shardc/Dialect/Shardc/IR/ShardingRule.h"

#include "shardc/Dialect/Shardc/Interfaces/ShardingRuleOpInterface.h.inc"

#endif // SHARDC_DIALECT_SHARDC_INTERFACES_SHARDINGRULEOPINTERFACE_H
