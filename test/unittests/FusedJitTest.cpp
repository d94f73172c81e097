//===- FusedJitTest.cpp - JIT-compiled fused kernels vs the interpreter ---===//
//
// Every fused program here runs twice on the CPU backend: through the
// tile-program interpreter (no FusedKernelCompiler installed) and through
// the kernel the FusedJit compiles, at each vector width the host has (16,
// 8, 4 floats). Results must match:
//   - exactly (bit for bit; NaN for NaN) for add, sub, mul, div, max, min,
//     neg, abs, sqrt, rsqrt, loads, and max / min reductions, including which
//     signed zero wins;
//   - within 4 ulp for exp, log, tanh, erf, pow (libmvec against libm);
//   - within 1e-6 relative to the sum of magnitudes for sum reductions
//     (both accumulate in double, in different orders).
// Shapes are odd (never a multiple of a vector width), and kernels are also
// called directly on ranges that start and end mid-row, and in place.
//
//===----------------------------------------------------------------------===//

#include "shardc/JIT/FusedJit.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/File.h"

#include "OpCatalogue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

using namespace shardc;

namespace {

using I = FusedProgram::Instruction;
enum class Match { Exact, Ulp4, SumRelative };

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> specials() {
  return {0.0f,
          -0.0f,
          1.0f,
          -1.0f,
          0.5f,
          -2.5f,
          3.0f,
          100.0f,
          -100.0f,
          kInf,
          -kInf,
          kNaN,
          -kNaN,
          std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max()};
}

/// n values: the special values first, then uniform in [lo, hi].
std::vector<float> values(int64_t n, std::mt19937 &rng, float lo, float hi,
                          bool withSpecials = true) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v;
  std::vector<float> s = specials();
  for (int64_t i = 0; i < n; ++i)
    v.push_back(withSpecials && i < (int64_t)s.size() ? s[i] : u(rng));
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

bool same(float g, float w, Match m, double scale = 1) {
  if (std::isnan(g) || std::isnan(w))
    return std::isnan(g) && std::isnan(w);
  if (m == Match::Exact)
    return std::memcmp(&g, &w, 4) == 0;
  if (std::isinf(g) || std::isinf(w))
    return g == w;
  if (m == Match::SumRelative)
    return std::fabs((double)g - w) <= 1e-6 * std::max(1.0, scale);
  float ulp = std::nextafter(std::fabs(w), kInf) - std::fabs(w);
  return std::fabs((double)g - w) <= 4.0 * ulp;
}

/// A program with its input data and the shape it runs over.
struct Case {
  std::string what;
  FusedProgram program;
  int64_t rows, cols;
  std::vector<std::vector<float>> inputs; // one per program input
  Match match = Match::Exact;
};

Shape inputShape(const Case &c, const FusedProgram::Input &in) {
  switch (in.mode) {
  case FusedProgram::Whole:
    return {c.rows, c.cols};
  case FusedProgram::AlongRows:
    return {c.cols};
  case FusedProgram::AlongColumns:
    return {c.rows};
  case FusedProgram::Scalar:
    return {1};
  }
  return {};
}

/// A one-step plan running the case's program.
Plan planOf(const Case &c) {
  Plan p;
  p.entry = "main";
  const FusedProgram &prog = c.program;
  PlanStep step;
  step.op = OpCode::Fused;
  step.location = c.what;
  auto addValue = [&](Shape shape, int64_t offset) {
    p.values.push_back(PlanValue{DType::F32, shape, offset});
    return (int32_t)p.values.size() - 1;
  };
  for (size_t k = 0; k < prog.inputs.size(); ++k) {
    Shape s = inputShape(c, prog.inputs[k]);
    int32_t id = addValue(s, kArgument);
    p.args.push_back(id);
    p.argNames.push_back("arg" + std::to_string(k));
    p.argShardings.push_back(NamedSharding{Mesh{}, PartitionSpec(s.size())});
    p.argGlobalShapes.push_back(s);
    step.inputs.push_back(id);
  }
  int64_t offset = 0;
  auto addResult = [&](Shape s, DType dtype = DType::F32) {
    int32_t id = addValue(s, offset);
    p.values[id].dtype = dtype;
    offset += (numElements(s) * (int64_t)dtypeSize(dtype) + 63) / 64 * 64;
    p.results.push_back(id);
    p.resultShardings.push_back(NamedSharding{Mesh{}, PartitionSpec(s.size())});
    p.resultGlobalShapes.push_back(s);
    step.outputs.push_back(id);
  };
  for (size_t o = 0; o < prog.outputs.size(); ++o)
    addResult({c.rows, c.cols}, prog.outputType(o));
  for (const auto &red : prog.reductions)
    addResult({c.rows * c.cols / red.cols});
  step.attrs = prog.encode();
  p.steps = {step};
  p.arenaBytes = offset;
  return p;
}

std::vector<Array> run(const Case &c, std::shared_ptr<FusedKernelCompiler> compiler) {
  setFusedKernelCompiler(std::move(compiler));
  Plan plan = planOf(c);
  std::vector<Array> args;
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    Array a = Array::uninitialized(DType::F32, plan.argGlobalShapes[k]);
    std::copy(c.inputs[k].begin(), c.inputs[k].end(), a.data<float>());
    args.push_back(std::move(a));
  }
  std::unique_ptr<Backend> cpu = createCpuBackend();
  StatusOr<std::vector<Array>> out = runPlan(*cpu, plan, args);
  setFusedKernelCompiler(nullptr);
  EXPECT_TRUE(out.ok()) << out.message();
  return out.ok() ? std::move(*out) : std::vector<Array>();
}

/// Sum of magnitudes of each row of the reduced register, for the sum
/// tolerance: recomputed by the interpreter on |register|.
double rowScale(const std::vector<float> &row) {
  double s = 0;
  for (float v : row)
    s += std::isfinite(v) ? std::fabs(v) : 0;
  return s;
}

