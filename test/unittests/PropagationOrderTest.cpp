//===- PropagationOrderTest.cpp - shardings independent of op order -------===//
//
// Propagation's answer must not depend on the order the ops of a function
// are written in. For every function of the partitioner's lit corpus
// (test/Partition), runs propagation on the function as written and on a
// copy whose ops are in another valid order (each step schedules the last
// op whose operands are ready, where the text schedules the first), and
// requires the same sharding on every argument, op result and function
// result.
//
//===----------------------------------------------------------------------===//

#include "PartitionCorpus.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseSet.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace mlir;
using namespace shardc;
using namespace shardc::testing_corpus;

namespace {

std::string str(Attribute a) {
  if (!a)
    return "(none)";
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

/// Moves the ops of `fn`'s body into another topological order: each step
/// takes the last op (in the original order) whose operands are all
/// defined. Returns the ops in their original order.
std::vector<Operation *> reorder(func::FuncOp fn) {
  Block &body = fn.getBody().front();
  std::vector<Operation *> original;
  for (Operation &op : body.without_terminator())
    original.push_back(&op);
  llvm::DenseSet<Operation *> placed;
  Operation *terminator = body.getTerminator();
  std::vector<Operation *> left = original;
  while (!left.empty()) {
    for (size_t k = left.size(); k-- > 0;) {
      Operation *op = left[k];
      bool ready = llvm::all_of(op->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return !def || placed.contains(def);
      });
      // Values used inside a region (shard_map) count as operands too.
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (Operation *def = v.getDefiningOp();
              def && def->getBlock() == &body && !placed.contains(def) && def != op)
            ready = false;
      });
      if (!ready)
        continue;
      op->moveBefore(terminator);
      placed.insert(op);
      left.erase(left.begin() + k);
      break;
    }
  }
  return original;
}

class PropagationOrder : public testing::TestWithParam<std::string> {};

TEST_P(PropagationOrder, ShardingsDoNotDependOnOpOrder) {
  CorpusModule corpus(GetParam());
  std::string &diagnostics = corpus.diagnostics;
  OwningOpRef<ModuleOp> &written = corpus.module;
  ASSERT_TRUE(written) << diagnostics;
  OwningOpRef<ModuleOp> reordered = written->clone();

  for (auto fn : written->getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    SCOPED_TRACE("@" + fn.getSymName().str());
    auto other = reordered->lookupSymbol<func::FuncOp>(fn.getSymName());
    std::vector<Operation *> ops;
    for (Operation &op : fn.getBody().front().without_terminator())
      ops.push_back(&op);
    std::vector<Operation *> otherOps = reorder(other);
    bool a = succeeded(propagateShardings(fn)), b = succeeded(propagateShardings(other));
    ASSERT_EQ(a, b) << diagnostics;
    if (!a)
      continue; // an error either way (the corpus' error cases)
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      EXPECT_EQ(str(fn.getArgAttr(i, ShardcDialect::kShardingAttrName)),
                str(other.getArgAttr(i, ShardcDialect::kShardingAttrName)))
          << "argument #" << i;
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      EXPECT_EQ(str(fn.getResultAttr(i, ShardcDialect::kShardingAttrName)),
                str(other.getResultAttr(i, ShardcDialect::kShardingAttrName)))
          << "result #" << i;
    for (size_t k = 0; k < ops.size(); ++k)
      EXPECT_EQ(str(ops[k]->getAttr(ShardcDialect::kShardingsAttrName)),
                str(otherOps[k]->getAttr(ShardcDialect::kShardingsAttrName)))
          << "op #" << k << " (" << ops[k]->getName().getStringRef().str() << " at "
          << formatLocation(ops[k]->getLoc()) << ")";
  }
}

// The reordering does reorder: two independent ops swap, a chain stays.
TEST(PropagationOrder, IndependentOpsAreReordered) {
  MLIRContext ctx;
  ctx.loadDialect<ShardcDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %x = shardc.neg %a : tensor<4xf32>
      %y = shardc.exp %b : tensor<4xf32>
      %s = shardc.add %x, %y : tensor<4xf32>
      return %s : tensor<4xf32>
    })mlir",
                                                             &ctx);
  ASSERT_TRUE(module);
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  std::vector<Operation *> original = reorder(fn);
  std::vector<Operation *> now;
  for (Operation &op : fn.getBody().front().without_terminator())
    now.push_back(&op);
  EXPECT_EQ(now, (std::vector<Operation *>{original[1], original[0], original[2]}));
}

INSTANTIATE_TEST_SUITE_P(Corpus, PropagationOrder, testing::ValuesIn(corpusFiles()), testName);

} // namespace
