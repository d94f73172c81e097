//===- AutodiffTest.cpp - gradients checked by finite differences ---------===//
//
// Every differentiable op's gradient rule, checked by numbers: for each op a
// small f64 program `loss = reduce sum (op(...) * R)`, with R a fixed random
// tensor so that the adjoint reaching the op is not a constant, is
// differentiated with shardc::differentiate, and each gradient element is
// compared with the central difference (f(x + eps) - f(x - eps)) / 2 eps of
// the original function, both run in the reference interpreter (eps 1e-6,
// agreement within 1e-6 (1 + |difference|)). Inputs are drawn with a seeded
// generator away from the points where an op is not differentiable (ties of
// max/min, 0 for abs, non-positive bases for log/sqrt/rsqrt/pow). Then an MLP
// with a softmax cross-entropy loss, its data-parallel gradient partitioned,
// and the programs that autodiff rejects, each with its diagnostic.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Autodiff.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "OpCatalogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;

namespace {

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// How the elements of one argument are drawn.
struct Init {
  enum Kind {
    Uniform,      // [-1, 1)
    Positive,     // [0.5, 2): bases of log, sqrt, rsqrt, pow
    AwayFromZero, // +-[0.25, 1): abs, divisors
    Distinct,     // all Distinct elements of a program at least 1/N apart: max, min
    Index,        // integers in [0, bound): take and scatter_add indices
    Bool,         // i1
    Range,        // [lo, hi): an op's smooth range from OpCodes.def
  } kind = Uniform;
  int64_t bound = 0;
  double lo = 0, hi = 0;
};
const Init kUniform{Init::Uniform}, kPositive{Init::Positive}, kAwayFromZero{Init::AwayFromZero},
    kDistinct{Init::Distinct}, kBool{Init::Bool};
Init indexBelow(int64_t bound) { return {Init::Index, bound}; }

/// Inputs for `fn`'s arguments, `inits[i]` for argument i (Uniform past the
/// end). With `quantize`, float elements are multiples of 2^-16 so that they
/// and x +- 2^-12 are exact in f32.
std::vector<Array> drawInputs(func::FuncOp fn, const std::vector<Init> &inits, std::mt19937 &rng,
                              bool quantize) {
  auto initOf = [&](unsigned i) { return i < inits.size() ? inits[i] : kUniform; };
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // The pool of Distinct values: N well-separated points, shuffled.
  int64_t numDistinct = 0;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (initOf(i).kind == Init::Distinct)
      numDistinct += cast<RankedTensorType>(fn.getArgumentTypes()[i]).getNumElements();
  std::vector<double> pool;
  for (int64_t k = 0; k < numDistinct; ++k)
    pool.push_back(-1.0 + (2.0 * k + 1.0 + 0.5 * (unit(rng) - 0.5)) / numDistinct);
  std::shuffle(pool.begin(), pool.end(), rng);

  std::vector<Array> inputs;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
    DType dtype = *toDType(type.getElementType());
    Array a(dtype, Shape(type.getShape().begin(), type.getShape().end()));
    Init init = initOf(i);
    for (int64_t j = 0; j < a.numElements(); ++j) {
      double v = 0;
      switch (init.kind) {
      case Init::Uniform:
        v = 2.0 * unit(rng) - 1.0;
        break;
      case Init::Positive:
        v = 0.5 + 1.5 * unit(rng);
        break;
      case Init::AwayFromZero:
        v = (unit(rng) < 0.5 ? -1.0 : 1.0) * (0.25 + 0.75 * unit(rng));
        break;
      case Init::Distinct:
        v = pool.back();
        pool.pop_back();
        break;
      case Init::Index:
        v = std::uniform_int_distribution<int64_t>(0, init.bound - 1)(rng);
        break;
      case Init::Bool:
        v = unit(rng) < 0.5 ? 0.0 : 1.0;
        break;
      case Init::Range:
        v = init.lo + (init.hi - init.lo) * unit(rng);
        break;
      }
      if (quantize && isFloat(dtype))
        v = std::round(v * 65536.0) / 65536.0;
      a.setDouble(j, v);
    }
    inputs.push_back(std::move(a));
  }
  return inputs;
}

/// `dense<...>` of random values in [-1, 1) for a static shape.
std::string randomDense(ArrayRef<int64_t> shape, std::mt19937 &rng) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::ostringstream os;
  std::function<void(size_t)> emit = [&](size_t dim) {
    if (dim == shape.size()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", real(rng));
      os << buf;
      return;
    }
    os << "[";
    for (int64_t k = 0; k < shape[dim]; ++k) {
      os << (k ? ", " : "");
      emit(dim + 1);
    }
    os << "]";
  };
  emit(0);
  return "dense<" + os.str() + ">";
}

//===----------------------------------------------------------------------===//
// The gradient check
//===----------------------------------------------------------------------===//

/// Options of one gradient check.
struct Check {
  /// Argument numbers for differentiate(); empty: every float argument.
  std::vector<unsigned> wrt;
  /// Finite-difference step; 2^-12 with `quantize` for programs with f32
  /// values, whose steps must be exact.
  double eps = 1e-6;
  bool quantize = false;
  /// Module text before the function (meshes).
  std::string prelude;
  uint32_t seed = 1;
  /// The function is a step function of the arguments (floor, ceil,
  /// round_even): its gradient is zero away from the steps, and the finite
  /// differences at the drawn inputs must be zero too.
  bool piecewiseConstant = false;
};

class Autodiff : public testing::Test {
protected:
  Autodiff()
      : handler(&ctx, [this](Diagnostic &d) {
          diagnostics += d.str() + "\n";
          return success();
        }) {
    ctx.loadDialect<ShardcDialect, func::FuncDialect>();
  }

