//===- InterpreterTest.cpp - the reference interpreter, op by op ----------===//
//
// Parses small modules and runs them with shardc::interpret. Every op of the
// dialect is checked against hand-computed values, including its edge cases
// (NaN from log/sqrt of negatives, out-of-range indices, integer division by
// zero). shard_map programs with collectives are checked against the same
// computation written in the global view; per-device programs run on N lanes.
//
//===----------------------------------------------------------------------===//

#include "shardc/Interpreter/Interpreter.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Arrays and comparisons
//===----------------------------------------------------------------------===//

Array f32(Shape shape, const std::vector<double> &values) {
  return Array::fromDoubles(DType::F32, std::move(shape), values);
}
Array f64(Shape shape, const std::vector<double> &values) {
  return Array::fromDoubles(DType::F64, std::move(shape), values);
}
Array bf16(Shape shape, const std::vector<double> &values) {
  return Array::fromDoubles(DType::BF16, std::move(shape), values);
}
Array f16(Shape shape, const std::vector<double> &values) {
  return Array::fromDoubles(DType::F16, std::move(shape), values);
}
Array i32(Shape shape, const std::vector<int64_t> &values) {
  return Array::fromInts(DType::I32, std::move(shape), values);
}
Array i64(Shape shape, const std::vector<int64_t> &values) {
  return Array::fromInts(DType::I64, std::move(shape), values);
}
Array i1(Shape shape, const std::vector<int64_t> &values) {
  return Array::fromInts(DType::I1, std::move(shape), values);
}

/// 0, 1, 2, ... in the given shape.
Array iotaF32(const Shape &shape) {
  std::vector<double> v(numElements(shape));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = (double)i;
  return f32(shape, v);
}

std::string describe(const Array &a) {
  std::ostringstream os;
  os << a.typeString() << " [";
  for (int64_t i = 0; i < a.numElements(); ++i) {
    os << (i ? ", " : "");
    if (isFloat(a.dtype()))
      os << a.getDouble(i);
    else
      os << a.getInt(i);
  }
  os << "]";
  return os.str();
}

/// Same dtype, shape and values; NaN equals NaN, and -0 equals 0. Floats are
/// compared within `relTol` of the expected value (0: exactly).
::testing::AssertionResult same(const Array &actual, const Array &expected, double relTol = 0) {
  auto fail = [&] {
    return ::testing::AssertionFailure()
           << "\n  actual:   " << describe(actual) << "\n  expected: " << describe(expected);
  };
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
    return fail();
  for (int64_t i = 0; i < actual.numElements(); ++i) {
    if (!isFloat(actual.dtype())) {
      if (actual.getInt(i) != expected.getInt(i))
        return fail() << "\n  first difference at element " << i;
      continue;
    }
    double a = actual.getDouble(i), e = expected.getDouble(i);
    if (std::isnan(a) && std::isnan(e))
      continue;
    if (a == e)
      continue;
    if (relTol > 0 && std::isfinite(e) && std::fabs(a - e) <= relTol * std::fabs(e) + 1e-30)
      continue;
    return fail() << "\n  first difference at element " << i;
  }
  return ::testing::AssertionSuccess();
}

/// Succeeds when `needle` occurs in `text`; otherwise shows both.
::testing::AssertionResult contains(const std::string &text, const std::string &needle) {
  if (text.find(needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected to find\n  " << needle << "\nin\n" << text;
}

//===----------------------------------------------------------------------===//
// Fixture
//===----------------------------------------------------------------------===//

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest()
      : handler(&ctx, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        }) {
    ctx.loadDialect<ShardcDialect, func::FuncDialect>();
  }

  /// The diagnostics emitted so far, one per line.
  std::string diagnostics() const {
    std::string all;
    for (const std::string &m : messages)
      all += m + "\n";
    return all;
  }

  /// Parses `source`, which must verify, and returns its function `name`.
  func::FuncOp load(StringRef source, StringRef name = "main") {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module) {
      ADD_FAILURE() << "the module does not parse:\n" << diagnostics();
      return {};
    }
    auto fn = module->lookupSymbol<func::FuncOp>(name);
    if (!fn)
      ADD_FAILURE() << "no function @" << name.str();
    modules.push_back(std::move(module));
    return fn;
  }

  /// Runs `name` of `source` on one device; a failure fails the test.
  std::vector<Array> run(StringRef source, const std::vector<Array> &args,
                         StringRef name = "main") {
    func::FuncOp fn = load(source, name);
    if (!fn)
      return {};
    FailureOr<std::vector<Array>> out = interpret(fn, args);
    if (failed(out)) {
      ADD_FAILURE() << "the run failed:\n" << diagnostics();
      return {};
    }
    EXPECT_EQ(diagnostics(), "");
    return std::move(*out);
  }

  /// Runs `source` on `numDevices` devices; a failure fails the test.
  std::vector<DeviceArrays> runLanes(StringRef source, const std::vector<DeviceArrays> &args,
                                     int64_t numDevices) {
    func::FuncOp fn = load(source);
    if (!fn)
      return {};
    FailureOr<std::vector<DeviceArrays>> out = interpret(fn, args, numDevices);
    if (failed(out)) {
      ADD_FAILURE() << "the run failed:\n" << diagnostics();
      return {};
    }
    return std::move(*out);
  }

  /// Runs `fn` expecting an error diagnostic (not a crash); returns the
  /// diagnostics it emitted.
  std::string expectError(func::FuncOp fn, const std::vector<DeviceArrays> &args,
                          int64_t numDevices) {
    if (!fn)
      return "";
    messages.clear();
    FailureOr<std::vector<DeviceArrays>> out = interpret(fn, args, numDevices);
    EXPECT_TRUE(failed(out)) << "the run was expected to fail";
    EXPECT_FALSE(messages.empty()) << "a failure must come with a diagnostic";
    return diagnostics();
  }

  std::string expectError(StringRef source, const std::vector<Array> &args) {
    std::vector<DeviceArrays> lanes;
    for (const Array &a : args)
      lanes.push_back(DeviceArrays{a});
    return expectError(load(source), lanes, 1);
  }

  MLIRContext ctx;
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler;
  std::vector<OwningOpRef<ModuleOp>> modules;
};

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Constants) {
  std::vector<Array> r = run(R"mlir(
    func.func @main() -> (tensor<2x2xf32>, tensor<3xf32>, tensor<3xi1>, tensor<2x2xi1>,
                          tensor<2xi32>, tensor<2xi64>, tensor<2xbf16>, tensor<1xf16>,
                          tensor<f64>) {
      %a = shardc.constant dense<[[1.0, -2.0], [3.5, 4.0]]> : tensor<2x2xf32>
      %b = shardc.constant dense<2.5> : tensor<3xf32>
      %c = shardc.constant dense<[true, false, true]> : tensor<3xi1>
      %d = shardc.constant dense<true> : tensor<2x2xi1>
      %e = shardc.constant dense<[-1, 7]> : tensor<2xi32>
      %f = shardc.constant dense<[-5000000000, 3]> : tensor<2xi64>
      %g = shardc.constant dense<1.5> : tensor<2xbf16>
      %h = shardc.constant dense<0.1> : tensor<1xf16>
      %s = shardc.constant dense<0.1> : tensor<f64>
      return %a, %b, %c, %d, %e, %f, %g, %h, %s
        : tensor<2x2xf32>, tensor<3xf32>, tensor<3xi1>, tensor<2x2xi1>, tensor<2xi32>,
          tensor<2xi64>, tensor<2xbf16>, tensor<1xf16>, tensor<f64>
    })mlir",
                             {});
  ASSERT_EQ(r.size(), 9u);
  EXPECT_TRUE(same(r[0], f32({2, 2}, {1, -2, 3.5, 4})));
  EXPECT_TRUE(same(r[1], f32({3}, {2.5, 2.5, 2.5})));
  EXPECT_TRUE(same(r[2], i1({3}, {1, 0, 1})));
  EXPECT_TRUE(same(r[3], i1({2, 2}, {1, 1, 1, 1})));
  EXPECT_TRUE(same(r[4], i32({2}, {-1, 7})));
  EXPECT_TRUE(same(r[5], i64({2}, {-5000000000LL, 3})));
  EXPECT_TRUE(same(r[6], bf16({2}, {1.5, 1.5})));
  // 0.1 is not a half: the constant holds the nearest one.
  EXPECT_TRUE(same(r[7], f16({1}, {0.0999755859375})));
  EXPECT_TRUE(same(r[8], f64({}, {0.1})));
}

TEST_F(InterpreterTest, Iota) {
  std::vector<Array> r = run(R"mlir(
    func.func @main() -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<4xi64>, tensor<2x1x2xf32>) {
      %a = shardc.iota dim = 1 : tensor<2x3xi32>
      %b = shardc.iota dim = 0 : tensor<2x3xf32>
      %c = shardc.iota dim = 0 : tensor<4xi64>
      %d = shardc.iota dim = 2 : tensor<2x1x2xf32>
      return %a, %b, %c, %d : tensor<2x3xi32>, tensor<2x3xf32>, tensor<4xi64>, tensor<2x1x2xf32>
    })mlir",
                             {});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(same(r[0], i32({2, 3}, {0, 1, 2, 0, 1, 2})));
  EXPECT_TRUE(same(r[1], f32({2, 3}, {0, 0, 0, 1, 1, 1})));
  EXPECT_TRUE(same(r[2], i64({4}, {0, 1, 2, 3})));
  EXPECT_TRUE(same(r[3], f32({2, 1, 2}, {0, 1, 0, 1})));
}

TEST_F(InterpreterTest, ConstantWhoseElementsCannotBeReadIsAnError) {
  // A dense_resource constant has no element iterator; the interpreter must
  // say so instead of crashing.
  std::string diag = expectError(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %a = shardc.constant dense_resource<weights> : tensor<2xf32>
      return %a : tensor<2xf32>
    }
    {-#
      dialect_resources: {
        builtin: {
          weights: "0x040000000000803F00000040"
        }
      }
    #-})mlir",
                                 {});
  EXPECT_TRUE(contains(diag, "the reference interpreter cannot read the elements of "
                             "dense_resource<weights>"));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, UnaryFloatOps) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<4xf32>, %y: tensor<3xf32>)
        -> (tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
            tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %neg = shardc.neg %y : tensor<3xf32>
      %abs = shardc.abs %y : tensor<3xf32>
      %exp = shardc.exp %x : tensor<4xf32>
      %log = shardc.log %x : tensor<4xf32>
      %tanh = shardc.tanh %x : tensor<4xf32>
      %sqrt = shardc.sqrt %x : tensor<4xf32>
      %rsqrt = shardc.rsqrt %x : tensor<4xf32>
      %erf = shardc.erf %x : tensor<4xf32>
      return %neg, %abs, %exp, %log, %tanh, %sqrt, %rsqrt, %erf
        : tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
          tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir",
                             {f32({4}, {0.25, 1, 2, 4}), f32({3}, {-1.5, 0, 2})});
  ASSERT_EQ(r.size(), 8u);
  const double tol = 1e-6;
  EXPECT_TRUE(same(r[0], f32({3}, {1.5, 0, -2})));
  EXPECT_TRUE(same(r[1], f32({3}, {1.5, 0, 2})));
  EXPECT_TRUE(same(
      r[2], f32({4}, {1.2840254166877414, 2.718281828459045, 7.38905609893065, 54.598150033144236}),
      tol));
  EXPECT_TRUE(
      same(r[3], f32({4}, {-1.3862943611198906, 0, 0.6931471805599453, 1.3862943611198906}), tol));
  EXPECT_TRUE(same(
      r[4],
      f32({4}, {0.24491866240370913, 0.7615941559557649, 0.9640275800758169, 0.999329299739067}),
      tol));
  EXPECT_TRUE(same(r[5], f32({4}, {0.5, 1, 1.4142135623730951, 2}), tol));
  EXPECT_TRUE(same(r[6], f32({4}, {2, 1, 0.7071067811865476, 0.5}), tol));
  EXPECT_TRUE(same(
      r[7],
      f32({4}, {0.2763263901682369, 0.8427007929497149, 0.9953222650189527, 0.9999999845827421}),
      tol));
  // Exact values stay exact.
  EXPECT_EQ(r[3].getDouble(1), 0.0);
  EXPECT_EQ(r[5].getDouble(3), 2.0);
  EXPECT_EQ(r[6].getDouble(3), 0.5);
}

