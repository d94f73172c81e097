//===- PartitionEquivalenceTest.cpp - partitioned run == global run -------===//
//
// For every function of every program in test/Partition (the lit corpus of
// the partitioner), runs the global function on one device and the
// partitioned one on the devices of its mesh, on the same random inputs, and
// requires the same results; then lowers the partitioned function to a plan
// and requires the same results from the CPU backend, whose simulated devices
// run on threads with their own collectives. Integer inputs are drawn from [0, 4) so that
// they are valid indices for the corpus' tables.
//
//===----------------------------------------------------------------------===//

#include "PartitionCorpus.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/MatmulPrecision.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/ProcessGroup.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>

using namespace mlir;
using namespace shardc;
using namespace shardc::testing_corpus;

namespace {

Array randomArray(RankedTensorType type, std::mt19937 &rng) {
  DType dtype = *toDType(type.getElementType());
  Array a(dtype, Shape(type.getShape().begin(), type.getShape().end()));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> index(0, 3), bit(0, 1);
  for (int64_t i = 0; i < a.numElements(); ++i) {
    if (isFloat(dtype))
      a.setDouble(i, real(rng));
    else
      a.setInt(i, dtype == DType::I1 ? bit(rng) : index(rng));
  }
  return a;
}

void expectClose(const std::vector<Array> &got, const std::vector<Array> &want, const char *what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    const Array &g = got[r], &w = want[r];
    ASSERT_EQ(g.dtype(), w.dtype()) << "result #" << r;
    ASSERT_EQ(g.shape(), w.shape()) << "result #" << r;
    for (int64_t i = 0; i < w.numElements(); ++i) {
      double gv = g.getDouble(i), wv = w.getDouble(i);
      ASSERT_LE(std::fabs(gv - wv), 1e-5 * std::max(1.0, std::fabs(wv)))
          << "result #" << r << " element " << i;
    }
  }
}

class PartitionEquivalence : public testing::TestWithParam<std::string> {};

TEST_P(PartitionEquivalence, PartitionedRunEqualsGlobalRun) {
  CorpusModule corpus(GetParam());
  std::string &diagnostics = corpus.diagnostics;
  OwningOpRef<ModuleOp> &module = corpus.module;
  ASSERT_TRUE(module) << diagnostics;

  std::vector<std::string> names;
  for (auto fn : module->getOps<func::FuncOp>())
    if (!fn.isExternal())
      names.push_back(fn.getSymName().str());
  ASSERT_FALSE(names.empty());

  for (const std::string &name : names) {
    SCOPED_TRACE("@" + name);
    auto fn = module->lookupSymbol<func::FuncOp>(name);
    std::mt19937 rng(std::hash<std::string>{}(GetParam() + "@" + name) & 0xffffffff);
    std::vector<Array> inputs;
    for (Type t : fn.getArgumentTypes())
      inputs.push_back(randomArray(cast<RankedTensorType>(t), rng));

    FailureOr<std::vector<Array>> want = interpret(fn, inputs);
    ASSERT_TRUE(succeeded(want)) << diagnostics;
    ASSERT_TRUE(succeeded(propagateShardings(fn)) && succeeded(partitionFunction(fn)) &&
                succeeded(verify(*module)))
        << diagnostics;
    // A function that uses no mesh stays as it is (one device).
    FailureOr<std::vector<Array>> got = fn->hasAttr(ShardcDialect::kPartitionedAttrName)
                                            ? interpretPartitioned(fn, inputs)
                                            : interpret(fn, inputs);
    ASSERT_TRUE(succeeded(got)) << diagnostics;
    expectClose(*got, *want, "reference interpreter, partitioned");

    FailureOr<Plan> plan = lowerToPlan(fn);
    ASSERT_TRUE(succeeded(plan)) << diagnostics;
    std::unique_ptr<Backend> cpu = createCpuBackend();
    StatusOr<std::vector<Array>> fromCpu = runPlan(*cpu, *plan, inputs);
    ASSERT_TRUE(fromCpu.ok()) << fromCpu.message();
    expectClose(*fromCpu, *want, "cpu backend");
  }
}