  OwningOpRef<ModuleOp> parse(const std::string &text) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    EXPECT_TRUE(module) << diagnostics << "\n" << text;
    return module;
  }

  /// Differentiates @`name` of `module` and compares every gradient element
  /// with the central difference of the original function at `inputs`.
  void expectGradientsMatchFiniteDifferences(ModuleOp module, StringRef name,
                                             const std::vector<Array> &inputs, const Check &check) {
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    ASSERT_TRUE(fn);
    FailureOr<func::FuncOp> grad = differentiate(fn, check.wrt);
    ASSERT_TRUE(succeeded(grad)) << diagnostics;
    ASSERT_TRUE(succeeded(verify(module))) << diagnostics;
    EXPECT_EQ(grad->getSymName(), (name + "_grad").str());

    std::vector<unsigned> wrt = check.wrt;
    if (wrt.empty())
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (isa<FloatType>(getElementTypeOrSelf(fn.getArgumentTypes()[i])))
          wrt.push_back(i);
    ASSERT_EQ(grad->getNumResults(), wrt.size() + 1);

    FailureOr<std::vector<Array>> want = interpret(fn, inputs);
    ASSERT_TRUE(succeeded(want)) << diagnostics;
    FailureOr<std::vector<Array>> got = interpret(*grad, inputs);
    ASSERT_TRUE(succeeded(got)) << diagnostics;
    ASSERT_EQ(got->size(), wrt.size() + 1);
    // The loss, unchanged.
    ASSERT_EQ((*got)[0].shape(), Shape{});
    EXPECT_NEAR((*got)[0].getDouble(0), (*want)[0].getDouble(0), 1e-12);

    auto lossAt = [&](const std::vector<Array> &args) {
      FailureOr<std::vector<Array>> r = interpret(fn, args);
      EXPECT_TRUE(succeeded(r)) << diagnostics;
      return succeeded(r) ? (*r)[0].getDouble(0) : NAN;
    };
    for (size_t k = 0; k < wrt.size(); ++k) {
      unsigned arg = wrt[k];
      SCOPED_TRACE("gradient #" + std::to_string(k) + ", argument #" + std::to_string(arg));
      const Array &g = (*got)[k + 1];
      ASSERT_EQ(g.dtype(), inputs[arg].dtype());
      ASSERT_EQ(g.shape(), inputs[arg].shape());
      std::vector<Array> args = inputs;
      int mismatches = 0;
      double largest = 0;
      for (int64_t j = 0; j < g.numElements(); ++j) {
        double x = inputs[arg].getDouble(j);
        args[arg].setDouble(j, x + check.eps);
        double up = lossAt(args);
        args[arg].setDouble(j, x - check.eps);
        double down = lossAt(args);
        args[arg].setDouble(j, x);
        double fd = (up - down) / (2 * check.eps), ad = g.getDouble(j);
        largest = std::max(largest, std::fabs(fd));
        if (!(std::fabs(ad - fd) <= 1e-6 * (1.0 + std::fabs(fd))) && ++mismatches <= 5)
          ADD_FAILURE() << "element " << j << ": autodiff " << ad << ", finite difference " << fd;
      }
      EXPECT_EQ(mismatches, 0);
      // The loss depends on every argument: a zero gradient would prove
      // nothing, but where the function is a step function.
      if (check.piecewiseConstant)
        EXPECT_EQ(largest, 0.0) << "an input was drawn at a step";
      else
        EXPECT_GT(largest, 1e-3) << "the finite differences are all zero";
    }
  }

  /// Builds `func.func @f(signature) -> tensor<f64>` whose body is `body`
  /// (defining %y of type `yType`) followed by
  /// `loss = reduce sum (%y * R)`, and checks its gradients.
  void checkOp(const std::string &signature, const std::string &body, const std::string &yType,
               const std::vector<Init> &inits = {}, Check check = {}) {
    auto y = dyn_cast_or_null<RankedTensorType>(parseType(yType, &ctx));
    ASSERT_TRUE(y) << yType;
    std::mt19937 rng(check.seed);
    std::string text = check.prelude + "\nfunc.func @f(" + signature + ") -> tensor<f64> {\n" +
                       body + "\n  %r = shardc.constant " + randomDense(y.getShape(), rng) + " : " +
                       yType + "\n  %yr = shardc.mul %y, %r : " + yType + "\n";
    if (y.getRank() == 0) {
      text += "  return %yr : tensor<f64>\n}\n";
    } else {
      std::string dims;
      for (int64_t d = 0; d < y.getRank(); ++d)
        dims += (d ? ", " : "") + std::to_string(d);
      text += "  %loss = shardc.reduce sum %yr dims = [" + dims + "] : (" + yType +
              ") -> tensor<f64>\n  return %loss : tensor<f64>\n}\n";
    }
    OwningOpRef<ModuleOp> module = parse(text);
    ASSERT_TRUE(module);
    SCOPED_TRACE(text);
    auto fn = module->lookupSymbol<func::FuncOp>("f");
    std::vector<Array> inputs = drawInputs(fn, inits, rng, check.quantize);
    expectGradientsMatchFiniteDifferences(*module, "f", inputs, check);
  }

  /// checkOp for a binary elementwise op on tensor<3x5xf64>.
  void checkBinary(const std::string &op, Init lhs, Init rhs) {
    checkOp("%a: tensor<3x5xf64>, %b: tensor<3x5xf64>",
            "  %y = shardc." + op + " %a, %b : tensor<3x5xf64>", "tensor<3x5xf64>", {lhs, rhs});
  }
  /// checkOp for a unary elementwise op on tensor<3x5xf64>.
  void checkUnary(const std::string &op, Init operand, Check check = {}) {
    checkOp("%a: tensor<3x5xf64>", "  %y = shardc." + op + " %a : tensor<3x5xf64>",
            "tensor<3x5xf64>", {operand}, check);
  }

  /// differentiate() must fail on @f of `text` with a diagnostic containing
  /// `message`, and add no function.
  void expectRejected(const std::string &text, std::vector<unsigned> wrt,
                      const std::string &message) {
    OwningOpRef<ModuleOp> module = parse(text);
    ASSERT_TRUE(module);
    auto fn = module->lookupSymbol<func::FuncOp>("f");
    ASSERT_TRUE(fn);
    auto numFunctions = [&] { return llvm::range_size(module->getOps<func::FuncOp>()); };
    size_t before = numFunctions();
    diagnostics.clear();
    EXPECT_TRUE(failed(differentiate(fn, wrt)));
    EXPECT_NE(diagnostics.find(message), std::string::npos)
        << "expected \"" << message << "\", got: " << diagnostics;
    EXPECT_EQ(numFunctions(), before) << "a function was left behind";
    EXPECT_TRUE(succeeded(verify(*module)));
  }

  /// Runs `grad` (a gradient of the data-parallel MLP of
  /// test/Partition/autodiff.mlir) globally, then propagated, partitioned
  /// and on the devices, and compares the results to 1e-5 relative.
  void expectPartitionedRunMatches(ModuleOp module, func::FuncOp grad) {
    std::mt19937 rng(11);
    std::vector<Array> inputs = drawInputs(grad, {kUniform, indexBelow(4)}, rng, false);
    FailureOr<std::vector<Array>> want = interpret(grad, inputs);
    ASSERT_TRUE(succeeded(want)) << diagnostics;
    ASSERT_TRUE(succeeded(propagateShardings(grad)) && succeeded(partitionFunction(grad)) &&
                succeeded(verify(module)))
        << diagnostics;
    FailureOr<std::vector<Array>> got = interpretPartitioned(grad, inputs);
    ASSERT_TRUE(succeeded(got)) << diagnostics;
    ASSERT_EQ(got->size(), want->size());
    for (size_t r = 0; r < want->size(); ++r) {
      ASSERT_EQ((*got)[r].shape(), (*want)[r].shape()) << "result #" << r;
      for (int64_t i = 0; i < (*want)[r].numElements(); ++i)
        EXPECT_NEAR((*got)[r].getDouble(i), (*want)[r].getDouble(i),
                    1e-5 * std::max(1.0, std::fabs((*want)[r].getDouble(i))))
            << "result #" << r << " element " << i;
    }
  }

  MLIRContext ctx;
  std::string diagnostics;
  ScopedDiagnosticHandler handler;
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Every elementwise op of OpCodes.def on its smooth range: an op added there
// without a gradient rule fails here.
TEST_F(Autodiff, EveryElementwiseOpOfTheCatalogue) {
  for (const shardc::test::ElementwiseRow &row : shardc::test::elementwiseRows()) {
    SCOPED_TRACE("shardc." + row.name);
    Init range{Init::Range, 0, row.lo, row.hi};
    Check steps;
    steps.piecewiseConstant = row.name == "floor" || row.name == "ceil" ||
                              row.name == "round_even" || row.name == "round_afz";
    if (row.arity == 1)
      checkUnary(row.name, range, steps);
    else
      checkBinary(row.name, range, range);
  }
}

TEST_F(Autodiff, Add) { checkBinary("add", kUniform, kUniform); }
TEST_F(Autodiff, Sub) { checkBinary("sub", kUniform, kUniform); }
TEST_F(Autodiff, Mul) { checkBinary("mul", kUniform, kUniform); }
TEST_F(Autodiff, Div) { checkBinary("div", kUniform, kAwayFromZero); }
TEST_F(Autodiff, Max) { checkBinary("max", kDistinct, kDistinct); }
TEST_F(Autodiff, Min) { checkBinary("min", kDistinct, kDistinct); }
TEST_F(Autodiff, Pow) { checkBinary("pow", kPositive, kUniform); }

// A constant integer exponent: the base may be negative.
TEST_F(Autodiff, PowConstantExponent) {
  checkOp("%a: tensor<3x5xf64>",
          "  %three = shardc.constant dense<3.0> : tensor<3x5xf64>\n"
          "  %y = shardc.pow %a, %three : tensor<3x5xf64>",
          "tensor<3x5xf64>", {kAwayFromZero});
}

// At a zero base the power is 0 for every positive exponent, so the
// exponent's gradient is 0 there (log 0 = -inf must not make it NaN); the
// base's is b 0^(b-1) = 0 for b > 1.
TEST_F(Autodiff, PowAtZeroBase) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
      %y = shardc.pow %a, %b : tensor<3xf64>
      %l = shardc.reduce sum %y dims = [0] : (tensor<3xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir");
  ASSERT_TRUE(module);
  FailureOr<func::FuncOp> grad = differentiate(module->lookupSymbol<func::FuncOp>("f"), {});
  ASSERT_TRUE(succeeded(grad)) << diagnostics;
  std::vector<Array> inputs = {Array::fromDoubles(DType::F64, {3}, {0.0, 0.0, 2.0}),
                               Array::fromDoubles(DType::F64, {3}, {2.0, 1.5, 3.0})};
  FailureOr<std::vector<Array>> got = interpret(*grad, inputs);
  ASSERT_TRUE(succeeded(got)) << diagnostics;
  EXPECT_EQ((*got)[1].toDoubles(), (std::vector<double>{0.0, 0.0, 12.0}));
  EXPECT_EQ((*got)[2].getDouble(0), 0.0);
  EXPECT_EQ((*got)[2].getDouble(1), 0.0);
  EXPECT_NEAR((*got)[2].getDouble(2), 8.0 * std::log(2.0), 1e-12);
}