void expectSame(const Case &c, const std::vector<Array> &got, const std::vector<Array> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); ++r) {
    bool isReduction = r >= c.program.outputs.size();
    Match m = c.match;
    if (isReduction && c.program.reductions[r - c.program.outputs.size()].kind == Reduction::Sum)
      m = Match::SumRelative;
    // A reduction's rows: its scale is the magnitude of what it summed, which
    // the values reached (bounded by the sum of the inputs' magnitudes).
    double scale = 0;
    if (m == Match::SumRelative)
      for (const auto &in : c.inputs)
        scale = std::max(scale, rowScale(in));
    const float *g = got[r].data<float>(), *w = want[r].data<float>();
    int bad = 0;
    for (int64_t i = 0; i < got[r].numElements() && bad < 5; ++i)
      if (!same(g[i], w[i], m, scale)) {
        ++bad;
        ADD_FAILURE() << c.what << ": result " << r << " element " << i << ": got " << g[i]
                      << ", interpreter " << w[i];
      }
  }
}

class FusedJitTest : public testing::TestWithParam<int> {
protected:
  void SetUp() override {
    std::string error;
    jit = FusedJit::create(FusedJitOptions{GetParam(), /*compileAfterElements=*/0}, error);
    if (!jit)
      GTEST_SKIP() << error;
  }
  void TearDown() override { setFusedKernelCompiler(nullptr); }

  /// Runs `c` with and without the JIT and compares; also checks the JIT
  /// compiled it.
  void check(const Case &c) {
    SCOPED_TRACE(c.what);
    std::vector<Array> want = run(c, nullptr);
    std::vector<Array> got = run(c, jit);
    // The run compiled the kernel (or found it compiled for another shape):
    // asking again compiles nothing.
    int64_t compiled = jit->stats().compiled;
    EXPECT_NE(jit->kernelFor(c.program, c.program.encode(), 1), nullptr);
    EXPECT_EQ(jit->stats().compiled, compiled) << "the run did not use a kernel";
    expectSame(c, got, want);
  }

  std::shared_ptr<FusedJit> jit;
  std::mt19937 rng{42};
};

// Every elementwise op of OpCodes.def.
const std::vector<shardc::test::ElementwiseRow> kUnary = shardc::test::elementwiseRows(1);
const std::vector<shardc::test::ElementwiseRow> kBinary = shardc::test::elementwiseRows(2);

/// The ops whose kernels are IEEE operations, rounded once (LLVM's own
/// instructions and intrinsics); every other one calls libmvec (within 4
/// ulp of libm).
bool isTranscendental(OpCode op) {
  for (OpCode exact : {OpCode::Neg, OpCode::Abs, OpCode::Sqrt, OpCode::Rsqrt, OpCode::Add,
                       OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Max, OpCode::Min})
    if (op == exact)
      return false;
  return true;
}

TEST_P(FusedJitTest, EveryUnaryOp) {
  for (const auto &row : kUnary)
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 53}, {1, 3}, {5, 17}}) {
      OpCode op = row.op;
      Case c{std::string(opCodeName(op)) + " " + std::to_string(rows) + "x" + std::to_string(cols)};
      c.program.inputs = {{FusedProgram::Whole, 0}};
      c.program.instructions = {I{op, 0, 0, 0}};
      c.program.outputs = {1};
      c.rows = rows, c.cols = cols;
      // The op's smooth range, then wide values (with NaN, infinities and
      // zeros where the op leaves its domain or overflows).
      bool wide = rows != 37;
      c.inputs = {
          values(rows * cols, rng, wide ? -100 : (float)row.lo, wide ? 100 : (float)row.hi)};
      c.match = isTranscendental(op) ? Match::Ulp4 : Match::Exact;
      check(c);
    }
}

// exp below -104 is 0 without libmvec (whose vector exp is slow there):
// exactly the interpreter's 0, and the values near the edge, whose results
// are subnormal, still reach libmvec. Lanes of one vector mix both sides.
TEST_P(FusedJitTest, ExpFarBelowItsRangeIsZero) {
  Case c{"exp near and below -104"};
  std::vector<float> x = {-1e9f,   -200.0f, -104.5f, -104.0f, -103.99f, -103.97f,
                          -103.5f, -100.0f, -90.0f,  -87.0f,  0.0f,     1.0f,
                          -kInf,   kNaN,    -1e30f,  -105.0f, -103.0f};
  c.program.inputs = {{FusedProgram::Whole, 0}};
  c.program.instructions = {I{OpCode::Exp, 0, 0, 0}};
  c.program.outputs = {1};
  c.rows = 1, c.cols = (int64_t)x.size();
  c.inputs = {x};
  c.match = Match::Ulp4;
  check(c);
  std::vector<Array> got = run(c, jit);
  ASSERT_EQ(got.size(), 1u);
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] < -104.0f) {
      float v = got[0].data<float>()[i];
      EXPECT_EQ(std::memcmp(&v, "\0\0\0\0", 4), 0) << "exp(" << x[i] << ") = " << v;
    }
}