TEST_F(InterpreterTest, UnaryEdgeCasesGiveNaNAndInfinities) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %log = shardc.log %x : tensor<4xf32>
      %sqrt = shardc.sqrt %x : tensor<4xf32>
      %rsqrt = shardc.rsqrt %x : tensor<4xf32>
      %exp = shardc.exp %x : tensor<4xf32>
      return %log, %sqrt, %rsqrt, %exp : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir",
                             {f32({4}, {-1, 0, -4, 1000})});
  ASSERT_EQ(r.size(), 4u);
  // log: NaN below 0, -inf at 0; sqrt: NaN below 0; rsqrt(0) = +inf.
  EXPECT_TRUE(std::isnan(r[0].getDouble(0)));
  EXPECT_EQ(r[0].getDouble(1), -kInf);
  EXPECT_TRUE(std::isnan(r[0].getDouble(2)));
  EXPECT_TRUE(std::isnan(r[1].getDouble(0)));
  EXPECT_EQ(r[1].getDouble(1), 0.0);
  EXPECT_TRUE(std::isnan(r[1].getDouble(2)));
  EXPECT_TRUE(std::isnan(r[2].getDouble(0)));
  EXPECT_EQ(r[2].getDouble(1), kInf);
  // exp overflows f32 to +inf; exp(-4) is fine.
  EXPECT_EQ(r[3].getDouble(3), kInf);
  EXPECT_NEAR(r[3].getDouble(2), 0.01831563888873418, 1e-8);
}

TEST_F(InterpreterTest, UnaryIntegerOps) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<3xi32>, %y: tensor<2xi64>)
        -> (tensor<3xi32>, tensor<3xi32>, tensor<2xi64>, tensor<2xi64>) {
      %neg = shardc.neg %x : tensor<3xi32>
      %abs = shardc.abs %x : tensor<3xi32>
      %neg64 = shardc.neg %y : tensor<2xi64>
      %abs64 = shardc.abs %y : tensor<2xi64>
      return %neg, %abs, %neg64, %abs64 : tensor<3xi32>, tensor<3xi32>, tensor<2xi64>, tensor<2xi64>
    })mlir",
                             {i32({3}, {-3, 0, 5}), i64({2}, {-6000000000LL, 1})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(same(r[0], i32({3}, {3, 0, -5})));
  EXPECT_TRUE(same(r[1], i32({3}, {3, 0, 5})));
  EXPECT_TRUE(same(r[2], i64({2}, {6000000000LL, -1})));
  EXPECT_TRUE(same(r[3], i64({2}, {6000000000LL, 1})));
}

const char *kBinaryF32 = R"mlir(
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
          tensor<4xf32>, tensor<4xf32>) {
    %add = shardc.add %a, %b : tensor<4xf32>
    %sub = shardc.sub %a, %b : tensor<4xf32>
    %mul = shardc.mul %a, %b : tensor<4xf32>
    %div = shardc.div %a, %b : tensor<4xf32>
    %max = shardc.max %a, %b : tensor<4xf32>
    %min = shardc.min %a, %b : tensor<4xf32>
    %pow = shardc.pow %a, %b : tensor<4xf32>
    return %add, %sub, %mul, %div, %max, %min, %pow
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>
  })mlir";

TEST_F(InterpreterTest, BinaryFloatOps) {
  std::vector<Array> r = run(kBinaryF32, {f32({4}, {1, -2, 3, 0.5}), f32({4}, {4, 5, -6, 2})});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_TRUE(same(r[0], f32({4}, {5, 3, -3, 2.5})));
  EXPECT_TRUE(same(r[1], f32({4}, {-3, -7, 9, -1.5})));
  EXPECT_TRUE(same(r[2], f32({4}, {4, -10, -18, 1})));
  EXPECT_TRUE(same(r[3], f32({4}, {0.25, -0.4, -0.5, 0.25})));
  EXPECT_TRUE(same(r[4], f32({4}, {4, 5, 3, 2})));
  EXPECT_TRUE(same(r[5], f32({4}, {1, -2, -6, 0.5})));
  EXPECT_TRUE(same(r[6], f32({4}, {1, -32, 1.0 / 729, 0.25}), 1e-6));
}

TEST_F(InterpreterTest, BinaryFloatEdgeCases) {
  // Float division by zero is not an error; max/min propagate NaN.
  std::vector<Array> r = run(kBinaryF32, {f32({4}, {1, 0, kNaN, 2}), f32({4}, {0, 0, 1, kNaN})});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[3].getDouble(0), kInf);
  EXPECT_TRUE(std::isnan(r[3].getDouble(1)));
  EXPECT_TRUE(same(r[4], f32({4}, {1, 0, kNaN, kNaN})));
  EXPECT_TRUE(same(r[5], f32({4}, {0, 0, kNaN, kNaN})));
  EXPECT_TRUE(same(r[0], f32({4}, {1, 0, kNaN, kNaN})));
}

TEST_F(InterpreterTest, BinaryIntegerOps) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%a: tensor<5xi32>, %b: tensor<5xi32>)
        -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>,
            tensor<5xi32>, tensor<5xi32>) {
      %add = shardc.add %a, %b : tensor<5xi32>
      %sub = shardc.sub %a, %b : tensor<5xi32>
      %mul = shardc.mul %a, %b : tensor<5xi32>
      %div = shardc.div %a, %b : tensor<5xi32>
      %max = shardc.max %a, %b : tensor<5xi32>
      %min = shardc.min %a, %b : tensor<5xi32>
      %pow = shardc.pow %a, %b : tensor<5xi32>
      return %add, %sub, %mul, %div, %max, %min, %pow
        : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>,
          tensor<5xi32>, tensor<5xi32>
    })mlir",
                             {i32({5}, {7, -7, 9, 2, -8}), i32({5}, {2, 2, -4, 10, 3})});
  ASSERT_EQ(r.size(), 7u);
  EXPECT_TRUE(same(r[0], i32({5}, {9, -5, 5, 12, -5})));
  EXPECT_TRUE(same(r[1], i32({5}, {5, -9, 13, -8, -11})));
  EXPECT_TRUE(same(r[2], i32({5}, {14, -14, -36, 20, -24})));
  // Integer division truncates toward zero.
  EXPECT_TRUE(same(r[3], i32({5}, {3, -3, -2, 0, -2})));
  EXPECT_TRUE(same(r[4], i32({5}, {7, 2, 9, 10, 3})));
  EXPECT_TRUE(same(r[5], i32({5}, {2, -7, -4, 2, -8})));
  // 9^-4 has no integer value other than 0.
  EXPECT_TRUE(same(r[6], i32({5}, {49, 49, 0, 1024, -512})));
}

TEST_F(InterpreterTest, IntegerAdditionWrapsAround) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%a: tensor<1xi32>, %b: tensor<1xi64>) -> (tensor<1xi32>, tensor<1xi64>) {
      %one32 = shardc.constant dense<1> : tensor<1xi32>
      %one64 = shardc.constant dense<1> : tensor<1xi64>
      %s = shardc.add %a, %one32 : tensor<1xi32>
      %t = shardc.add %b, %one64 : tensor<1xi64>
      return %s, %t : tensor<1xi32>, tensor<1xi64>
    })mlir",
                             {i32({1}, {std::numeric_limits<int32_t>::max()}),
                              i64({1}, {std::numeric_limits<int64_t>::max()})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(same(r[0], i32({1}, {std::numeric_limits<int32_t>::min()})));
  EXPECT_TRUE(same(r[1], i64({1}, {std::numeric_limits<int64_t>::min()})));
}

TEST_F(InterpreterTest, IntegerDivisionByZeroIsAnError) {
  std::string diag = expectError(R"mlir(
    func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
      %d = shardc.div %a, %b : tensor<3xi32>
      return %d : tensor<3xi32>
    })mlir",
                                 {i32({3}, {4, 5, 6}), i32({3}, {2, 0, 3})});
  EXPECT_TRUE(contains(diag, "integer division by zero at element 1"));
}

TEST_F(InterpreterTest, LowPrecisionFloatsRoundOncePerOp) {
  std::vector<Array> r =
      run(R"mlir(
    func.func @main(%a: tensor<2xbf16>, %b: tensor<2xbf16>, %h: tensor<1xf16>, %d: tensor<1xf64>)
        -> (tensor<2xbf16>, tensor<2xbf16>, tensor<1xf16>, tensor<1xf64>) {
      %s = shardc.add %a, %b : tensor<2xbf16>
      %q = shardc.sqrt %a : tensor<2xbf16>
      %m = shardc.mul %h, %h : tensor<1xf16>
      %e = shardc.exp %d : tensor<1xf64>
      return %s, %q, %m, %e : tensor<2xbf16>, tensor<2xbf16>, tensor<1xf16>, tensor<1xf64>
    })mlir",
          {bf16({2}, {1, 2}), bf16({2}, {0.00390625, 1}), f16({1}, {3}), f64({1}, {1})});
  ASSERT_EQ(r.size(), 4u);
  // 1 + 2^-8 is halfway between two bf16 values: ties go to the even one, 1.
  EXPECT_TRUE(same(r[0], bf16({2}, {1, 3})));
  // sqrt(2) in bf16 (8 significant bits).
  EXPECT_TRUE(same(r[1], bf16({2}, {1, 1.4140625})));
  EXPECT_TRUE(same(r[2], f16({1}, {9})));
  EXPECT_TRUE(same(r[3], f64({1}, {std::exp(1.0)})));
}

TEST_F(InterpreterTest, CompareAllDirections) {
  const char *source = R"mlir(
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<3xi32>, %d: tensor<3xi32>)
        -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
            tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
      %eq = shardc.compare eq, %a, %b : tensor<4xf32>
      %ne = shardc.compare ne, %a, %b : tensor<4xf32>
      %lt = shardc.compare lt, %a, %b : tensor<4xf32>
      %le = shardc.compare le, %a, %b : tensor<4xf32>
      %gt = shardc.compare gt, %a, %b : tensor<4xf32>
      %ge = shardc.compare ge, %a, %b : tensor<4xf32>
      %ilt = shardc.compare lt, %c, %d : tensor<3xi32>
      %ige = shardc.compare ge, %c, %d : tensor<3xi32>
      %ieq = shardc.compare eq, %c, %d : tensor<3xi32>
      return %eq, %ne, %lt, %le, %gt, %ge, %ilt, %ige, %ieq
        : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
          tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
    })mlir";
  std::vector<Array> r = run(source, {f32({4}, {1, 2, 3, kNaN}), f32({4}, {2, 2, 2, 1}),
                                      i32({3}, {-1, 0, 5}), i32({3}, {0, 0, -5})});
  ASSERT_EQ(r.size(), 9u);
  // Comparisons with NaN are false, except ne.
  EXPECT_TRUE(same(r[0], i1({4}, {0, 1, 0, 0})));
  EXPECT_TRUE(same(r[1], i1({4}, {1, 0, 1, 1})));
  EXPECT_TRUE(same(r[2], i1({4}, {1, 0, 0, 0})));
  EXPECT_TRUE(same(r[3], i1({4}, {1, 1, 0, 0})));
  EXPECT_TRUE(same(r[4], i1({4}, {0, 0, 1, 0})));
  EXPECT_TRUE(same(r[5], i1({4}, {0, 1, 1, 0})));
  EXPECT_TRUE(same(r[6], i1({3}, {1, 0, 0})));
  EXPECT_TRUE(same(r[7], i1({3}, {0, 1, 1})));
  EXPECT_TRUE(same(r[8], i1({3}, {0, 1, 0})));
}

