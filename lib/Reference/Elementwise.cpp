//===- Elementwise.cpp - reference elementwise kernels --------------------===//

#include "shardc/Reference/Kernels.h"
#include "shardc/Runtime/ScalarMath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardc::ref {

/// The formula of elementwise op `op` at x (and y), in double.
static double formula(OpCode op, double x, double y = 0) {
  switch (op) {
#define SHARDC_UNARY(Name, ...)                                                                    \
  case OpCode::Name:                                                                               \
    return scalar::Name(x);
#define SHARDC_BINARY(Name, ...)                                                                   \
  case OpCode::Name:                                                                               \
    return scalar::Name(x, y);
#include "shardc/Common/OpCodes.def"
  default:
    return std::numeric_limits<double>::quiet_NaN();
  }
}

Array unary(OpCode op, const Array &x) {
  Array out(x.dtype(), x.shape());
  int64_t n = x.numElements();
  if (!isFloat(x.dtype())) { // neg and abs are the integer unary ops
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = x.getInt(i);
      int64_t neg = (int64_t)(0 - (uint64_t)v); // -INT64_MIN wraps to itself
      out.setInt(i, op == OpCode::Neg || v < 0 ? neg : v);
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i)
    out.setDouble(i, formula(op, x.getDouble(i)));
  return out;
}

static int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0) // only +-1 have integer reciprocals
    return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  int64_t r = 1;
  while (exp > 0) {
    if (exp & 1)
      r = (int64_t)((uint64_t)r * (uint64_t)base);
    base = (int64_t)((uint64_t)base * (uint64_t)base);
    exp >>= 1;
  }
  return r;
}

StatusOr<Array> binary(OpCode op, const Array &lhs, const Array &rhs) {
  Array out(lhs.dtype(), lhs.shape());
  int64_t n = lhs.numElements();
  if (!isFloat(lhs.dtype())) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = lhs.getInt(i), b = rhs.getInt(i), r = 0;
      // Two's complement wrap-around for +, -, *.
      auto wrap = [](uint64_t v) { return (int64_t)v; };
      switch (op) {
      case OpCode::Add:
        r = wrap((uint64_t)a + (uint64_t)b);
        break;
      case OpCode::Sub:
        r = wrap((uint64_t)a - (uint64_t)b);
        break;
      case OpCode::Mul:
        r = wrap((uint64_t)a * (uint64_t)b);
        break;
      case OpCode::Div:
        if (b == 0)
          return Status::error("integer division by zero at element " + std::to_string(i));
        r = (a == std::numeric_limits<int64_t>::min() && b == -1) ? a : a / b;
        break;
      case OpCode::Max:
        r = a > b ? a : b;
        break;
      case OpCode::Min:
        r = a < b ? a : b;
        break;
      case OpCode::Pow:
        r = intPow(a, b);
        break;
      default:
        return Status::error(std::string(opCodeName(op)) + " takes no integers");
      }
      out.setInt(i, r);
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i)
    out.setDouble(i, formula(op, lhs.getDouble(i), rhs.getDouble(i)));
  return out;
}

/// IEEE for floats: every ordered comparison with NaN is false, ne is true.
template <typename T> static bool holds(CompareFn fn, T a, T b) {
  switch (fn) {
  case CompareFn::EQ:
    return a == b;
  case CompareFn::NE:
    return a != b;
  case CompareFn::LT:
    return a < b;
  case CompareFn::LE:
    return a <= b;
  case CompareFn::GT:
    return a > b;
  case CompareFn::GE:
    return a >= b;
  }
  return false;
}

Array compare(CompareFn fn, const Array &lhs, const Array &rhs) {
  Array out(DType::I1, lhs.shape());
  bool floats = isFloat(lhs.dtype());
  for (int64_t i = 0; i < lhs.numElements(); ++i)
    out.setInt(i, floats ? holds(fn, lhs.getDouble(i), rhs.getDouble(i))
                         : holds(fn, lhs.getInt(i), rhs.getInt(i)));
  return out;
}

Array select(const Array &pred, const Array &onTrue, const Array &onFalse) {
  Array out(onTrue.dtype(), onTrue.shape());
  size_t es = dtypeSize(out.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    const Array &src = pred.getInt(i) ? onTrue : onFalse;
    std::copy_n(src.bytes() + i * es, es, out.bytes() + i * es);
  }
  return out;
}

Array convert(const Array &x, DType to) {
  Array out(to, x.shape());
  bool intToInt = !isFloat(x.dtype()) && !isFloat(to);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    if (intToInt)
      out.setInt(i, x.getInt(i));
    else
      out.setDouble(i, x.getDouble(i));
  }
  return out;
}

Array iota(DType dtype, const Shape &shape, int64_t dim) {
  Array out(dtype, shape);
  std::vector<int64_t> strides = stridesOf(shape);
  for (int64_t i = 0; i < out.numElements(); ++i)
    out.setInt(i, (i / strides[dim]) % shape[dim]);
  return out;
}

} // namespace shardc::ref