// A convert to bf16 fused into its chain: the output is its register
// rounded to nearest even as the runtime's floatToBF16 rounds (ties, NaN,
// infinities, subnormals, which AVX512-BF16's instruction would flush), on
// the JIT as on the interpreter, next to the same register at f32.
TEST_P(FusedJitTest, Bf16OutputsRoundAsConvertDoes) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 53}, {1, 3}, {4, 16}}) {
    Case c{"x * y stored at f32 and at bf16 " + std::to_string(rows) + "x" + std::to_string(cols)};
    c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::Whole, 0}};
    c.program.instructions = {I{OpCode::Mul, 0, 1, 0}};
    c.program.outputs = {2, 2};
    c.program.outputTypes = {DType::F32, DType::BF16};
    c.rows = rows, c.cols = cols;
    std::vector<float> x = values(rows * cols, rng, -3, 3), y(rows * cols, 1.0f);
    // Ties at the rounding bit, both parities, and subnormals.
    const uint32_t edges[] = {0x3f808000u, 0x3f818000u, 0x00018000u, 0x80028000u,
                              0x00000001u, 0x7f7fffffu, 0x3f80ffffu};
    for (size_t i = 0; i < sizeof edges / 4 && i < x.size(); ++i)
      std::memcpy(&x[x.size() - 1 - i], &edges[i], 4);
    c.inputs = {x, y};
    ASSERT_TRUE(c.program.validate(2, 2).ok()) << c.program.validate(2, 2).message();
    for (auto compiler :
         {std::shared_ptr<FusedKernelCompiler>(), std::shared_ptr<FusedKernelCompiler>(jit)}) {
      std::vector<Array> got = run(c, compiler);
      ASSERT_EQ(got.size(), 2u);
      ASSERT_EQ(got[1].dtype(), DType::BF16);
      const float *f = got[0].data<float>();
      const uint16_t *h = (const uint16_t *)got[1].data<uint16_t>();
      int bad = 0;
      for (int64_t i = 0; i < rows * cols && bad < 5; ++i)
        if (h[i] != floatToBF16(f[i])) {
          ++bad;
          ADD_FAILURE() << (compiler ? "JIT" : "interpreter") << ": element " << i << " = " << f[i]
                        << ": bf16 bits " << h[i] << ", want " << floatToBF16(f[i]);
        }
    }
    EXPECT_NE(jit->kernelFor(c.program, c.program.encode(), rows * cols), nullptr);
  }
}

/// A case over every pair of special values: two whole inputs of n x n.
Case specialPairsCase(std::string what, std::vector<I> instructions, std::vector<int64_t> outputs) {
  std::vector<float> s = specials();
  int64_t n = (int64_t)s.size();
  Case c{std::move(what)};
  c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::Whole, 0}};
  c.program.instructions = std::move(instructions);
  c.program.outputs = std::move(outputs);
  c.rows = n, c.cols = n;
  std::vector<float> a, b;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      a.push_back(s[i]), b.push_back(s[j]);
  c.inputs = {a, b};
  return c;
}

TEST_P(FusedJitTest, EveryBinaryOpOnEveryPairOfSpecialValues) {
  for (const auto &row : kBinary) {
    OpCode op = row.op;
    Case c =
        specialPairsCase(std::string(opCodeName(op)) + " of special pairs", {I{op, 0, 1, 0}}, {2});
    c.match = isTranscendental(op) ? Match::Ulp4 : Match::Exact;
    check(c);
  }
}

TEST_P(FusedJitTest, EveryBinaryOpOnRandomValues) {
  for (const auto &row : kBinary) {
    OpCode op = row.op;
    Case c{std::string(opCodeName(op)) + " random 29x41"};
    c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::Whole, 0}};
    // Then an exact op (a second pow would amplify the first one's error).
    OpCode then = isTranscendental(op) ? OpCode::Mul : op;
    c.program.instructions = {I{op, 0, 1, 0}, I{then, 2, 1, 0}};
    c.program.outputs = {2, 3};
    c.rows = 29, c.cols = 41;
    bool pow = op == OpCode::Pow;
    c.inputs = {values(29 * 41, rng, pow ? 0 : -10, 10, false),
                values(29 * 41, rng, pow ? -4 : -10, pow ? 4 : 10, false)};
    c.match = isTranscendental(op) ? Match::Ulp4 : Match::Exact;
    check(c);
  }
}

// Compare (every direction) feeding a select, the fused form of max's
// gradient: bit-exact against the interpreter on every pair of specials.
TEST_P(FusedJitTest, CompareAndSelectOnEveryPairOfSpecialValues) {
  for (int64_t direction = 0; direction <= 5; ++direction)
    check(specialPairsCase(
        "compare " + std::to_string(direction) + " and select of special pairs",
        {I{OpCode::Compare, 0, 1, 0, 0, direction}, I{OpCode::Select, 2, 0, 0, 1}}, {2, 3}));
}

TEST_P(FusedJitTest, EveryLoadMode) {
  using M = FusedProgram::LoadMode;
  struct Loads {
    std::string what;
    M a, b;
  };
  for (const Loads &l : {Loads{"whole + along rows", M::Whole, M::AlongRows},
                         Loads{"whole + along columns", M::Whole, M::AlongColumns},
                         Loads{"whole + scalar", M::Whole, M::Scalar},
                         Loads{"along rows + along columns", M::AlongRows, M::AlongColumns},
                         Loads{"along columns + scalar", M::AlongColumns, M::Scalar}})
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{31, 67}, {3, 1}, {2, 33}, {1, 5}}) {
      Case c{l.what + " " + std::to_string(rows) + "x" + std::to_string(cols)};
      c.program.inputs = {{l.a, cols}, {l.b, cols}};
      // r2 = a * b; r3 = 0.25; r4 = r2 + r3; r5 = max(r4, a)
      c.program.instructions = {I{OpCode::Mul, 0, 1, 0}, I{OpCode::Constant, 0, 0, 0.25f},
                                I{OpCode::Add, 2, 3, 0}, I{OpCode::Max, 4, 0, 0}};
      c.program.outputs = {5, 2};
      c.rows = rows, c.cols = cols;
      for (const auto &in : c.program.inputs)
        c.inputs.push_back(values(numElements(inputShape(c, in)), rng, -3, 3));
      check(c);
    }
}