TEST_F(InterpreterTest, Select) {
  std::vector<Array> r =
      run(R"mlir(
    func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %p: tensor<3xi1>,
                    %x: tensor<3xi32>, %y: tensor<3xi32>, %t: tensor<3xi1>)
        -> (tensor<2x2xf32>, tensor<3xi32>, tensor<3xi1>) {
      %gt = shardc.compare gt, %a, %b : tensor<2x2xf32>
      %max = shardc.select %gt, %a, %b : tensor<2x2xi1>, tensor<2x2xf32>
      %s = shardc.select %p, %x, %y : tensor<3xi1>, tensor<3xi32>
      %nt = shardc.select %p, %t, %p : tensor<3xi1>, tensor<3xi1>
      return %max, %s, %nt : tensor<2x2xf32>, tensor<3xi32>, tensor<3xi1>
    })mlir",
          {f32({2, 2}, {1, 5, -3, 0}), f32({2, 2}, {2, 4, -4, 0}), i1({3}, {1, 0, 1}),
           i32({3}, {10, 20, 30}), i32({3}, {-10, -20, -30}), i1({3}, {0, 1, 1})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(same(r[0], f32({2, 2}, {2, 5, -3, 0})));
  EXPECT_TRUE(same(r[1], i32({3}, {10, -20, 30})));
  EXPECT_TRUE(same(r[2], i1({3}, {0, 0, 1})));
}

TEST_F(InterpreterTest, Convert) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%f: tensor<5xf32>, %i: tensor<3xi32>, %p: tensor<2xi1>, %g: tensor<3xf32>)
        -> (tensor<5xi32>, tensor<3xf32>, tensor<3xi1>, tensor<2xf32>, tensor<2xi32>,
            tensor<3xi1>, tensor<3xi64>, tensor<3xbf16>, tensor<3xf16>, tensor<3xf64>) {
      %a = shardc.convert %f : tensor<5xf32> -> tensor<5xi32>
      %b = shardc.convert %i : tensor<3xi32> -> tensor<3xf32>
      %c = shardc.convert %g : tensor<3xf32> -> tensor<3xi1>
      %d = shardc.convert %p : tensor<2xi1> -> tensor<2xf32>
      %e = shardc.convert %p : tensor<2xi1> -> tensor<2xi32>
      %h = shardc.convert %i : tensor<3xi32> -> tensor<3xi1>
      %j = shardc.convert %i : tensor<3xi32> -> tensor<3xi64>
      %k = shardc.convert %g : tensor<3xf32> -> tensor<3xbf16>
      %l = shardc.convert %g : tensor<3xf32> -> tensor<3xf16>
      %m = shardc.convert %g : tensor<3xf32> -> tensor<3xf64>
      return %a, %b, %c, %d, %e, %h, %j, %k, %l, %m
        : tensor<5xi32>, tensor<3xf32>, tensor<3xi1>, tensor<2xf32>, tensor<2xi32>,
          tensor<3xi1>, tensor<3xi64>, tensor<3xbf16>, tensor<3xf16>, tensor<3xf64>
    })mlir",
                             {f32({5}, {1.7, -1.7, 3e10, kNaN, -3e10}), i32({3}, {0, 5, -2}),
                              i1({2}, {1, 0}), f32({3}, {0, 2.5, -1.00390625})});
  ASSERT_EQ(r.size(), 10u);
  // Float to integer truncates toward zero and saturates; NaN gives 0.
  EXPECT_TRUE(same(r[0], i32({5}, {1, -1, std::numeric_limits<int32_t>::max(), 0,
                                   std::numeric_limits<int32_t>::min()})));
  EXPECT_TRUE(same(r[1], f32({3}, {0, 5, -2})));
  // To i1 is x != 0.
  EXPECT_TRUE(same(r[2], i1({3}, {0, 1, 1})));
  EXPECT_TRUE(same(r[3], f32({2}, {1, 0})));
  EXPECT_TRUE(same(r[4], i32({2}, {1, 0})));
  EXPECT_TRUE(same(r[5], i1({3}, {0, 1, 1})));
  EXPECT_TRUE(same(r[6], i64({3}, {0, 5, -2})));
  // -1.00390625 is halfway between two bf16 values; ties go to even (-1).
  EXPECT_TRUE(same(r[7], bf16({3}, {0, 2.5, -1})));
  EXPECT_EQ(r[7].getDouble(2), -1.0);
  EXPECT_TRUE(same(r[8], f16({3}, {0, 2.5, -1.00390625})));
  EXPECT_TRUE(same(r[9], f64({3}, {0, 2.5, -1.00390625})));
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, DotGeneral) {
  std::vector<Array> r =
      run(R"mlir(
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %u: tensor<2xf32>,
                    %v: tensor<3xf32>, %p: tensor<3x2xf32>, %q: tensor<2x3xf32>,
                    %m: tensor<2x2xi32>, %n: tensor<2x2xi32>)
        -> (tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2xf32>,
            tensor<2x2xi32>, tensor<f32>) {
      %mm = shardc.dot_general %a, %b contracting_dims = [1] x [0]
            : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      %gram = shardc.dot_general %a, %a contracting_dims = [0] x [0]
            : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
      %outer = shardc.dot_general %u, %v contracting_dims = [] x []
            : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %bdot = shardc.dot_general %p, %q batching_dims = [1] x [0], contracting_dims = [0] x [1]
            : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<2xf32>
      %imm = shardc.dot_general %m, %n contracting_dims = [1] x [0]
            : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
      %inner = shardc.dot_general %v, %v contracting_dims = [0] x [0]
            : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
      return %mm, %gram, %outer, %bdot, %imm, %inner
        : tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x2xi32>,
          tensor<f32>
    })mlir",
          {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3, 2}, {7, 8, 9, 10, 11, 12}), f32({2}, {1, 2}),
           f32({3}, {3, 4, 5}), f32({3, 2}, {1, 2, 3, 4, 5, 6}), f32({2, 3}, {1, 1, 1, 2, 2, 2}),
           i32({2, 2}, {1, 2, 3, 4}), i32({2, 2}, {5, 6, 7, 8})});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_TRUE(same(r[0], f32({2, 2}, {58, 64, 139, 154})));
  // a^T a.
  EXPECT_TRUE(same(r[1], f32({3, 3}, {17, 22, 27, 22, 29, 36, 27, 36, 45})));
  // No contracting dims: the outer product.
  EXPECT_TRUE(same(r[2], f32({2, 3}, {3, 4, 5, 6, 8, 10})));
  // Batch b: sum_k p[k][b] * q[b][k].
  EXPECT_TRUE(same(r[3], f32({2}, {1 + 3 + 5, 2 * (2 + 4 + 6)})));
  EXPECT_TRUE(same(r[4], i32({2, 2}, {19, 22, 43, 50})));
  EXPECT_TRUE(same(r[5], f32({}, {9 + 16 + 25})));
}

TEST_F(InterpreterTest, DotGeneralBatched) {
  // (B, M, K) x (B, K, N) -> (B, M, N), and a batch of row dot products.
  std::vector<Array> r = run(R"mlir(
    func.func @main(%a: tensor<2x2x3xf32>, %b: tensor<2x3x2xf32>, %y: tensor<3x2xf32>)
        -> (tensor<2x2x2xf32>, tensor<3xf32>, tensor<2x2x2xf32>) {
      %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
           : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
      %d = shardc.dot_general %y, %y batching_dims = [0] x [0], contracting_dims = [1] x [1]
           : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3xf32>
      %e = shardc.dot_general %b, %a batching_dims = [0] x [0], contracting_dims = [1] x [2]
           : (tensor<2x3x2xf32>, tensor<2x2x3xf32>) -> tensor<2x2x2xf32>
      return %c, %d, %e : tensor<2x2x2xf32>, tensor<3xf32>, tensor<2x2x2xf32>
    })mlir",
                             {f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
                              f32({2, 3, 2}, {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6}),
                              f32({3, 2}, {1, 2, 3, 4, -1, 5})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(same(r[0], f32({2, 2, 2}, {58, 64, 139, 154, 1, 2, 3, 4})));
  EXPECT_TRUE(same(r[1], f32({3}, {5, 25, 26})));
  // The same products with the operands swapped: each batch transposed.
  EXPECT_TRUE(same(r[2], f32({2, 2, 2}, {58, 139, 64, 154, 1, 3, 2, 4})));
}

TEST_F(InterpreterTest, Reduce) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %n: tensor<2x2xf32>,
                    %t: tensor<2x3x2xf32>)
        -> (tensor<2xf32>, tensor<3xf32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>,
            tensor<f32>, tensor<3xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xf32>,
            tensor<2xf32>, tensor<2x2xf32>) {
      %s1 = shardc.reduce sum %x dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
      %s0 = shardc.reduce sum %x dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
      %sa = shardc.reduce sum %x dims = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
      %mx = shardc.reduce max %x dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
      %mn = shardc.reduce min %x dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
      %ma = shardc.reduce max %x dims = [1, 0] : (tensor<2x3xf32>) -> tensor<f32>
      %is = shardc.reduce sum %i dims = [0] : (tensor<2x3xi32>) -> tensor<3xi32>
      %ix = shardc.reduce max %i dims = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
      %in = shardc.reduce min %i dims = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
      %nx = shardc.reduce max %n dims = [1] : (tensor<2x2xf32>) -> tensor<2xf32>
      %nn = shardc.reduce min %n dims = [1] : (tensor<2x2xf32>) -> tensor<2xf32>
      %mid = shardc.reduce sum %t dims = [1] : (tensor<2x3x2xf32>) -> tensor<2x2xf32>
      return %s1, %s0, %sa, %mx, %mn, %ma, %is, %ix, %in, %nx, %nn, %mid
        : tensor<2xf32>, tensor<3xf32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>,
          tensor<f32>, tensor<3xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xf32>,
          tensor<2xf32>, tensor<2x2xf32>
    })mlir",
                             {f32({2, 3}, {1, -2, 3, 4, 5, -6}), i32({2, 3}, {1, -2, 3, 4, 5, -6}),
                              f32({2, 2}, {kNaN, 1, 2, 3}), iotaF32({2, 3, 2})});
  ASSERT_EQ(r.size(), 12u);
  EXPECT_TRUE(same(r[0], f32({2}, {2, 3})));
  EXPECT_TRUE(same(r[1], f32({3}, {5, 3, -3})));
  EXPECT_TRUE(same(r[2], f32({}, {5})));
  EXPECT_TRUE(same(r[3], f32({2}, {3, 5})));
  EXPECT_TRUE(same(r[4], f32({3}, {1, -2, -6})));
  EXPECT_TRUE(same(r[5], f32({}, {5})));
  EXPECT_TRUE(same(r[6], i32({3}, {5, 3, -3})));
  EXPECT_TRUE(same(r[7], i32({2}, {3, 5})));
  EXPECT_TRUE(same(r[8], i32({2}, {-2, -6})));
  // max and min propagate NaN.
  EXPECT_TRUE(same(r[9], f32({2}, {kNaN, 3})));
  EXPECT_TRUE(same(r[10], f32({2}, {kNaN, 2})));
  // t[i][j][k] = 6i + 2j + k; summing j gives 18i + 6 + 3k.
  EXPECT_TRUE(same(r[11], f32({2, 2}, {6, 9, 24, 27})));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, BroadcastInDim) {
  std::vector<Array> r =
      run(R"mlir(
    func.func @main(%row: tensor<3xf32>, %col: tensor<2xf32>, %r1: tensor<1x3xf32>,
                    %c1: tensor<2x1xf32>, %one: tensor<1xf32>, %s: tensor<f32>,
                    %m: tensor<2x3xf32>, %p: tensor<2xi1>)
        -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>,
            tensor<2x3xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xi1>,
            tensor<2x1x3xf32>) {
      %a = shardc.broadcast_in_dim %row, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
      %b = shardc.broadcast_in_dim %col, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
      %c = shardc.broadcast_in_dim %r1, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<4x3xf32>
      %d = shardc.broadcast_in_dim %c1, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
      %e = shardc.broadcast_in_dim %one, dims = [1] : (tensor<1xf32>) -> tensor<2x3xf32>
      %f = shardc.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
      %g = shardc.broadcast_in_dim %m, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %h = shardc.broadcast_in_dim %p, dims = [1] : (tensor<2xi1>) -> tensor<2x2xi1>
      %k = shardc.broadcast_in_dim %r1, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<2x1x3xf32>
      return %a, %b, %c, %d, %e, %f, %g, %h, %k
        : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>,
          tensor<2x3xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xi1>,
          tensor<2x1x3xf32>
    })mlir",
          {f32({3}, {1, 2, 3}), f32({2}, {10, 20}), f32({1, 3}, {4, 5, 6}), f32({2, 1}, {7, 8}),
           f32({1}, {9}), f32({}, {-1}), iotaF32({2, 3}), i1({2}, {1, 0})});
  ASSERT_EQ(r.size(), 9u);
  EXPECT_TRUE(same(r[0], f32({2, 3}, {1, 2, 3, 1, 2, 3})));
  EXPECT_TRUE(same(r[1], f32({2, 3}, {10, 10, 10, 20, 20, 20})));
  // Size-1 operand dimensions repeat along the result dimension.
  EXPECT_TRUE(same(r[2], f32({4, 3}, {4, 5, 6, 4, 5, 6, 4, 5, 6, 4, 5, 6})));
  EXPECT_TRUE(same(r[3], f32({2, 3}, {7, 7, 7, 8, 8, 8})));
  EXPECT_TRUE(same(r[4], f32({2, 3}, {9, 9, 9, 9, 9, 9})));
  EXPECT_TRUE(same(r[5], f32({2, 2}, {-1, -1, -1, -1})));
  // dims = [1, 0] transposes: g[i][j] = m[j][i].
  EXPECT_TRUE(same(r[6], f32({3, 2}, {0, 3, 1, 4, 2, 5})));
  EXPECT_TRUE(same(r[7], i1({2, 2}, {1, 0, 1, 0})));
  EXPECT_TRUE(same(r[8], f32({2, 1, 3}, {4, 5, 6, 4, 5, 6})));
}

