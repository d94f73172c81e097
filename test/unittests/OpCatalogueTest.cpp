//===- OpCatalogueTest.cpp - the dialect against OpCodes.def --------------===//
//
// The catalogue is where an elementwise op gets its kernels; these tests
// check that the dialect and the catalogue agree:
//   - every elementwise op of the dialect (the Elementwise trait) has a row,
//     apart from the identities that lower to no step;
//   - every row's op parses, verifies, lowers to a plan of one step with its
//     opcode, and runs in the interpreter;
//   - the opcode numbers are distinct and every name maps back.
// An op given an ODS entry but no row fails the first test by name.
//
//===----------------------------------------------------------------------===//

#include "OpCatalogue.h"
#include "PartitionCorpus.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace mlir;
using namespace shardc;

namespace {

class OpCatalogue : public testing::Test {
protected:
  void SetUp() override { ctx.loadDialect<ShardcDialect, func::FuncDialect>(); }

  /// The names of the plan opcodes (`shardc.<name>` for a dialect op).
  std::set<std::string> rowNames() {
    std::set<std::string> names;
    for (OpCode op : allOpCodes())
      names.insert(std::string("shardc.") + opCodeName(op));
    return names;
  }

  MLIRContext ctx;
};

TEST_F(OpCatalogue, EveryElementwiseOpOfTheDialectHasARow) {
  // Identities: they lower to no step of their own.
  const std::set<std::string> identities = {"shardc.stop_gradient", "shardc.sharding_constraint"};
  std::set<std::string> rows = rowNames();
  int elementwise = 0;
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    if (op.getDialectNamespace() != "shardc" || !op.hasTrait<OpTrait::Elementwise>())
      continue;
    std::string name = op.getStringRef().str();
    ++elementwise;
    if (identities.count(name))
      continue;
    EXPECT_TRUE(rows.count(name))
        << name << " is an elementwise op of the dialect without a row in OpCodes.def "
        << "(SHARDC_UNARY or SHARDC_BINARY): it has no kernels";
  }
  EXPECT_GT(elementwise, 10);
}

TEST_F(OpCatalogue, EveryRowLowersToItsOpCodeAndRuns) {
  for (const test::ElementwiseRow &row : test::elementwiseRows()) {
    SCOPED_TRACE("shardc." + row.name);
    std::string args =
        row.arity == 1 ? "%a: tensor<3xf32>" : "%a: tensor<3xf32>, %b: tensor<3xf32>";
    std::string operands = row.arity == 1 ? "%a" : "%a, %b";
    std::string text = "func.func @f(" + args + ") -> tensor<3xf32> {\n  %y = shardc." + row.name +
                       " " + operands + " : tensor<3xf32>\n  return %y : tensor<3xf32>\n}\n";
    testing_corpus::CorpusModule parsed(testing_corpus::CorpusModule::Text{text});
    std::string &diagnostics = parsed.diagnostics;
    OwningOpRef<ModuleOp> &module = parsed.module;
    ASSERT_TRUE(module) << diagnostics;
    auto fn = module->lookupSymbol<func::FuncOp>("f");
    FailureOr<Plan> plan = lowerToPlan(fn);
    ASSERT_TRUE(succeeded(plan)) << diagnostics;
    ASSERT_EQ(plan->steps.size(), 1u);
    EXPECT_EQ(plan->steps[0].op, row.op);
    EXPECT_TRUE(validatePlan(*plan).ok());

    Array x(DType::F32, {3});
    for (int64_t i = 0; i < 3; ++i)
      x.setDouble(i, row.lo + (row.hi - row.lo) * (i + 1) / 4);
    std::vector<Array> inputs = {x};
    if (row.arity == 2)
      inputs.push_back(x);
    FailureOr<std::vector<Array>> out = interpret(fn, inputs);
    ASSERT_TRUE(succeeded(out)) << diagnostics;
    ASSERT_EQ(out->size(), 1u);
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_TRUE(std::isfinite((*out)[0].getDouble(i)))
          << "not finite inside the row's range [lo, hi]";
  }
}

TEST_F(OpCatalogue, NumbersAreDistinctAndNamesMapBack) {
  std::set<int> numbers;
  std::set<std::string> names;
  for (OpCode op : allOpCodes()) {
    EXPECT_TRUE(numbers.insert((int)op).second) << "number " << (int)op << " twice";
    EXPECT_TRUE(names.insert(opCodeName(op)).second) << opCodeName(op) << " twice";
    EXPECT_TRUE(isOpCode((uint64_t)op));
  }
  EXPECT_FALSE(isOpCode(60000));
  // Numbers artifacts already hold.
  EXPECT_EQ((int)OpCode::Neg, 2);
  EXPECT_EQ((int)OpCode::Add, 10);
  EXPECT_EQ((int)OpCode::Fused, 34);
  EXPECT_EQ((int)OpCode::CollectivePermute, 37);
}

} // namespace