TEST_P(FusedJitTest, RowReductions) {
  for (int64_t kind : {0, 1, 2})
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{23, 71}, {4, 1}, {7, 16}, {2, 3}})
      for (bool withOutput : {false, true}) {
        Case c{std::string("reduce ") +
               (kind == 0   ? "sum"
                : kind == 1 ? "max"
                            : "min") +
               " of exp(x) * bias " + std::to_string(rows) + "x" + std::to_string(cols)};
        c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::AlongRows, cols}};
        c.program.instructions = {I{OpCode::Exp, 0, 0, 0}, I{OpCode::Mul, 2, 1, 0}};
        if (withOutput)
          c.program.outputs = {3};
        c.program.reductions = {{3, (Reduction)kind, cols}};
        c.rows = rows, c.cols = cols;
        c.inputs = {values(rows * cols, rng, -2, 2), values(cols, rng, -1, 1, false)};
        // exp is not exact: the reduced register may differ by an ulp or two.
        c.match = Match::Ulp4;
        check(c);
      }
}

// The interpreter computes a program's last instruction straight into its
// output buffer. A splat constant or a reduction's read there computes
// nothing per tile: it is copied out like any other output. (Padded
// partitioning makes the first: the zeros a mask selects, an output of the
// step that computes what they replace.)
TEST_P(FusedJitTest, AConstantOrAReductionsReadLastIsStillAnOutput) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{3, 2}, {5, 300}}) {
    std::string shape = " " + std::to_string(rows) + "x" + std::to_string(cols);
    {
      Case c{"x + 1, then the constant 2.5 last" + shape};
      // r0 x; r1 1, r2 x + 1, r3 2.5.
      c.program.inputs = {{FusedProgram::Whole, 0}};
      c.program.instructions = {I{OpCode::Constant, 0, 0, 1.0f}, I{OpCode::Add, 0, 1, 0},
                                I{OpCode::Constant, 0, 0, 2.5f}};
      c.program.outputs = {2, 3};
      c.rows = rows, c.cols = cols;
      c.inputs = {values(rows * cols, rng, -1, 1, false)};
      std::vector<Array> interpreted = run(c, nullptr);
      ASSERT_EQ(interpreted.size(), 2u);
      for (int64_t i = 0; i < rows * cols; ++i)
        ASSERT_EQ(interpreted[1].data<float>()[i], 2.5f) << c.what << ", element " << i;
      check(c);
    }
    {
      Case c{"a row's sum read back last" + shape};
      // r0 x; r1 the sum of r0's row.
      c.program.inputs = {{FusedProgram::Whole, 0}};
      c.program.instructions = {I{OpCode::Reduce, 0, 0, 0}};
      c.program.outputs = {1};
      c.program.reductions = {{0, Reduction::Sum, cols}};
      c.rows = rows, c.cols = cols;
      c.inputs = {values(rows * cols, rng, -1, 1, false)};
      std::vector<Array> interpreted = run(c, nullptr);
      ASSERT_EQ(interpreted.size(), 2u);
      for (int64_t r = 0; r < rows; ++r) {
        double sum = 0;
        for (int64_t j = 0; j < cols; ++j)
          sum += c.inputs[0][r * cols + j];
        for (int64_t j = 0; j < cols; ++j)
          ASSERT_NEAR(interpreted[0].data<float>()[r * cols + j], sum, 1e-5)
              << c.what << ", row " << r << ", column " << j;
      }
      c.match = Match::SumRelative;
      check(c);
    }
  }
}

TEST_P(FusedJitTest, MaxAndMinReductionsPickTheFirstSignedZero) {
  for (int64_t kind : {1, 2}) {
    Case c{kind == 1 ? "max of zeros and negatives" : "min of zeros and positives"};
    int64_t rows = 9, cols = 37;
    c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::Whole, 0}};
    c.program.instructions = {I{OpCode::Mul, 0, 1, 0}, I{OpCode::Abs, 2, 0, 0}};
    c.program.reductions = {{2, (Reduction)kind, cols}};
    c.rows = rows, c.cols = cols;
    std::vector<float> a, b;
    std::uniform_int_distribution<int> pick(0, 3);
    for (int64_t i = 0; i < rows * cols; ++i) {
      int r = pick(rng);
      float sign = kind == 1 ? -1.0f : 1.0f;
      // Rows mix +0, -0 and values on the reduction's losing side.
      a.push_back(r == 0 ? 0.0f : r == 1 ? -0.0f : sign * (1 + (float)(i % 5)));
      b.push_back(1.0f);
    }
    c.inputs = {a, b};
    check(c);
  }
}

/// Calls the kernel directly on ranges that split rows, and in place.
TEST_P(FusedJitTest, RangesStartingMidRowAndInPlace) {
  int64_t rows = 13, cols = 45, n = rows * cols;
  FusedProgram p;
  p.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::AlongColumns, cols}};
  // r2 = x * col; r3 = exp(r2); r4 = r3 + x
  p.instructions = {I{OpCode::Mul, 0, 1, 0}, I{OpCode::Exp, 2, 0, 0}, I{OpCode::Add, 3, 0, 0}};
  p.outputs = {4};
  p.reductions = {{4, Reduction::Sum, cols}, {2, Reduction::Max, cols}};
  FusedKernelFn kernel = jit->kernelFor(p, p.encode(), n);
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x = values(n, rng, -2, 2, false), col = values(rows, rng, -1, 1, false);
  auto runRanges = [&](const std::vector<int64_t> &cuts, bool inPlace) {
    std::vector<float> y(n), xs = x;
    std::vector<double> sum(rows, 0.0), mx(rows, -INFINITY);
    const float *in[] = {xs.data(), col.data()};
    float *out[] = {inPlace ? xs.data() : y.data()};
    double *acc[] = {sum.data(), mx.data()};
    for (size_t k = 0; k + 1 < cuts.size(); ++k)
      kernel(in, out, acc, cuts[k], cuts[k + 1]);
    return std::make_tuple(inPlace ? xs : y, sum, mx);
  };
  auto [y0, sum0, max0] = runRanges({0, n}, false);
  std::vector<int64_t> cuts = {0, 1, 7, 44, 46, 100, 101, 233, 234, 400, n};
  for (bool inPlace : {false, true}) {
    SCOPED_TRACE(inPlace ? "in place" : "separate output");
    auto [y, sum, mx] = runRanges(inPlace ? std::vector<int64_t>{0, n} : cuts, inPlace);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(same(y[i], y0[i], Match::Exact)) << "element " << i;
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_NEAR(sum[r], sum0[r], 1e-9 * std::max(1.0, std::fabs(sum0[r]))) << "row " << r;
      EXPECT_EQ(mx[r], max0[r]) << "row " << r;
    }
  }
  // The whole range, against a scalar recomputation of the outputs.
  for (int64_t i = 0; i < n; ++i) {
    float e = std::exp(x[i] * col[i / cols]), want = e + x[i];
    ASSERT_NEAR(y0[i], want, 1e-6 * (std::fabs(e) + std::fabs(x[i]))) << "element " << i;
  }
}