TEST_F(InterpreterTest, ReshapeKeepsRowMajorOrder) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %i: tensor<4xi32>)
        -> (tensor<3x2xf32>, tensor<6xf32>, tensor<1x6x1xf32>, tensor<2x2xi32>) {
      %a = shardc.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %b = shardc.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
      %c = shardc.reshape %b : (tensor<6xf32>) -> tensor<1x6x1xf32>
      %d = shardc.reshape %i : (tensor<4xi32>) -> tensor<2x2xi32>
      return %a, %b, %c, %d : tensor<3x2xf32>, tensor<6xf32>, tensor<1x6x1xf32>, tensor<2x2xi32>
    })mlir",
                             {iotaF32({2, 3}), i32({4}, {1, 2, 3, 4})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(same(r[0], iotaF32({3, 2})));
  EXPECT_TRUE(same(r[1], iotaF32({6})));
  EXPECT_TRUE(same(r[2], iotaF32({1, 6, 1})));
  EXPECT_TRUE(same(r[3], i32({2, 2}, {1, 2, 3, 4})));
}

TEST_F(InterpreterTest, Transpose) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %t: tensor<2x3x4xf32>)
        -> (tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
      %a = shardc.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %b = shardc.transpose %t, permutation = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
      %c = shardc.transpose %t, permutation = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      return %a, %b, %c : tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>
    })mlir",
                             {iotaF32({2, 3}), iotaF32({2, 3, 4})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(same(r[0], f32({3, 2}, {0, 3, 1, 4, 2, 5})));
  // b[i][j][k] = t[j][k][i] = 12j + 4k + i.
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        expected.push_back(12 * j + 4 * k + i);
  EXPECT_TRUE(same(r[1], f32({4, 2, 3}, expected)));
  EXPECT_TRUE(same(r[2], iotaF32({2, 3, 4})));
}

TEST_F(InterpreterTest, Slice) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%x: tensor<3x4xf32>, %v: tensor<10xi32>)
        -> (tensor<2x2xf32>, tensor<3xi32>, tensor<0xi32>, tensor<3x4xf32>, tensor<1x1xf32>) {
      %a = shardc.slice %x, start = [1, 0], limit = [3, 4], strides = [1, 2]
           : (tensor<3x4xf32>) -> tensor<2x2xf32>
      %b = shardc.slice %v, start = [1], limit = [8], strides = [3]
           : (tensor<10xi32>) -> tensor<3xi32>
      %c = shardc.slice %v, start = [2], limit = [2], strides = [1]
           : (tensor<10xi32>) -> tensor<0xi32>
      %d = shardc.slice %x, start = [0, 0], limit = [3, 4], strides = [1, 1]
           : (tensor<3x4xf32>) -> tensor<3x4xf32>
      %e = shardc.slice %x, start = [2, 3], limit = [3, 4], strides = [5, 5]
           : (tensor<3x4xf32>) -> tensor<1x1xf32>
      return %a, %b, %c, %d, %e
        : tensor<2x2xf32>, tensor<3xi32>, tensor<0xi32>, tensor<3x4xf32>, tensor<1x1xf32>
    })mlir",
                             {iotaF32({3, 4}), i32({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_TRUE(same(r[0], f32({2, 2}, {4, 6, 8, 10})));
  EXPECT_TRUE(same(r[1], i32({3}, {1, 4, 7})));
  EXPECT_TRUE(same(r[2], i32({0}, {})));
  EXPECT_TRUE(same(r[3], iotaF32({3, 4})));
  EXPECT_TRUE(same(r[4], f32({1, 1}, {11})));
}

TEST_F(InterpreterTest, Concatenate) {
  std::vector<Array> r = run(R"mlir(
    func.func @main(%a: tensor<2x2xf32>, %b: tensor<1x2xf32>, %c: tensor<2x1xf32>,
                    %i: tensor<2xi32>, %j: tensor<3xi32>)
        -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<5x2xf32>, tensor<5xi32>, tensor<2x2xf32>) {
      %r0 = shardc.concatenate %a, %b dim = 0
            : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
      %r1 = shardc.concatenate %a, %c dim = 1
            : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      %r2 = shardc.concatenate %b, %a, %a dim = 0
            : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<5x2xf32>
      %r3 = shardc.concatenate %j, %i dim = 0 : (tensor<3xi32>, tensor<2xi32>) -> tensor<5xi32>
      %r4 = shardc.concatenate %a dim = 1 : (tensor<2x2xf32>) -> tensor<2x2xf32>
      return %r0, %r1, %r2, %r3, %r4
        : tensor<3x2xf32>, tensor<2x3xf32>, tensor<5x2xf32>, tensor<5xi32>, tensor<2x2xf32>
    })mlir",
                             {f32({2, 2}, {1, 2, 3, 4}), f32({1, 2}, {5, 6}), f32({2, 1}, {7, 8}),
                              i32({2}, {-1, -2}), i32({3}, {10, 20, 30})});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_TRUE(same(r[0], f32({3, 2}, {1, 2, 3, 4, 5, 6})));
  EXPECT_TRUE(same(r[1], f32({2, 3}, {1, 2, 7, 3, 4, 8})));
  EXPECT_TRUE(same(r[2], f32({5, 2}, {5, 6, 1, 2, 3, 4, 1, 2, 3, 4})));
  EXPECT_TRUE(same(r[3], i32({5}, {10, 20, 30, -1, -2})));
  EXPECT_TRUE(same(r[4], f32({2, 2}, {1, 2, 3, 4})));
}

const char *kTake = R"mlir(
  func.func @main(%table: tensor<4x2xf32>, %idx: tensor<3xi32>) -> tensor<3x2xf32> {
    %t = shardc.take %table, %idx : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
    return %t : tensor<3x2xf32>
  })mlir";