// bf16 products on the CPU backend, every function of the corpus
// partitioned: rounding each value that only bf16 products read once, where
// it is made (--shardc-bf16-operands), gives the results of rounding it in
// every product, bit for bit, on every mesh.
TEST(PartitionCorpus, Bf16OperandsStoredOnceGiveTheSameBits) {
  std::unique_ptr<Backend> cpu = createCpuBackend();
  int64_t rounded = 0, functions = 0;
  for (const std::string &file : corpusFiles()) {
    SCOPED_TRACE(file);
    CorpusModule inProducts(file), once(file);
    ASSERT_TRUE(inProducts.module && once.module) << inProducts.diagnostics;
    if (setMatmulPrecision(*inProducts.module, MatmulPrecision::BF16) == 0)
      continue; // no f32 product
    setMatmulPrecision(*once.module, MatmulPrecision::BF16);
    for (auto fn : inProducts.module->getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      std::string name = fn.getSymName().str();
      SCOPED_TRACE("@" + name);
      auto other = once.module->lookupSymbol<func::FuncOp>(name);
      std::mt19937 rng(std::hash<std::string>{}(file + "@" + name) & 0xffffffff);
      std::vector<Array> inputs;
      for (Type t : fn.getArgumentTypes())
        inputs.push_back(randomArray(cast<RankedTensorType>(t), rng));
      std::vector<Plan> plans;
      for (func::FuncOp f : {fn, other}) {
        ASSERT_TRUE(succeeded(propagateShardings(f)) && succeeded(partitionFunction(f)))
            << inProducts.diagnostics << once.diagnostics;
        if (f == other)
          rounded += storeBf16Operands(f);
        ASSERT_TRUE(succeeded(verify(f))) << once.diagnostics;
        FailureOr<Plan> plan = lowerToPlan(f);
        ASSERT_TRUE(succeeded(plan)) << inProducts.diagnostics << once.diagnostics;
        plans.push_back(std::move(*plan));
      }
      StatusOr<std::vector<Array>> want = runPlan(*cpu, plans[0], inputs);
      StatusOr<std::vector<Array>> got = runPlan(*cpu, plans[1], inputs);
      ASSERT_TRUE(want.ok() && got.ok()) << want.message() << got.message();
      ASSERT_EQ(got->size(), want->size());
      for (size_t r = 0; r < want->size(); ++r) {
        const Array &g = (*got)[r], &w = (*want)[r];
        ASSERT_EQ(g.dtype(), w.dtype()) << "result #" << r;
        ASSERT_EQ(g.shape(), w.shape()) << "result #" << r;
        EXPECT_EQ(std::memcmp(g.bytes(), w.bytes(), w.sizeInBytes()), 0) << "result #" << r;
      }
      ++functions;
    }
  }
  // The corpus has products of values made inside functions: many are
  // rounded where they are made (86 values in 250 functions when written).
  EXPECT_GE(functions, 100);
  EXPECT_GE(rounded, 40) << "values rounded once in " << functions << " functions";
}

// The corpus walks the plan's op catalogue: every opcode (or, for
// elementwise ops, every fused instruction) must run on the CPU backend in
// some partitioned program of test/Partition, so an op added to the plan
// without a partitioned test fails here.
TEST(PartitionCorpus, CoversEveryPlanOpCode) {
  MLIRContext ctx;
  ctx.loadDialect<ShardcDialect, func::FuncDialect>();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  std::set<OpCode> seen;
  for (const std::string &file : corpusFiles()) {
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(file, &ctx);
    ASSERT_TRUE(module) << file;
    for (auto fn : llvm::make_early_inc_range(module->getOps<func::FuncOp>())) {
      if (fn.isExternal() || failed(propagateShardings(fn)) || failed(partitionFunction(fn)))
        continue;
      FailureOr<Plan> plan = lowerToPlan(fn);
      if (failed(plan))
        continue;
      for (const PlanStep &step : plan->steps) {
        seen.insert(step.op);
        if (step.op == OpCode::Fused)
          for (const FusedProgram::Instruction &i : FusedProgram::decode(step.attrs).instructions)
            seen.insert(i.op);
      }
    }
  }
  for (OpCode op : allOpCodes())
    EXPECT_TRUE(seen.count(op)) << opCodeName(op)
                                << " runs in no partitioned program of test/Partition";
}