TEST_P(FusedJitTest, KernelsAreCachedByProgram) {
  FusedProgram p;
  p.inputs = {{FusedProgram::Whole, 0}};
  p.instructions = {I{OpCode::Neg, 0, 0, 0}, I{OpCode::Exp, 1, 0, 0}};
  p.outputs = {2};
  FusedKernelFn first = jit->kernelFor(p, p.encode(), 1);
  int64_t compiled = jit->stats().compiled;
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(jit->kernelFor(p, p.encode(), 1), first);
  EXPECT_EQ(jit->stats().compiled, compiled);
  EXPECT_GT(jit->stats().compileMs, 0.0);
  EXPECT_NE(jit->optimizedIR(p).find("expf"), std::string::npos);
}

TEST_P(FusedJitTest, NestedRowLengthsCompile) {
  // A [3,7] mask over [3,3,7] scores reduced by rows of 7 (attention's
  // shapes): segments of 7 never cross a row of 21.
  Case c{"bias along 21 columns, reduction over 7"};
  c.program.inputs = {
      {FusedProgram::Whole, 0}, {FusedProgram::AlongRows, 21}, {FusedProgram::AlongColumns, 21}};
  c.program.instructions = {I{OpCode::Add, 0, 1, 0}, I{OpCode::Mul, 3, 2, 0},
                            I{OpCode::Exp, 4, 0, 0}};
  c.program.outputs = {5};
  c.program.reductions = {{5, Reduction::Sum, 7}, {4, Reduction::Max, 21}};
  c.rows = 3, c.cols = 21;
  c.inputs = {values(63, rng, -1, 1), values(21, rng, -1, 1), values(3, rng, -1, 1)};
  c.match = Match::Ulp4; // exp
  EXPECT_NE(jit->kernelFor(c.program, c.program.encode(), 63), nullptr);
  std::vector<Array> want = run(c, nullptr), got = run(c, jit);
  expectSame(c, got, want);
}

TEST_P(FusedJitTest, RowLengthsThatDoNotNestFallBackToTheInterpreter) {
  Case c{"bias along 10 columns, reduction over 6"};
  c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::AlongRows, 10}};
  c.program.instructions = {I{OpCode::Add, 0, 1, 0}, I{OpCode::Exp, 2, 0, 0}};
  c.program.outputs = {3};
  c.program.reductions = {{3, Reduction::Sum, 6}};
  c.rows = 6, c.cols = 10;
  c.inputs = {values(60, rng, -1, 1), values(10, rng, -1, 1)};
  EXPECT_EQ(jit->kernelFor(c.program, c.program.encode(), 60), nullptr);
  EXPECT_EQ(jit->stats().declined, 1);
  std::vector<Array> want = run(c, nullptr), got = run(c, jit);
  expectSame(c, got, want);
}

/// Per register of a row program, the pass over a row that can compute it:
/// a Reduce instruction one past its reduction's register.
std::vector<int> passesOf(const FusedProgram &p) {
  std::vector<int> pass(p.inputs.size(), 0);
  for (const I &in : p.instructions) {
    int q = 0;
    if (in.op == OpCode::Reduce)
      q = pass[p.reductions[in.x].reg] + 1;
    else if (in.op != OpCode::Constant)
      q = std::max(
          {pass[in.x],
           isBinary(in.op) || in.op == OpCode::Compare || in.op == OpCode::Select ? pass[in.y] : 0,
           in.op == OpCode::Select ? pass[in.z] : 0});
    pass.push_back(q);
  }
  return pass;
}

/// What a row program stands for: the chain of programs split at its
/// Reduce instructions, run one after another (each a step of its own),
/// every one reading the reductions before it as AlongColumns inputs in
/// place of its Reduce instructions. Reductions not computed yet read
/// zeros, which no result of their pass depends on.
std::vector<Array> runAsChain(const Case &c, std::shared_ptr<FusedKernelCompiler> compiler) {
  const FusedProgram &p = c.program;
  std::vector<int> pass = passesOf(p);
  int last = *std::max_element(pass.begin(), pass.end());
  int64_t nIn = (int64_t)p.inputs.size(), numRed = (int64_t)p.reductions.size();
  // Registers of the chain's programs: the inputs, one per reduction, then
  // the instructions but the Reduce ones, which are those inputs.
  std::vector<int64_t> regOf;
  for (int64_t r = 0; r < nIn; ++r)
    regOf.push_back(r);
  std::vector<I> instructions;
  for (const I &in : p.instructions) {
    if (in.op == OpCode::Reduce) {
      regOf.push_back(nIn + in.x);
      continue;
    }
    I out = in;
    if (in.op != OpCode::Constant) {
      out.x = regOf[in.x];
      if (isBinary(in.op) || in.op == OpCode::Compare || in.op == OpCode::Select)
        out.y = regOf[in.y];
      if (in.op == OpCode::Select)
        out.z = regOf[in.z];
    }
    regOf.push_back(nIn + numRed + (int64_t)instructions.size());
    instructions.push_back(out);
  }
  std::vector<std::vector<float>> reduced(numRed, std::vector<float>(c.rows, 0.0f));
  std::vector<Array> outputs;
  for (int q = 0; q <= last; ++q) {
    Case d{c.what + ", pass " + std::to_string(q)};
    d.rows = c.rows, d.cols = c.cols;
    d.program.inputs = p.inputs;
    d.inputs = c.inputs;
    for (int64_t k = 0; k < numRed; ++k) {
      EXPECT_EQ(p.reductions[k].cols, c.cols);
      d.program.inputs.push_back({FusedProgram::AlongColumns, c.cols});
      d.inputs.push_back(reduced[k]);
    }
    d.program.instructions = instructions;
    if (q == last)
      for (int64_t o : p.outputs)
        d.program.outputs.push_back(regOf[o]);
    std::vector<int64_t> mine;
    for (int64_t k = 0; k < numRed; ++k)
      if (pass[p.reductions[k].reg] == q) {
        d.program.reductions.push_back(p.reductions[k]);
        d.program.reductions.back().reg = regOf[p.reductions[k].reg];
        mine.push_back(k);
      }
    std::vector<Array> got = run(d, compiler);
    if (got.size() != d.program.outputs.size() + mine.size())
      return {};
    for (size_t m = 0; m < mine.size(); ++m) {
      const Array &r = got[d.program.outputs.size() + m];
      reduced[mine[m]].assign(r.data<float>(), r.data<float>() + r.numElements());
    }
    if (q == last)
      for (size_t o = 0; o < p.outputs.size(); ++o)
        outputs.push_back(std::move(got[o]));
  }
  for (int64_t k = 0; k < numRed; ++k) {
    Array a = Array::uninitialized(DType::F32, {c.rows});
    std::copy(reduced[k].begin(), reduced[k].end(), a.data<float>());
    outputs.push_back(std::move(a));
  }
  return outputs;
}