TEST_F(InterpreterTest, Take) {
  Array table = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  std::vector<Array> r = run(kTake, {table, i32({3}, {3, 0, 3})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(same(r[0], f32({3, 2}, {30, 31, 0, 1, 30, 31})));

  r = run(R"mlir(
    func.func @main(%table: tensor<4x2xf32>, %idx: tensor<2x2xi64>, %vec: tensor<4xi32>,
                    %i: tensor<2xi32>)
        -> (tensor<2x2x2xf32>, tensor<2xi32>) {
      %a = shardc.take %table, %idx : (tensor<4x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
      %b = shardc.take %vec, %i : (tensor<4xi32>, tensor<2xi32>) -> tensor<2xi32>
      return %a, %b : tensor<2x2x2xf32>, tensor<2xi32>
    })mlir",
          {table, i64({2, 2}, {1, 2, 0, 0}), i32({4}, {5, 6, 7, 8}), i32({2}, {2, 1})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(same(r[0], f32({2, 2, 2}, {10, 11, 20, 21, 0, 1, 0, 1})));
  EXPECT_TRUE(same(r[1], i32({2}, {7, 6})));
}

TEST_F(InterpreterTest, TakeOutOfRangeIsAnErrorNotACrash) {
  Array table = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  std::string diag = expectError(kTake, {table, i32({3}, {0, 4, 1})});
  EXPECT_TRUE(contains(diag, "take index 4 at position 1 is out of range [0, 4)"));
  diag = expectError(kTake, {table, i32({3}, {0, 1, -1})});
  EXPECT_TRUE(contains(diag, "take index -1 at position 2 is out of range [0, 4)"));
  diag = expectError(kTake, {table, i32({3}, {0, 1, 1000000})});
  EXPECT_TRUE(contains(diag, "take index 1000000"));
}

TEST_F(InterpreterTest, ScatterAddAccumulatesRepeatedIndices) {
  const char *source = R"mlir(
    func.func @main(%base: tensor<4x2xf32>, %idx: tensor<3xi32>, %upd: tensor<3x2xf32>,
                    %ibase: tensor<3xi64>, %iidx: tensor<2x2xi32>, %iupd: tensor<2x2xi64>)
        -> (tensor<4x2xf32>, tensor<3xi64>) {
      %a = shardc.scatter_add %base, %idx, %upd
           : (tensor<4x2xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<4x2xf32>
      %b = shardc.scatter_add %ibase, %iidx, %iupd
           : (tensor<3xi64>, tensor<2x2xi32>, tensor<2x2xi64>) -> tensor<3xi64>
      return %a, %b : tensor<4x2xf32>, tensor<3xi64>
    })mlir";
  std::vector<Array> r = run(source, {f32({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1}), i32({3}, {1, 3, 1}),
                                      f32({3, 2}, {1, 2, 3, 4, 5, 6}), i64({3}, {100, 200, 300}),
                                      i32({2, 2}, {2, 2, 0, 2}), i64({2, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(same(r[0], f32({4, 2}, {1, 1, 7, 9, 1, 1, 4, 5})));
  EXPECT_TRUE(same(r[1], i64({3}, {103, 200, 307})));

  std::string diag =
      expectError(source, {f32({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1}), i32({3}, {1, 4, 1}),
                           f32({3, 2}, {1, 2, 3, 4, 5, 6}), i64({3}, {100, 200, 300}),
                           i32({2, 2}, {2, 2, 0, 2}), i64({2, 2}, {1, 2, 3, 4})});
  EXPECT_TRUE(contains(diag, "scatter_add index 4 at position 1 is out of range [0, 4)"));
}

TEST_F(InterpreterTest, TakeThenScatterAddIsItsAdjoint) {
  // Gradient of sum(take(table, idx)) with respect to table: counts per row.
  std::vector<Array> r = run(R"mlir(
    func.func @main(%table: tensor<4x2xf32>, %idx: tensor<5xi32>) -> tensor<4x2xf32> {
      %rows = shardc.take %table, %idx : (tensor<4x2xf32>, tensor<5xi32>) -> tensor<5x2xf32>
      %ones = shardc.constant dense<1.0> : tensor<5x2xf32>
      %zero = shardc.constant dense<0.0> : tensor<4x2xf32>
      %g = shardc.scatter_add %zero, %idx, %ones
           : (tensor<4x2xf32>, tensor<5xi32>, tensor<5x2xf32>) -> tensor<4x2xf32>
      return %g : tensor<4x2xf32>
    })mlir",
                             {iotaF32({4, 2}), i32({5}, {0, 3, 3, 0, 3})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(same(r[0], f32({4, 2}, {2, 2, 0, 0, 0, 0, 3, 3})));
}

//===----------------------------------------------------------------------===//
// Sharding ops in the global view
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ShardingConstraintIsTheIdentity) {
  Array x = f32({4, 2}, {1.5, -2, kNaN, 4, 5, 6, -0.0, 8});
  std::vector<Array> r = run(R"mlir(
    shardc.mesh @mesh = <["data"=2, "model"=2]>
    func.func @main(%x: tensor<4x2xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>})
        -> tensor<4x2xf32> {
      %a = shardc.sharding_constraint %x <@mesh, [{"data"}, {"model"}]> : tensor<4x2xf32>
      %b = shardc.sharding_constraint %a <@mesh, [{?}, {?}]> : tensor<4x2xf32>
      %c = shardc.sharding_constraint %b <@mesh, [{"data", "model"}, {}]> : tensor<4x2xf32>
      return %c : tensor<4x2xf32>
    })mlir",
                             {x});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], x); // bit for bit, NaN and -0 included
}

TEST_F(InterpreterTest, LongChainsOfShardingConstraintsKeepTheirValue) {
  // Enough values that the value table grows while a constraint is bound.
  std::string source = "shardc.mesh @mesh = <[\"data\"=2]>\n"
                       "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n";
  std::string prev = "%x";
  for (int i = 0; i < 300; ++i) {
    std::string next = "%c" + std::to_string(i);
    if (i % 3 == 2)
      source += "  " + next + " = shardc.neg " + prev + " : tensor<2xf32>\n";
    else
      source += "  " + next + " = shardc.sharding_constraint " + prev +
                (i % 2 ? " <@mesh, [{\"data\"}]>" : " <@mesh, [{?}]>") + " : tensor<2xf32>\n";
    prev = next;
  }
  source += "  return " + prev + " : tensor<2xf32>\n}\n";
  std::vector<Array> r = run(source, {f32({2}, {1, -2})});
  ASSERT_EQ(r.size(), 1u);
  // 100 negations.
  EXPECT_TRUE(same(r[0], f32({2}, {1, -2})));
}

//===----------------------------------------------------------------------===//
// shard_map: collectives checked against the global computation
//===----------------------------------------------------------------------===//

/// Runs @main of `source`, which returns pairs (shard_map result, the same
/// computed in the global view), and checks each pair is equal.
#define EXPECT_PAIRS_EQUAL(r, numPairs)                                                            \
  do {                                                                                             \
    ASSERT_EQ((r).size(), 2u * (numPairs));                                                        \
    for (size_t k = 0; k < (numPairs); ++k)                                                        \
      EXPECT_TRUE(same((r)[2 * k], (r)[2 * k + 1])) << "pair " << k;                               \
  } while (false)

TEST_F(InterpreterTest, ShardMapAllReduceSumAndMeanOn1DMesh) {
  std::vector<Array> r = run(
      R"mlir(
    shardc.mesh @mesh_4 = <["data"=4]>
    func.func @main(%x: tensor<8x3xf32>)
        -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
            tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
      %sum = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
               out_shardings = [<@mesh_4, [{}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %s = shardc.all_reduce sum %l on @mesh_4 ["data"] : tensor<2x3xf32>
        shardc.return %s : tensor<2x3xf32>
      } : (tensor<8x3xf32>) -> tensor<2x3xf32>
      %mean = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
               out_shardings = [<@mesh_4, [{}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %m = shardc.all_reduce mean %l on @mesh_4 ["data"] : tensor<2x3xf32>
        shardc.return %m : tensor<2x3xf32>
      } : (tensor<8x3xf32>) -> tensor<2x3xf32>
      %max = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
               out_shardings = [<@mesh_4, [{}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %m = shardc.all_reduce max %l on @mesh_4 ["data"] : tensor<2x3xf32>
        shardc.return %m : tensor<2x3xf32>
      } : (tensor<8x3xf32>) -> tensor<2x3xf32>
      %min = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
               out_shardings = [<@mesh_4, [{}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %m = shardc.all_reduce min %l on @mesh_4 ["data"] : tensor<2x3xf32>
        shardc.return %m : tensor<2x3xf32>
      } : (tensor<8x3xf32>) -> tensor<2x3xf32>

      // The global view: block b of x is rows 2b, 2b+1.
      %blocks = shardc.reshape %x : (tensor<8x3xf32>) -> tensor<4x2x3xf32>
      %gsum = shardc.reduce sum %blocks dims = [0] : (tensor<4x2x3xf32>) -> tensor<2x3xf32>
      %four = shardc.constant dense<4.0> : tensor<2x3xf32>
      %gmean = shardc.div %gsum, %four : tensor<2x3xf32>
      %gmax = shardc.reduce max %blocks dims = [0] : (tensor<4x2x3xf32>) -> tensor<2x3xf32>
      %gmin = shardc.reduce min %blocks dims = [0] : (tensor<4x2x3xf32>) -> tensor<2x3xf32>
      return %sum, %gsum, %mean, %gmean, %max, %gmax, %min, %gmin
        : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
          tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
      {f32({8, 3}, {3, -1, 0, 2, 5, 7, -4, 8, 1, 6, 2, 2, 0, 0, 9, -3, 1, 1, 7, 7, -7, 5, 4, 3})});
  EXPECT_PAIRS_EQUAL(r, 4u);
  // By hand: rows (0,2,4,6) and (1,3,5,7) of x.
  EXPECT_TRUE(same(r[0], f32({2, 3}, {3 - 4 + 0 + 7, -1 + 8 + 0 + 7, 0 + 1 + 9 - 7, 2 + 6 - 3 + 5,
                                      5 + 2 + 1 + 4, 7 + 2 + 1 + 3})));
  EXPECT_TRUE(same(r[2], f32({2, 3}, {1.5, 3.5, 0.75, 2.5, 3, 3.25})));
  EXPECT_TRUE(same(r[4], f32({2, 3}, {7, 8, 9, 6, 5, 7})));
  EXPECT_TRUE(same(r[6], f32({2, 3}, {-4, -1, -7, -3, 1, 1})));
}

TEST_F(InterpreterTest, ShardMapAllReduceOn2DMesh) {
  // x is split over both axes of a 2x4 mesh: each device holds one element.
  std::vector<Array> r = run(R"mlir(
    shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
    func.func @main(%x: tensor<2x4xf32>)
        -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x4xf32>, tensor<1x4xf32>,
            tensor<1x1xf32>, tensor<1x1xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
      %rows = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
                out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
      ^bb0(%l: tensor<1x1xf32>):
        %s = shardc.all_reduce sum %l on @mesh_2x4 ["model"] : tensor<1x1xf32>
        shardc.return %s : tensor<1x1xf32>
      } : (tensor<2x4xf32>) -> tensor<2x1xf32>
      %cols = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
                out_shardings = [<@mesh_2x4, [{}, {"model"}]>] {
      ^bb0(%l: tensor<1x1xf32>):
        %s = shardc.all_reduce sum %l on @mesh_2x4 ["data"] : tensor<1x1xf32>
        shardc.return %s : tensor<1x1xf32>
      } : (tensor<2x4xf32>) -> tensor<1x4xf32>
      %all = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
               out_shardings = [<@mesh_2x4, [{}, {}]>] {
      ^bb0(%l: tensor<1x1xf32>):
        %s = shardc.all_reduce sum %l on @mesh_2x4 ["model", "data"] : tensor<1x1xf32>
        shardc.return %s : tensor<1x1xf32>
      } : (tensor<2x4xf32>) -> tensor<1x1xf32>
      // Replicated over "model", split over "data": summing over "model" adds
      // four equal copies.
      %rep = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
               out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
      ^bb0(%l: tensor<1x4xf32>):
        %s = shardc.all_reduce sum %l on @mesh_2x4 ["model"] : tensor<1x4xf32>
        shardc.return %s : tensor<1x4xf32>
      } : (tensor<2x4xf32>) -> tensor<2x4xf32>

      %grows1 = shardc.reduce sum %x dims = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
      %grows = shardc.reshape %grows1 : (tensor<2xf32>) -> tensor<2x1xf32>
      %gcols1 = shardc.reduce sum %x dims = [0] : (tensor<2x4xf32>) -> tensor<4xf32>
      %gcols = shardc.reshape %gcols1 : (tensor<4xf32>) -> tensor<1x4xf32>
      %gall1 = shardc.reduce sum %x dims = [0, 1] : (tensor<2x4xf32>) -> tensor<f32>
      %gall = shardc.reshape %gall1 : (tensor<f32>) -> tensor<1x1xf32>
      %four = shardc.constant dense<4.0> : tensor<2x4xf32>
      %grep = shardc.mul %x, %four : tensor<2x4xf32>
      return %rows, %grows, %cols, %gcols, %all, %gall, %rep, %grep
        : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x4xf32>, tensor<1x4xf32>,
          tensor<1x1xf32>, tensor<1x1xf32>, tensor<2x4xf32>, tensor<2x4xf32>
    })mlir",
                             {f32({2, 4}, {1, 2, 3, 4, 10, 20, 30, 40})});
  EXPECT_PAIRS_EQUAL(r, 4u);
  EXPECT_TRUE(same(r[0], f32({2, 1}, {10, 100})));
  EXPECT_TRUE(same(r[2], f32({1, 4}, {11, 22, 33, 44})));
  EXPECT_TRUE(same(r[4], f32({1, 1}, {110})));
}

TEST_F(InterpreterTest, ShardMapAllGather) {
  std::vector<Array> r = run(R"mlir(
    shardc.mesh @mesh_4 = <["data"=4]>
    shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
    func.func @main(%x: tensor<8x3xf32>, %y: tensor<4x8xf32>, %v: tensor<8xf32>)
        -> (tensor<8x3xf32>, tensor<8x3xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
            tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
      %a = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
             out_shardings = [<@mesh_4, [{}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %g = shardc.all_gather %l on @mesh_4 ["data"] dim = 0 : tensor<2x3xf32> -> tensor<8x3xf32>
        shardc.return %g : tensor<8x3xf32>
      } : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %b = shardc.shard_map (%y) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
             out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
      ^bb0(%l: tensor<2x2xf32>):
        %g = shardc.all_gather %l on @mesh_2x4 ["model"] dim = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
        shardc.return %g : tensor<2x8xf32>
      } : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %c = shardc.shard_map (%v) in_shardings = [<@mesh_2x4, [{"data", "model"}]>]
             out_shardings = [<@mesh_2x4, [{}]>] {
      ^bb0(%l: tensor<1xf32>):
        %g = shardc.all_gather %l on @mesh_2x4 ["data", "model"] dim = 0 : tensor<1xf32> -> tensor<8xf32>
        shardc.return %g : tensor<8xf32>
      } : (tensor<8xf32>) -> tensor<8xf32>
      %d = shardc.shard_map (%v) in_shardings = [<@mesh_2x4, [{"model", "data"}]>]
             out_shardings = [<@mesh_2x4, [{}]>] {
      ^bb0(%l: tensor<1xf32>):
        %g = shardc.all_gather %l on @mesh_2x4 ["model", "data"] dim = 0 : tensor<1xf32> -> tensor<8xf32>
        shardc.return %g : tensor<8xf32>
      } : (tensor<8xf32>) -> tensor<8xf32>
      // Gathering in the other axis order than the split permutes the blocks.
      %e = shardc.shard_map (%v) in_shardings = [<@mesh_2x4, [{"data", "model"}]>]
             out_shardings = [<@mesh_2x4, [{}]>] {
      ^bb0(%l: tensor<1xf32>):
        %g = shardc.all_gather %l on @mesh_2x4 ["model", "data"] dim = 0 : tensor<1xf32> -> tensor<8xf32>
        shardc.return %g : tensor<8xf32>
      } : (tensor<8xf32>) -> tensor<8xf32>
      return %a, %x, %b, %y, %c, %v, %d, %v, %e
        : tensor<8x3xf32>, tensor<8x3xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
          tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    })mlir",
                             {iotaF32({8, 3}), iotaF32({4, 8}), iotaF32({8})});
  ASSERT_EQ(r.size(), 9u);
  for (size_t k = 0; k < 4; ++k)
    EXPECT_TRUE(same(r[2 * k], r[2 * k + 1])) << "pair " << k;
  // Group rank m*2 + d holds block d*4 + m.
  EXPECT_TRUE(same(r[8], f32({8}, {0, 4, 1, 5, 2, 6, 3, 7})));
}

TEST_F(InterpreterTest, ShardMapReduceScatter) {
  std::vector<Array> r = run(
      R"mlir(
    shardc.mesh @mesh_4 = <["data"=4]>
    shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
    func.func @main(%x: tensor<4x8xf32>, %y: tensor<2x8xf32>)
        -> (tensor<1x8xf32>, tensor<1x8xf32>, tensor<8xf32>, tensor<8xf32>,
            tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
      // Rows split over "data"; the column sums end split over "data".
      %a = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
             out_shardings = [<@mesh_4, [{}, {"data"}]>] {
      ^bb0(%l: tensor<1x8xf32>):
        %s = shardc.reduce_scatter sum %l on @mesh_4 ["data"] dim = 1
             : tensor<1x8xf32> -> tensor<1x2xf32>
        shardc.return %s : tensor<1x2xf32>
      } : (tensor<4x8xf32>) -> tensor<1x8xf32>
      // Replicated input: every device adds the same array four times.
      %b = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{}, {}]>]
             out_shardings = [<@mesh_4, [{"data"}]>] {
      ^bb0(%l: tensor<4x8xf32>):
        %r = shardc.reduce sum %l dims = [0] : (tensor<4x8xf32>) -> tensor<8xf32>
        %s = shardc.reduce_scatter sum %r on @mesh_4 ["data"] dim = 0
             : tensor<8xf32> -> tensor<2xf32>
        shardc.return %s : tensor<2xf32>
      } : (tensor<4x8xf32>) -> tensor<8xf32>
      // 2-D mesh, over "data" only; every "model" position agrees.
      %c = shardc.shard_map (%y) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
             out_shardings = [<@mesh_2x4, [{}, {"data"}]>] {
      ^bb0(%l: tensor<1x8xf32>):
        %s = shardc.reduce_scatter sum %l on @mesh_2x4 ["data"] dim = 1
             : tensor<1x8xf32> -> tensor<1x4xf32>
        shardc.return %s : tensor<1x4xf32>
      } : (tensor<2x8xf32>) -> tensor<1x8xf32>
      // Max over "data", then scattered over "model".
      %d = shardc.shard_map (%y) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
             out_shardings = [<@mesh_2x4, [{}, {"model"}]>] {
      ^bb0(%l: tensor<1x8xf32>):
        %m = shardc.all_reduce max %l on @mesh_2x4 ["data"] : tensor<1x8xf32>
        %s = shardc.reduce_scatter max %m on @mesh_2x4 ["model"] dim = 1
             : tensor<1x8xf32> -> tensor<1x2xf32>
        shardc.return %s : tensor<1x2xf32>
      } : (tensor<2x8xf32>) -> tensor<1x8xf32>

      %ga1 = shardc.reduce sum %x dims = [0] : (tensor<4x8xf32>) -> tensor<8xf32>
      %ga = shardc.reshape %ga1 : (tensor<8xf32>) -> tensor<1x8xf32>
      %four = shardc.constant dense<4.0> : tensor<8xf32>
      %gb = shardc.mul %ga1, %four : tensor<8xf32>
      %gc1 = shardc.reduce sum %y dims = [0] : (tensor<2x8xf32>) -> tensor<8xf32>
      %gc = shardc.reshape %gc1 : (tensor<8xf32>) -> tensor<1x8xf32>
      %gd1 = shardc.reduce max %y dims = [0] : (tensor<2x8xf32>) -> tensor<8xf32>
      %gd = shardc.reshape %gd1 : (tensor<8xf32>) -> tensor<1x8xf32>
      return %a, %ga, %b, %gb, %c, %gc, %d, %gd
        : tensor<1x8xf32>, tensor<1x8xf32>, tensor<8xf32>, tensor<8xf32>,
          tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
    })mlir",
      {iotaF32({4, 8}), f32({2, 8}, {1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 6, 4, 7, 3, 8, 2})});
  EXPECT_PAIRS_EQUAL(r, 4u);
  // Column j of iota(4x8) sums to 4j + 48.
  EXPECT_TRUE(same(r[0], f32({1, 8}, {48, 52, 56, 60, 64, 68, 72, 76})));
  EXPECT_TRUE(same(r[6], f32({1, 8}, {5, 9, 6, 8, 7, 7, 8, 6})));
}

