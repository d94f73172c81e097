//===- ReferenceKernelsTest.cpp - the reference kernels, by hand ----------===//
//
// Every kernel of shardc/Reference/Kernels.h against values worked out by
// hand. The reference kernels are the oracle every backend is checked
// against, so comparisons are exact: same dtype, same shape, the same value
// in every element (NaN matches NaN; the sign of zero counts). The only
// tolerance is one ulp for f64 transcendental functions, whose last bit is
// the C library's.
//
//===----------------------------------------------------------------------===//

#include "shardc/Reference/Kernels.h"
#include "shardc/Runtime/StructuredOps.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace shardc::ref {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kE = 2.718281828459045;
const int64_t kI32Min = std::numeric_limits<int32_t>::min();
const int64_t kI32Max = std::numeric_limits<int32_t>::max();
const int64_t kI64Min = std::numeric_limits<int64_t>::min();
const int64_t kI64Max = std::numeric_limits<int64_t>::max();

using Doubles = std::vector<double>;
using Ints = std::vector<int64_t>;

Array f32(Shape s, Doubles v) { return Array::fromDoubles(DType::F32, std::move(s), v); }
Array f64(Shape s, Doubles v) { return Array::fromDoubles(DType::F64, std::move(s), v); }
Array f16(Shape s, Doubles v) { return Array::fromDoubles(DType::F16, std::move(s), v); }
Array bf16(Shape s, Doubles v) { return Array::fromDoubles(DType::BF16, std::move(s), v); }
Array i32(Shape s, Ints v) { return Array::fromInts(DType::I32, std::move(s), v); }
Array i64(Shape s, Ints v) { return Array::fromInts(DType::I64, std::move(s), v); }
Array i1(Shape s, Ints v) { return Array::fromInts(DType::I1, std::move(s), v); }

/// An array of `shape` holding 0, 1, 2, ... (plus `offset`).
Array iotaOf(DType dtype, const Shape &shape, int64_t offset = 0) {
  Array a(dtype, shape);
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setInt(i, i + offset);
  return a;
}

/// Distance in units in the last place between two finite doubles.
int64_t ulpDistance(double a, double b) {
  int64_t ia, ib;
  std::memcpy(&ia, &a, 8);
  std::memcpy(&ib, &b, 8);
  if (ia < 0)
    ia = kI64Min - ia;
  if (ib < 0)
    ib = kI64Min - ib;
  return ia > ib ? ia - ib : ib - ia;
}

/// Exact comparison; `ulps` > 0 allows that much error in finite f64 values.
void expectArray(const Array &actual, const Array &expected, int64_t ulps = 0) {
  ASSERT_EQ(std::string(dtypeName(actual.dtype())), dtypeName(expected.dtype()));
  ASSERT_EQ(shapeString(actual.shape()), shapeString(expected.shape()));
  if (!isFloat(expected.dtype())) {
    EXPECT_EQ(actual.toInts(), expected.toInts());
    return;
  }
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    double a = actual.getDouble(i), e = expected.getDouble(i);
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i << ": got " << a << ", want NaN";
    } else if (ulps > 0 && std::isfinite(e) && std::isfinite(a) && e != 0) {
      EXPECT_LE(ulpDistance(a, e), ulps) << "element " << i << ": got " << a << ", want " << e;
    } else {
      EXPECT_EQ(a, e) << "element " << i;
      EXPECT_EQ(std::signbit(a), std::signbit(e)) << "sign of element " << i;
    }
  }
}

/// Unwraps a StatusOr that must have succeeded.
Array ok(StatusOr<Array> result) {
  EXPECT_TRUE(result.ok()) << result.message();
  return result.ok() ? std::move(*result) : Array();
}