/// Bit for bit, but any NaN for any NaN: which of two NaN operands an
/// addition returns depends on the order the compiler gave them.
void expectSameBits(const std::string &what, const std::vector<Array> &got,
                    const std::vector<Array> &want) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t r = 0; r < got.size(); ++r) {
    ASSERT_EQ(got[r].numElements(), want[r].numElements()) << what;
    const float *g = got[r].data<float>(), *w = want[r].data<float>();
    int bad = 0;
    for (int64_t i = 0; i < got[r].numElements() && bad < 5; ++i)
      if (std::memcmp(&g[i], &w[i], 4) != 0 && !(std::isnan(g[i]) && std::isnan(w[i]))) {
        ++bad;
        ADD_FAILURE() << what << ": result " << r << " element " << i << ": " << g[i]
                      << ", as a chain " << w[i];
      }
  }
}

/// Row programs of the shapes fusion makes: a masked, scaled softmax (and
/// its exponentials), softmax's gradient, a layer norm's statistics, a
/// reduction only stored, and maxima of signed zeros.
std::vector<Case> rowPrograms(int64_t rows, int64_t cols, std::mt19937 &rng) {
  std::vector<Case> cases;
  std::string shape = " " + std::to_string(rows) + "x" + std::to_string(cols);
  {
    Case c{"softmax(x * 0.125 + mask)" + shape};
    // r0 x, r1 mask; r2 0.125, r3 x*0.125, r4 +mask, r5 max, r6 -max, r7 exp,
    // r8 sum, r9 e / sum.
    c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::AlongRows, cols}};
    c.program.instructions = {I{OpCode::Constant, 0, 0, 0.125f}, I{OpCode::Mul, 0, 2, 0},
                              I{OpCode::Add, 3, 1, 0},           I{OpCode::Reduce, 0, 0, 0},
                              I{OpCode::Sub, 4, 5, 0},           I{OpCode::Exp, 6, 0, 0},
                              I{OpCode::Reduce, 1, 0, 0},        I{OpCode::Div, 7, 8, 0}};
    c.program.outputs = {7, 9};
    c.program.reductions = {{4, Reduction::Max, cols}, {7, Reduction::Sum, cols}};
    std::vector<float> mask(cols, 0.0f);
    for (int64_t j = cols / 2 + 1; j < cols; ++j)
      mask[j] = -1e9f;
    c.inputs = {values(rows * cols, rng, -8, 8), mask};
    c.match = Match::SumRelative; // divided by a sum
    cases.push_back(c);
  }
  {
    Case c{"softmax gradient p * (g - sum(g * p))" + shape};
    c.program.inputs = {{FusedProgram::Whole, 0}, {FusedProgram::Whole, 0}};
    c.program.instructions = {I{OpCode::Mul, 0, 1, 0}, I{OpCode::Reduce, 0, 0, 0},
                              I{OpCode::Sub, 0, 3, 0}, I{OpCode::Mul, 1, 4, 0}};
    c.program.outputs = {5};
    c.program.reductions = {{2, Reduction::Sum, cols}};
    c.inputs = {values(rows * cols, rng, -1, 1), values(rows * cols, rng, 0, 1, false)};
    c.match = Match::SumRelative;
    cases.push_back(c);
  }
  {
    Case c{"layer norm (x - mean) * rsqrt(var + eps) * gamma + beta" + shape};
    float inv = 1.0f / (float)cols;
    // r0 x, r1 gamma, r2 beta; r3 1/n, r4 sum, r5 mean, r6 x - mean,
    // r7 squared, r8 sum of squares, r9 var, r10 eps, r11 +eps, r12 rsqrt,
    // r13 normalized, r14 * gamma, r15 + beta.
    c.program.inputs = {
        {FusedProgram::Whole, 0}, {FusedProgram::AlongRows, cols}, {FusedProgram::AlongRows, cols}};
    c.program.instructions = {I{OpCode::Constant, 0, 0, inv}, I{OpCode::Reduce, 0, 0, 0},
                              I{OpCode::Mul, 4, 3, 0},        I{OpCode::Sub, 0, 5, 0},
                              I{OpCode::Mul, 6, 6, 0},        I{OpCode::Reduce, 1, 0, 0},
                              I{OpCode::Mul, 8, 3, 0},        I{OpCode::Constant, 0, 0, 1e-5f},
                              I{OpCode::Add, 9, 10, 0},       I{OpCode::Rsqrt, 11, 0, 0},
                              I{OpCode::Mul, 6, 12, 0},       I{OpCode::Mul, 13, 1, 0},
                              I{OpCode::Add, 14, 2, 0}};
    c.program.outputs = {15, 12};
    c.program.reductions = {{0, Reduction::Sum, cols}, {7, Reduction::Sum, cols}};
    c.inputs = {values(rows * cols, rng, -3, 3), values(cols, rng, 0.5, 1.5, false),
                values(cols, rng, -1, 1, false)};
    c.match = Match::SumRelative;
    cases.push_back(c);
  }
  {
    Case c{"a reduction read, another only stored" + shape};
    c.program.inputs = {{FusedProgram::Whole, 0}};
    c.program.instructions = {I{OpCode::Reduce, 0, 0, 0}, I{OpCode::Sub, 0, 1, 0},
                              I{OpCode::Abs, 2, 0, 0}};
    c.program.outputs = {2};
    c.program.reductions = {{0, Reduction::Min, cols}, {3, Reduction::Max, cols}};
    c.inputs = {values(rows * cols, rng, -2, 2)};
    cases.push_back(c);
  }
  {
    Case c{"a sum read back twice: (x - s) / s" + shape};
    // r0 x; r1 s, r2 x - s, r3 s again, r4 (x - s) / s.
    c.program.inputs = {{FusedProgram::Whole, 0}};
    c.program.instructions = {I{OpCode::Reduce, 0, 0, 0}, I{OpCode::Sub, 0, 1, 0},
                              I{OpCode::Reduce, 0, 0, 0}, I{OpCode::Div, 2, 3, 0}};
    c.program.outputs = {4};
    c.program.reductions = {{0, Reduction::Sum, cols}};
    c.inputs = {values(rows * cols, rng, 0.5, 2, false)};
    c.match = Match::SumRelative;
    cases.push_back(c);
  }
  {
    Case c{"max of signed zeros, then x - max" + shape};
    std::vector<float> x;
    for (int64_t i = 0; i < rows * cols; ++i)
      x.push_back(i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : -1.0f);
    c.program.inputs = {{FusedProgram::Whole, 0}};
    c.program.instructions = {I{OpCode::Reduce, 0, 0, 0}, I{OpCode::Sub, 0, 1, 0}};
    c.program.outputs = {1, 2};
    c.program.reductions = {{0, Reduction::Max, cols}};
    c.inputs = {x};
    cases.push_back(c);
  }
  for (Case &c : cases)
    c.rows = rows, c.cols = cols;
  return cases;
}