TEST_F(InterpreterTest, ShardMapAllToAll) {
  std::vector<Array> r = run(R"mlir(
    shardc.mesh @mesh_4 = <["data"=4]>
    shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
    func.func @main(%x: tensor<8x4xf32>, %y: tensor<8x8xf32>)
        -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
            tensor<8x8xf32>, tensor<8x8xf32>) {
      // Rows split -> columns split: the global array is unchanged.
      %a = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"data"}, {}]>]
             out_shardings = [<@mesh_4, [{}, {"data"}]>] {
      ^bb0(%l: tensor<2x4xf32>):
        %t = shardc.all_to_all %l on @mesh_4 ["data"] split_dim = 1 concat_dim = 0
             : tensor<2x4xf32> -> tensor<8x1xf32>
        shardc.return %t : tensor<8x1xf32>
      } : (tensor<8x4xf32>) -> tensor<8x4xf32>
      // And back.
      %b = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{}, {"data"}]>]
             out_shardings = [<@mesh_4, [{"data"}, {}]>] {
      ^bb0(%l: tensor<8x1xf32>):
        %t = shardc.all_to_all %l on @mesh_4 ["data"] split_dim = 0 concat_dim = 1
             : tensor<8x1xf32> -> tensor<2x4xf32>
        shardc.return %t : tensor<2x4xf32>
      } : (tensor<8x4xf32>) -> tensor<8x4xf32>
      // 2-D mesh: columns split over "model" -> rows split over data then model.
      %c = shardc.shard_map (%y) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
             out_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>] {
      ^bb0(%l: tensor<4x2xf32>):
        %t = shardc.all_to_all %l on @mesh_2x4 ["model"] split_dim = 0 concat_dim = 1
             : tensor<4x2xf32> -> tensor<1x8xf32>
        shardc.return %t : tensor<1x8xf32>
      } : (tensor<8x8xf32>) -> tensor<8x8xf32>
      return %a, %x, %b, %x, %c, %y
        : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
          tensor<8x8xf32>, tensor<8x8xf32>
    })mlir",
                             {iotaF32({8, 4}), iotaF32({8, 8})});
  EXPECT_PAIRS_EQUAL(r, 3u);
}

TEST_F(InterpreterTest, ShardMapCollectivePermute) {
  // On a 2x2 mesh, rows split over "a" -> rows split over "b": the device at
  // (a=i, b=j) needs block j, which the device at (a=j, b=i) holds; and a
  // swap of the two halves over "a". The global arrays follow.
  std::vector<Array> r =
      run(R"mlir(
    shardc.mesh @mesh = <["a"=2, "b"=2]>
    func.func @main(%x: tensor<4x3xf32>, %rev: tensor<4x3xf32>)
        -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
      %a = shardc.shard_map (%x) in_shardings = [<@mesh, [{"a"}, {}]>]
             out_shardings = [<@mesh, [{"b"}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %t = shardc.collective_permute %l on @mesh ["a", "b"] sources = [0, 2, 1, 3]
             : tensor<2x3xf32>
        shardc.return %t : tensor<2x3xf32>
      } : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %b = shardc.shard_map (%x) in_shardings = [<@mesh, [{"a"}, {}]>]
             out_shardings = [<@mesh, [{"a"}, {}]>] {
      ^bb0(%l: tensor<2x3xf32>):
        %t = shardc.collective_permute %l on @mesh ["a"] sources = [1, 0] : tensor<2x3xf32>
        shardc.return %t : tensor<2x3xf32>
      } : (tensor<4x3xf32>) -> tensor<4x3xf32>
      return %a, %x, %b, %rev : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
    })mlir",
          {iotaF32({4, 3}), f32({4, 3}, {6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5})});
  EXPECT_PAIRS_EQUAL(r, 2u);
}

TEST_F(InterpreterTest, ShardMapAllSlice) {
  // A replicated value sliced to each device's block, then assembled by the
  // out sharding: the global array is unchanged.
  std::vector<Array> r =
      run(R"mlir(
    shardc.mesh @mesh_4 = <["data"=4]>
    shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
    func.func @main(%x: tensor<8x3xf32>, %y: tensor<4x8xf32>, %v: tensor<8xi32>)
        -> (tensor<8x3xf32>, tensor<8x3xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
            tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
      %a = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{}, {}]>]
             out_shardings = [<@mesh_4, [{"data"}, {}]>] {
      ^bb0(%l: tensor<8x3xf32>):
        %s = shardc.all_slice %l on @mesh_4 ["data"] dim = 0 : tensor<8x3xf32> -> tensor<2x3xf32>
        shardc.return %s : tensor<2x3xf32>
      } : (tensor<8x3xf32>) -> tensor<8x3xf32>
      // Split over "model" a dimension already split over "data".
      %b = shardc.shard_map (%y) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
             out_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>] {
      ^bb0(%l: tensor<2x8xf32>):
        %s = shardc.all_slice %l on @mesh_2x4 ["model"] dim = 1 : tensor<2x8xf32> -> tensor<2x2xf32>
        shardc.return %s : tensor<2x2xf32>
      } : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %c = shardc.shard_map (%v) in_shardings = [<@mesh_2x4, [{}]>]
             out_shardings = [<@mesh_2x4, [{"model", "data"}]>] {
      ^bb0(%l: tensor<8xi32>):
        %s = shardc.all_slice %l on @mesh_2x4 ["model", "data"] dim = 0 : tensor<8xi32> -> tensor<1xi32>
        shardc.return %s : tensor<1xi32>
      } : (tensor<8xi32>) -> tensor<8xi32>
      // Sliced in one axis order and assembled in the other: blocks permute.
      %d = shardc.shard_map (%v) in_shardings = [<@mesh_2x4, [{}]>]
             out_shardings = [<@mesh_2x4, [{"data", "model"}]>] {
      ^bb0(%l: tensor<8xi32>):
        %s = shardc.all_slice %l on @mesh_2x4 ["model", "data"] dim = 0 : tensor<8xi32> -> tensor<1xi32>
        shardc.return %s : tensor<1xi32>
      } : (tensor<8xi32>) -> tensor<8xi32>
      return %a, %x, %b, %y, %c, %v, %d
        : tensor<8x3xf32>, tensor<8x3xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
          tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
    })mlir",
          {iotaF32({8, 3}), iotaF32({4, 8}), i32({8}, {10, 11, 12, 13, 14, 15, 16, 17})});
  ASSERT_EQ(r.size(), 7u);
  for (size_t k = 0; k < 3; ++k)
    EXPECT_TRUE(same(r[2 * k], r[2 * k + 1])) << "pair " << k;
  // Device (d, m) keeps block m*2 + d and is placed at block d*4 + m.
  EXPECT_TRUE(same(r[6], i32({8}, {10, 12, 14, 16, 11, 13, 15, 17})));
}