std::vector<const Array *> ptrs(const std::vector<Array> &arrays) {
  std::vector<const Array *> out;
  for (const Array &a : arrays)
    out.push_back(&a);
  return out;
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

// Inputs shared by the float unary tests.
const Doubles kUnaryIn = {0.0, -0.0, 1.0, -1.0, 0.5, 4.0, kInf, -kInf, kNaN};

struct UnaryCase {
  OpCode fn;
  const char *name;
  Doubles expected; // for kUnaryIn
  bool exact;       // also exact in f64 (IEEE-specified operations)
};

const std::vector<UnaryCase> kUnaryCases = {
    {OpCode::Neg, "neg", {-0.0, 0.0, -1, 1, -0.5, -4, -kInf, kInf, kNaN}, true},
    {OpCode::Abs, "abs", {0.0, 0.0, 1, 1, 0.5, 4, kInf, kInf, kNaN}, true},
    {OpCode::Exp,
     "exp",
     {1, 1, kE, 0.36787944117144233, 1.6487212707001282, 54.598150033144236, kInf, 0.0, kNaN},
     false},
    // log: -inf at +-0, NaN below 0.
    {OpCode::Log,
     "log",
     {-kInf, -kInf, 0.0, kNaN, -0.6931471805599453, 1.3862943611198906, kInf, kNaN, kNaN},
     false},
    {OpCode::Tanh,
     "tanh",
     {0.0, -0.0, 0.7615941559557649, -0.7615941559557649, 0.46211715726000974, 0.999329299739067, 1,
      -1, kNaN},
     false},
    // sqrt: -0 stays -0, NaN below 0.
    {OpCode::Sqrt, "sqrt", {0.0, -0.0, 1, kNaN, 0.7071067811865476, 2, kInf, kNaN, kNaN}, true},
    // rsqrt = 1 / sqrt: +-inf at +-0, 0 at inf. Two roundings in f64.
    {OpCode::Rsqrt,
     "rsqrt",
     {kInf, -kInf, 1, kNaN, 1.4142135623730951, 0.5, 0.0, kNaN, kNaN},
     false},
    {OpCode::Erf,
     "erf",
     {0.0, -0.0, 0.8427007929497149, -0.8427007929497149, 0.5204998778130465, 0.9999999845827421, 1,
      -1, kNaN},
     false},
    // log1p: -inf at -1, NaN below; keeps the sign of zero.
    {OpCode::Log1p,
     "log1p",
     {0.0, -0.0, 0.6931471805599453, -kInf, 0.4054651081081644, 1.6094379124341003, kInf, kNaN,
      kNaN},
     false},
    // expm1: -1 at -inf; keeps the sign of zero.
    {OpCode::Expm1,
     "expm1",
     {0.0, -0.0, 1.718281828459045, -0.6321205588285577, 0.6487212707001282, 53.598150033144236,
      kInf, -1, kNaN},
     false},
    // sin, cos: NaN at the infinities.
    {OpCode::Sin,
     "sin",
     {0.0, -0.0, 0.8414709848078965, -0.8414709848078965, 0.479425538604203, -0.7568024953079282,
      kNaN, kNaN, kNaN},
     false},
    {OpCode::Cos,
     "cos",
     {1, 1, 0.5403023058681398, 0.5403023058681398, 0.8775825618903728, -0.6536436208636119, kNaN,
      kNaN, kNaN},
     false},
    // floor, ceil, round_even: exact; -0 stays -0 and halves go to even.
    {OpCode::Floor, "floor", {0.0, -0.0, 1, -1, 0.0, 4, kInf, -kInf, kNaN}, true},
    {OpCode::Ceil, "ceil", {0.0, -0.0, 1, -1, 1, 4, kInf, -kInf, kNaN}, true},
    {OpCode::RoundEven, "round_even", {0.0, -0.0, 1, -1, 0.0, 4, kInf, -kInf, kNaN}, true},
    // round_afz: halves away from zero (0.5 -> 1), -0 stays -0.
    {OpCode::RoundAfz, "round_afz", {0.0, -0.0, 1, -1, 1, 4, kInf, -kInf, kNaN}, true},
    // tan: NaN at the infinities; keeps the sign of zero.
    {OpCode::Tan,
     "tan",
     {0.0, -0.0, 1.5574077246549023, -1.5574077246549023, 0.5463024898437905, 1.1578212823495775,
      kNaN, kNaN, kNaN},
     false},
    // cbrt: odd, infinite at infinities.
    {OpCode::Cbrt,
     "cbrt",
     {0.0, -0.0, 1, -1, 0.7937005259840998, 1.5874010519681994, kInf, -kInf, kNaN},
     false},
};

TEST(ReferenceUnary, EveryUnaryOpOfTheCatalogueHasHandValues) {
  for (OpCode op : allOpCodes()) {
    if (!isUnary(op))
      continue;
    bool covered = false;
    for (const UnaryCase &c : kUnaryCases)
      covered = covered || c.fn == op;
    EXPECT_TRUE(covered) << opCodeName(op)
                         << " is a unary op of OpCodes.def without hand-computed values in "
                            "kUnaryCases";
  }
}

TEST(ReferenceUnary, F32) {
  for (const UnaryCase &c : kUnaryCases) {
    SCOPED_TRACE(c.name);
    expectArray(unary(c.fn, f32({3, 3}, kUnaryIn)), f32({3, 3}, c.expected));
  }
}

TEST(ReferenceUnary, F64) {
  for (const UnaryCase &c : kUnaryCases) {
    SCOPED_TRACE(c.name);
    expectArray(unary(c.fn, f64({9}, kUnaryIn)), f64({9}, c.expected), c.exact ? 0 : 1);
  }
}

TEST(ReferenceUnary, F16RoundsTheDoubleResult) {
  Array x = f16({5}, {1.0, 2.0, 0.5, 12.0, 0.0});
  expectArray(unary(OpCode::Exp, x), f16({5}, {2.71875, 7.390625, 1.6484375, kInf, 1}));
  expectArray(unary(OpCode::Sqrt, x), f16({5}, {1, 1.4140625, 0.70703125, 3.46484375, 0}));
  expectArray(unary(OpCode::Tanh, x), f16({5}, {0.76171875, 0.9638671875, 0.462158203125, 1, 0}));
  expectArray(unary(OpCode::Rsqrt, f16({3}, {0.25, 4.0, 0.0})), f16({3}, {2, 0.5, kInf}));
  expectArray(unary(OpCode::Log, f16({3}, {0.0, -1.0, 1.0})), f16({3}, {-kInf, kNaN, 0}));
}

TEST(ReferenceUnary, BF16RoundsTheDoubleResult) {
  Array x = bf16({3}, {1.0, 2.0, 0.5});
  expectArray(unary(OpCode::Exp, x), bf16({3}, {2.71875, 7.375, 1.6484375}));
  expectArray(unary(OpCode::Sqrt, x), bf16({3}, {1, 1.4140625, 0.70703125}));
  expectArray(unary(OpCode::Tanh, x), bf16({3}, {0.76171875, 0.96484375, 0.462890625}));
}

TEST(ReferenceUnary, Integers) {
  Array x32 = i32({5}, {5, -5, 0, kI32Max, kI32Min});
  // -INT_MIN wraps to INT_MIN, as in two's complement hardware.
  expectArray(unary(OpCode::Neg, x32), i32({5}, {-5, 5, 0, -kI32Max, kI32Min}));
  expectArray(unary(OpCode::Abs, x32), i32({5}, {5, 5, 0, kI32Max, kI32Min}));
  Array x64 = i64({5}, {7, -7, 0, kI64Max, kI64Min});
  expectArray(unary(OpCode::Neg, x64), i64({5}, {-7, 7, 0, -kI64Max, kI64Min}));
  expectArray(unary(OpCode::Abs, x64), i64({5}, {7, 7, 0, kI64Max, kI64Min}));
}

TEST(ReferenceUnary, KeepsShapeIncludingRankZeroAndEmpty) {
  expectArray(unary(OpCode::Neg, f32({}, {2.5})), f32({}, {-2.5}));
  expectArray(unary(OpCode::Exp, f32({2, 0, 3}, {})), f32({2, 0, 3}, {}));
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

// The binary ops the tests below check against hand-computed values.
const std::vector<OpCode> kBinaryWithHandValues = {OpCode::Add, OpCode::Sub,   OpCode::Mul,
                                                   OpCode::Div, OpCode::Max,   OpCode::Min,
                                                   OpCode::Pow, OpCode::Atan2, OpCode::Rem};

TEST(ReferenceBinary, EveryBinaryOpOfTheCatalogueHasHandValues) {
  for (OpCode op : allOpCodes())
    if (isBinary(op))
      EXPECT_NE(std::find(kBinaryWithHandValues.begin(), kBinaryWithHandValues.end(), op),
                kBinaryWithHandValues.end())
          << opCodeName(op) << " is a binary op of OpCodes.def without a hand-value test here";
}

TEST(ReferenceBinary, F32Arithmetic) {
  Array a = f32({7}, {1, -2, 0.1, 1, -1, 0, 3});
  Array b = f32({7}, {2, 0.5, 0.2, 0, 0, 0, -4});
  // 0.1f + 0.2f is computed exactly in double and rounded once to 0.3f;
  // 0.1f * 0.2f rounds to a float just above 0.02f.
  expectArray(ok(binary(OpCode::Add, a, b)), f32({7}, {3, -1.5, 0.3, 1, -1, 0, -1}));
  expectArray(ok(binary(OpCode::Sub, a, b)), f32({7}, {-1, -2.5, -0.1, 1, -1, 0, 7}));
  expectArray(ok(binary(OpCode::Mul, a, b)),
              f32({7}, {2, -1, 0.020000001415610313, 0, -0.0, 0, -12}));
  // x / 0 is +-inf, 0 / 0 is NaN.
  expectArray(ok(binary(OpCode::Div, a, b)), f32({7}, {0.5, -4, 0.5, kInf, -kInf, kNaN, -0.75}));
}

TEST(ReferenceBinary, F32MaxMinPropagateNaN) {
  Array a = f32({5}, {1, kNaN, 2, kNaN, -1});
  Array b = f32({5}, {kNaN, 1, 3, kNaN, -kInf});
  expectArray(ok(binary(OpCode::Max, a, b)), f32({5}, {kNaN, kNaN, 3, kNaN, -1}));
  expectArray(ok(binary(OpCode::Min, a, b)), f32({5}, {kNaN, kNaN, 2, kNaN, -kInf}));
}

// atan2(y, x): the angle of (x, y); the signs pick the quadrant, and of
// zeros too.
TEST(ReferenceBinary, F32Atan2) {
  Array y = f32({8}, {0, 1, 1, -1, 0, -0.0, 0, 1});
  Array x = f32({8}, {1, 0, -1, -1, -1, -1, 0, kNaN});
  expectArray(ok(binary(OpCode::Atan2, y, x)),
              f32({8}, {0, 1.5707963267948966, 2.356194490192345, -2.356194490192345,
                        3.141592653589793, -3.141592653589793, 0, kNaN}));
}

// rem is C's fmod: the sign of the dividend, NaN for a zero divisor or an
// infinite dividend, the dividend for an infinite divisor.
TEST(ReferenceBinary, F32Rem) {
  Array a = f32({8}, {5.5, -5.5, 5, 1, kInf, 1, -0.0, 7});
  Array b = f32({8}, {2, 2, -3, 0, 1, kInf, 1, 0.5});
  expectArray(ok(binary(OpCode::Rem, a, b)), f32({8}, {1.5, -1.5, 2, kNaN, kNaN, 1, -0.0, 0}));
}

TEST(ReferenceBinary, F32Pow) {
  Array a = f32({10}, {2, 2, 4, -8, 0, -2, kNaN, 1, 2, 0});
  Array b = f32({10}, {10, -1, 0.5, 1.0 / 3, 0, 3, 0, kNaN, 0.5, -1});
  expectArray(ok(binary(OpCode::Pow, a, b)),
              f32({10}, {1024, 0.5, 2, kNaN, 1, -8, 1, 1, 1.4142135623730951, kInf}));
}

TEST(ReferenceBinary, F64Arithmetic) {
  Array a = f64({4}, {0.1, 1e308, 1, 2});
  Array b = f64({4}, {0.2, 1e308, 3, 0.5});
  expectArray(ok(binary(OpCode::Add, a, b)), f64({4}, {0.30000000000000004, kInf, 4, 2.5}));
  expectArray(ok(binary(OpCode::Div, a, b)), f64({4}, {0.5, 1, 1.0 / 3, 4}));
  expectArray(ok(binary(OpCode::Pow, a, b)),
              f64({4}, {std::pow(0.1, 0.2), kInf, 1, 1.4142135623730951}));
}

TEST(ReferenceBinary, HalfPrecisionRoundsOnce) {
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even gives 1;
  // 1 + 3 * 2^-11 is a tie between 1 + 2^-10 and 1 + 2^-9: to even gives 1 + 2^-9.
  Array a = f16({4}, {1, 1, 65504, 2048});
  Array b = f16({4}, {std::ldexp(1, -11), 3 * std::ldexp(1, -11), 65504, 1});
  expectArray(ok(binary(OpCode::Add, a, b)), f16({4}, {1, 1 + std::ldexp(1, -9), kInf, 2048}));
  Array c = bf16({3}, {1, 1, 256});
  Array d = bf16({3}, {std::ldexp(1, -8), 3 * std::ldexp(1, -8), 1});
  expectArray(ok(binary(OpCode::Add, c, d)), bf16({3}, {1, 1 + std::ldexp(1, -6), 256}));
  expectArray(ok(binary(OpCode::Mul, bf16({1}, {3.0e38}), bf16({1}, {2}))), bf16({1}, {kInf}));
}

TEST(ReferenceBinary, I32ArithmeticWrapsAndDivisionTruncates) {
  Array a = i32({8}, {7, -7, 7, -7, kI32Max, kI32Min, 0, 5});
  Array b = i32({8}, {2, 2, -2, -2, 1, -1, 3, 5});
  expectArray(ok(binary(OpCode::Add, a, b)), i32({8}, {9, -5, 5, -9, kI32Min, kI32Max, 3, 10}));
  expectArray(ok(binary(OpCode::Sub, a, b)),
              i32({8}, {5, -9, 9, -5, kI32Max - 1, kI32Min + 1, -3, 0}));
  expectArray(ok(binary(OpCode::Mul, a, b)), i32({8}, {14, -14, -14, 14, kI32Max, kI32Min, 0, 25}));
  // Truncation toward zero; INT_MIN / -1 wraps to INT_MIN.
  expectArray(ok(binary(OpCode::Div, a, b)), i32({8}, {3, -3, -3, 3, kI32Max, kI32Min, 0, 1}));
  expectArray(ok(binary(OpCode::Max, a, b)), i32({8}, {7, 2, 7, -2, kI32Max, -1, 3, 5}));
  expectArray(ok(binary(OpCode::Min, a, b)), i32({8}, {2, -7, -2, -7, 1, kI32Min, 0, 5}));
}

TEST(ReferenceBinary, I64ArithmeticWraps) {
  Array a = i64({4}, {kI64Max, kI64Min, kI64Min, int64_t(1) << 62});
  Array b = i64({4}, {1, -1, -1, 4});
  expectArray(ok(binary(OpCode::Add, a, b)),
              i64({4}, {kI64Min, kI64Max, kI64Max, (int64_t(1) << 62) + 4}));
  expectArray(ok(binary(OpCode::Mul, a, b)), i64({4}, {kI64Max, kI64Min, kI64Min, 0}));
  expectArray(ok(binary(OpCode::Div, a, b)),
              i64({4}, {kI64Max, kI64Min, kI64Min, int64_t(1) << 60}));
  // Exact beyond 2^53, where a double would round.
  Array big = i64({1}, {(int64_t(1) << 53) + 1});
  expectArray(ok(binary(OpCode::Add, big, i64({1}, {2}))), i64({1}, {(int64_t(1) << 53) + 3}));
}

TEST(ReferenceBinary, IntegerDivisionByZeroIsAnError) {
  StatusOr<Array> r = binary(OpCode::Div, i32({3}, {1, 2, 3}), i32({3}, {1, 1, 0}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "integer division by zero at element 2");
  r = binary(OpCode::Div, i64({2, 2}, {0, 0, 0, 0}), i64({2, 2}, {1, 0, 0, 1}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "integer division by zero at element 1");
  // Other integer ops with a zero operand are fine.
  EXPECT_TRUE(binary(OpCode::Mul, i32({1}, {5}), i32({1}, {0})).ok());
}

TEST(ReferenceBinary, IntegerPow) {
  Array a = i32({10}, {2, -3, 2, 1, -1, -1, 0, 3, 0, 2});
  Array b = i32({10}, {10, 3, -1, -5, -3, -2, 0, 0, 5, 31});
  // Negative exponents: only +-1 have integer reciprocals, the rest give 0.
  // 2^31 wraps in i32.
  expectArray(ok(binary(OpCode::Pow, a, b)), i32({10}, {1024, -27, 0, 1, -1, 1, 1, 1, 0, kI32Min}));
  Array c = i64({3}, {2, 3, -2});
  Array d = i64({3}, {62, 40, 63});
  // 3^40 = 12157665459056928801 wraps modulo 2^64.
  expectArray(ok(binary(OpCode::Pow, c, d)),
              i64({3}, {int64_t(1) << 62, -6289078614652622815, kI64Min}));
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

TEST(ReferenceCompare, FloatsWithNaN) {
  // Every comparison with NaN is false, except NE; -0 == +0.
  Array a = f32({7}, {1, 2, 3, kNaN, 1, kNaN, -0.0});
  Array b = f32({7}, {2, 2, 1, 1, kNaN, kNaN, 0.0});
  expectArray(compare(CompareFn::EQ, a, b), i1({7}, {0, 1, 0, 0, 0, 0, 1}));
  expectArray(compare(CompareFn::NE, a, b), i1({7}, {1, 0, 1, 1, 1, 1, 0}));
  expectArray(compare(CompareFn::LT, a, b), i1({7}, {1, 0, 0, 0, 0, 0, 0}));
  expectArray(compare(CompareFn::LE, a, b), i1({7}, {1, 1, 0, 0, 0, 0, 1}));
  expectArray(compare(CompareFn::GT, a, b), i1({7}, {0, 0, 1, 0, 0, 0, 0}));
  expectArray(compare(CompareFn::GE, a, b), i1({7}, {0, 1, 1, 0, 0, 0, 1}));
}

TEST(ReferenceCompare, F16AndInfinities) {
  Array a = f16({3}, {kInf, -kInf, 65504});
  Array b = f16({3}, {kInf, 0, kInf});
  expectArray(compare(CompareFn::EQ, a, b), i1({3}, {1, 0, 0}));
  expectArray(compare(CompareFn::LT, a, b), i1({3}, {0, 1, 1}));
}

TEST(ReferenceCompare, Integers) {
  Array a = i32({2, 2}, {-1, 0, 5, kI32Min});
  Array b = i32({2, 2}, {0, 0, -5, kI32Max});
  expectArray(compare(CompareFn::EQ, a, b), i1({2, 2}, {0, 1, 0, 0}));
  expectArray(compare(CompareFn::NE, a, b), i1({2, 2}, {1, 0, 1, 1}));
  expectArray(compare(CompareFn::LT, a, b), i1({2, 2}, {1, 0, 0, 1}));
  expectArray(compare(CompareFn::LE, a, b), i1({2, 2}, {1, 1, 0, 1}));
  expectArray(compare(CompareFn::GT, a, b), i1({2, 2}, {0, 0, 1, 0}));
  expectArray(compare(CompareFn::GE, a, b), i1({2, 2}, {0, 1, 1, 0}));
  // i64 values that one double cannot tell apart.
  Array c = i64({2}, {int64_t(1) << 53, kI64Max});
  Array d = i64({2}, {(int64_t(1) << 53) + 1, kI64Max - 1});
  expectArray(compare(CompareFn::EQ, c, d), i1({2}, {0, 0}));
  expectArray(compare(CompareFn::LT, c, d), i1({2}, {1, 0}));
  expectArray(compare(CompareFn::GT, c, d), i1({2}, {0, 1}));
  // i1 operands.
  expectArray(compare(CompareFn::LT, i1({2}, {0, 1}), i1({2}, {1, 1})), i1({2}, {1, 0}));
}

TEST(ReferenceSelect, PicksElementwiseAndCopiesBits) {
  Array pred = i1({2, 2}, {1, 0, 1, 0});
  Array onTrue = f32({2, 2}, {1, 2, -0.0, kNaN});
  Array onFalse = f32({2, 2}, {-1, -2, -3, -4});
  expectArray(select(pred, onTrue, onFalse), f32({2, 2}, {1, -2, -0.0, -4}));
  expectArray(select(i1({3}, {0, 1, 1}), i64({3}, {kI64Max, 2, kI64Min}), i64({3}, {7, 8, 9})),
              i64({3}, {7, 2, kI64Min}));
  expectArray(select(i1({1}, {1}), f16({1}, {kNaN}), f16({1}, {0})), f16({1}, {kNaN}));
  expectArray(select(i1({}, {0}), i1({}, {1}), i1({}, {0})), i1({}, {0}));
}

//===----------------------------------------------------------------------===//
// Convert
//===----------------------------------------------------------------------===//

TEST(ReferenceConvert, FloatToIntTruncatesAndSaturates) {
  Array x =
      f32({11}, {1.9, -1.9, 0.5, -0.5, 3e9, -3e9, kNaN, kInf, -kInf, 2147483520.0, -2147483648.0});
  expectArray(convert(x, DType::I32),
              i32({11}, {1, -1, 0, 0, kI32Max, kI32Min, 0, kI32Max, kI32Min, 2147483520, kI32Min}));
  Array y = f64({8}, {1e19, -1e19, 9223372036854775808.0, -9223372036854775808.0,
                      2251799813685249.5, -2.999, kNaN, kInf});
  expectArray(convert(y, DType::I64),
              i64({8}, {kI64Max, kI64Min, kI64Max, kI64Min, 2251799813685249, -2, 0, kI64Max}));
  expectArray(convert(f16({3}, {65504, -2.5, kNaN}), DType::I32), i32({3}, {65504, -2, 0}));
}

TEST(ReferenceConvert, ToI1) {
  // Nonzero is true, NaN included (as in NumPy and XLA).
  expectArray(convert(f32({6}, {0.0, -0.0, 0.1, -2, kInf, kNaN}), DType::I1),
              i1({6}, {0, 0, 1, 1, 1, 1}));
  expectArray(convert(i32({3}, {0, 5, -1}), DType::I1), i1({3}, {0, 1, 1}));
  expectArray(convert(i64({2}, {int64_t(1) << 40, 0}), DType::I1), i1({2}, {1, 0}));
}

TEST(ReferenceConvert, FromI1) {
  expectArray(convert(i1({2}, {0, 1}), DType::F32), f32({2}, {0, 1}));
  expectArray(convert(i1({2}, {1, 0}), DType::I64), i64({2}, {1, 0}));
  expectArray(convert(i1({2}, {1, 0}), DType::BF16), bf16({2}, {1, 0}));
}

TEST(ReferenceConvert, IntToInt) {
  // Narrowing wraps (keeps the low bits); widening sign-extends.
  expectArray(
      convert(i64({4}, {(int64_t(1) << 32) + 5, -1, int64_t(1) << 31, kI64Min}), DType::I32),
      i32({4}, {5, -1, kI32Min, 0}));
  expectArray(convert(i32({2}, {-1, kI32Min}), DType::I64), i64({2}, {-1, kI32Min}));
}

TEST(ReferenceConvert, IntToFloatRoundsToNearestEven) {
  expectArray(convert(i32({4}, {16777217, 16777219, -16777217, kI32Max}), DType::F32),
              f32({4}, {16777216, 16777220, -16777216, 2147483648.0}));
  expectArray(convert(i32({3}, {2049, 2051, 70000}), DType::F16), f16({3}, {2048, 2052, kInf}));
  expectArray(convert(i64({2}, {(int64_t(1) << 53) + 1, -3}), DType::F64),
              f64({2}, {9007199254740992.0, -3}));
}

TEST(ReferenceConvert, F32ToBF16RoundsToNearestEven) {
  double u = std::ldexp(1, -8); // half a bf16 ulp at 1
  Array x = f32({11}, {1 + u, 1 + 3 * u, 1 + u + std::ldexp(1, -20), -(1 + u), -0.0, kInf, kNaN,
                       FLT_MAX, 3.3895313892515355e38, 1e-40, -kInf});
  expectArray(convert(x, DType::BF16),
              bf16({11}, {1, 1 + 4 * u, 1 + 2 * u, -1, -0.0, kInf, kNaN, kInf,
                          3.3895313892515355e38, std::ldexp(1, -133), -kInf}));
  // The stored bits, for the exactness of ties and NaN.
  Array r = convert(x, DType::BF16);
  const uint16_t *bits = r.data<uint16_t>();
  EXPECT_EQ(bits[0], 0x3f80);
  EXPECT_EQ(bits[1], 0x3f82);
  EXPECT_EQ(bits[2], 0x3f81);
  EXPECT_EQ(bits[4], 0x8000);
  EXPECT_EQ(bits[6] & 0x7fc0, 0x7fc0); // a quiet NaN
  EXPECT_EQ(bits[8], 0x7f7f);
}

TEST(ReferenceConvert, F32ToF16RoundsToNearestEven) {
  double u = std::ldexp(1, -11); // half an f16 ulp at 1
  Array x = f32({15}, {1 + u, 1 + 3 * u, 65504, 65519, 65520, -65520, std::ldexp(1, -25),
                       3 * std::ldexp(1, -25), std::ldexp(1, -24),
                       std::ldexp(1, -14) - std::ldexp(1, -26), 1e-8, -1e-8, kNaN, 0.1, -0.0});
  expectArray(
      convert(x, DType::F16),
      f16({15}, {1, 1 + 4 * u, 65504, 65504, kInf, -kInf, 0, std::ldexp(1, -23), std::ldexp(1, -24),
                 std::ldexp(1, -14), 0, -0.0, kNaN, 0.0999755859375, -0.0}));
  Array r = convert(x, DType::F16);
  const uint16_t *bits = r.data<uint16_t>();
  EXPECT_EQ(bits[0], 0x3c00);
  EXPECT_EQ(bits[1], 0x3c02);
  EXPECT_EQ(bits[4], 0x7c00);
  EXPECT_EQ(bits[7], 0x0002);
  EXPECT_EQ(bits[9], 0x0400); // the largest subnormal rounds up to the smallest normal
  EXPECT_EQ(bits[13], 0x2e66);
}

TEST(ReferenceConvert, F64ToHalfPrecisionRoundsOnce) {
  // Just above a tie: correct rounding goes up. Rounding to f32 first would
  // land exactly on the tie and then go to even (down).
  double aboveF16Tie = 1 + std::ldexp(1, -11) + std::ldexp(1, -40);
  double aboveBF16Tie = 1 + std::ldexp(1, -8) + std::ldexp(1, -40);
  double belowF16Tie = 1 + 3 * std::ldexp(1, -11) - std::ldexp(1, -40);
  expectArray(
      convert(f64({3}, {aboveF16Tie, -aboveF16Tie, belowF16Tie}), DType::F16),
      f16({3}, {1 + std::ldexp(1, -10), -(1 + std::ldexp(1, -10)), 1 + std::ldexp(1, -10)}));
  expectArray(convert(f64({2}, {aboveBF16Tie, 1e300}), DType::BF16),
              bf16({2}, {1 + std::ldexp(1, -7), kInf}));
  // Ties themselves still go to even.
  expectArray(convert(f64({1}, {1 + std::ldexp(1, -11)}), DType::F16), f16({1}, {1}));
}

TEST(ReferenceConvert, WideningAndF64ToF32) {
  expectArray(convert(f16({3}, {65504, std::ldexp(1, -24), -0.0}), DType::F32),
              f32({3}, {65504, std::ldexp(1, -24), -0.0}));
  expectArray(convert(bf16({2}, {3.3895313892515355e38, -1.0078125}), DType::F64),
              f64({2}, {3.3895313892515355e38, -1.0078125}));
  expectArray(convert(f64({4}, {0.1, 1e40, 1 + std::ldexp(1, -24),
                                1 + std::ldexp(1, -24) + std::ldexp(1, -50)}),
                      DType::F32),
              f32({4}, {0.1, kInf, 1, 1 + std::ldexp(1, -23)}));
  Array same = f32({2}, {1.5, kNaN});
  expectArray(convert(same, DType::F32), same);
}

//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

TEST(ReferenceIota, AlongEachDimension) {
  expectArray(iota(DType::I32, {2, 3}, 0), i32({2, 3}, {0, 0, 0, 1, 1, 1}));
  expectArray(iota(DType::I32, {2, 3}, 1), i32({2, 3}, {0, 1, 2, 0, 1, 2}));
  expectArray(iota(DType::I64, {5}, 0), i64({5}, {0, 1, 2, 3, 4}));
  expectArray(iota(DType::F32, {2, 3, 2}, 1), f32({2, 3, 2}, {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}));
  expectArray(iota(DType::F16, {2, 3, 2}, 2), f16({2, 3, 2}, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
  expectArray(iota(DType::BF16, {3, 1}, 0), bf16({3, 1}, {0, 1, 2}));
}

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

TEST(ReferenceDot, Matmul) {
  // (2, 3) x (3, 2) -> (2, 2)
  Array a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Array b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  expectArray(dotGeneral(a, b, {{}, {}, {1}, {0}}), f32({2, 2}, {58, 64, 139, 154}));
  // (1, 3) x (3, 1) -> (1, 1), and a vector dot product -> scalar.
  expectArray(dotGeneral(f32({1, 3}, {1, 2, 3}), f32({3, 1}, {4, 5, 6}), {{}, {}, {1}, {0}}),
              f32({1, 1}, {32}));
  expectArray(dotGeneral(f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6}), {{}, {}, {0}, {0}}),
              f32({}, {32}));
}

TEST(ReferenceDot, TransposedContractingDims) {
  // lhs (3, 2) contracting dim 0 = a^T, rhs (2, 3) contracting dim 1 = b^T.
  Array aT = f64({3, 2}, {1, 4, 2, 5, 3, 6});
  Array bT = f64({2, 3}, {7, 9, 11, 8, 10, 12});
  expectArray(dotGeneral(aT, bT, {{}, {}, {0}, {1}}), f64({2, 2}, {58, 64, 139, 154}));
  // a (2, 3) with b^T (2, 3), contracting dim 1 of both: a . b^T^T.
  Array a = f64({2, 3}, {1, 2, 3, 4, 5, 6});
  expectArray(dotGeneral(a, bT, {{}, {}, {1}, {1}}), f64({2, 2}, {58, 64, 139, 154}));
}

TEST(ReferenceDot, Batched) {
  // (B=2, M=2, K=3) x (B=2, K=3, N=1) -> (2, 2, 1)
  Array a = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, -1, 2, 1, 0});
  Array b = f32({2, 3, 1}, {1, 1, 1, 3, -2, 5});
  expectArray(dotGeneral(a, b, {{0}, {0}, {2}, {1}}), f32({2, 2, 1}, {6, 15, -2, 4}));
}

TEST(ReferenceDot, BatchDimsNotLeading) {
  // lhs (K=3, B=2), rhs (B=2, K=3) -> (B=2): one dot product per batch.
  Array a = i32({3, 2}, {1, 2, 3, 4, 5, 6});
  Array b = i32({2, 3}, {1, 1, 1, 1, -1, 2});
  expectArray(dotGeneral(a, b, {{1}, {0}, {0}, {1}}), i32({2}, {9, 10}));
  // lhs (M=2, B=3, K=1), rhs (K=1, N=2, B=3) -> (B=3, M=2, N=2).
  Array c = f32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  Array d = f32({1, 2, 3}, {1, 10, 100, -1, -10, -100});
  // out[b][m][n] = c[m][b] * d[n][b]
  expectArray(dotGeneral(c, d, {{1}, {2}, {2}, {0}}),
              f32({3, 2, 2}, {1, -1, 4, -4, 20, -20, 50, -50, 300, -300, 600, -600}));
}

TEST(ReferenceDot, MultipleContractingDims) {
  // lhs (2, 3, 2) = 0..11 contracting {1, 2}; rhs (3, 2, 2) = 0..11
  // contracting {0, 1}. With t = 2j + k: lhs[m][t] = 6m + t, rhs[t][n] =
  // 2t + n, so out[m][n] = sum_t (6m + t)(2t + n) = 180m + 36mn + 110 + 15n.
  Array a = iotaOf(DType::F32, {2, 3, 2});
  Array b = iotaOf(DType::F32, {3, 2, 2});
  expectArray(dotGeneral(a, b, {{}, {}, {1, 2}, {0, 1}}), f32({2, 2}, {110, 125, 290, 341}));
  // The pairs may be listed in any order.
  expectArray(dotGeneral(a, b, {{}, {}, {2, 1}, {1, 0}}), f32({2, 2}, {110, 125, 290, 341}));
}

TEST(ReferenceDot, ContractingPairsFollowTheListedOrder) {
  // lhs (2, 3, 2), rhs (2, 3, 2); lhs dim 1 with rhs dim 1, lhs dim 2 with
  // rhs dim 0: out[m][n] = sum_{j,k} lhs[m][j][k] * rhs[k][j][n]
  //                      = sum_{j,k} (6m + 2j + k)(6k + 2j + n)
  //                      = 100 + 180m + 15n.
  Array a = iotaOf(DType::I64, {2, 3, 2});
  Array b = iotaOf(DType::I64, {2, 3, 2});
  expectArray(dotGeneral(a, b, {{}, {}, {1, 2}, {1, 0}}), i64({2, 2}, {100, 115, 280, 331}));
}

TEST(ReferenceDot, Integers) {
  Array a = i32({2, 3}, {1, -2, 3, -4, 5, -6});
  Array b = i32({3, 2}, {7, 8, 9, 10, 11, 12});
  expectArray(dotGeneral(a, b, {{}, {}, {1}, {0}}), i32({2, 2}, {22, 24, -49, -54}));
  // Products and sums wrap in two's complement.
  Array big = i64({1, 2}, {int64_t(1) << 62, int64_t(1) << 62});
  Array four = i64({2, 1}, {2, 2});
  expectArray(dotGeneral(big, four, {{}, {}, {1}, {0}}), i64({1, 1}, {0}));
}

TEST(ReferenceDot, OuterProductHasNoContractingDims) {
  expectArray(dotGeneral(f32({2}, {1, 2}), f32({3}, {3, 4, 5}), {{}, {}, {}, {}}),
              f32({2, 3}, {3, 4, 5, 6, 8, 10}));
}

TEST(ReferenceDot, HalfPrecisionAccumulatesInDouble) {
  // Each partial sum 1 + 2^-11 would round back to 1 in f16; the exact sum
  // 1 + 2^-10 is representable.
  double u = std::ldexp(1, -11);
  expectArray(dotGeneral(f16({1, 3}, {1, u, u}), f16({3, 1}, {1, 1, 1}), {{}, {}, {1}, {0}}),
              f16({1, 1}, {1 + 2 * u}));
  expectArray(dotGeneral(bf16({3}, {256, 1, 1}), bf16({3}, {1, 1, 1}), {{}, {}, {0}, {0}}),
              bf16({}, {258}));
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

TEST(ReferenceReduce, OneDimension) {
  Array x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expectArray(reduce(Reduction::Sum, x, {0}), f32({3}, {5, 7, 9}));
  expectArray(reduce(Reduction::Sum, x, {1}), f32({2}, {6, 15}));
  expectArray(reduce(Reduction::Max, x, {1}), f32({2}, {3, 6}));
  expectArray(reduce(Reduction::Max, x, {0}), f32({3}, {4, 5, 6}));
  expectArray(reduce(Reduction::Min, x, {0}), f32({3}, {1, 2, 3}));
  expectArray(reduce(Reduction::Min, x, {1}), f32({2}, {1, 4}));
  expectArray(reduce(Reduction::Mean, x, {1}), f32({2}, {2, 5}));
  expectArray(reduce(Reduction::Mean, x, {0}), f32({3}, {2.5, 3.5, 4.5}));
}

TEST(ReferenceReduce, SeveralDimensions) {
  // x[i][j][k] = 6i + 2j + k
  Array x = iotaOf(DType::F64, {2, 3, 2});
  expectArray(reduce(Reduction::Sum, x, {0, 2}), f64({3}, {14, 22, 30}));
  expectArray(reduce(Reduction::Sum, x, {1}), f64({2, 2}, {6, 9, 24, 27}));
  expectArray(reduce(Reduction::Max, x, {0, 1}), f64({2}, {10, 11}));
  expectArray(reduce(Reduction::Min, x, {2, 0}), f64({3}, {0, 2, 4}));
  expectArray(reduce(Reduction::Mean, x, {0, 2}), f64({3}, {3.5, 5.5, 7.5}));
}

TEST(ReferenceReduce, AllDimensionsGiveRankZero) {
  Array x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expectArray(reduce(Reduction::Sum, x, {0, 1}), f32({}, {21}));
  expectArray(reduce(Reduction::Mean, x, {0, 1}), f32({}, {3.5}));
  expectArray(reduce(Reduction::Max, x, {1, 0}), f32({}, {6}));
  expectArray(reduce(Reduction::Min, iotaOf(DType::I32, {3, 1, 2}, -4), {0, 1, 2}), i32({}, {-4}));
  expectArray(reduce(Reduction::Mean, f32({3}, {1, 2, 4}), {0}), f32({}, {7.0 / 3}));
}

TEST(ReferenceReduce, NaNPropagates) {
  Array x = f32({2, 3}, {1, kNaN, 3, kNaN, 5, 6});
  expectArray(reduce(Reduction::Max, x, {1}), f32({2}, {kNaN, kNaN}));
  expectArray(reduce(Reduction::Min, x, {1}), f32({2}, {kNaN, kNaN}));
  expectArray(reduce(Reduction::Sum, x, {0}), f32({3}, {kNaN, kNaN, 9}));
  expectArray(reduce(Reduction::Max, x, {0}), f32({3}, {kNaN, kNaN, 6}));
  expectArray(reduce(Reduction::Max, f32({2}, {-kInf, -kInf}), {0}), f32({}, {-kInf}));
}

TEST(ReferenceReduce, Integers) {
  Array x = i32({2, 3}, {1, -2, 3, 4, 5, -6});
  expectArray(reduce(Reduction::Sum, x, {1}), i32({2}, {2, 3}));
  expectArray(reduce(Reduction::Max, x, {0}), i32({3}, {4, 5, 3}));
  expectArray(reduce(Reduction::Min, x, {0, 1}), i32({}, {-6}));
  // Integer mean truncates toward zero.
  Array y = i64({3, 2}, {1, 2, -1, -2, 3, 4});
  expectArray(reduce(Reduction::Mean, y, {1}), i64({3}, {1, -1, 3}));
  // An i32 sum wraps like repeated i32 adds.
  expectArray(reduce(Reduction::Sum, i32({2}, {kI32Max, 1}), {0}), i32({}, {kI32Min}));
  expectArray(reduce(Reduction::Max, i64({2}, {kI64Min, kI64Min + 1}), {0}),
              i64({}, {kI64Min + 1}));
}

TEST(ReferenceReduce, HalfPrecisionAccumulatesInDouble) {
  double u = std::ldexp(1, -11);
  expectArray(reduce(Reduction::Sum, f16({3}, {1, u, u}), {0}), f16({}, {1 + 2 * u}));
  expectArray(reduce(Reduction::Mean, bf16({2, 2}, {256, 1, 2, 1}), {1}), bf16({2}, {128, 1.5}));
}

//===----------------------------------------------------------------------===//
// broadcast_in_dim, reshape, transpose
//===----------------------------------------------------------------------===//

TEST(ReferenceBroadcast, NewDimensions) {
  Array v = f32({3}, {1, 2, 3});
  expectArray(broadcastInDim(v, {2, 3}, {1}), f32({2, 3}, {1, 2, 3, 1, 2, 3}));
  expectArray(broadcastInDim(f32({2}, {1, 2}), {2, 3}, {0}), f32({2, 3}, {1, 1, 1, 2, 2, 2}));
  expectArray(broadcastInDim(f32({}, {7}), {2, 2}, {}), f32({2, 2}, {7, 7, 7, 7}));
  expectArray(broadcastInDim(i32({2}, {4, 5}), {3, 2, 2}, {1}),
              i32({3, 2, 2}, {4, 4, 5, 5, 4, 4, 5, 5, 4, 4, 5, 5}));
}

TEST(ReferenceBroadcast, SizeOneExpansion) {
  expectArray(broadcastInDim(f32({1, 3}, {1, 2, 3}), {2, 3}, {0, 1}),
              f32({2, 3}, {1, 2, 3, 1, 2, 3}));
  expectArray(broadcastInDim(f32({3, 1}, {1, 2, 3}), {3, 4}, {0, 1}),
              f32({3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  expectArray(broadcastInDim(i1({1, 1}, {1}), {2, 1, 2}, {1, 2}), i1({2, 1, 2}, {1, 1, 1, 1}));
  // Same shape: a copy.
  Array x = f16({2, 2}, {1, 2, 3, kNaN});
  expectArray(broadcastInDim(x, {2, 2}, {0, 1}), x);
}

TEST(ReferenceBroadcast, PermutedDimensions) {
  // dims = {1, 0}: a transpose.
  Array x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expectArray(broadcastInDim(x, {3, 2}, {1, 0}), f32({3, 2}, {1, 4, 2, 5, 3, 6}));
  // (2, 3) -> (3, 4, 2) with operand dim 0 -> result dim 2, dim 1 -> dim 0:
  // out[j][r][i] = x[i][j].
  Array out = broadcastInDim(x, {3, 4, 2}, {2, 0});
  Doubles expected;
  for (int j = 0; j < 3; ++j)
    for (int r = 0; r < 4; ++r)
      for (int i = 0; i < 2; ++i)
        expected.push_back(1 + 3 * i + j);
  expectArray(out, f32({3, 4, 2}, expected));
  // A size-1 dimension moved and expanded: (1, 2) -> (2, 3), dims {1, 0}.
  expectArray(broadcastInDim(f32({1, 2}, {5, 6}), {2, 3}, {1, 0}), f32({2, 3}, {5, 5, 5, 6, 6, 6}));
}

TEST(ReferenceReshape, KeepsRowMajorOrder) {
  Array x = iotaOf(DType::I32, {2, 3});
  expectArray(reshape(x, {3, 2}), i32({3, 2}, {0, 1, 2, 3, 4, 5}));
  expectArray(reshape(x, {6}), i32({6}, {0, 1, 2, 3, 4, 5}));
  expectArray(reshape(x, {1, 6, 1}), i32({1, 6, 1}, {0, 1, 2, 3, 4, 5}));
  expectArray(reshape(f32({}, {2.5}), {1, 1}), f32({1, 1}, {2.5}));
  expectArray(reshape(f32({1}, {2.5}), {}), f32({}, {2.5}));
  expectArray(reshape(f32({0, 3}, {}), {3, 0}), f32({3, 0}, {}));
}

TEST(ReferenceTranspose, TwoAndThreeDimensions) {
  expectArray(transpose(f32({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0}), f32({3, 2}, {1, 4, 2, 5, 3, 6}));
  // x[i][j][k] = 12i + 4j + k, shape (2, 3, 4)
  Array x = iotaOf(DType::I64, {2, 3, 4});
  // perm {2, 0, 1}: out[k][i][j] = x[i][j][k], shape (4, 2, 3).
  Array t = transpose(x, {2, 0, 1});
  ASSERT_EQ(t.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(t.toInts(), (Ints{0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                              2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
  // perm {1, 0, 2}: out[j][i][k], shape (3, 2, 4).
  Array s = transpose(x, {1, 0, 2});
  ASSERT_EQ(s.shape(), (Shape{3, 2, 4}));
  EXPECT_EQ(s.toInts(), (Ints{0,  1,  2,  3,  12, 13, 14, 15, 4,  5,  6,  7,
                              16, 17, 18, 19, 8,  9,  10, 11, 20, 21, 22, 23}));
  // perm {2, 1, 0}: out[k][j][i], shape (4, 3, 2).
  Array r = transpose(x, {2, 1, 0});
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i)
        EXPECT_EQ(r.getInt(k * 6 + j * 2 + i), 12 * i + 4 * j + k);
  // Identity, and an inverse permutation undoes {2, 0, 1}.
  expectArray(transpose(x, {0, 1, 2}), x);
  expectArray(transpose(t, {1, 2, 0}), x);
}

TEST(ReferenceTranspose, CopiesBitsOfEveryDType) {
  expectArray(transpose(f16({2, 1}, {kNaN, -0.0}), {1, 0}), f16({1, 2}, {kNaN, -0.0}));
  expectArray(transpose(i1({1, 3}, {1, 0, 1}), {1, 0}), i1({3, 1}, {1, 0, 1}));
}

//===----------------------------------------------------------------------===//
// slice, concatenate
//===----------------------------------------------------------------------===//

TEST(ReferenceSlice, WithStrides) {
  Array v = iotaOf(DType::I32, {10});
  expectArray(slice(v, {1}, {8}, {3}), i32({3}, {1, 4, 7}));
  expectArray(slice(v, {1}, {9}, {3}), i32({3}, {1, 4, 7}));
  expectArray(slice(v, {0}, {10}, {1}), v);
  expectArray(slice(v, {9}, {10}, {5}), i32({1}, {9}));
  expectArray(slice(v, {4}, {4}, {1}), i32({0}, {}));
  // (4, 5) = 0..19: rows 1, 3 and columns 0, 2, 4.
  Array m = iotaOf(DType::F32, {4, 5});
  expectArray(slice(m, {1, 0}, {4, 5}, {2, 2}), f32({2, 3}, {5, 7, 9, 15, 17, 19}));
  expectArray(slice(m, {2, 1}, {3, 4}, {1, 1}), f32({1, 3}, {11, 12, 13}));
  // 3-D, (2, 3, 4) = 0..23, stride in the middle dimension only.
  Array c = iotaOf(DType::I64, {2, 3, 4});
  expectArray(slice(c, {0, 0, 1}, {2, 3, 3}, {1, 2, 1}),
              i64({2, 2, 2}, {1, 2, 9, 10, 13, 14, 21, 22}));
}

TEST(ReferenceConcatenate, AlongEachDimension) {
  // a (2, 1, 2) = 0..3, b (2, 1, 2) = 10..13
  Array a = iotaOf(DType::F32, {2, 1, 2});
  Array b = iotaOf(DType::F32, {2, 1, 2}, 10);
  expectArray(concatenate({&a, &b}, 0), f32({4, 1, 2}, {0, 1, 2, 3, 10, 11, 12, 13}));
  expectArray(concatenate({&a, &b}, 1), f32({2, 2, 2}, {0, 1, 10, 11, 2, 3, 12, 13}));
  expectArray(concatenate({&a, &b}, 2), f32({2, 1, 4}, {0, 1, 10, 11, 2, 3, 12, 13}));
}

TEST(ReferenceConcatenate, UnequalSizesAndEmptyInputs) {
  Array a = i32({2, 1}, {1, 2});
  Array b = i32({2, 3}, {3, 4, 5, 6, 7, 8});
  Array e = i32({2, 0}, {});
  Array c = i32({2, 2}, {9, 10, 11, 12});
  expectArray(concatenate({&a, &e, &b, &c}, 1),
              i32({2, 6}, {1, 3, 4, 5, 9, 10, 2, 6, 7, 8, 11, 12}));
  expectArray(concatenate({&a}, 0), a);
  Array x = i1({1}, {1}), y = i1({2}, {0, 1});
  expectArray(concatenate({&x, &y, &x}, 0), i1({4}, {1, 0, 1, 1}));
}

//===----------------------------------------------------------------------===//
// take, scatter_add (rows of the structured-op table)
//===----------------------------------------------------------------------===//

StatusOr<Array> take(const Array &table, const Array &indices) {
  return structuredOp(OpCode::Take)->reference({&table, &indices}, {});
}

StatusOr<Array> scatterAdd(const Array &operand, const Array &indices, const Array &updates) {
  return structuredOp(OpCode::ScatterAdd)->reference({&operand, &indices, &updates}, {});
}

TEST(ReferenceTake, RowsByIndex) {
  Array table = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  expectArray(ok(take(table, i32({3}, {3, 0, 3}))), f32({3, 2}, {30, 31, 0, 1, 30, 31}));
  // Multi-dimensional indices: result shape = indices shape + row shape.
  expectArray(ok(take(table, i64({2, 2}, {1, 2, 0, 0}))),
              f32({2, 2, 2}, {10, 11, 20, 21, 0, 1, 0, 1}));
  // A rank-1 table gives scalars per index.
  expectArray(ok(take(i64({5}, {5, 6, 7, 8, 9}), i32({2, 3}, {4, 0, 1, 1, 2, 3}))),
              i64({2, 3}, {9, 5, 6, 6, 7, 8}));
  // Rank-0 indices, and no indices at all.
  expectArray(ok(take(table, i32({}, {2}))), f32({2}, {20, 21}));
  expectArray(ok(take(table, i32({0}, {}))), f32({0, 2}, {}));
  // Rows of rank > 1.
  expectArray(ok(take(iotaOf(DType::I32, {3, 2, 2}), i32({1}, {2}))),
              i32({1, 2, 2}, {8, 9, 10, 11}));
}

TEST(ReferenceTake, OutOfRangeIndexIsAnError) {
  Array table = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  StatusOr<Array> r = take(table, i32({3}, {0, 4, 1}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "take index 4 at position 1 is out of range [0, 4)");
  r = take(table, i64({2, 2}, {0, 1, 2, -1}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "take index -1 at position 3 is out of range [0, 4)");
  r = take(table, i64({1}, {kI64Min}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "take index -9223372036854775808 at position 0 is out of range [0, 4)");
}

TEST(ReferenceScatterAdd, RepeatedIndicesAccumulate) {
  Array operand = f32({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  Array indices = i32({3}, {1, 3, 1});
  Array updates = f32({3, 2}, {10, 20, 30, 40, 50, 60});
  expectArray(ok(scatterAdd(operand, indices, updates)), f32({4, 2}, {1, 1, 61, 81, 1, 1, 31, 41}));
  // Multi-dimensional indices: updates shape = indices shape + row shape.
  expectArray(
      ok(scatterAdd(i64({3}, {0, 0, 0}), i32({2, 2}, {2, 2, 0, 2}), i64({2, 2}, {1, 2, 3, 4}))),
      i64({3}, {3, 0, 7}));
  // No indices: the operand unchanged.
  expectArray(ok(scatterAdd(operand, i32({0}, {}), f32({0, 2}, {}))), operand);
}

TEST(ReferenceScatterAdd, IntegersAndRowsOfRankTwo) {
  Array operand = iotaOf(DType::I32, {2, 2, 2});
  Array updates = i32({2, 2, 2}, {1, 1, 1, 1, -10, -10, -10, -10});
  expectArray(ok(scatterAdd(operand, i64({2}, {1, 1}), updates)),
              i32({2, 2, 2}, {0, 1, 2, 3, -5, -4, -3, -2}));
  // Sums wrap, like add.
  expectArray(ok(scatterAdd(i64({2}, {kI64Max, kI64Min}), i32({2}, {0, 1}), i64({2}, {1, -1}))),
              i64({2}, {kI64Min, kI64Max}));
  expectArray(ok(scatterAdd(i32({1}, {kI32Max}), i32({2}, {0, 0}), i32({2}, {1, 1}))),
              i32({1}, {kI32Min + 1}));
}

TEST(ReferenceScatterAdd, HalfPrecisionAccumulatesInDouble) {
  double u = std::ldexp(1, -11);
  expectArray(ok(scatterAdd(f16({2}, {1, 0}), i32({2}, {0, 0}), f16({2}, {u, u}))),
              f16({2}, {1 + 2 * u, 0}));
}

TEST(ReferenceScatterAdd, OutOfRangeIndexIsAnError) {
  Array operand = f32({4, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
  StatusOr<Array> r = scatterAdd(operand, i32({3}, {0, 1, 5}), f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "scatter_add index 5 at position 2 is out of range [0, 4)");
  r = scatterAdd(operand, i32({1}, {-2}), f32({1, 2}, {1, 2}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "scatter_add index -2 at position 0 is out of range [0, 4)");
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

TEST(ReferenceAllReduce, GroupOfTwo) {
  std::vector<Array> g = {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                          f32({2, 3}, {10, -20, 30, -40, 50, kNaN})};
  expectArray(allReduce(Reduction::Sum, ptrs(g)), f32({2, 3}, {11, -18, 33, -36, 55, kNaN}));
  expectArray(allReduce(Reduction::Mean, ptrs(g)), f32({2, 3}, {5.5, -9, 16.5, -18, 27.5, kNaN}));
  expectArray(allReduce(Reduction::Max, ptrs(g)), f32({2, 3}, {10, 2, 30, 4, 50, kNaN}));
  expectArray(allReduce(Reduction::Min, ptrs(g)), f32({2, 3}, {1, -20, 3, -40, 5, kNaN}));
}

TEST(ReferenceAllReduce, GroupOfThree) {
  std::vector<Array> g = {f32({3}, {1, kNaN, -1}), f32({3}, {2, 0, -5}), f32({3}, {4, 0, 3})};
  expectArray(allReduce(Reduction::Sum, ptrs(g)), f32({3}, {7, kNaN, -3}));
  expectArray(allReduce(Reduction::Mean, ptrs(g)), f32({3}, {7.0 / 3, kNaN, -1}));
  expectArray(allReduce(Reduction::Max, ptrs(g)), f32({3}, {4, kNaN, 3}));
  expectArray(allReduce(Reduction::Min, ptrs(g)), f32({3}, {1, kNaN, -5}));
  // The NaN can come from any member.
  std::vector<Array> h = {f64({1}, {1}), f64({1}, {2}), f64({1}, {kNaN})};
  expectArray(allReduce(Reduction::Max, ptrs(h)), f64({1}, {kNaN}));
  expectArray(allReduce(Reduction::Min, ptrs(h)), f64({1}, {kNaN}));
}

TEST(ReferenceAllReduce, GroupOfFourIntegers) {
  std::vector<Array> g = {i32({2}, {1, -1}), i32({2}, {2, -2}), i32({2}, {2, -2}),
                          i32({2}, {2, -2})};
  expectArray(allReduce(Reduction::Sum, ptrs(g)), i32({2}, {7, -7}));
  // 7 / 4 and -7 / 4 truncate toward zero.
  expectArray(allReduce(Reduction::Mean, ptrs(g)), i32({2}, {1, -1}));
  expectArray(allReduce(Reduction::Max, ptrs(g)), i32({2}, {2, -1}));
  expectArray(allReduce(Reduction::Min, ptrs(g)), i32({2}, {1, -2}));
  // Sums wrap.
  std::vector<Array> w = {i64({1}, {kI64Max}), i64({1}, {1}), i64({1}, {1}), i64({1}, {1})};
  expectArray(allReduce(Reduction::Sum, ptrs(w)), i64({1}, {kI64Min + 2}));
  std::vector<Array> v = {i32({1}, {kI32Max}), i32({1}, {1})};
  expectArray(allReduce(Reduction::Sum, ptrs(v)), i32({1}, {kI32Min}));
}

TEST(ReferenceAllReduce, HalfPrecisionRoundsOnce) {
  double u = std::ldexp(1, -11);
  std::vector<Array> g = {f16({1}, {1}), f16({1}, {u}), f16({1}, {u})};
  expectArray(allReduce(Reduction::Sum, ptrs(g)), f16({1}, {1 + 2 * u}));
}

TEST(ReferenceAllReduce, GroupOfOneIsIdentity) {
  std::vector<Array> g = {f32({2}, {1.5, -0.0})};
  for (Reduction r : {Reduction::Sum, Reduction::Mean, Reduction::Max, Reduction::Min})
    expectArray(allReduce(r, ptrs(g)), g[0]);
}

TEST(ReferenceAllGather, ConcatenatesInGroupRankOrder) {
  std::vector<Array> two = {i32({1, 2}, {0, 1}), i32({1, 2}, {2, 3})};
  expectArray(allGather(ptrs(two), 0), i32({2, 2}, {0, 1, 2, 3}));
  expectArray(allGather(ptrs(two), 1), i32({1, 4}, {0, 1, 2, 3}));
  std::vector<Array> three = {f32({2, 1}, {0, 1}), f32({2, 1}, {10, 11}), f32({2, 1}, {20, 21})};
  expectArray(allGather(ptrs(three), 1), f32({2, 3}, {0, 10, 20, 1, 11, 21}));
  expectArray(allGather(ptrs(three), 0), f32({6, 1}, {0, 1, 10, 11, 20, 21}));
  std::vector<Array> four;
  for (int i = 0; i < 4; ++i)
    four.push_back(iotaOf(DType::I64, {1, 2, 1}, 10 * i));
  expectArray(allGather(ptrs(four), 2), i64({1, 2, 4}, {0, 10, 20, 30, 1, 11, 21, 31}));
}

TEST(ReferenceReduceScatter, EachMemberGetsItsBlockOfTheReduction) {
  // Group of 2 over dim 0 of (4, 3).
  std::vector<Array> two = {iotaOf(DType::F32, {4, 3}), iotaOf(DType::F32, {4, 3}, 100)};
  std::vector<Array> r = reduceScatter(Reduction::Sum, ptrs(two), 0);
  ASSERT_EQ(r.size(), 2u);
  expectArray(r[0], f32({2, 3}, {100, 102, 104, 106, 108, 110}));
  expectArray(r[1], f32({2, 3}, {112, 114, 116, 118, 120, 122}));
  // Group of 4 over dim 1 of (2, 4): member j gets column j.
  std::vector<Array> four;
  for (int i = 0; i < 4; ++i)
    four.push_back(i32({2, 4}, {i, 2 * i, 3 * i, 4 * i, -i, 0, i, 1}));
  std::vector<Array> s = reduceScatter(Reduction::Sum, ptrs(four), 1);
  ASSERT_EQ(s.size(), 4u);
  expectArray(s[0], i32({2, 1}, {6, -6}));
  expectArray(s[1], i32({2, 1}, {12, 0}));
  expectArray(s[2], i32({2, 1}, {18, 6}));
  expectArray(s[3], i32({2, 1}, {24, 4}));
  std::vector<Array> m = reduceScatter(Reduction::Mean, ptrs(four), 1);
  expectArray(m[0], i32({2, 1}, {1, -1}));
  expectArray(m[3], i32({2, 1}, {6, 1}));
  // Group of 3 over dim 0 of (3, 2), max.
  std::vector<Array> three = {f32({3, 2}, {1, 9, 2, 8, 3, 7}), f32({3, 2}, {4, 0, 5, 0, 6, kNaN}),
                              f32({3, 2}, {-1, -1, -1, -1, -1, -1})};
  std::vector<Array> x = reduceScatter(Reduction::Max, ptrs(three), 0);
  ASSERT_EQ(x.size(), 3u);
  expectArray(x[0], f32({1, 2}, {4, 9}));
  expectArray(x[1], f32({1, 2}, {5, 8}));
  expectArray(x[2], f32({1, 2}, {6, kNaN}));
}

TEST(ReferenceAllSlice, EachMemberKeepsItsOwnBlock) {
  std::vector<Array> two = {iotaOf(DType::F32, {2, 4}), iotaOf(DType::F32, {2, 4}, 100)};
  std::vector<Array> r = allSlice(ptrs(two), 1);
  ASSERT_EQ(r.size(), 2u);
  expectArray(r[0], f32({2, 2}, {0, 1, 4, 5}));
  expectArray(r[1], f32({2, 2}, {102, 103, 106, 107}));
  std::vector<Array> three;
  for (int i = 0; i < 3; ++i)
    three.push_back(iotaOf(DType::I32, {3, 1}, 10 * i));
  std::vector<Array> s = allSlice(ptrs(three), 0);
  ASSERT_EQ(s.size(), 3u);
  expectArray(s[0], i32({1, 1}, {0}));
  expectArray(s[1], i32({1, 1}, {11}));
  expectArray(s[2], i32({1, 1}, {22}));
}

TEST(ReferenceAllToAll, GroupOfTwo) {
  // x0 = [[0, 1, 2, 3], [4, 5, 6, 7]], x1 = x0 + 100. Split dim 1, concat
  // dim 0: member j receives column block j of x0, then of x1.
  std::vector<Array> g = {iotaOf(DType::F32, {2, 4}), iotaOf(DType::F32, {2, 4}, 100)};
  std::vector<Array> r = allToAll(ptrs(g), 1, 0);
  ASSERT_EQ(r.size(), 2u);
  expectArray(r[0], f32({4, 2}, {0, 1, 4, 5, 100, 101, 104, 105}));
  expectArray(r[1], f32({4, 2}, {2, 3, 6, 7, 102, 103, 106, 107}));
}

TEST(ReferenceAllToAll, GroupOfFour) {
  // x_i = (4, 1) holding 10 i + r. Split dim 0, concat dim 1: member j
  // receives row j of every member, side by side.
  std::vector<Array> g;
  for (int i = 0; i < 4; ++i)
    g.push_back(iotaOf(DType::I64, {4, 1}, 10 * i));
  std::vector<Array> r = allToAll(ptrs(g), 0, 1);
  ASSERT_EQ(r.size(), 4u);
  for (int64_t j = 0; j < 4; ++j)
    expectArray(r[j], i64({1, 4}, {j, 10 + j, 20 + j, 30 + j}));
}

TEST(ReferenceAllToAll, GroupOfThreeSameDimAndInverse) {
  // Split and concat dim 0 of (3, 2): member j gets row j of each member.
  std::vector<Array> g;
  for (int i = 0; i < 3; ++i)
    g.push_back(iotaOf(DType::I32, {3, 2}, 10 * i));
  std::vector<Array> r = allToAll(ptrs(g), 0, 0);
  ASSERT_EQ(r.size(), 3u);
  expectArray(r[0], i32({3, 2}, {0, 1, 10, 11, 20, 21}));
  expectArray(r[1], i32({3, 2}, {2, 3, 12, 13, 22, 23}));
  expectArray(r[2], i32({3, 2}, {4, 5, 14, 15, 24, 25}));
  // Exchanging back undoes it, and so does swapping split and concat dims.
  std::vector<Array> back = allToAll(ptrs(r), 0, 0);
  for (int i = 0; i < 3; ++i)
    expectArray(back[i], g[i]);
  std::vector<Array> h;
  for (int i = 0; i < 3; ++i)
    h.push_back(iotaOf(DType::F32, {3, 6, 1}, 100 * i));
  std::vector<Array> fwd = allToAll(ptrs(h), 1, 0);
  ASSERT_EQ(fwd[0].shape(), (Shape{9, 2, 1}));
  std::vector<Array> inv = allToAll(ptrs(fwd), 0, 1);
  for (int i = 0; i < 3; ++i)
    expectArray(inv[i], h[i]);
}

//===----------------------------------------------------------------------===//
// Structured ops of the table (OpCodes.def's SHARDC_STRUCTURED rows)
//===----------------------------------------------------------------------===//

TEST(ReferenceStructured, EveryStructuredOpHasAnEntry) {
  for (OpCode op : allOpCodes())
    if (isStructured(op)) {
      const StructuredOpEntry *entry = structuredOp(op);
      ASSERT_NE(entry, nullptr) << opCodeName(op);
      EXPECT_EQ(entry->op, op);
    }
  EXPECT_EQ(structuredOp(OpCode::Add), nullptr);
}

StatusOr<Array> argMax(const Array &x, int64_t dim) {
  StepSignature sig{{{x.dtype(), x.shape()}}, {}, {dim}};
  Shape out = x.shape();
  out.erase(out.begin() + dim);
  sig.outputs.push_back({DType::I32, out});
  std::string wrong = structuredOp(OpCode::ArgMax)->check(sig);
  if (!wrong.empty())
    return Status::error(wrong);
  return structuredOp(OpCode::ArgMax)->reference({&x}, {dim});
}

TEST(ReferenceStructured, ArgMaxIsTheFirstLargestWithNaNAboveAll) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Rows: a plain maximum, a tie (the first wins), a NaN (it wins, the
  // first of two), all -inf, and a negative row.
  Array x = f32({5, 4}, {1,         7,         3,         2,         //
                         5,         9,         9,         1,         //
                         2,         nan,       8,         nan,       //
                         -INFINITY, -INFINITY, -INFINITY, -INFINITY, //
                         -3,        -1,        -2,        -1});
  StatusOr<Array> rows = argMax(x, 1);
  ASSERT_TRUE(rows.ok()) << rows.message();
  expectArray(*rows, i32({5}, {1, 1, 1, 0, 1}));
  StatusOr<Array> cols = argMax(x, 0);
  ASSERT_TRUE(cols.ok()) << cols.message();
  expectArray(*cols, i32({4}, {1, 2, 1, 2}));
  // The middle dimension of a 3-D operand, in f64 and bf16.
  for (DType dtype : {DType::F64, DType::BF16}) {
    Array y = Array::fromDoubles(dtype, {2, 3, 2},
                                 {0, 5, 4, 1, 2, 9, //
                                  7, 0, 7, 0, 1, 3});
    StatusOr<Array> mid = argMax(y, 1);
    ASSERT_TRUE(mid.ok()) << mid.message();
    expectArray(*mid, i32({2, 2}, {1, 2, 0, 2}));
  }
}

TEST(ReferenceStructured, ArgMaxChecksItsStep) {
  auto check = [](StepSignature sig) { return structuredOp(OpCode::ArgMax)->check(sig); };
  EXPECT_EQ(check({{{DType::F32, {2, 3}}}, {{DType::I32, {2}}}, {1}}), "");
  EXPECT_EQ(check({{{DType::F32, {2, 3}}}, {{DType::I32, {2}}}, {2}}),
            "dim 2 is out of range for rank 2");
  EXPECT_EQ(check({{{DType::F32, {2, 0}}}, {{DType::I32, {2}}}, {1}}),
            "dim 1 is empty (the largest of nothing has no index)");
  EXPECT_EQ(check({{{DType::I32, {2, 3}}}, {{DType::I32, {2}}}, {1}}),
            "takes floating-point values, not i32");
  EXPECT_EQ(check({{{DType::F32, {2, 3}}}, {{DType::I64, {2}}}, {1}}),
            "the output must be i32 of shape [2]");
  EXPECT_EQ(check({{{DType::F32, {2, 3}}}, {{DType::I32, {3}}}, {1}}),
            "the output must be i32 of shape [2]");
  EXPECT_EQ(check({{{DType::F32, {2, 3}}}, {{DType::I32, {2}}}, {}}),
            "has 0 attribute numbers, expected 1 (dim)");
}

/// qkv_attention (or with `dout` its gradient) of f64 `qkv` by the table.
StatusOr<Array> qkvAttention(const Array &qkv, bool causal, double scale,
                             const Array *dout = nullptr) {
  int64_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  std::vector<int64_t> attrs{causal, bits};
  const Shape &q = qkv.shape();
  Shape rows{q[0], q[1], q[3], q[4]};
  StepSignature sig{{{qkv.dtype(), q}}, {{qkv.dtype(), dout ? q : rows}}, attrs};
  if (dout)
    sig.inputs.push_back({dout->dtype(), dout->shape()});
  OpCode op = dout ? OpCode::QkvAttentionGrad : OpCode::QkvAttention;
  std::string wrong = structuredOp(op)->check(sig);
  if (!wrong.empty())
    return Status::error(wrong);
  std::vector<const Array *> inputs{&qkv};
  if (dout)
    inputs.push_back(dout);
  return structuredOp(op)->reference(inputs, attrs);
}

// Two positions, one head of width 1, scale 1: q = 1 at both, keys 0 and
// ln 3, values 2 and 6. Position 1 weighs the keys 1/4 and 3/4: 5. Causal,
// position 0 sees its own key only: 2.
TEST(ReferenceStructured, QkvAttentionByHand) {
  double ln3 = std::log(3.0);
  Array qkv = f64({1, 2, 3, 1, 1}, {1, 0, 2, /**/ 1, ln3, 6});
  StatusOr<Array> causal = qkvAttention(qkv, true, 1.0);
  ASSERT_TRUE(causal.ok()) << causal.message();
  expectArray(*causal, f64({1, 2, 1, 1}, {2, 5}), 4);
  StatusOr<Array> all = qkvAttention(qkv, false, 1.0);
  ASSERT_TRUE(all.ok()) << all.message();
  expectArray(*all, f64({1, 2, 1, 1}, {5, 5}), 4);
  // Scale 1/2 with keys 0 and 2 ln 3 is the same attention.
  Array scaled = f64({1, 2, 3, 1, 1}, {1, 0, 2, /**/ 1, 2 * ln3, 6});
  StatusOr<Array> half = qkvAttention(scaled, true, 0.5);
  ASSERT_TRUE(half.ok()) << half.message();
  expectArray(*half, f64({1, 2, 1, 1}, {2, 5}), 4);

  // The gradient of position 1's output: the values get its weights; the
  // scores' gradients p (v - out) are -3/4 and 3/4, so dq1 = 3/4 ln 3 and
  // the keys get -3/4 and 3/4. Position 0's query sees one key only: 0.
  Array dout = f64({1, 2, 1, 1}, {0, 1});
  StatusOr<Array> grad = qkvAttention(qkv, true, 1.0, &dout);
  ASSERT_TRUE(grad.ok()) << grad.message();
  expectArray(*grad, f64({1, 2, 3, 1, 1}, {0, -0.75, 0.25, /**/ 0.75 * ln3, 0.75, 0.75}), 8);
  // Position 0's output is v0 whatever the scores.
  Array first = f64({1, 2, 1, 1}, {1, 0});
  StatusOr<Array> g0 = qkvAttention(qkv, true, 1.0, &first);
  ASSERT_TRUE(g0.ok()) << g0.message();
  expectArray(*g0, f64({1, 2, 3, 1, 1}, {0, 0, 1, /**/ 0, 0, 0}));
}

/// attention of f64 q, k, v (and lengths) by the table, or with `dout`
/// attention_grad's, each step checked first.
StatusOr<Array> attention(const Array &q, const Array &k, const Array &v, bool causal, double scale,
                          const Array *lengths = nullptr, const Array *dout = nullptr) {
  int64_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  std::vector<int64_t> attrs{causal, bits};
  Shape out = q.shape();
  if (dout) // dq, dk and dv along positions
    out[1] += 2 * k.shape()[1];
  StepSignature sig{{{q.dtype(), q.shape()}, {k.dtype(), k.shape()}, {v.dtype(), v.shape()}},
                    {{q.dtype(), out}},
                    attrs};
  std::vector<const Array *> inputs{&q, &k, &v};
  for (const Array *a : {dout, lengths})
    if (a) {
      sig.inputs.push_back({a->dtype(), a->shape()});
      inputs.push_back(a);
    }
  const auto *op = structuredOp(dout ? OpCode::AttentionGrad : OpCode::Attention);
  std::string wrong = op->check(sig);
  if (!wrong.empty())
    return Status::error(wrong);
  return op->reference(inputs, attrs);
}

// qkv_attention's case with q, k and v apart: two positions, keys 0 and
// ln 3, values 2 and 6. Lengths cut the keys each batch item sees (none:
// zeros; more than S: all).
TEST(ReferenceStructured, AttentionByHand) {
  double ln3 = std::log(3.0);
  Array q = f64({1, 2, 1, 1}, {1, 1}), k = f64({1, 2, 1, 1}, {0, ln3}),
        v = f64({1, 2, 1, 1}, {2, 6});
  StatusOr<Array> all = attention(q, k, v, false, 1.0);
  ASSERT_TRUE(all.ok()) << all.message();
  expectArray(*all, f64({1, 2, 1, 1}, {5, 5}), 4);
  StatusOr<Array> causal = attention(q, k, v, true, 1.0);
  ASSERT_TRUE(causal.ok()) << causal.message();
  expectArray(*causal, f64({1, 2, 1, 1}, {2, 5}), 4);
  for (auto [len, want] : {std::pair<int64_t, Doubles>{1, {2, 2}}, {0, {0, 0}}, {9, {5, 5}}}) {
    Array lengths = Array::fromInts(DType::I32, {1}, {len});
    StatusOr<Array> cut = attention(q, k, v, false, 1.0, &lengths);
    ASSERT_TRUE(cut.ok()) << cut.message();
    expectArray(*cut, f64({1, 2, 1, 1}, want), 4);
  }
  // One query over three keys (a decoding step): the same as its row of
  // the self-attention.
  Array q1 = f64({1, 1, 1, 1}, {1});
  StatusOr<Array> one = attention(q1, k, v, false, 1.0);
  ASSERT_TRUE(one.ok()) << one.message();
  expectArray(*one, f64({1, 1, 1, 1}, {5}), 4);
}

TEST(ReferenceStructured, AttentionChecksItsSteps) {
  int64_t half;
  double scale = 0.5;
  std::memcpy(&half, &scale, sizeof half);
  auto check = [](StepSignature sig) { return structuredOp(OpCode::Attention)->check(sig); };
  TensorSignature q{DType::F32, {2, 1, 4, 8}}, kv{DType::F32, {2, 16, 4, 8}}, len{DType::I32, {2}};
  EXPECT_EQ(check({{q, kv, kv}, {q}, {0, half}}), "");
  EXPECT_EQ(check({{q, kv, kv, len}, {q}, {0, half}}), "");
  EXPECT_EQ(check({{q, kv}, {q}, {0, half}}),
            "takes 3 or 4 inputs (q, k, v, kv_lengths) and 1 output");
  EXPECT_EQ(check({{kv, q, q}, {kv}, {0, half}}), ""); // 16 queries over one key
  EXPECT_EQ(check({{q, {DType::F32, {2, 16, 2, 8}}, kv}, {q}, {0, half}}),
            "k must be [B, S, N, H] with q's B, N, H and type, not 2x16x2x8 f32");
  EXPECT_EQ(check({{q, kv, {DType::F64, {2, 16, 4, 8}}}, {q}, {0, half}}),
            "v must be 2x16x4x8 f32, not 2x16x4x8 f64");
  EXPECT_EQ(check({{q, kv, kv, {DType::I64, {2}}}, {q}, {0, half}}),
            "kv_lengths must be [2] i32, not 2 i64");
  EXPECT_EQ(check({{q, kv, kv}, {kv}, {0, half}}),
            "the output must be 2x1x4x8 f32, not 2x16x4x8 f32");
  EXPECT_EQ(check({{q, kv, kv}, {q}, {3, half}}), "causal must be 0 or 1, not 3");
}

// The gradient of AttentionByHand's case where only query 0's output is
// weighed (dout = [1, 0]): its probabilities are 1/4 and 3/4, dP = v =
// [2, 6], D = 5, so dS = [-3/4, 3/4]: dq = [3/4 ln 3, 0], dk = dS q =
// [-3/4, 3/4], dv = P^T dout = [1/4, 3/4], one after another. A batch
// item that sees no key has no gradient.
TEST(ReferenceStructured, AttentionGradByHand) {
  double ln3 = std::log(3.0);
  Array q = f64({1, 2, 1, 1}, {1, 1}), k = f64({1, 2, 1, 1}, {0, ln3}),
        v = f64({1, 2, 1, 1}, {2, 6}), dout = f64({1, 2, 1, 1}, {1, 0});
  StatusOr<Array> grad = attention(q, k, v, false, 1.0, nullptr, &dout);
  ASSERT_TRUE(grad.ok()) << grad.message();
  expectArray(*grad, f64({1, 6, 1, 1}, {0.75 * ln3, 0, -0.75, 0.75, 0.25, 0.75}), 4);
  Array none = Array::fromInts(DType::I32, {1}, {0});
  StatusOr<Array> cut = attention(q, k, v, false, 1.0, &none, &dout);
  ASSERT_TRUE(cut.ok()) << cut.message();
  expectArray(*cut, f64({1, 6, 1, 1}, {0, 0, 0, 0, 0, 0}), 4);
}

TEST(ReferenceStructured, AttentionGradChecksItsSteps) {
  int64_t half;
  double scale = 0.5;
  std::memcpy(&half, &scale, sizeof half);
  auto check = [](StepSignature sig) { return structuredOp(OpCode::AttentionGrad)->check(sig); };
  TensorSignature q{DType::F32, {2, 1, 4, 8}}, kv{DType::F32, {2, 16, 4, 8}}, len{DType::I32, {2}},
      packed{DType::F32, {2, 33, 4, 8}};
  EXPECT_EQ(check({{q, kv, kv, q}, {packed}, {0, half}}), "");
  EXPECT_EQ(check({{q, kv, kv, q, len}, {packed}, {1, half}}), "");
  EXPECT_EQ(check({{q, kv, kv}, {packed}, {0, half}}),
            "takes 4 or 5 inputs (q, k, v, dout, kv_lengths) and 1 output");
  EXPECT_EQ(check({{q, kv, kv, kv}, {packed}, {0, half}}),
            "dout must be 2x1x4x8 f32, not 2x16x4x8 f32");
  EXPECT_EQ(check({{q, kv, kv, q, {DType::I64, {2}}}, {packed}, {0, half}}),
            "kv_lengths must be [2] i32, not 2 i64");
  EXPECT_EQ(check({{q, kv, kv, q}, {q}, {0, half}}),
            "the output must be 2x33x4x8 f32 (dq, dk and dv along positions), not 2x1x4x8 f32");
  EXPECT_EQ(check({{q, kv, kv, q}, {packed}, {0}}),
            "has 1 attribute numbers, expected 2 (causal, scale)");
}

TEST(ReferenceStructured, QkvAttentionChecksItsSteps) {
  int64_t half;
  double scale = 0.5;
  std::memcpy(&half, &scale, sizeof half);
  auto check = [](OpCode op, StepSignature sig) { return structuredOp(op)->check(sig); };
  TensorSignature qkv{DType::F32, {2, 4, 3, 2, 8}}, rows{DType::F32, {2, 4, 2, 8}};
  EXPECT_EQ(check(OpCode::QkvAttention, {{qkv}, {rows}, {1, half}}), "");
  EXPECT_EQ(check(OpCode::QkvAttentionGrad, {{qkv, rows}, {qkv}, {0, half}}), "");
  EXPECT_EQ(check(OpCode::QkvAttention, {{qkv}, {rows}, {1}}),
            "has 1 attribute numbers, expected 2 (causal, scale)");
  EXPECT_EQ(check(OpCode::QkvAttention, {{rows}, {rows}, {1, half}}),
            "qkv must be [B, T, 3, N, H] of f32 or f64, not 2x4x2x8 f32");
  EXPECT_EQ(check(OpCode::QkvAttention, {{{DType::BF16, {2, 4, 3, 2, 8}}}, {rows}, {1, half}}),
            "qkv must be [B, T, 3, N, H] of f32 or f64, not 2x4x3x2x8 bf16");
  EXPECT_EQ(check(OpCode::QkvAttention, {{qkv}, {rows}, {2, half}}),
            "causal must be 0 or 1, not 2");
  EXPECT_EQ(check(OpCode::QkvAttention, {{qkv}, {rows}, {1, 0}}),
            "scale must be positive and finite, not 0.000000");
  EXPECT_EQ(check(OpCode::QkvAttention, {{qkv}, {qkv}, {1, half}}),
            "the output must be 2x4x2x8 f32, not 2x4x3x2x8 f32");
  EXPECT_EQ(check(OpCode::QkvAttentionGrad, {{qkv, qkv}, {qkv}, {1, half}}),
            "dout must be 2x4x2x8 f32, not 2x4x3x2x8 f32");
  EXPECT_EQ(check(OpCode::QkvAttentionGrad, {{qkv}, {qkv}, {1, half}}),
            "takes 2 inputs and 1 output");
  EXPECT_EQ(check(OpCode::QkvAttentionGrad, {{qkv, rows}, {rows}, {1, half}}),
            "the output must be 2x4x3x2x8 f32, not 2x4x2x8 f32");
}

TEST(ReferenceStructured, TakeAndScatterAddCheckTheirSteps) {
  auto take = [](StepSignature sig) { return structuredOp(OpCode::Take)->check(sig); };
  auto scatter = [](StepSignature sig) { return structuredOp(OpCode::ScatterAdd)->check(sig); };
  TensorSignature table{DType::F32, {4, 2}}, indices{DType::I32, {3}}, rows{DType::F32, {3, 2}};
  EXPECT_EQ(take({{table, indices}, {rows}, {}}), "");
  EXPECT_EQ(take({{table, {DType::I64, {}}}, {{DType::F32, {2}}}, {}}), "");
  EXPECT_EQ(take({{table, {DType::F32, {3}}}, {rows}, {}}),
            "needs a table of rank >= 1 and integer indices");
  EXPECT_EQ(take({{{DType::F32, {}}, indices}, {rows}, {}}),
            "needs a table of rank >= 1 and integer indices");
  EXPECT_EQ(take({{table, indices}, {{DType::F32, {2, 3}}}, {}}),
            "the output must be 3x2 f32, not 2x3 f32");
  EXPECT_EQ(take({{table, indices}, {{DType::F64, {3, 2}}}, {}}),
            "the output's element type differs from the table's");
  EXPECT_EQ(take({{table, indices}, {rows}, {0}}), "has 1 attribute numbers, expected none");
  EXPECT_EQ(take({{table}, {rows}, {}}), "takes 2 inputs and 1 output");
  EXPECT_EQ(scatter({{table, indices, rows}, {table}, {}}), "");
  EXPECT_EQ(scatter({{table, indices, {DType::F32, {2, 2}}}, {table}, {}}),
            "the updates must be 3x2 f32, not 2x2 f32");
  EXPECT_EQ(scatter({{table, indices, {DType::F64, {3, 2}}}, {table}, {}}),
            "the updates must be 3x2 f32, not 3x2 f64");
  EXPECT_EQ(scatter({{table, indices, rows}, {{DType::F32, {4, 3}}}, {}}),
            "the output must have the table's type 4x2 f32, not 4x3 f32");
  EXPECT_EQ(scatter({{table, indices}, {table}, {}}), "takes 3 inputs and 1 output");
}

} // namespace
} // namespace shardc::ref