// A row program gives, bit for bit, what the chain of programs it stands
// for gives, through the interpreter and through the JIT (whose sums may
// differ from the interpreter's in the last place, as for any program).
// Rows of 40,000 are too long for the JIT's row buffers: its later passes
// compute again what the earlier ones did.
TEST_P(FusedJitTest, RowProgramsGiveTheirChainsBitForBit) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 37},
                            {33, 128},
                            {4, 1},
                            {3, 16},
                            {2, 300},
                            {1, 9},
                            {2, 40000}})
    for (const Case &c : rowPrograms(rows, cols, rng)) {
      SCOPED_TRACE(c.what);
      ASSERT_TRUE(
          c.program
              .validate(c.inputs.size(), c.program.outputs.size() + c.program.reductions.size())
              .ok());
      std::vector<Array> interpreted = run(c, nullptr);
      expectSameBits(c.what + " (interpreter)", interpreted, runAsChain(c, nullptr));
      std::vector<Array> compiled = run(c, jit);
      expectSameBits(c.what + " (JIT)", compiled, runAsChain(c, jit));
      EXPECT_NE(jit->kernelFor(c.program, c.program.encode(), rows * cols), nullptr);
      expectSame(c, compiled, interpreted);
    }
}

TEST(FusedJitPolicy, CompilesOnceTheInterpreterHasRunEnoughElements) {
  std::string error;
  std::shared_ptr<FusedJit> jit =
      FusedJit::create(FusedJitOptions{0, /*compileAfterElements=*/1000}, error);
  ASSERT_TRUE(jit) << error;
  FusedProgram p;
  p.inputs = {{FusedProgram::Whole, 0}};
  p.instructions = {I{OpCode::Abs, 0, 0, 0}, I{OpCode::Sqrt, 1, 0, 0}};
  p.outputs = {2};
  EXPECT_EQ(jit->kernelFor(p, p.encode(), 600), nullptr);
  EXPECT_EQ(jit->stats().waiting, 1);
  EXPECT_EQ(jit->stats().compiled, 0);
  FusedKernelFn kernel = jit->kernelFor(p, p.encode(), 600); // 1200 in all
  EXPECT_NE(kernel, nullptr);
  EXPECT_EQ(jit->stats().waiting, 0);
  EXPECT_EQ(jit->stats().compiled, 1);
  // A large step compiles on its first call.
  p.instructions[0].op = OpCode::Neg;
  EXPECT_NE(jit->kernelFor(p, p.encode(), 5000), nullptr);
  EXPECT_EQ(jit->stats().compiled, 2);
}