// Under mpirun (ctest runs it with 2 and 4 processes): every function of the
// corpus whose mesh the processes can share runs with its devices spread
// over them (a block of devices each) and gives the same bits as its mesh
// in one process, on every process.
TEST(PartitionAcrossProcesses, SameBitsAsOneProcess) {
  StatusOr<std::shared_ptr<ProcessGroup>> world = worldProcessGroup();
  ASSERT_TRUE(world.ok()) << world.message();
  if (!*world)
    GTEST_SKIP() << "not started by mpirun (ctest runs this under mpirun when MPI is built)";
  int processes = (*world)->size();
  std::unique_ptr<Backend> spread = createCpuBackend(*world);
  std::unique_ptr<Backend> alone = createCpuBackend(nullptr);
  int ran = 0, skipped = 0;
  for (const std::string &file : corpusFiles()) {
    SCOPED_TRACE(file);
    CorpusModule corpus(file);
    ASSERT_TRUE(corpus.module) << corpus.diagnostics;
    for (auto fn : corpus.module->getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      std::string name = fn.getSymName().str();
      SCOPED_TRACE("@" + name);
      std::mt19937 rng(std::hash<std::string>{}(file + "@" + name) & 0xffffffff);
      std::vector<Array> inputs;
      for (Type t : fn.getArgumentTypes())
        inputs.push_back(randomArray(cast<RankedTensorType>(t), rng));
      ASSERT_TRUE(succeeded(propagateShardings(fn)) && succeeded(partitionFunction(fn)))
          << corpus.diagnostics;
      FailureOr<Plan> plan = lowerToPlan(fn);
      ASSERT_TRUE(succeeded(plan)) << corpus.diagnostics;
      if (plan->numDevices() % processes != 0) {
        ++skipped;
        continue;
      }
      StatusOr<std::vector<Array>> want = runPlan(*alone, *plan, inputs);
      ASSERT_TRUE(want.ok()) << want.message();
      StatusOr<std::vector<Array>> got = runPlan(*spread, *plan, inputs);
      ASSERT_TRUE(got.ok()) << got.message();
      ASSERT_EQ(got->size(), want->size());
      for (size_t r = 0; r < want->size(); ++r) {
        const Array &g = (*got)[r], &w = (*want)[r];
        ASSERT_EQ(g.shape(), w.shape()) << "result #" << r;
        ASSERT_EQ(g.sizeInBytes(), w.sizeInBytes()) << "result #" << r;
        EXPECT_EQ(std::memcmp(g.bytes(), w.bytes(), w.sizeInBytes()), 0)
            << "result #" << r << " differs from the run in one process (process "
            << (*world)->rank() << " of " << processes << ")";
      }
      ++ran;
    }
  }
  // Most meshes of the corpus have 2, 4 or 8 devices: a run that skipped
  // them all would compare nothing.
  EXPECT_GT(ran, 3 * skipped) << ran << " functions run, " << skipped
                              << " skipped (their mesh cannot be shared by " << processes
                              << " processes)";
  if ((*world)->rank() == 0)
    std::printf("%d functions of the corpus over %d processes, %d skipped\n", ran, processes,
                skipped);
}

INSTANTIATE_TEST_SUITE_P(Corpus, PartitionEquivalence, testing::ValuesIn(corpusFiles()), testName);

} // namespace