// reduce max/min: tied extrema share the gradient equally.
TEST_F(Autodiff, ReduceMaxTiesShareTheGradient) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<2x3xf64>) -> tensor<f64> {
      %m = shardc.reduce max %a dims = [1] : (tensor<2x3xf64>) -> tensor<2xf64>
      %w = shardc.constant dense<[2.0, 3.0]> : tensor<2xf64>
      %p = shardc.mul %m, %w : tensor<2xf64>
      %l = shardc.reduce sum %p dims = [0] : (tensor<2xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir");
  ASSERT_TRUE(module);
  FailureOr<func::FuncOp> grad = differentiate(module->lookupSymbol<func::FuncOp>("f"), {});
  ASSERT_TRUE(succeeded(grad)) << diagnostics;
  FailureOr<std::vector<Array>> got =
      interpret(*grad, {Array::fromDoubles(DType::F64, {2, 3}, {1.0, 5.0, 5.0, 4.0, 4.0, 4.0})});
  ASSERT_TRUE(succeeded(got)) << diagnostics;
  EXPECT_EQ((*got)[1].toDoubles(), (std::vector<double>{0.0, 1.0, 1.0, 1.0, 1.0, 1.0}));
}

TEST_F(Autodiff, Neg) { checkUnary("neg", kUniform); }
TEST_F(Autodiff, Abs) { checkUnary("abs", kAwayFromZero); }
TEST_F(Autodiff, Exp) { checkUnary("exp", kUniform); }
TEST_F(Autodiff, Log) { checkUnary("log", kPositive); }
TEST_F(Autodiff, Tanh) { checkUnary("tanh", kUniform); }
TEST_F(Autodiff, Sqrt) { checkUnary("sqrt", kPositive); }
TEST_F(Autodiff, Rsqrt) { checkUnary("rsqrt", kPositive); }
TEST_F(Autodiff, Erf) { checkUnary("erf", kUniform); }

// A value used twice by one op, and by two ops: the adjoints add up.
TEST_F(Autodiff, OperandUsedTwice) {
  checkOp("%a: tensor<3x5xf64>",
          "  %s = shardc.mul %a, %a : tensor<3x5xf64>\n"
          "  %t = shardc.tanh %a : tensor<3x5xf64>\n"
          "  %y = shardc.div %s, %t : tensor<3x5xf64>",
          "tensor<3x5xf64>", {kAwayFromZero});
}

// Broadcasting constants and a chain of ops: exp(a) * log(b) - sqrt(b) / a.
TEST_F(Autodiff, ElementwiseChain) {
  checkOp("%a: tensor<3x5xf64>, %b: tensor<3x5xf64>",
          "  %e = shardc.exp %a : tensor<3x5xf64>\n"
          "  %l = shardc.log %b : tensor<3x5xf64>\n"
          "  %p = shardc.mul %e, %l : tensor<3x5xf64>\n"
          "  %s = shardc.sqrt %b : tensor<3x5xf64>\n"
          "  %q = shardc.div %s, %a : tensor<3x5xf64>\n"
          "  %y = shardc.sub %p, %q : tensor<3x5xf64>",
          "tensor<3x5xf64>", {kAwayFromZero, kPositive});
}

TEST_F(Autodiff, ConvertF64ToF64) {
  checkOp("%a: tensor<3x5xf64>",
          "  %c = shardc.convert %a : tensor<3x5xf64> -> tensor<3x5xf64>\n"
          "  %y = shardc.tanh %c : tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// An f32 argument: the gradient comes back as f32. Steps of 2^-12 on
// multiples of 2^-16 are exact in f32.
TEST_F(Autodiff, ConvertF32ToF64) {
  Check check;
  check.eps = 1.0 / 4096;
  check.quantize = true;
  checkOp("%a: tensor<3x5xf32>",
          "  %c = shardc.convert %a : tensor<3x5xf32> -> tensor<3x5xf64>\n"
          "  %y = shardc.tanh %c : tensor<3x5xf64>",
          "tensor<3x5xf64>", {}, check);
}

// Through an f32 stretch that is exact (negation), so that the finite
// differences see no rounding.
TEST_F(Autodiff, ConvertF64ToF32AndBack) {
  Check check;
  check.eps = 1.0 / 4096;
  check.quantize = true;
  checkOp("%a: tensor<3x5xf64>",
          "  %c = shardc.convert %a : tensor<3x5xf64> -> tensor<3x5xf32>\n"
          "  %n = shardc.neg %c : tensor<3x5xf32>\n"
          "  %d = shardc.convert %n : tensor<3x5xf32> -> tensor<3x5xf64>\n"
          "  %y = shardc.tanh %d : tensor<3x5xf64>",
          "tensor<3x5xf64>", {}, check);
}

// The predicate is an argument: no gradient flows into it.
TEST_F(Autodiff, SelectByArgument) {
  checkOp("%p: tensor<3x5xi1>, %a: tensor<3x5xf64>, %b: tensor<3x5xf64>",
          "  %y = shardc.select %p, %a, %b : tensor<3x5xi1>, tensor<3x5xf64>", "tensor<3x5xf64>",
          {kBool});
}

// The predicate is computed from the float operands (a relu-like mask).
TEST_F(Autodiff, SelectByComparison) {
  checkOp("%a: tensor<3x5xf64>, %b: tensor<3x5xf64>",
          "  %p = shardc.compare gt, %a, %b : tensor<3x5xf64>\n"
          "  %e = shardc.exp %a : tensor<3x5xf64>\n"
          "  %y = shardc.select %p, %e, %b : tensor<3x5xi1>, tensor<3x5xf64>",
          "tensor<3x5xf64>", {kDistinct, kDistinct});
}

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

// (M, K) x (K, N) -> (M, N)
TEST_F(Autodiff, DotGeneralPlain) {
  checkOp("%a: tensor<3x4xf64>, %b: tensor<4x5xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [1] x [0]"
          " : (tensor<3x4xf64>, tensor<4x5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// (K, M) x (K, N) -> (M, N)
TEST_F(Autodiff, DotGeneralLhsTransposed) {
  checkOp("%a: tensor<4x3xf64>, %b: tensor<4x5xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [0] x [0]"
          " : (tensor<4x3xf64>, tensor<4x5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// (M, K) x (N, K) -> (M, N)
TEST_F(Autodiff, DotGeneralRhsTransposed) {
  checkOp("%a: tensor<3x4xf64>, %b: tensor<5x4xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [1] x [1]"
          " : (tensor<3x4xf64>, tensor<5x4xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// (K, M) x (N, K) -> (M, N)
TEST_F(Autodiff, DotGeneralBothTransposed) {
  checkOp("%a: tensor<4x3xf64>, %b: tensor<5x4xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [0] x [1]"
          " : (tensor<4x3xf64>, tensor<5x4xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// (K) x (K, N) -> (N) and (K) x (K) -> ()
TEST_F(Autodiff, DotGeneralVector) {
  checkOp("%a: tensor<4xf64>, %b: tensor<4x5xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [0] x [0]"
          " : (tensor<4xf64>, tensor<4x5xf64>) -> tensor<5xf64>",
          "tensor<5xf64>");
  checkOp("%a: tensor<5xf64>, %b: tensor<5xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [0] x [0]"
          " : (tensor<5xf64>, tensor<5xf64>) -> tensor<f64>",
          "tensor<f64>");
}

// No contracting dimension: the outer product (M) x (N) -> (M, N).
TEST_F(Autodiff, DotGeneralOuterProduct) {
  checkOp("%a: tensor<3xf64>, %b: tensor<5xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [] x []"
          " : (tensor<3xf64>, tensor<5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// (B, M, K) x (B, K, N) -> (B, M, N)
TEST_F(Autodiff, DotGeneralBatched) {
  checkOp("%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>",
          "  %y = shardc.dot_general %a, %b batching_dims = [0] x [0],"
          " contracting_dims = [2] x [1]"
          " : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>",
          "tensor<2x3x5xf64>");
}

// (M, B, K) x (K, N, B) -> (B, M, N)
TEST_F(Autodiff, DotGeneralBatchedPermuted) {
  checkOp("%a: tensor<3x2x4xf64>, %b: tensor<4x5x2xf64>",
          "  %y = shardc.dot_general %a, %b batching_dims = [1] x [2],"
          " contracting_dims = [2] x [0]"
          " : (tensor<3x2x4xf64>, tensor<4x5x2xf64>) -> tensor<2x3x5xf64>",
          "tensor<2x3x5xf64>");
}

// Two batch dimensions, listed out of order on both sides:
// (K, B2, M, B1) x (B1, N, B2, K) -> (B1, B2, M, N) with B1 = 2, B2 = 3.
TEST_F(Autodiff, DotGeneralTwoBatchDimsPermuted) {
  checkOp("%a: tensor<4x3x5x2xf64>, %b: tensor<2x1x3x4xf64>",
          "  %y = shardc.dot_general %a, %b batching_dims = [3, 1] x [0, 2],"
          " contracting_dims = [0] x [3]"
          " : (tensor<4x3x5x2xf64>, tensor<2x1x3x4xf64>) -> tensor<2x3x5x1xf64>",
          "tensor<2x3x5x1xf64>");
}

// Two contracting dimensions, paired in and out of order:
// (M, K1, K2) x (K2, N, K1) -> (M, N) with K1 = 2, K2 = 4.
TEST_F(Autodiff, DotGeneralTwoContractingDims) {
  checkOp("%a: tensor<3x2x4xf64>, %b: tensor<4x5x2xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [1, 2] x [2, 0]"
          " : (tensor<3x2x4xf64>, tensor<4x5x2xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  checkOp("%a: tensor<3x2x4xf64>, %b: tensor<4x5x2xf64>",
          "  %y = shardc.dot_general %a, %b contracting_dims = [2, 1] x [0, 2]"
          " : (tensor<3x2x4xf64>, tensor<4x5x2xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// Batch and two contracting dimensions, all permuted:
// (K2, B, M, K1) x (K1, N, K2, B) -> (B, M, N).
TEST_F(Autodiff, DotGeneralBatchedTwoContractingDims) {
  checkOp("%a: tensor<4x2x3x5xf64>, %b: tensor<5x7x4x2xf64>",
          "  %y = shardc.dot_general %a, %b batching_dims = [1] x [3],"
          " contracting_dims = [3, 0] x [0, 2]"
          " : (tensor<4x2x3x5xf64>, tensor<5x7x4x2xf64>) -> tensor<2x3x7xf64>",
          "tensor<2x3x7xf64>");
}

// The same matrix on both sides: a^T a.
TEST_F(Autodiff, DotGeneralGram) {
  checkOp("%a: tensor<4x3xf64>",
          "  %y = shardc.dot_general %a, %a contracting_dims = [0] x [0]"
          " : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<3x3xf64>",
          "tensor<3x3xf64>");
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(Autodiff, ReduceSum) {
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.reduce sum %a dims = [0] : (tensor<3x5xf64>) -> tensor<5xf64>",
          "tensor<5xf64>");
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.reduce sum %a dims = [1] : (tensor<3x5xf64>) -> tensor<3xf64>",
          "tensor<3xf64>");
  checkOp("%a: tensor<3x4x5xf64>",
          "  %y = shardc.reduce sum %a dims = [0, 2] : (tensor<3x4x5xf64>) -> tensor<4xf64>",
          "tensor<4xf64>");
  checkOp("%a: tensor<3x4x5xf64>",
          "  %y = shardc.reduce sum %a dims = [1] : (tensor<3x4x5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
}

// Over every dimension, to a scalar; the nonlinearity keeps the adjoint of
// the sum from being the same for every element.
TEST_F(Autodiff, ReduceSumAll) {
  checkOp("%a: tensor<3x4x5xf64>",
          "  %s = shardc.reduce sum %a dims = [0, 1, 2] : (tensor<3x4x5xf64>) -> tensor<f64>\n"
          "  %t = shardc.tanh %s : tensor<f64>\n"
          "  %e = shardc.exp %a : tensor<3x4x5xf64>\n"
          "  %u = shardc.reduce sum %e dims = [2, 0, 1] : (tensor<3x4x5xf64>) -> tensor<f64>\n"
          "  %y = shardc.mul %t, %u : tensor<f64>",
          "tensor<f64>");
}

TEST_F(Autodiff, ReduceMax) {
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.reduce max %a dims = [1] : (tensor<3x5xf64>) -> tensor<3xf64>",
          "tensor<3xf64>", {kDistinct});
  checkOp("%a: tensor<3x4x5xf64>",
          "  %y = shardc.reduce max %a dims = [0, 2] : (tensor<3x4x5xf64>) -> tensor<4xf64>",
          "tensor<4xf64>", {kDistinct});
  checkOp("%a: tensor<3x4x5xf64>",
          "  %y = shardc.reduce max %a dims = [0, 1, 2] : (tensor<3x4x5xf64>) -> tensor<f64>",
          "tensor<f64>", {kDistinct});
}

TEST_F(Autodiff, ReduceMin) {
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.reduce min %a dims = [0] : (tensor<3x5xf64>) -> tensor<5xf64>",
          "tensor<5xf64>", {kDistinct});
  checkOp("%a: tensor<3x4x5xf64>",
          "  %y = shardc.reduce min %a dims = [1] : (tensor<3x4x5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>", {kDistinct});
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.reduce min %a dims = [0, 1] : (tensor<3x5xf64>) -> tensor<f64>",
          "tensor<f64>", {kDistinct});
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(Autodiff, BroadcastInDimNewDims) {
  checkOp("%a: tensor<5xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [1] : (tensor<5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  checkOp("%a: tensor<3xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [0] : (tensor<3xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  checkOp("%a: tensor<f64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [] : (tensor<f64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [0, 2]"
          " : (tensor<3x5xf64>) -> tensor<3x2x5xf64>",
          "tensor<3x2x5xf64>");
}

// Size-1 operand dimensions repeated to the result's size.
TEST_F(Autodiff, BroadcastInDimExpandSize1) {
  checkOp("%a: tensor<1x5xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [0, 1]"
          " : (tensor<1x5xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  checkOp("%a: tensor<3x1xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [0, 1]"
          " : (tensor<3x1xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  // Kept size 1 beside an expanded one and a new dimension.
  checkOp("%a: tensor<1x3x1xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [0, 1, 3]"
          " : (tensor<1x3x1xf64>) -> tensor<1x3x2x5xf64>",
          "tensor<1x3x2x5xf64>");
}

// Operand dimensions placed out of order in the result.
TEST_F(Autodiff, BroadcastInDimPermuted) {
  checkOp("%a: tensor<5x3xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [1, 0]"
          " : (tensor<5x3xf64>) -> tensor<3x5xf64>",
          "tensor<3x5xf64>");
  checkOp("%a: tensor<5x3xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [2, 0]"
          " : (tensor<5x3xf64>) -> tensor<3x2x5xf64>",
          "tensor<3x2x5xf64>");
  // Permuted, with a size-1 dimension expanded: operand (1, 3, 4) to
  // result dims (2, 0, 3) of (3, 2, 5, 4).
  checkOp("%a: tensor<1x3x4xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [2, 0, 3]"
          " : (tensor<1x3x4xf64>) -> tensor<3x2x5x4xf64>",
          "tensor<3x2x5x4xf64>");
  checkOp("%a: tensor<4x1x3xf64>",
          "  %y = shardc.broadcast_in_dim %a, dims = [2, 1, 0]"
          " : (tensor<4x1x3xf64>) -> tensor<3x5x4xf64>",
          "tensor<3x5x4xf64>");
}

TEST_F(Autodiff, Reshape) {
  checkOp("%a: tensor<3x5xf64>", "  %y = shardc.reshape %a : (tensor<3x5xf64>) -> tensor<15xf64>",
          "tensor<15xf64>");
  checkOp("%a: tensor<3x4xf64>", "  %y = shardc.reshape %a : (tensor<3x4xf64>) -> tensor<2x6xf64>",
          "tensor<2x6xf64>");
  checkOp("%a: tensor<2x3x5xf64>",
          "  %y = shardc.reshape %a : (tensor<2x3x5xf64>) -> tensor<5x1x6xf64>",
          "tensor<5x1x6xf64>");
}

TEST_F(Autodiff, Transpose2D) {
  checkOp("%a: tensor<3x5xf64>",
          "  %y = shardc.transpose %a, permutation = [1, 0]"
          " : (tensor<3x5xf64>) -> tensor<5x3xf64>",
          "tensor<5x3xf64>");
}

// Two 3-cycles, each the other's inverse.
TEST_F(Autodiff, Transpose3D) {
  checkOp("%a: tensor<2x3x5xf64>",
          "  %y = shardc.transpose %a, permutation = [2, 0, 1]"
          " : (tensor<2x3x5xf64>) -> tensor<5x2x3xf64>",
          "tensor<5x2x3xf64>");
  checkOp("%a: tensor<2x3x5xf64>",
          "  %y = shardc.transpose %a, permutation = [1, 2, 0]"
          " : (tensor<2x3x5xf64>) -> tensor<3x5x2xf64>",
          "tensor<3x5x2xf64>");
  checkOp("%a: tensor<2x3x5xf64>",
          "  %y = shardc.transpose %a, permutation = [0, 2, 1]"
          " : (tensor<2x3x5xf64>) -> tensor<2x5x3xf64>",
          "tensor<2x5x3xf64>");
}

TEST_F(Autodiff, Slice) {
  // Both ends cut in both dimensions.
  checkOp("%a: tensor<5x7xf64>",
          "  %y = shardc.slice %a, start = [1, 2], limit = [4, 5], strides = [1, 1]"
          " : (tensor<5x7xf64>) -> tensor<3x3xf64>",
          "tensor<3x3xf64>");
  // A prefix, a full dimension, a suffix.
  checkOp("%a: tensor<3x4x5xf64>",
          "  %y = shardc.slice %a, start = [0, 0, 2], limit = [2, 4, 5], strides = [1, 1, 1]"
          " : (tensor<3x4x5xf64>) -> tensor<2x4x3xf64>",
          "tensor<2x4x3xf64>");
  // Two overlapping slices of one value.
  checkOp("%a: tensor<7xf64>",
          "  %s = shardc.slice %a, start = [0], limit = [5], strides = [1]"
          " : (tensor<7xf64>) -> tensor<5xf64>\n"
          "  %t = shardc.slice %a, start = [2], limit = [7], strides = [1]"
          " : (tensor<7xf64>) -> tensor<5xf64>\n"
          "  %y = shardc.mul %s, %t : tensor<5xf64>",
          "tensor<5xf64>");
}

TEST_F(Autodiff, DynamicSlices) {
  // A box at a corner that is clamped (row 9 of 5 is row 3 for a 2-row box).
  checkOp("%a: tensor<5x7xf64>",
          "  %i = shardc.constant dense<9> : tensor<i32>\n"
          "  %j = shardc.constant dense<1> : tensor<i32>\n"
          "  %y = shardc.dynamic_slice %a [%i, %j]"
          " : (tensor<5x7xf64>, tensor<i32>, tensor<i32>) -> tensor<2x3xf64>",
          "tensor<2x3xf64>");
  // An update: the operand's adjoint is zero inside the box, the update's
  // is g's box.
  checkOp("%a: tensor<4x6xf64>, %u: tensor<4x2xf64>",
          "  %i = shardc.constant dense<0> : tensor<i64>\n"
          "  %j = shardc.constant dense<3> : tensor<i64>\n"
          "  %w = shardc.dynamic_update_slice %a, %u [%i, %j]"
          " : (tensor<4x6xf64>, tensor<4x2xf64>, tensor<i64>, tensor<i64>) -> tensor<4x6xf64>\n"
          "  %y = shardc.mul %w, %a : tensor<4x6xf64>",
          "tensor<4x6xf64>");
}

TEST_F(Autodiff, Concatenate) {
  checkOp("%a: tensor<2x5xf64>, %b: tensor<3x5xf64>",
          "  %y = shardc.concatenate %a, %b dim = 0"
          " : (tensor<2x5xf64>, tensor<3x5xf64>) -> tensor<5x5xf64>",
          "tensor<5x5xf64>");
  checkOp("%a: tensor<3x2xf64>, %b: tensor<3x1xf64>, %c: tensor<3x4xf64>",
          "  %y = shardc.concatenate %a, %b, %c dim = 1"
          " : (tensor<3x2xf64>, tensor<3x1xf64>, tensor<3x4xf64>) -> tensor<3x7xf64>",
          "tensor<3x7xf64>");
  // One value twice.
  checkOp("%a: tensor<2x3x2xf64>, %b: tensor<2x3x1xf64>",
          "  %y = shardc.concatenate %a, %b, %a dim = 2"
          " : (tensor<2x3x2xf64>, tensor<2x3x1xf64>, tensor<2x3x2xf64>) -> tensor<2x3x5xf64>",
          "tensor<2x3x5xf64>");
}

// The table's gradient; 7 and 6 indices into 3 and 5 rows repeat some rows.
TEST_F(Autodiff, Take) {
  checkOp("%t: tensor<3x4xf64>, %i: tensor<7xi32>",
          "  %y = shardc.take %t, %i : (tensor<3x4xf64>, tensor<7xi32>) -> tensor<7x4xf64>",
          "tensor<7x4xf64>", {kUniform, indexBelow(3)});
  checkOp("%t: tensor<5xf64>, %i: tensor<2x3xi64>",
          "  %y = shardc.take %t, %i : (tensor<5xf64>, tensor<2x3xi64>) -> tensor<2x3xf64>",
          "tensor<2x3xf64>", {kUniform, indexBelow(3)});
}

// Attention of packed q, k, v: its gradient is one op, qkv_attention_grad,
// held here to the finite differences of the reference, causal and not,
// with heads of width 3 at 5 positions.
TEST_F(Autodiff, QkvAttention) {
  for (const char *causal : {"true", "false"})
    checkOp("%q: tensor<2x5x3x2x3xf64>",
            std::string("  %y = shardc.qkv_attention %q causal = ") + causal +
                " scale = 0.7 : (tensor<2x5x3x2x3xf64>) -> tensor<2x5x2x3xf64>",
            "tensor<2x5x2x3xf64>");
}

// The gradient op has no gradient of its own.
TEST_F(Autodiff, RejectsQkvAttentionGrad) {
  expectRejected(R"mlir(
    func.func @f(%q: tensor<1x2x3x1x2xf64>, %d: tensor<1x2x1x2xf64>) -> tensor<f64> {
      %g = shardc.qkv_attention_grad %q, %d causal = true scale = 1.0
           : (tensor<1x2x3x1x2xf64>, tensor<1x2x1x2xf64>) -> tensor<1x2x3x1x2xf64>
      %l = shardc.reduce sum %g dims = [0, 1, 2, 3, 4] : (tensor<1x2x3x1x2xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {}, "has no gradient rule");
}

// attention over separate keys and values: attention_grad gives the
// gradients of q, k and v, held to the finite differences of the
// reference: 3 queries over 5 keys with lengths (a batch item that sees
// none, one that sees two, one all), causal and not, and causal
// self-attention.
TEST_F(Autodiff, Attention) {
  for (const char *causal : {"false", "true"})
    checkOp("%q: tensor<3x3x2x3xf64>, %k: tensor<3x5x2x3xf64>, %v: tensor<3x5x2x3xf64>",
            std::string("  %len = shardc.constant dense<[2, 0, 5]> : tensor<3xi32>\n"
                        "  %y = shardc.attention %q, %k, %v lengths %len causal = ") +
                causal +
                " scale = 0.7 : (tensor<3x3x2x3xf64>, tensor<3x5x2x3xf64>, "
                "tensor<3x5x2x3xf64>, tensor<3xi32>) -> tensor<3x3x2x3xf64>",
            "tensor<3x3x2x3xf64>");
  checkOp("%q: tensor<2x4x2x3xf64>, %k: tensor<2x4x2x3xf64>, %v: tensor<2x4x2x3xf64>",
          "  %y = shardc.attention %q, %k, %v causal = true scale = 0.7 : (tensor<2x4x2x3xf64>, "
          "tensor<2x4x2x3xf64>, tensor<2x4x2x3xf64>) -> tensor<2x4x2x3xf64>",
          "tensor<2x4x2x3xf64>");
}

// attention's gradient op has no gradient of its own.
TEST_F(Autodiff, RejectsAttentionGrad) {
  expectRejected(R"mlir(
    func.func @f(%q: tensor<1x1x1x2xf64>, %k: tensor<1x3x1x2xf64>) -> tensor<f64> {
      %g = shardc.attention_grad %q, %k, %k, %q causal = false scale = 1.0
           : (tensor<1x1x1x2xf64>, tensor<1x3x1x2xf64>, tensor<1x3x1x2xf64>, tensor<1x1x1x2xf64>)
           -> tensor<1x7x1x2xf64>
      %l = shardc.reduce sum %g dims = [0, 1, 2, 3] : (tensor<1x7x1x2xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {}, "has no gradient rule");
}

// The rows a take gathers twice get both adjoints: rows 1, 0, 1, 1.
TEST_F(Autodiff, TakeRepeatedIndices) {
  checkOp("%t: tensor<3x2xf64>",
          "  %i = shardc.constant dense<[1, 0, 1, 1]> : tensor<4xi32>\n"
          "  %g = shardc.take %t, %i : (tensor<3x2xf64>, tensor<4xi32>) -> tensor<4x2xf64>\n"
          "  %y = shardc.tanh %g : tensor<4x2xf64>",
          "tensor<4x2xf64>");
}

// The operand's and the updates' gradients.
TEST_F(Autodiff, ScatterAdd) {
  checkOp("%o: tensor<3x4xf64>, %i: tensor<5xi32>, %u: tensor<5x4xf64>",
          "  %s = shardc.scatter_add %o, %i, %u"
          " : (tensor<3x4xf64>, tensor<5xi32>, tensor<5x4xf64>) -> tensor<3x4xf64>\n"
          "  %y = shardc.tanh %s : tensor<3x4xf64>",
          "tensor<3x4xf64>", {kUniform, indexBelow(3), kUniform});
  checkOp("%o: tensor<4xf64>, %i: tensor<2x3xi32>, %u: tensor<2x3xf64>",
          "  %s = shardc.scatter_add %o, %i, %u"
          " : (tensor<4xf64>, tensor<2x3xi32>, tensor<2x3xf64>) -> tensor<4xf64>\n"
          "  %y = shardc.tanh %s : tensor<4xf64>",
          "tensor<4xf64>", {kUniform, indexBelow(4), kUniform});
}

TEST_F(Autodiff, ShardingConstraint) {
  Check check;
  check.prelude = "shardc.mesh @mesh_2 = <[\"x\"=2]>";
  checkOp("%a: tensor<4x3xf64>",
          "  %c = shardc.sharding_constraint %a <@mesh_2, [{\"x\"}, {}]> : tensor<4x3xf64>\n"
          "  %y = shardc.tanh %c : tensor<4x3xf64>",
          "tensor<4x3xf64>", {}, check);
}

//===----------------------------------------------------------------------===//
// Arguments and results
//===----------------------------------------------------------------------===//

// wrt in a given order; an argument the loss does not depend on gets zeros.
TEST_F(Autodiff, WrtOrderAndUnusedArgument) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%a: tensor<3xf64>, %unused: tensor<2xf64>, %b: tensor<3xf64>)
        -> tensor<f64> {
      %p = shardc.mul %a, %b : tensor<3xf64>
      %e = shardc.exp %p : tensor<3xf64>
      %l = shardc.reduce sum %e dims = [0] : (tensor<3xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  FailureOr<func::FuncOp> grad = differentiate(fn, {2, 1, 0});
  ASSERT_TRUE(succeeded(grad)) << diagnostics;
  std::vector<Array> inputs = {Array::fromDoubles(DType::F64, {3}, {0.5, -1.0, 2.0}),
                               Array::fromDoubles(DType::F64, {2}, {3.0, 4.0}),
                               Array::fromDoubles(DType::F64, {3}, {-0.25, 0.75, 0.125})};
  FailureOr<std::vector<Array>> got = interpret(*grad, inputs);
  ASSERT_TRUE(succeeded(got)) << diagnostics;
  ASSERT_EQ(got->size(), 4u);
  const std::vector<double> a = inputs[0].toDoubles(), b = inputs[2].toDoubles();
  double loss = 0;
  for (int k = 0; k < 3; ++k) {
    double e = std::exp(a[k] * b[k]);
    loss += e;
    EXPECT_NEAR((*got)[1].getDouble(k), e * a[k], 1e-12) << "d/db " << k;
    EXPECT_NEAR((*got)[3].getDouble(k), e * b[k], 1e-12) << "d/da " << k;
  }
  EXPECT_NEAR((*got)[0].getDouble(0), loss, 1e-12);
  EXPECT_EQ((*got)[2].toDoubles(), (std::vector<double>{0.0, 0.0}));
}

// Without wrt: every float argument, in order; integer arguments skipped.
TEST_F(Autodiff, DefaultWrtIsEveryFloatArgument) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%i: tensor<4xi32>, %t: tensor<3x2xf64>, %s: tensor<2xf64>)
        -> tensor<f64> {
      %g = shardc.take %t, %i : (tensor<3x2xf64>, tensor<4xi32>) -> tensor<4x2xf64>
      %sb = shardc.broadcast_in_dim %s, dims = [1] : (tensor<2xf64>) -> tensor<4x2xf64>
      %p = shardc.mul %g, %sb : tensor<4x2xf64>
      %e = shardc.tanh %p : tensor<4x2xf64>
      %l = shardc.reduce sum %e dims = [0, 1] : (tensor<4x2xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  std::mt19937 rng(7);
  std::vector<Array> inputs = drawInputs(fn, {indexBelow(3)}, rng, false);
  expectGradientsMatchFiniteDifferences(*module, "f", inputs, Check{});
  auto grad = module->lookupSymbol<func::FuncOp>("f_grad");
  ASSERT_TRUE(grad);
  EXPECT_EQ(grad.getResultTypes()[1], fn.getArgumentTypes()[1]);
  EXPECT_EQ(grad.getResultTypes()[2], fn.getArgumentTypes()[2]);
}

// A gradient result carries its argument's sharding; the loss its result's.
TEST_F(Autodiff, GradientResultsCarryArgumentShardings) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    shardc.mesh @mesh_2 = <["x"=2]>
    func.func @f(%a: tensor<4xf64> {shardc.sharding = #shardc.sharding<@mesh_2, [{"x"}]>},
                 %b: tensor<4xf64>)
        -> (tensor<f64> {shardc.sharding = #shardc.sharding<@mesh_2, []>}) {
      %p = shardc.mul %a, %b : tensor<4xf64>
      %l = shardc.reduce sum %p dims = [0] : (tensor<4xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  FailureOr<func::FuncOp> grad = differentiate(fn, {});
  ASSERT_TRUE(succeeded(grad)) << diagnostics;
  EXPECT_EQ(grad->getResultAttr(0, ShardcDialect::kShardingAttrName),
            fn.getResultAttr(0, ShardcDialect::kShardingAttrName));
  EXPECT_EQ(grad->getResultAttr(1, ShardcDialect::kShardingAttrName),
            fn.getArgAttr(0, ShardcDialect::kShardingAttrName));
  EXPECT_FALSE(grad->getResultAttr(2, ShardcDialect::kShardingAttrName));
  EXPECT_EQ(grad->getArgAttr(0, ShardcDialect::kShardingAttrName),
            fn.getArgAttr(0, ShardcDialect::kShardingAttrName));
}

//===----------------------------------------------------------------------===//
// A 2-layer MLP with a softmax cross-entropy loss
//===----------------------------------------------------------------------===//

// B = 5 examples, D = 3 inputs, H = 7 hidden units, C = 4 classes.
/// An MLP with a softmax cross-entropy loss, in f64.
const char *const kMlpLoss = R"mlir(
    func.func @mlp_loss(%x: tensor<5x3xf64>, %labels: tensor<5xi32>,
                        %w1: tensor<3x7xf64>, %b1: tensor<7xf64>,
                        %w2: tensor<7x4xf64>, %b2: tensor<4xf64>) -> tensor<f64> {
      // Hidden layer: tanh(x w1 + b1), (B, H).
      %xw = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
          : (tensor<5x3xf64>, tensor<3x7xf64>) -> tensor<5x7xf64>
      %bb1 = shardc.broadcast_in_dim %b1, dims = [1] : (tensor<7xf64>) -> tensor<5x7xf64>
      %z = shardc.add %xw, %bb1 : tensor<5x7xf64>
      %h = shardc.tanh %z : tensor<5x7xf64>
      // Logits, (B, C).
      %hw = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
          : (tensor<5x7xf64>, tensor<7x4xf64>) -> tensor<5x4xf64>
      %bb2 = shardc.broadcast_in_dim %b2, dims = [1] : (tensor<4xf64>) -> tensor<5x4xf64>
      %logits = shardc.add %hw, %bb2 : tensor<5x4xf64>
      // log_softmax with the row max subtracted, (B, C).
      %m = shardc.reduce max %logits dims = [1] : (tensor<5x4xf64>) -> tensor<5xf64>
      %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<5xf64>) -> tensor<5x4xf64>
      %shifted = shardc.sub %logits, %mb : tensor<5x4xf64>
      %e = shardc.exp %shifted : tensor<5x4xf64>
      %s = shardc.reduce sum %e dims = [1] : (tensor<5x4xf64>) -> tensor<5xf64>
      %lse = shardc.log %s : tensor<5xf64>
      %lseb = shardc.broadcast_in_dim %lse, dims = [0] : (tensor<5xf64>) -> tensor<5x4xf64>
      %logp = shardc.sub %shifted, %lseb : tensor<5x4xf64>
      // One-hot labels, (B, C).
      %classes = shardc.iota dim = 1 : tensor<5x4xi32>
      %lb = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<5xi32>) -> tensor<5x4xi32>
      %hit = shardc.compare eq, %classes, %lb : tensor<5x4xi32>
      %onehot = shardc.convert %hit : tensor<5x4xi1> -> tensor<5x4xf64>
      // Mean negative log-likelihood, ().
      %picked = shardc.mul %onehot, %logp : tensor<5x4xf64>
      %total = shardc.reduce sum %picked dims = [0, 1] : (tensor<5x4xf64>) -> tensor<f64>
      %n = shardc.constant dense<-5.0> : tensor<f64>
      %loss = shardc.div %total, %n : tensor<f64>
      return %loss : tensor<f64>
    }
  )mlir";

TEST_F(Autodiff, MlpSoftmaxCrossEntropy) {
  OwningOpRef<ModuleOp> module = parse(kMlpLoss);
  ASSERT_TRUE(module);
  auto fn = module->lookupSymbol<func::FuncOp>("mlp_loss");
  std::mt19937 rng(2024);
  std::vector<Array> inputs = drawInputs(fn, {kUniform, indexBelow(4)}, rng, false);
  // Larger weights, so that the logits differ.
  for (unsigned arg : {2u, 4u})
    for (int64_t j = 0; j < inputs[arg].numElements(); ++j)
      inputs[arg].setDouble(j, 2.0 * inputs[arg].getDouble(j));
  Check check;
  check.wrt = {2, 3, 4, 5};
  expectGradientsMatchFiniteDifferences(*module, "mlp_loss", inputs, check);

  // The gradient of softmax cross-entropy w.r.t. b2 sums to zero over the
  // classes.
  auto grad = module->lookupSymbol<func::FuncOp>("mlp_loss_grad");
  ASSERT_TRUE(grad);
  FailureOr<std::vector<Array>> got = interpret(grad, inputs);
  ASSERT_TRUE(succeeded(got)) << diagnostics;
  double sum = 0;
  for (double v : (*got)[4].toDoubles())
    sum += v;
  EXPECT_NEAR(sum, 0.0, 1e-12);
}

// The data-parallel MLP of test/Partition/autodiff.mlir: its gradient
// function, partitioned over 4 devices, gives the global run's numbers.
TEST_F(Autodiff, DataParallelMlpGradientPartitioned) {
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(SHARDC_PARTITION_CORPUS_DIR "/autodiff.mlir", &ctx);
  ASSERT_TRUE(module) << diagnostics;
  auto fn = module->lookupSymbol<func::FuncOp>("data_parallel_mlp_loss");
  ASSERT_TRUE(fn);
  FailureOr<func::FuncOp> grad = differentiate(fn, {2, 3, 4, 5});
  ASSERT_TRUE(succeeded(grad)) << diagnostics;
  ASSERT_EQ(grad->getNumResults(), 5u);
  expectPartitionedRunMatches(*module, *grad);
}

/// Puts the ops of @mlp_loss in two checkpointed groups (the hidden layer,
/// then the rest) with `policy`; the tanh is named "hidden".
static void checkpointMlp(func::FuncOp fn, StringRef policy) {
  Builder b(fn.getContext());
  int64_t group = 0;
  for (Operation &op : fn.getBody().front().without_terminator()) {
    if (auto dot = dyn_cast<DotGeneralOp>(op); dot && dot->getOperand(0).getDefiningOp())
      group = 1; // the second product starts the second group
    SmallVector<NamedAttribute> entries{b.getNamedAttr("group", b.getI64IntegerAttr(group)),
                                        b.getNamedAttr("policy", b.getStringAttr(policy))};
    if (policy == "names" || policy == "all_but_names")
      entries.push_back(b.getNamedAttr("names", b.getStrArrayAttr({"hidden"})));
    op.setAttr(ShardcDialect::kCheckpointAttrName, b.getDictionaryAttr(entries));
    if (isa<TanhOp>(op))
      op.setAttr(ShardcDialect::kCheckpointNameAttrName, b.getStringAttr("hidden"));
  }
}

// Checkpointed groups change where the backward pass gets its forward
// values, not the values: under each policy the gradients are those of the
// program without checkpoints, bit for bit, and agree with finite
// differences. "nothing" recomputes the most, "names" (the hidden layer
// kept) less, "all_but_names" only the named tanh, and a product is
// recomputed only where it is not saved.
TEST_F(Autodiff, CheckpointPoliciesRecomputeAndKeepTheGradients) {
  std::mt19937 rng(2024);
  std::vector<Array> inputs;
  std::vector<Array> plain;
  {
    OwningOpRef<ModuleOp> module = parse(kMlpLoss);
    ASSERT_TRUE(module);
    auto fn = module->lookupSymbol<func::FuncOp>("mlp_loss");
    inputs = drawInputs(fn, {kUniform, indexBelow(4)}, rng, false);
    FailureOr<func::FuncOp> grad = differentiate(fn, {0, 2, 3, 4, 5});
    ASSERT_TRUE(succeeded(grad)) << diagnostics;
    FailureOr<std::vector<Array>> r = interpret(*grad, inputs);
    ASSERT_TRUE(succeeded(r)) << diagnostics;
    plain = *r;
  }
  std::map<std::string, std::pair<int, int>> recomputed; // policy: ops, products
  for (StringRef policy : {"nothing", "dots", "names", "all_but_names"}) {
    SCOPED_TRACE(policy.str());
    OwningOpRef<ModuleOp> module = parse(kMlpLoss);
    ASSERT_TRUE(module);
    auto fn = module->lookupSymbol<func::FuncOp>("mlp_loss");
    checkpointMlp(fn, policy);
    ASSERT_TRUE(succeeded(verify(*module))) << diagnostics;
    Check check;
    check.wrt = {0, 2, 3, 4, 5};
    expectGradientsMatchFiniteDifferences(*module, "mlp_loss", inputs, check);
    auto grad = module->lookupSymbol<func::FuncOp>("mlp_loss_grad");
    ASSERT_TRUE(grad);
    FailureOr<std::vector<Array>> got = interpret(grad, inputs);
    ASSERT_TRUE(succeeded(got)) << diagnostics;
    ASSERT_EQ(got->size(), plain.size());
    for (size_t r = 0; r < plain.size(); ++r)
      EXPECT_EQ((*got)[r].toDoubles(), plain[r].toDoubles()) << "result #" << r;
    auto &[ops, products] = recomputed[policy.str()];
    grad.walk([&](Operation *op) {
      if (op->hasAttr(ShardcDialect::kRecomputedAttrName)) {
        ++ops;
        products += isa<DotGeneralOp>(op);
      }
    });
  }
  EXPECT_GT(recomputed["nothing"].first, recomputed["dots"].first);
  EXPECT_GT(recomputed["dots"].first, recomputed["names"].first);
  EXPECT_GT(recomputed["names"].first, 0);
  // "all_but_names" recomputes the hidden layer's tanh alone.
  EXPECT_EQ(recomputed["all_but_names"], std::make_pair(1, 0));
  // tanh's rule reads its result: "nothing" recomputes x w1 for it.
  EXPECT_GT(recomputed["nothing"].second, 0);
  EXPECT_EQ(recomputed["dots"].second, 0);
}

// The data-parallel MLP of test/Partition/autodiff.mlir with every op in one
// checkpointed group: the recomputation is partitioned like the forward
// pass, and the partitioned gradients are the global program's.
TEST_F(Autodiff, CheckpointedGradientPartitioned) {
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(SHARDC_PARTITION_CORPUS_DIR "/autodiff.mlir", &ctx);
  ASSERT_TRUE(module) << diagnostics;
  auto fn = module->lookupSymbol<func::FuncOp>("data_parallel_mlp_loss");
  ASSERT_TRUE(fn);
  Builder b(&ctx);
  for (Operation &op : fn.getBody().front().without_terminator())
    op.setAttr(ShardcDialect::kCheckpointAttrName,
               b.getDictionaryAttr({b.getNamedAttr("group", b.getI64IntegerAttr(0)),
                                    b.getNamedAttr("policy", b.getStringAttr("nothing"))}));
  FailureOr<func::FuncOp> grad = differentiate(fn, {2, 3, 4, 5});
  ASSERT_TRUE(succeeded(grad)) << diagnostics;
  int recomputed = 0;
  grad->walk([&](Operation *op) { recomputed += op->hasAttr(ShardcDialect::kRecomputedAttrName); });
  EXPECT_GT(recomputed, 0);
  expectPartitionedRunMatches(*module, *grad);
}

//===----------------------------------------------------------------------===//
// Rejected programs
//===----------------------------------------------------------------------===//

TEST_F(Autodiff, RejectsWrtOfIntegerArgument) {
  expectRejected(R"mlir(
    func.func @f(%t: tensor<3xf64>, %i: tensor<2xi32>) -> tensor<f64> {
      %g = shardc.take %t, %i : (tensor<3xf64>, tensor<2xi32>) -> tensor<2xf64>
      %l = shardc.reduce sum %g dims = [0] : (tensor<2xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {0, 1}, "argument #1 of type 'tensor<2xi32>' is not differentiable");
}

TEST_F(Autodiff, RejectsWrtOfMissingArgument) {
  expectRejected(R"mlir(
    func.func @f(%a: tensor<3xf64>) -> tensor<f64> {
      %l = shardc.reduce sum %a dims = [0] : (tensor<3xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {1}, "argument #1 does not exist");
}

TEST_F(Autodiff, RejectsIntegerLoss) {
  expectRejected(R"mlir(
    func.func @f(%a: tensor<3xi32>) -> tensor<i32> {
      %l = shardc.reduce sum %a dims = [0] : (tensor<3xi32>) -> tensor<i32>
      return %l : tensor<i32>
    }
  )mlir",
                 {}, "autodiff differentiates a function returning one rank-0 float tensor");
}

TEST_F(Autodiff, RejectsNonScalarResult) {
  expectRejected(R"mlir(
    func.func @f(%a: tensor<3xf64>) -> tensor<3xf64> {
      %e = shardc.exp %a : tensor<3xf64>
      return %e : tensor<3xf64>
    }
  )mlir",
                 {},
                 "autodiff differentiates a function returning one rank-0 float tensor "
                 "(a loss), got '(tensor<3xf64>) -> tensor<3xf64>'");
}

TEST_F(Autodiff, RejectsTwoResults) {
  expectRejected(R"mlir(
    func.func @f(%a: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
      %e = shardc.exp %a : tensor<f64>
      return %e, %a : tensor<f64>, tensor<f64>
    }
  )mlir",
                 {}, "autodiff differentiates a function returning one rank-0 float tensor");
}

TEST_F(Autodiff, RejectsStridedSlice) {
  expectRejected(R"mlir(
    func.func @f(%a: tensor<7xf64>) -> tensor<f64> {
      %s = shardc.slice %a, start = [0], limit = [7], strides = [2]
          : (tensor<7xf64>) -> tensor<4xf64>
      %l = shardc.reduce sum %s dims = [0] : (tensor<4xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {}, "the gradient of a strided slice is not supported");
}

TEST_F(Autodiff, RejectsOpWithoutRule) {
  expectRejected(R"mlir(
    shardc.mesh @mesh_2 = <["x"=2]>
    func.func @f(%a: tensor<4xf64>) -> tensor<f64> {
      %m = shardc.shard_map (%a) in_shardings = [<@mesh_2, [{}]>]
             out_shardings = [<@mesh_2, [{"x"}]>] {
      ^bb0(%la: tensor<4xf64>):
        %s = shardc.all_slice %la on @mesh_2 ["x"] dim = 0 : tensor<4xf64> -> tensor<2xf64>
        shardc.return %s : tensor<2xf64>
      } : (tensor<4xf64>) -> tensor<4xf64>
      %l = shardc.reduce sum %m dims = [0] : (tensor<4xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {}, "has no gradient rule");
}

TEST_F(Autodiff, RejectsAllReduceMax) {
  expectRejected(R"mlir(
    shardc.mesh @mesh_2 = <["x"=2]>
    func.func @f(%a: tensor<4xf64>) -> tensor<f64> {
      %m = shardc.shard_map (%a) in_shardings = [<@mesh_2, [{"x"}]>]
             out_shardings = [<@mesh_2, [{}]>] {
      ^bb0(%la: tensor<2xf64>):
        %s = shardc.all_reduce max %la on @mesh_2 ["x"] : tensor<2xf64>
        shardc.return %s : tensor<2xf64>
      } : (tensor<4xf64>) -> tensor<2xf64>
      %l = shardc.reduce sum %m dims = [0] : (tensor<2xf64>) -> tensor<f64>
      return %l : tensor<f64>
    }
  )mlir",
                 {}, "all_reduce max/min has no gradient rule");
}

//===----------------------------------------------------------------------===//
// shard_map and collectives
//===----------------------------------------------------------------------===//

// The gradient of a shard_map is a shard_map over its body's reverse sweep.
TEST_F(Autodiff, ShardMapElementwise) {
  Check check;
  check.prelude = "shardc.mesh @mesh_2 = <[\"x\"=2]>";
  checkOp("%a: tensor<4x3xf64>",
          "  %y = shardc.shard_map (%a) in_shardings = [<@mesh_2, [{\"x\"}, {}]>]\n"
          "         out_shardings = [<@mesh_2, [{\"x\"}, {}]>] {\n"
          "  ^bb0(%la: tensor<2x3xf64>):\n"
          "    %e = shardc.tanh %la : tensor<2x3xf64>\n"
          "    %m = shardc.mul %e, %la : tensor<2x3xf64>\n"
          "    shardc.return %m : tensor<2x3xf64>\n"
          "  } : (tensor<4x3xf64>) -> tensor<4x3xf64>",
          "tensor<4x3xf64>", {}, check);
}

// Two results, only the second reaching the loss; an input used twice.
TEST_F(Autodiff, ShardMapTwoResults) {
  Check check;
  check.prelude = "shardc.mesh @mesh_2 = <[\"x\"=2]>";
  checkOp("%a: tensor<4xf64>",
          "  %m:2 = shardc.shard_map (%a) in_shardings = [<@mesh_2, [{\"x\"}]>]\n"
          "           out_shardings = [<@mesh_2, [{\"x\"}]>, <@mesh_2, [{\"x\"}]>] {\n"
          "  ^bb0(%la: tensor<2xf64>):\n"
          "    %e = shardc.exp %la : tensor<2xf64>\n"
          "    %s = shardc.mul %la, %la : tensor<2xf64>\n"
          "    shardc.return %e, %s : tensor<2xf64>, tensor<2xf64>\n"
          "  } : (tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)\n"
          "  %y = shardc.add %m#1, %a : tensor<4xf64>",
          "tensor<4xf64>", {}, check);
}

// Explicit data parallelism: a replicated weight, a batch split over "x",
// the loss averaged with all_reduce mean; the weight's gradient sums the
// devices' contributions.
TEST_F(Autodiff, ShardMapReplicatedWeightAndMean) {
  Check check;
  check.prelude = "shardc.mesh @mesh_2 = <[\"x\"=2]>";
  checkOp("%xs: tensor<4x3xf64>, %w: tensor<3x2xf64>",
          "  %y = shardc.shard_map (%xs, %w) in_shardings = [<@mesh_2, [{\"x\"}, {}]>, "
          "<@mesh_2, [{}, {}]>]\n"
          "         out_shardings = [<@mesh_2, [{}, {}]>] {\n"
          "  ^bb0(%lx: tensor<2x3xf64>, %lw: tensor<3x2xf64>):\n"
          "    %h = shardc.dot_general %lx, %lw contracting_dims = [1] x [0] : "
          "(tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>\n"
          "    %t = shardc.tanh %h : tensor<2x2xf64>\n"
          "    %m = shardc.all_reduce mean %t on @mesh_2 [\"x\"] : tensor<2x2xf64>\n"
          "    shardc.return %m : tensor<2x2xf64>\n"
          "  } : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>",
          "tensor<2x2xf64>", {}, check);
}

// psum over one axis of a 2-D mesh; the input replicated over the other.
TEST_F(Autodiff, ShardMapPsumOnTwoAxes) {
  Check check;
  check.prelude = "shardc.mesh @m = <[\"x\"=2, \"y\"=2]>";
  checkOp("%a: tensor<4x6xf64>",
          "  %y = shardc.shard_map (%a) in_shardings = [<@m, [{\"x\"}, {}]>]\n"
          "         out_shardings = [<@m, [{}, {}]>] {\n"
          "  ^bb0(%la: tensor<2x6xf64>):\n"
          "    %e = shardc.mul %la, %la : tensor<2x6xf64>\n"
          "    %s = shardc.all_reduce sum %e on @m [\"x\"] : tensor<2x6xf64>\n"
          "    shardc.return %s : tensor<2x6xf64>\n"
          "  } : (tensor<4x6xf64>) -> tensor<2x6xf64>",
          "tensor<2x6xf64>", {}, check);
}

TEST_F(Autodiff, AllGatherAndReduceScatter) {
  Check check;
  check.prelude = "shardc.mesh @mesh_2 = <[\"x\"=2]>";
  checkOp("%a: tensor<4x4xf64>",
          "  %y = shardc.shard_map (%a) in_shardings = [<@mesh_2, [{\"x\"}, {}]>]\n"
          "         out_shardings = [<@mesh_2, [{}, {\"x\"}]>] {\n"
          "  ^bb0(%la: tensor<2x4xf64>):\n"
          "    %g = shardc.all_gather %la on @mesh_2 [\"x\"] dim = 0 : "
          "tensor<2x4xf64> -> tensor<4x4xf64>\n"
          "    %e = shardc.tanh %g : tensor<4x4xf64>\n"
          "    %r = shardc.reduce_scatter sum %e on @mesh_2 [\"x\"] dim = 1 : "
          "tensor<4x4xf64> -> tensor<4x2xf64>\n"
          "    shardc.return %r : tensor<4x2xf64>\n"
          "  } : (tensor<4x4xf64>) -> tensor<4x4xf64>",
          "tensor<4x4xf64>", {}, check);
}

TEST_F(Autodiff, AllToAll) {
  Check check;
  check.prelude = "shardc.mesh @mesh_2 = <[\"x\"=2]>";
  checkOp("%a: tensor<4x4xf64>",
          "  %y = shardc.shard_map (%a) in_shardings = [<@mesh_2, [{\"x\"}, {}]>]\n"
          "         out_shardings = [<@mesh_2, [{}, {\"x\"}]>] {\n"
          "  ^bb0(%la: tensor<2x4xf64>):\n"
          "    %t = shardc.all_to_all %la on @mesh_2 [\"x\"] split_dim = 1 concat_dim = 0 : "
          "tensor<2x4xf64> -> tensor<4x2xf64>\n"
          "    %e = shardc.exp %t : tensor<4x2xf64>\n"
          "    shardc.return %e : tensor<4x2xf64>\n"
          "  } : (tensor<4x4xf64>) -> tensor<4x4xf64>",
          "tensor<4x4xf64>", {}, check);
}

TEST_F(Autodiff, CollectivePermute) {
  // The adjoint sends each gradient back along the inverse permutation
  // (a 3-cycle, so the inverse differs from the permutation).
  Check check;
  check.prelude = "shardc.mesh @mesh_3 = <[\"x\"=3]>";
  checkOp("%a: tensor<6x2xf64>",
          "  %y = shardc.shard_map (%a) in_shardings = [<@mesh_3, [{\"x\"}, {}]>]\n"
          "         out_shardings = [<@mesh_3, [{\"x\"}, {}]>] {\n"
          "  ^bb0(%la: tensor<2x2xf64>):\n"
          "    %t = shardc.collective_permute %la on @mesh_3 [\"x\"] sources = [1, 2, 0] : "
          "tensor<2x2xf64>\n"
          "    %e = shardc.exp %t : tensor<2x2xf64>\n"
          "    %m = shardc.mul %e, %la : tensor<2x2xf64>\n"
          "    shardc.return %m : tensor<2x2xf64>\n"
          "  } : (tensor<6x2xf64>) -> tensor<6x2xf64>",
          "tensor<6x2xf64>", {}, check);
}

TEST_F(Autodiff, RejectsExistingGradFunction) {
  expectRejected(R"mlir(
    func.func @f(%a: tensor<f64>) -> tensor<f64> {
      return %a : tensor<f64>
    }
    func.func @f_grad(%a: tensor<f64>) -> tensor<f64> {
      return %a : tensor<f64>
    }
  )mlir",
                 {}, "@f_grad already exists");
}

} // namespace
