//===- ProductReaderTest.cpp - a product and its reader, block by block ---===//
//
// The CPU backend runs a product step and the elementwise Fused step right
// after it that reads its result (cpu::runProductAndReader) block of rows
// by block of rows. Each plan here runs twice: as it is, and with a step
// between the two, which keeps them apart. The results must agree, and the
// profile must show which runs took the pair together: in place, and never
// where a block's output would overwrite what a later block's product
// reads.
//
//===----------------------------------------------------------------------===//

#include "shardc/JIT/FusedJit.h"
#include "shardc/Runtime/Backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace shardc;

namespace {

using I = FusedProgram::Instruction;

/// y = tanh(x . w) + b for x [M, K], w [K, N], b [N], returned as a copy;
/// the product's result `p` and the output `y` at the arena offsets given. With `producedX`, x
/// is computed in the arena (the negation of an argument, at `xOffset`)
/// rather than an argument; with `transposedX`, x is stored [K, M] and read
/// transposed; with `bf16Y`, the reader stores y rounded to bf16; with
/// `apart`, a constant step runs between the product and its reader.
struct Layout {
  int64_t M = 2560, K = 48, N = 1024; // 10 MB: three blocks of about 3.3 MB
  int64_t pOffset = 0, yOffset = int64_t(12) << 20;
  bool producedX = false;
  int64_t xOffset = int64_t(24) << 20;
  bool transposedX = false, bf16Y = false;
  bool apart = false;
};

Plan planOf(const Layout &l) {
  Plan p;
  p.entry = "main";
  auto value = [&](Shape shape, int64_t offset) {
    p.values.push_back(PlanValue{DType::F32, shape, offset});
    return (int32_t)p.values.size() - 1;
  };
  auto arg = [&](Shape shape) {
    int32_t id = value(shape, kArgument);
    p.args.push_back(id);
    p.argNames.push_back("arg" + std::to_string(p.args.size() - 1));
    p.argShardings.push_back(NamedSharding{Mesh{}, PartitionSpec(shape.size())});
    p.argGlobalShapes.push_back(shape);
    return id;
  };
  Shape xShape = l.transposedX ? Shape{l.K, l.M} : Shape{l.M, l.K};
  int32_t x = arg(xShape), w = arg({l.K, l.N}), b = arg({l.N});
  int64_t arena = l.yOffset + l.M * l.N * 4;
  if (l.producedX) {
    int32_t neg = value(xShape, l.xOffset);
    p.steps.push_back(PlanStep{OpCode::Neg, {x}, {neg}, {}, {}, {}, "neg"});
    x = neg;
    arena = std::max(arena, l.xOffset + l.M * l.K * 4);
  }
  int32_t prod = value({l.M, l.N}, l.pOffset);
  // No batch dimensions, one contracting dimension: x's (1, or 0 when it
  // is stored transposed) with w's 0.
  p.steps.push_back(PlanStep{
      OpCode::DotGeneral, {x, w}, {prod}, {0, 1, l.transposedX ? 0 : 1, 0}, {}, {}, "dot"});
  if (l.apart) {
    int32_t c = value({1}, arena);
    arena += 64;
    p.steps.push_back(PlanStep{OpCode::Constant, {}, {c}, {}, {}, {}, "apart"});
    p.steps.back().constant = Array::uninitialized(DType::F32, {1});
    p.steps.back().constant.data<float>()[0] = 0;
  }
  FusedProgram prog;
  prog.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::AlongRows, l.N}};
  prog.instructions = {I{OpCode::Tanh, 0, 0, 0}, I{OpCode::Add, 2, 1, 0}};
  prog.outputs = {3};
  DType yType = l.bf16Y ? DType::BF16 : DType::F32;
  if (l.bf16Y)
    prog.outputTypes = {DType::BF16};
  int32_t y = value({l.M, l.N}, l.yOffset);
  p.values[y].dtype = yType;
  p.steps.push_back(PlanStep{OpCode::Fused, {prod, b}, {y}, prog.encode(), {}, {}, "reader"});
  // The result is a copy (a result may be written where the caller gets it,
  // outside the arena).
  int32_t z = value({l.M, l.N}, arena);
  p.values[z].dtype = yType;
  arena += l.M * l.N * 4;
  p.steps.push_back(PlanStep{OpCode::Reshape, {y}, {z}, {}, {}, {}, "copy"});
  p.results = {z};
  p.resultShardings = {NamedSharding{Mesh{}, PartitionSpec(2)}};
  p.resultGlobalShapes = {{l.M, l.N}};
  p.arenaBytes = arena;
  return p;
}

struct Outcome {
  Array y;
  bool together = false; // the profile shows the pair run as one
};