TEST_F(InterpreterTest, ShardMapWithSeveralInputsAndResults) {
  // A data-parallel step: local matmul, then the gradient-like mean over the
  // batch shards; the replicated result takes the first device's value.
  std::vector<Array> r =
      run(R"mlir(
    shardc.mesh @mesh = <["data"=2]>
    func.func @main(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>)
        -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>,
            tensor<2x3xf32>, tensor<2x3xf32>) {
      %y, %g, %first = shardc.shard_map (%x, %w)
          in_shardings = [<@mesh, [{"data"}, {}]>, <@mesh, [{}, {}]>]
          out_shardings = [<@mesh, [{"data"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>] {
      ^bb0(%lx: tensor<2x3xf32>, %lw: tensor<3x2xf32>):
        %ly = shardc.dot_general %lx, %lw contracting_dims = [1] x [0]
              : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
        %lg = shardc.dot_general %lx, %ly contracting_dims = [0] x [0]
              : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
        %mg = shardc.all_reduce sum %lg on @mesh ["data"] : tensor<3x2xf32>
        shardc.return %ly, %mg, %lx : tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>
      } : (tensor<4x3xf32>, tensor<3x2xf32>) -> (tensor<4x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>)
      %gy = shardc.dot_general %x, %w contracting_dims = [1] x [0]
            : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
      %gg = shardc.dot_general %x, %gy contracting_dims = [0] x [0]
            : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
      %gfirst = shardc.slice %x, start = [0, 0], limit = [2, 3], strides = [1, 1]
                : (tensor<4x3xf32>) -> tensor<2x3xf32>
      return %y, %gy, %g, %gg, %first, %gfirst
        : tensor<4x2xf32>, tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>,
          tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
          {f32({4, 3}, {1, 0, 2, -1, 3, 1, 2, 2, 0, 0, 1, -2}), f32({3, 2}, {1, -1, 2, 0, 0, 3})});
  EXPECT_PAIRS_EQUAL(r, 3u);
}

TEST_F(InterpreterTest, EveryOpInOneProgram) {
  // The dialect's example module: every op, a shard_map with all four
  // collectives, sharded arguments and results.
  const char *source = R"mlir(
  module {
    shardc.mesh @mesh = <["data"=2, "model"=4]>
    func.func @main(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {?}]>, shardc.name = "x"},
                    %w: tensor<16x4xf32>, %idx: tensor<3xi32>) -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data", ?}, {}]>}) {
      %c = shardc.constant dense<1.0> : tensor<8x4xf32>
      %i = shardc.iota dim = 1 : tensor<8x4xi32>
      %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
      %b = shardc.dot_general %y, %y batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8xf32>
      %z = shardc.add %y, %c : tensor<8x4xf32>
      %e = shardc.exp %z : tensor<8x4xf32>
      %p = shardc.compare lt, %z, %e : tensor<8x4xf32>
      %s = shardc.select %p, %z, %e : tensor<8x4xi1>, tensor<8x4xf32>
      %cv = shardc.convert %i : tensor<8x4xi32> -> tensor<8x4xf32>
      %r = shardc.reduce sum %s dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
      %bc = shardc.broadcast_in_dim %r, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
      %rs = shardc.reshape %bc : (tensor<8x4xf32>) -> tensor<32xf32>
      %t = shardc.transpose %bc, permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
      %sl = shardc.slice %t, start = [0, 1], limit = [4, 8], strides = [1, 2] : (tensor<4x8xf32>) -> tensor<4x4xf32>
      %cc = shardc.concatenate %sl, %sl dim = 0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
      %tk = shardc.take %w, %idx : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
      %sa = shardc.scatter_add %w, %idx, %tk : (tensor<16x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<16x4xf32>
      %sc = shardc.sharding_constraint %cc <@mesh, [{"data"}, {?}]> : tensor<8x4xf32>
      %sm = shardc.shard_map (%sc) in_shardings = [<@mesh, [{"data"}, {"model"}]>] out_shardings = [<@mesh, [{}, {"model"}]>] {
      ^bb0(%l: tensor<4x1xf32>):
        %ar = shardc.all_reduce mean %l on @mesh ["data"] : tensor<4x1xf32>
        %ag = shardc.all_gather %ar on @mesh ["model"] dim = 1 : tensor<4x1xf32> -> tensor<4x4xf32>
        %rsc = shardc.reduce_scatter sum %ag on @mesh ["model"] dim = 1 : tensor<4x4xf32> -> tensor<4x1xf32>
        %a2a = shardc.all_to_all %rsc on @mesh ["data"] split_dim = 0 concat_dim = 1 : tensor<4x1xf32> -> tensor<2x2xf32>
        shardc.return %rsc : tensor<4x1xf32>
      } : (tensor<8x4xf32>) -> tensor<4x4xf32>
      return %z : tensor<8x4xf32>
    }
  })mlir";
  std::vector<double> x(8 * 16), w(16 * 4);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      x[i * 16 + j] = (i + j) % 3 - 1;
  for (int j = 0; j < 16; ++j)
    for (int k = 0; k < 4; ++k)
      w[j * 4 + k] = (j * k) % 5 - 2;
  std::vector<Array> r = run(source, {f32({8, 16}, x), f32({16, 4}, w), i32({3}, {15, 0, 15})});
  ASSERT_EQ(r.size(), 1u);
  std::vector<double> z(8 * 4);
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 4; ++k) {
      double acc = 1;
      for (int j = 0; j < 16; ++j)
        acc += x[i * 16 + j] * w[j * 4 + k];
      z[i * 4 + k] = acc;
    }
  EXPECT_TRUE(same(r[0], f32({8, 4}, z)));
}

//===----------------------------------------------------------------------===//
// Per-device programs on N lanes
//===----------------------------------------------------------------------===//

/// Device d's operand in the per-device tests: a 2x2 block [[10d, 10d+1],
/// [10d+2, 10d+3]].
Array laneBlock(int64_t d) {
  return f32({2, 2}, {10.0 * d, 10.0 * d + 1, 10.0 * d + 2, 10.0 * d + 3});
}

TEST_F(InterpreterTest, PerDeviceProgramRunsCollectivesOnAllLanes) {
  // Mesh 2x2: device d has coordinates (x, y) = (d / 2, d % 2).
  std::vector<DeviceArrays> r =
      runLanes(R"mlir(
    shardc.mesh @mesh = <["x"=2, "y"=2]>
    func.func @main(%a: tensor<2x2xf32>)
        -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>,
            tensor<1x2xf32>, tensor<4x1xf32>, tensor<2x2xf32>) {
      %twice = shardc.add %a, %a : tensor<2x2xf32>
      %sx = shardc.all_reduce sum %a on @mesh ["x"] : tensor<2x2xf32>
      %mx = shardc.all_reduce max %a on @mesh ["x", "y"] : tensor<2x2xf32>
      %gy = shardc.all_gather %a on @mesh ["y"] dim = 0 : tensor<2x2xf32> -> tensor<4x2xf32>
      %ry = shardc.reduce_scatter sum %a on @mesh ["y"] dim = 0
            : tensor<2x2xf32> -> tensor<1x2xf32>
      %tx = shardc.all_to_all %a on @mesh ["x"] split_dim = 1 concat_dim = 0
            : tensor<2x2xf32> -> tensor<4x1xf32>
      %mean = shardc.all_reduce mean %a on @mesh ["y", "x"] : tensor<2x2xf32>
      return %twice, %sx, %mx, %gy, %ry, %tx, %mean
        : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>,
          tensor<1x2xf32>, tensor<4x1xf32>, tensor<2x2xf32>
    })mlir",
               {DeviceArrays{laneBlock(0), laneBlock(1), laneBlock(2), laneBlock(3)}}, 4);
  ASSERT_EQ(r.size(), 7u);
  for (const DeviceArrays &lanes : r)
    ASSERT_EQ(lanes.size(), 4u);
  for (int64_t d = 0; d < 4; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    int64_t x = d / 2, y = d % 2;
    auto v = [](int64_t dev, int k) { return 10.0 * dev + k; };
    EXPECT_TRUE(same(r[0][d], f32({2, 2}, {2 * v(d, 0), 2 * v(d, 1), 2 * v(d, 2), 2 * v(d, 3)})));
    // Over "x": devices y and y + 2.
    EXPECT_TRUE(same(r[1][d], f32({2, 2}, {v(y, 0) + v(y + 2, 0), v(y, 1) + v(y + 2, 1),
                                           v(y, 2) + v(y + 2, 2), v(y, 3) + v(y + 2, 3)})));
    EXPECT_TRUE(same(r[2][d], laneBlock(3)));
    // Over "y": devices 2x and 2x + 1, in that order.
    int64_t g0 = 2 * x, g1 = 2 * x + 1;
    EXPECT_TRUE(same(r[3][d], f32({4, 2}, {v(g0, 0), v(g0, 1), v(g0, 2), v(g0, 3), v(g1, 0),
                                           v(g1, 1), v(g1, 2), v(g1, 3)})));
    // The y-group sum, row y.
    EXPECT_TRUE(same(
        r[4][d], f32({1, 2}, {v(g0, 2 * y) + v(g1, 2 * y), v(g0, 2 * y + 1) + v(g1, 2 * y + 1)})));
    // Column x of each member of the x-group (y, y + 2), stacked.
    EXPECT_TRUE(same(r[5][d], f32({4, 1}, {v(y, x), v(y, 2 + x), v(y + 2, x), v(y + 2, 2 + x)})));
    EXPECT_TRUE(same(r[6][d], f32({2, 2}, {15, 16, 17, 18})));
  }
}

TEST_F(InterpreterTest, PerDeviceAllSliceKeepsTheBlockAtTheGroupRank) {
  std::vector<DeviceArrays> r =
      runLanes(R"mlir(
    shardc.mesh @mesh = <["x"=2, "y"=2]>
    func.func @main(%a: tensor<2x2xf32>) -> (tensor<1x2xf32>, tensor<2x1xf32>) {
      %sy = shardc.all_slice %a on @mesh ["y"] dim = 0 : tensor<2x2xf32> -> tensor<1x2xf32>
      %sx = shardc.all_slice %a on @mesh ["x"] dim = 1 : tensor<2x2xf32> -> tensor<2x1xf32>
      return %sy, %sx : tensor<1x2xf32>, tensor<2x1xf32>
    })mlir",
               {DeviceArrays{laneBlock(0), laneBlock(1), laneBlock(2), laneBlock(3)}}, 4);
  ASSERT_EQ(r.size(), 2u);
  for (int64_t d = 0; d < 4; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    int64_t x = d / 2, y = d % 2;
    double base = 10.0 * d;
    // No communication: each device slices its own operand.
    EXPECT_TRUE(same(r[0][d], f32({1, 2}, {base + 2 * y, base + 2 * y + 1})));
    EXPECT_TRUE(same(r[1][d], f32({2, 1}, {base + x, base + 2 + x})));
  }
}

