//===- PrintShardingRules.cpp - --shardc-print-sharding-rules -------------===//
//
// Writes every op's sharding rule on it (ShardingRule::str), so that the
// rules propagation and partitioning follow are tested on their own.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCPRINTSHARDINGRULES
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

namespace {
struct ShardcPrintShardingRulesPass
    : impl::ShardcPrintShardingRulesBase<ShardcPrintShardingRulesPass> {
  void runOnOperation() override {
    getOperation().walk([](ShardingRuleOpInterface op) {
      op->setAttr(ShardcDialect::kShardingRuleAttrName,
                  StringAttr::get(op->getContext(), op.getShardingRule().str()));
    });
  }
};
} // namespace

} // namespace shardc