Outcome run(const Layout &l, const std::vector<Array> &args) {
  CpuBackendOptions options;
  options.profile = true;
  std::unique_ptr<Backend> cpu = createCpuBackend(options);
  testing::internal::CaptureStderr();
  StatusOr<std::vector<Array>> out = runPlan(*cpu, planOf(l), args);
  std::string profile = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(out.ok()) << out.message();
  if (!out.ok())
    return {};
  return {std::move((*out)[0]), profile.find("dot_general+fused") != std::string::npos};
}

class ProductReaderTest : public testing::Test {
protected:
  void SetUp() override {
    std::string error;
    jit = FusedJit::create(FusedJitOptions{0, /*compileAfterElements=*/0}, error);
    ASSERT_TRUE(jit) << error;
    setFusedKernelCompiler(jit);
  }
  void TearDown() override { setFusedKernelCompiler(nullptr); }

  std::vector<Array> argsFor(const Layout &l) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0, 0.3f);
    std::vector<Array> args;
    for (Shape s :
         {l.transposedX ? Shape{l.K, l.M} : Shape{l.M, l.K}, Shape{l.K, l.N}, Shape{l.N}}) {
      Array a = Array::uninitialized(DType::F32, s);
      for (int64_t i = 0; i < a.numElements(); ++i)
        a.data<float>()[i] = normal(rng);
      args.push_back(std::move(a));
    }
    return args;
  }

  /// Runs `l` together and apart; the results agree with each other and
  /// with a product summed in double.
  void expectAgree(Layout l, bool together) {
    std::vector<Array> args = argsFor(l);
    Outcome joint = run(l, args);
    l.apart = true;
    Outcome alone = run(l, args);
    EXPECT_EQ(joint.together, together);
    EXPECT_FALSE(alone.together);
    ASSERT_EQ(joint.y.numElements(), l.M * l.N);
    ASSERT_EQ(alone.y.numElements(), l.M * l.N);
    const float *x = args[0].data<float>(), *w = args[1].data<float>(), *b = args[2].data<float>();
    double sign = l.producedX ? -1 : 1;
    int64_t mismatches = 0;
    for (int64_t m = 0; m < l.M; ++m)
      for (int64_t n = 0; n < l.N; ++n) {
        double dot = 0;
        for (int64_t k = 0; k < l.K; ++k)
          dot += (double)x[l.transposedX ? k * l.M + m : m * l.K + k] * w[k * l.N + n];
        double want = std::tanh(sign * dot) + b[n];
        double got = joint.y.getDouble(m * l.N + n), apart = alone.y.getDouble(m * l.N + n);
        // bf16 keeps 8 bits of the value: half a unit in the last place
        // from the exact value, and a unit from a rounding of another sum.
        double tolerance = l.bf16Y ? std::fabs(want) / 128 + 1e-6 : 1e-5;
        mismatches += std::fabs(got - want) > tolerance || std::fabs(got - apart) > tolerance;
      }
    EXPECT_EQ(mismatches, 0);
  }

  std::shared_ptr<FusedJit> jit;
};

TEST_F(ProductReaderTest, AProductAndItsReaderRunTogether) {
  expectAgree(Layout{}, /*together=*/true);
}

TEST_F(ProductReaderTest, RowsThatDoNotFillTheLastBlock) {
  Layout l;
  l.M = 2500; // not a multiple of any block's rows
  expectAgree(l, true);
}

TEST_F(ProductReaderTest, ATransposedOperandIsReadBlockByBlock) {
  Layout l;
  l.transposedX = true; // row m of x starts m elements in
  expectAgree(l, true);
}

TEST_F(ProductReaderTest, AReaderStoringBf16RunsTogether) {
  Layout l;
  l.bf16Y = true;
  expectAgree(l, true);
}

TEST_F(ProductReaderTest, AReaderWritingOverTheProductRunsInPlace) {
  Layout l;
  l.yOffset = l.pOffset;
  expectAgree(l, true);
}

TEST_F(ProductReaderTest, AReaderWritingOverTheProductsOperandRunsApart) {
  // y lands on x, which dies at the product: block by block, the first
  // block's outputs would overwrite rows of x a later block reads.
  Layout l;
  l.producedX = true;
  l.xOffset = l.yOffset + 4096;
  expectAgree(l, false);
}

TEST_F(ProductReaderTest, AnEmptySumStillRunsItsReader) {
  Layout l;
  l.K = 0; // the product is zeros, y is b in every row
  expectAgree(l, true);
}

TEST_F(ProductReaderTest, SmallProductsRunAsTwoSteps) {
  Layout l;
  l.M = 1024; // 4 MB: less than two blocks
  expectAgree(l, false);
}

} // namespace