// A backend keeps the kernels chosen for a plan once they are final, and
// uses them again only for the same programs: a plan changed in place (at
// the same address) and a new compiler are asked again.
TEST(FusedJitPolicy, ABackendKeepsAPlansKernelsOnlyForTheSameProgram) {
  std::string error;
  std::shared_ptr<FusedJit> jit =
      FusedJit::create(FusedJitOptions{0, /*compileAfterElements=*/0}, error);
  ASSERT_TRUE(jit) << error;
  Case c{"neg", {}, 2, 4, {{1, -2, 3, -4, 5, -6, 7, -8}}};
  c.program.inputs = {{FusedProgram::Whole, 0}};
  c.program.instructions = {I{OpCode::Neg, 0, 0, 0}};
  c.program.outputs = {1};
  Plan plan = planOf(c);
  Array x = Array::uninitialized(DType::F32, {2, 4});
  std::copy(c.inputs[0].begin(), c.inputs[0].end(), x.data<float>());
  std::unique_ptr<Backend> cpu = createCpuBackend();
  auto first = [&]() {
    StatusOr<std::vector<Array>> out = runPlan(*cpu, plan, {x});
    EXPECT_TRUE(out.ok()) << out.message();
    return out.ok() ? (*out)[0].data<float>()[0] : NAN;
  };
  setFusedKernelCompiler(jit);
  EXPECT_EQ(first(), -1); // -(1)
  EXPECT_TRUE(jit->settled(plan.steps[0].attrs));
  int64_t compiled = jit->stats().compiled;
  EXPECT_EQ(first(), -1); // the kept kernel: nothing asked, nothing compiled
  EXPECT_EQ(jit->stats().compiled, compiled);
  // The same plan object, another program: abs, not neg.
  c.program.instructions[0].op = OpCode::Abs;
  plan.steps[0].attrs = c.program.encode();
  EXPECT_FALSE(jit->settled(plan.steps[0].attrs));
  EXPECT_EQ(first(), 1); // |1|, not the kept -1
  c.program.instructions[0].op = OpCode::Neg;
  plan.steps[0].attrs = c.program.encode();
  EXPECT_EQ(first(), -1);
  // Another compiler (the interpreter alone): the kept kernels are not used.
  setFusedKernelCompiler(nullptr);
  EXPECT_EQ(first(), -1);
  std::shared_ptr<FusedJit> other =
      FusedJit::create(FusedJitOptions{0, /*compileAfterElements=*/0}, error);
  ASSERT_TRUE(other) << error;
  setFusedKernelCompiler(other);
  EXPECT_EQ(first(), -1);
  EXPECT_EQ(other->stats().compiled + other->stats().loaded, 1);
  setFusedKernelCompiler(nullptr);
}

TEST(FusedJitPolicy, KernelsPersistOnDiskForTheNextProcess) {
  char tmpl[] = "/tmp/shardc-kernels-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = std::string(tmpl) + "/kernels";
  FusedProgram p;
  p.inputs = {{FusedProgram::Whole, 0}};
  p.instructions = {I{OpCode::Tanh, 0, 0, 0}, I{OpCode::Mul, 1, 0, 0}};
  p.outputs = {2};
  std::vector<float> x = {-1.5f, 0.0f, 0.25f, 3.0f}, y(4), z(4);
  auto run = [&](FusedKernelFn kernel, std::vector<float> &out) {
    const float *in[] = {x.data()};
    float *outs[] = {out.data()};
    kernel(in, outs, nullptr, 0, 4);
  };
  std::string error;
  FusedJitOptions options{0, /*compileAfterElements=*/0};
  options.cacheDir = dir;
  {
    std::shared_ptr<FusedJit> first = FusedJit::create(options, error);
    ASSERT_TRUE(first) << error;
    FusedKernelFn kernel = first->kernelFor(p, p.encode(), 4);
    ASSERT_NE(kernel, nullptr);
    run(kernel, y);
    EXPECT_EQ(first->stats().compiled, 1);
    EXPECT_EQ(first->stats().loaded, 0);
  }
  // A new JIT (as in the next process) waits for the same thresholds as a
  // cold one, so a run's bits do not depend on the disk, and then loads it,
  // compiling nothing.
  options.compileAfterElements = int64_t(1) << 40;
  options.compileAfterCalls = 3;
  std::shared_ptr<FusedJit> second = FusedJit::create(options, error);
  ASSERT_TRUE(second) << error;
  EXPECT_EQ(second->kernelFor(p, p.encode(), 4), nullptr);
  EXPECT_EQ(second->kernelFor(p, p.encode(), 4), nullptr);
  FusedKernelFn kernel = second->kernelFor(p, p.encode(), 4);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(second->stats().loaded, 1);
  EXPECT_EQ(second->stats().compiled, 0);
  run(kernel, z);
  EXPECT_EQ(y, z);
  EXPECT_FLOAT_EQ(z[3], std::tanh(3.0f) * 3.0f);
  // A damaged file is ignored: the program is compiled again.
  for (const auto &e : std::filesystem::directory_iterator(dir)) {
    std::string bytes = readFile(e.path().string()).value();
    bytes[bytes.size() / 2] ^= 0x40;
    ASSERT_TRUE(writeFileAtomically(e.path().string(), bytes).ok());
  }
  std::shared_ptr<FusedJit> third = FusedJit::create(options, error);
  ASSERT_TRUE(third) << error;
  EXPECT_EQ(third->kernelFor(p, p.encode(), 4), nullptr);
  EXPECT_EQ(third->kernelFor(p, p.encode(), 4), nullptr);
  EXPECT_NE(third->kernelFor(p, p.encode(), 4), nullptr);
  EXPECT_EQ(third->stats().loaded, 0);
  EXPECT_EQ(third->stats().compiled, 1);
  std::filesystem::remove_all(tmpl);
}

INSTANTIATE_TEST_SUITE_P(Widths, FusedJitTest, testing::Values(16, 8, 4),
                         [](const testing::TestParamInfo<int> &info) {
                           return "width" + std::to_string(info.param);
                         });

TEST(FusedJitInstall, InstallsTheJitUnlessDisabled) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // In child processes, so the environment is read afresh.
  EXPECT_EXIT(
      {
        setenv("SHARDC_FUSED_JIT", "1", 1);
        std::shared_ptr<FusedJit> jit = installFusedJit();
        std::exit(jit && fusedKernelCompiler() == jit.get() ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        setenv("SHARDC_FUSED_JIT", "0", 1);
        std::exit(!installFusedJit() && !fusedKernelCompiler() ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

} // namespace