TEST_F(InterpreterTest, PerDeviceProgramMatchesTheGlobalOne) {
  // The per-device form of "sum over rows of x sharded by rows" gives, on
  // every device, what the global program gives.
  const char *global = R"mlir(
    func.func @main(%x: tensor<8x3xf32>) -> tensor<3xf32> {
      %s = shardc.reduce sum %x dims = [0] : (tensor<8x3xf32>) -> tensor<3xf32>
      return %s : tensor<3xf32>
    })mlir";
  const char *perDevice = R"mlir(
    shardc.mesh @mesh = <["data"=4]>
    func.func @main(%x: tensor<2x3xf32>) -> tensor<3xf32> {
      %s = shardc.reduce sum %x dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
      %g = shardc.all_reduce sum %s on @mesh ["data"] : tensor<3xf32>
      return %g : tensor<3xf32>
    })mlir";
  Array x = iotaF32({8, 3});
  std::vector<Array> expected = run(global, {x});
  ASSERT_EQ(expected.size(), 1u);
  NamedSharding rows{Mesh{{"data"}, {4}}, {{"data"}, {}}};
  DeviceArrays shards;
  for (int64_t d = 0; d < 4; ++d)
    shards.push_back(rows.shard(x, d));
  std::vector<DeviceArrays> r = runLanes(perDevice, {shards}, 4);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].size(), 4u);
  for (int64_t d = 0; d < 4; ++d)
    EXPECT_TRUE(same(r[0][d], expected[0])) << "device " << d;
}

TEST_F(InterpreterTest, PerDeviceErrorsNameTheDevice) {
  func::FuncOp fn = load(R"mlir(
    func.func @main(%t: tensor<4xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {
      %r = shardc.take %t, %i : (tensor<4xf32>, tensor<1xi32>) -> tensor<1xf32>
      return %r : tensor<1xf32>
    })mlir");
  Array t = f32({4}, {1, 2, 3, 4});
  std::string diag = expectError(
      fn, {DeviceArrays{t, t, t}, DeviceArrays{i32({1}, {0}), i32({1}, {3}), i32({1}, {7})}}, 3);
  EXPECT_TRUE(contains(diag, "take index 7 at position 0 is out of range [0, 4)"));
  EXPECT_TRUE(contains(diag, "(on device 2)"));
}

//===----------------------------------------------------------------------===//
// Partitioned functions: global arrays in, global arrays out
//===----------------------------------------------------------------------===//

const char *kPartitioned = R"mlir(
  shardc.mesh @mesh = <["data"=2]>
  // Global view: y = x w, g = x^T y, with x (4x3) split by rows.
  func.func @global(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>)
      -> (tensor<4x2xf32>, tensor<3x2xf32>) {
    %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
         : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %g = shardc.dot_general %x, %y contracting_dims = [0] x [0]
         : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    return %y, %g : tensor<4x2xf32>, tensor<3x2xf32>
  }
  // The same program, per device.
  func.func @main(%x: tensor<2x3xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>},
                  %w: tensor<3x2xf32>)
      -> (tensor<2x2xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>},
          tensor<3x2xf32>)
      attributes {shardc.partitioned = @mesh} {
    %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
         : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %p = shardc.dot_general %x, %y contracting_dims = [0] x [0]
         : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
    %g = shardc.all_reduce sum %p on @mesh ["data"] : tensor<3x2xf32>
    return %y, %g : tensor<2x2xf32>, tensor<3x2xf32>
  })mlir";

TEST_F(InterpreterTest, PartitionedFunctionRunsOnGlobalArrays) {
  std::vector<Array> args{f32({4, 3}, {1, 0, 2, -1, 3, 1, 2, 2, 0, 0, 1, -2}),
                          f32({3, 2}, {1, -1, 2, 0, 0, 3})};
  std::vector<Array> expected = run(kPartitioned, args, "global");
  ASSERT_EQ(expected.size(), 2u);
  func::FuncOp fn = load(kPartitioned);
  ASSERT_TRUE(fn);
  FailureOr<std::vector<Array>> r = interpretPartitioned(fn, args);
  ASSERT_TRUE(succeeded(r)) << diagnostics();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE(same((*r)[0], expected[0]));
  EXPECT_TRUE(same((*r)[1], expected[1]));
}

TEST_F(InterpreterTest, PartitionedFunctionErrorsAreDiagnostics) {
  func::FuncOp fn = load(kPartitioned);
  ASSERT_TRUE(fn);
  Array w = f32({3, 2}, {1, -1, 2, 0, 0, 3});
  auto runPartitioned = [&](func::FuncOp f, const std::vector<Array> &args) {
    messages.clear();
    EXPECT_TRUE(failed(interpretPartitioned(f, args)));
    EXPECT_FALSE(messages.empty());
    return diagnostics();
  };
  // 3 rows do not split over 2 devices.
  EXPECT_TRUE(contains(runPartitioned(fn, {iotaF32({3, 3}), w}),
                       "argument #0: dimension 0 of size 3 does not divide over 2 devices"));
  EXPECT_TRUE(contains(runPartitioned(fn, {iotaF32({4, 3})}), "expects 2 arguments, got 1"));
  // Divides, but gives the wrong local shape.
  EXPECT_TRUE(contains(runPartitioned(fn, {iotaF32({4, 3}), iotaF32({3, 3})}),
                       "argument #1 must be 'tensor<3x2xf32>', got tensor<3x3xf32>"));
  func::FuncOp global = load(kPartitioned, "global");
  EXPECT_TRUE(
      contains(runPartitioned(global, {iotaF32({4, 3}), w}), "is not a partitioned function"));
}

//===----------------------------------------------------------------------===//
// Errors are diagnostics
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, CollectiveOutsideShardMapNamesTheDeviceCountMismatch) {
  const char *source = R"mlir(
    shardc.mesh @mesh = <["data"=4]>
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %s = shardc.all_reduce sum %x on @mesh ["data"] : tensor<2xf32>
      return %s : tensor<2xf32>
    })mlir";
  std::string diag = expectError(source, {f32({2}, {1, 2})});
  EXPECT_TRUE(contains(diag, "collective over mesh @mesh (4 devices) in a program running "
                             "on 1 device(s)"));
  // The same on 2 lanes.
  Array a = f32({2}, {1, 2});
  diag = expectError(load(source), {DeviceArrays{a, a}}, 2);
  EXPECT_TRUE(contains(diag, "(4 devices) in a program running on 2 device(s)"));
}

TEST_F(InterpreterTest, ShardMapInAPerDeviceProgramIsAnError) {
  func::FuncOp fn = load(R"mlir(
    shardc.mesh @mesh = <["data"=2]>
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %r = shardc.shard_map (%x) in_shardings = [<@mesh, [{}]>] out_shardings = [<@mesh, [{}]>] {
      ^bb0(%l: tensor<2xf32>):
        shardc.return %l : tensor<2xf32>
      } : (tensor<2xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    })mlir");
  Array a = f32({2}, {1, 2});
  std::string diag = expectError(fn, {DeviceArrays{a, a}}, 2);
  EXPECT_TRUE(contains(diag, "shard_map in a per-device program is not supported"));
}

TEST_F(InterpreterTest, WrongArgumentsAreErrors) {
  const char *source = R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> tensor<2x3xf32> {
      return %x : tensor<2x3xf32>
    })mlir";
  Array good = iotaF32({2, 3});
  Array idx = i32({3}, {0, 1, 2});
  std::string diag = expectError(source, {iotaF32({2, 2}), idx});
  EXPECT_TRUE(contains(diag, "argument #0 must be 'tensor<2x3xf32>', got tensor<2x2xf32>"));
  diag = expectError(source, {iotaF32({3, 2}), idx});
  EXPECT_TRUE(contains(diag, "argument #0 must be"));
  diag = expectError(source, {iotaF32({6}), idx});
  EXPECT_TRUE(contains(diag, "argument #0 must be"));
  diag = expectError(source, {good, f32({3}, {0, 1, 2})});
  EXPECT_TRUE(contains(diag, "argument #1 must be 'tensor<3xi32>', got tensor<3xf32>"));
  diag = expectError(source, {good});
  EXPECT_TRUE(contains(diag, "expects 2 arguments, got 1"));
  diag = expectError(source, {good, idx, idx});
  EXPECT_TRUE(contains(diag, "expects 2 arguments, got 3"));
  // DeviceArrays that do not match the device count.
  diag = expectError(load(source), {DeviceArrays{good, good}, DeviceArrays{idx}}, 2);
  EXPECT_TRUE(contains(diag, "argument #1 has values for 1 devices, expected 2"));
}

TEST_F(InterpreterTest, FunctionsItCannotRunAreErrors) {
  func::FuncOp external = load(R"mlir(
    func.func private @main(%x: tensor<2xf32>) -> tensor<2xf32>
  )mlir");
  Array a = f32({2}, {1, 2});
  EXPECT_TRUE(contains(expectError(external, {DeviceArrays{a}}, 1),
                       "cannot run a function without a body"));
  func::FuncOp calls = load(R"mlir(
    func.func @callee(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = func.call @callee(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    })mlir");
  EXPECT_TRUE(contains(expectError(calls, {DeviceArrays{a}}, 1),
                       "the reference interpreter does not support 'func.call'"));
}

//===----------------------------------------------------------------------===//
// Determinism
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, SameInputsGiveBitIdenticalResults) {
  const char *source = R"mlir(
    shardc.mesh @mesh = <["data"=2, "model"=2]>
    func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>)
        -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<2x4xf32>) {
      %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
           : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
      %t = shardc.tanh %y : tensor<4x4xf32>
      %e = shardc.erf %t : tensor<4x4xf32>
      %s = shardc.reduce sum %e dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
      %m = shardc.shard_map (%x, %w)
             in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
             out_shardings = [<@mesh, [{"data"}, {}]>] {
      ^bb0(%lx: tensor<2x4xf32>, %lw: tensor<4x4xf32>):
        %p = shardc.dot_general %lx, %lw contracting_dims = [1] x [0]
             : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        %q = shardc.all_reduce sum %p on @mesh ["model"] : tensor<2x4xf32>
        shardc.return %q : tensor<2x4xf32>
      } : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
      %pm = shardc.shard_map (%x) in_shardings = [<@mesh, [{}, {"data", "model"}]>]
              out_shardings = [<@mesh, [{}, {"data"}]>] {
      ^bb0(%l: tensor<4x2xf32>):
        %a = shardc.all_reduce mean %l on @mesh ["model"] : tensor<4x2xf32>
        %b = shardc.all_to_all %a on @mesh ["data"] split_dim = 0 concat_dim = 1
             : tensor<4x2xf32> -> tensor<2x4xf32>
        shardc.return %b : tensor<2x4xf32>
      } : (tensor<4x8xf32>) -> tensor<2x8xf32>
      %pm2 = shardc.slice %pm, start = [0, 0], limit = [2, 4], strides = [1, 1]
             : (tensor<2x8xf32>) -> tensor<2x4xf32>
      return %m, %s, %y, %pm2 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<2x4xf32>
    })mlir";
  std::vector<double> x(32), w(32);
  for (int i = 0; i < 32; ++i) {
    x[i] = std::sin(0.37 * i) * 1.3;
    w[i] = std::cos(0.11 * i * i) / 3;
  }
  std::vector<Array> args{f32({4, 8}, x), f32({8, 4}, w)};
  std::vector<Array> first = run(source, args);
  std::vector<Array> second = run(source, args);
  ASSERT_EQ(first.size(), 4u);
  ASSERT_EQ(second.size(), 4u);
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(first[i], second[i]) << "result " << i << " differs between runs";
  // The sharded matmul agrees with the global one up to summation order.
  EXPECT_TRUE(same(first[0], first[2], 1e-5));
}

} // namespace
