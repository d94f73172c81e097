//===- BackendConformanceTest.cpp - every op on the CPU backend vs reference ==//
//
// The backend conformance suite (ggml's test-backend-ops for shardc): for
// every op of the dialect that runs on one device, and for each element type
// the op accepts, generates the op as MLIR text at random odd shapes (odd so
// that no size happens to match a vector width or a BLAS block), runs it in
// the reference interpreter and, lowered to a plan, on the CPU backend, and
// compares the results. The CPU backend runs its fast paths (f32 dot_general
// through sgemm, f32 elementwise loops, rank-2 f32 reductions, rank-1 to
// rank-2 broadcasts, reshape) and the reference kernels for everything else,
// so this is where each fast path is checked against the reference.
//
// Comparison, per element:
//   - integers and i1, and every data-movement op: bit-exact;
//   - f32 elementwise: |got - want| <= 1e-5 * max(1, |want|) (the fast loops
//     compute in float, the reference in double rounded once);
//   - f32 dot_general and sum reductions: 1e-4 * max(1, |want|), because
//     sgemm accumulates in f32 while the reference accumulates in double, and
//     the rounding error of an f32 sum grows with the number of terms (up to
//     129 here);
//   - f64: 1e-12 * max(1, |want|);
//   - f16 and bf16: within one unit in the last place of the type.
// A NaN must be matched by a NaN; special-value cases also require infinities
// and signed zeros to match exactly.
//
// Beyond single ops on random data: special values (NaN, infinities, signed
// zeros, subnormals, the largest floats) through the f32 fast paths, an MLP
// chain whose intermediates live in reused arena blocks, fused chains of
// any rank (LayerNorm, rank-4 softmax, trailing-block reductions, row and
// column broadcasts; each also checks what the fuser made of its plan),
// and empty dimensions.
//
// Each op family and element type is one test, e.g.
// `Ops/BackendConformance.MatchesReference/dot_general_lhs_transposed_f32`,
// which runs kDraws shape draws from a std::mt19937 seeded by the test's name
// (dot_general uses a large 67x129 by 129x31 shape in the first draw and unit
// free dimensions in the second). A failure prints the program;
// SHARDC_CONFORMANCE_PRINT=1 prints every program. A case that fails by a
// known bug is listed with the bug in allCases() and skipped.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include "OpCatalogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;

namespace {

/// Shape draws per test.
constexpr int kDraws = 5;
/// Sizes a dimension is drawn from.
const std::vector<int64_t> kOddSizes = {1, 3, 5, 7, 13, 17, 31};

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

struct Tolerance {
  enum Kind { Exact, Relative, Ulp };
  Kind kind = Exact;
  /// Relative: |got - want| <= rel * max(1, |want|).
  double rel = 0;
  /// Relative: a zero (with its sign) or an infinity must match exactly.
  bool strictSpecials = false;
};

Tolerance exact() { return {Tolerance::Exact, 0, false}; }
Tolerance relative(double rel, bool strictSpecials = false) {
  return {Tolerance::Relative, rel, strictSpecials};
}
Tolerance oneUlp() { return {Tolerance::Ulp, 0, false}; }

/// Elementwise ops: the fast f32 loops compute in float, the reference in
/// double rounded once.
Tolerance elementwiseTol(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return relative(1e-5);
  case DType::F64:
    return relative(1e-12);
  case DType::F16:
  case DType::BF16:
    return oneUlp();
  default:
    return exact();
  }
}

/// Long sums (dot_general, reduce sum): sgemm accumulates in f32, the
/// reference in double.
Tolerance accumulationTol(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return relative(1e-4);
  case DType::F64:
    return relative(1e-12);
  case DType::F16:
  case DType::BF16:
    return oneUlp();
  default:
    return exact();
  }
}

/// The spacing of `dtype`'s values at `v` (one unit in the last place).
double ulpOf(DType dtype, double v) {
  int mantissaBits = 52, minExponent = -1022;
  switch (dtype) {
  case DType::F16:
    mantissaBits = 10, minExponent = -14;
    break;
  case DType::BF16:
    mantissaBits = 7, minExponent = -126;
    break;
  case DType::F32:
    mantissaBits = 23, minExponent = -126;
    break;
  default:
    break;
  }
  int exponent = minExponent;
  if (v != 0) {
    int e;
    std::frexp(v, &e); // v = m * 2^e with 0.5 <= |m| < 1
    exponent = std::max(e - 1, minExponent);
  }
  return std::ldexp(1.0, exponent - mantissaBits);
}

bool elementMatches(const Array &got, const Array &want, int64_t i, const Tolerance &tol) {
  if (!isFloat(want.dtype()))
    return got.getInt(i) == want.getInt(i);
  double g = got.getDouble(i), w = want.getDouble(i);
  if (std::isnan(w) || std::isnan(g))
    return std::isnan(w) && std::isnan(g);
  switch (tol.kind) {
  case Tolerance::Exact: {
    size_t es = dtypeSize(want.dtype());
    return std::memcmp(got.bytes() + i * es, want.bytes() + i * es, es) == 0;
  }
  case Tolerance::Relative:
    if (std::isinf(w) || std::isinf(g) || (tol.strictSpecials && (w == 0 || g == 0)))
      return g == w && std::signbit(g) == std::signbit(w);
    return std::fabs(g - w) <= tol.rel * std::max(1.0, std::fabs(w));
  case Tolerance::Ulp:
    if (std::isinf(w) || std::isinf(g))
      return g == w;
    return std::fabs(g - w) <= ulpOf(want.dtype(), w);
  }
  return false;
}

std::string indexString(const Shape &shape, int64_t linear) {
  std::vector<int64_t> idx(shape.size());
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    idx[d] = linear % shape[d];
    linear /= shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::string elementString(const Array &a, int64_t i) {
  if (!isFloat(a.dtype()))
    return std::to_string(a.getInt(i));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", a.getDouble(i));
  return buf;
}

testing::AssertionResult sameResult(const Array &got, const Array &want, const Tolerance &tol) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    return testing::AssertionFailure()
           << "got " << got.typeString() << ", want " << want.typeString();
  int64_t mismatches = 0;
  std::string shown;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    if (elementMatches(got, want, i, tol))
      continue;
    if (++mismatches <= 5)
      shown += "\n  at " + indexString(want.shape(), i) + ": cpu " + elementString(got, i) +
               ", reference " + elementString(want, i);
  }
  if (mismatches == 0)
    return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << mismatches << " of " << want.numElements() << " elements differ" << shown;
}

//===----------------------------------------------------------------------===//
// Random data
//===----------------------------------------------------------------------===//

/// What values an input is drawn from.
enum class Values {
  Signed,   // floats in [-2, 2]; integers in [-5, 5]
  Positive, // floats in [0.05, 2]; integers in [1, 5] (log, sqrt, rsqrt)
  Wide,     // floats in [-100, 100]; integers in [-1000, 1000] (conversions)
  Steps,    // multiples of 0.5 in [-2, 2]; integers in [-2, 2] (ties for compare)
  SmallInt, // integers in [-3, 3] in any type (exact integer dot products)
  Exponent, // integers in [-3, 3] for floats, [0, 4] for integers (pow)
  NonZero,  // Signed without zero (integer divisors)
  Row,      // floats in the op's range of OpCodes.def; integers as Signed
};

/// The range of Values::Row.
struct Range {
  double lo = -2, hi = 2;
};

int64_t uniformInt(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

double uniformReal(std::mt19937 &rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

int64_t oddSize(std::mt19937 &rng) {
  return kOddSizes[uniformInt(rng, 0, (int64_t)kOddSizes.size() - 1)];
}

Shape randomShape(std::mt19937 &rng, int64_t rank) {
  Shape shape(rank);
  for (int64_t &d : shape)
    d = oddSize(rng);
  return shape;
}

Array randomArray(DType dtype, const Shape &shape, Values values, std::mt19937 &rng,
                  Range range = {}) {
  Array a(dtype, shape);
  for (int64_t i = 0; i < a.numElements(); ++i) {
    if (dtype == DType::I1) {
      a.setInt(i, uniformInt(rng, 0, 1));
      continue;
    }
    if (isFloat(dtype)) {
      double v = 0;
      switch (values) {
      case Values::Signed:
      case Values::NonZero:
        v = uniformReal(rng, -2, 2);
        break;
      case Values::Row:
        v = uniformReal(rng, range.lo, range.hi);
        break;
      case Values::Positive:
        v = uniformReal(rng, 0.05, 2);
        break;
      case Values::Wide:
        v = uniformReal(rng, -100, 100);
        break;
      case Values::Steps:
        v = 0.5 * (double)uniformInt(rng, -4, 4);
        break;
      case Values::SmallInt:
      case Values::Exponent:
        v = (double)uniformInt(rng, -3, 3);
        break;
      }
      a.setDouble(i, v);
      continue;
    }
    int64_t v = 0;
    switch (values) {
    case Values::Signed:
    case Values::Row:
      v = uniformInt(rng, -5, 5);
      break;
    case Values::Positive:
      v = uniformInt(rng, 1, 5);
      break;
    case Values::Wide:
      v = uniformInt(rng, -1000, 1000);
      break;
    case Values::Steps:
      v = uniformInt(rng, -2, 2);
      break;
    case Values::SmallInt:
      v = uniformInt(rng, -3, 3);
      break;
    case Values::Exponent:
      v = uniformInt(rng, 0, 4);
      break;
    case Values::NonZero:
      v = uniformInt(rng, 1, 5) * (uniformInt(rng, 0, 1) ? 1 : -1);
      break;
    }
    a.setInt(i, v);
  }
  return a;
}

/// Row indices in [0, rows).
Array randomIndices(DType dtype, const Shape &shape, int64_t rows, std::mt19937 &rng) {
  Array a(dtype, shape);
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setInt(i, uniformInt(rng, 0, rows - 1));
  return a;
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

std::string tensorType(DType dtype, const Shape &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype) + ">";
}

std::string intList(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

/// One element as an MLIR literal of its type.
std::string literal(const Array &a, int64_t i) {
  if (a.dtype() == DType::I1)
    return a.getInt(i) ? "true" : "false";
  if (!isFloat(a.dtype()))
    return std::to_string(a.getInt(i));
  char buf[64];
  std::snprintf(buf, sizeof buf, a.dtype() == DType::F64 ? "%.17g" : "%.9g", a.getDouble(i));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

/// The elements of `a` as nested MLIR lists, e.g. [[1.0, 2.0], [3.0, 4.0]].
std::string denseLiteral(const Array &a) {
  if (a.rank() == 0)
    return literal(a, 0);
  std::vector<int64_t> strides = stridesOf(a.shape());
  std::function<std::string(int64_t, int64_t)> level = [&](int64_t d, int64_t base) {
    std::string s = "[";
    for (int64_t i = 0; i < a.shape()[d]; ++i) {
      s += i ? ", " : "";
      int64_t at = base + i * strides[d];
      s += d + 1 == a.rank() ? literal(a, at) : level(d + 1, at);
    }
    return s + "]";
  };
  return level(0, 0);
}

/// A function computing one op: arguments %a0, %a1, ...; the op defines %r.
struct Program {
  std::string what;        // e.g. "reduce sum dims = [0] of 3x5"
  std::vector<Array> args; // the inputs, in order
  std::string op;          // the op's lines, defining %r from the arguments
  std::string resultType;
  Tolerance tol;
  /// Optional: checks the structure of the lowered plan (which steps the
  /// fuser merged), before the plan runs.
  std::function<void(const Plan &)> planCheck;

  std::string text() const {
    std::string s = "func.func @main(";
    for (size_t i = 0; i < args.size(); ++i)
      s += (i ? ", " : "") + ("%a" + std::to_string(i)) + ": " + args[i].typeString();
    s += ") -> " + resultType + " {\n  " + op + "\n  return %r : " + resultType + "\n}\n";
    return s;
  }
};

Program program(std::string what, std::vector<Array> args, std::string op, std::string resultType,
                Tolerance tol) {
  return {std::move(what), std::move(args), std::move(op), std::move(resultType), tol, {}};
}

/// Appends the programs of draw number `draw` (0 to kDraws - 1). Most
/// generators draw every shape at random; dot_general uses a large shape in
/// draw 0 and unit free dimensions in draw 1.
using Generator = std::function<void(std::mt19937 &rng, int draw, std::vector<Program> &out)>;

struct ConformanceCase {
  std::string name;
  Generator generate;
  /// Non-empty: a known bug makes this case fail; it is skipped with this
  /// explanation until the bug is fixed.
  std::string knownBug;
};

std::ostream &operator<<(std::ostream &os, const ConformanceCase &c) { return os << c.name; }

//===----------------------------------------------------------------------===//
// Generators, by op family
//===----------------------------------------------------------------------===//

Shape randomShapeOfRank(std::mt19937 &rng, int64_t minRank, int64_t maxRank) {
  return randomShape(rng, uniformInt(rng, minRank, maxRank));
}

Generator constantOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Shape shape = randomShapeOfRank(rng, 0, 2);
    Array value = randomArray(dtype, shape, Values::Signed, rng);
    std::string t = tensorType(dtype, shape);
    out.push_back(program("dense constant " + t, {},
                          "%r = shardc.constant dense<" + denseLiteral(value) + "> : " + t, t,
                          exact()));
    Shape splatShape = randomShapeOfRank(rng, 1, 3);
    std::string st = tensorType(dtype, splatShape);
    out.push_back(program("splat constant " + st, {},
                          "%r = shardc.constant dense<" + literal(value, 0) + "> : " + st, st,
                          exact()));
  };
}

Generator iotaOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Shape shape = randomShapeOfRank(rng, 1, 3);
    std::string t = tensorType(dtype, shape);
    for (int64_t dim = 0; dim < (int64_t)shape.size(); ++dim)
      out.push_back(program("iota dim " + std::to_string(dim) + " of " + t, {},
                            "%r = shardc.iota dim = " + std::to_string(dim) + " : " + t, t,
                            exact()));
  };
}

Generator unaryOp(std::string op, DType dtype, Values values, Range range = {}) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Array x = randomArray(dtype, randomShapeOfRank(rng, 0, 3), values, rng, range);
    std::string t = x.typeString();
    out.push_back(
        program(op + " " + t, {x}, "%r = shardc." + op + " %a0 : " + t, t, elementwiseTol(dtype)));
  };
}

Generator binaryOp(std::string op, DType dtype, Values lhsValues, Values rhsValues,
                   Range range = {}) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Shape shape = randomShapeOfRank(rng, 0, 3);
    Array x = randomArray(dtype, shape, lhsValues, rng, range);
    Array y = randomArray(dtype, shape, rhsValues, rng, range);
    std::string t = x.typeString();
    out.push_back(program(op + " " + t, {x, y}, "%r = shardc." + op + " %a0, %a1 : " + t, t,
                          elementwiseTol(dtype)));
  };
}

Generator compareOp(std::string direction, DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Shape shape = randomShapeOfRank(rng, 0, 3);
    Array x = randomArray(dtype, shape, Values::Steps, rng);
    Array y = randomArray(dtype, shape, Values::Steps, rng);
    out.push_back(program("compare " + direction + " " + x.typeString(), {x, y},
                          "%r = shardc.compare " + direction + ", %a0, %a1 : " + x.typeString(),
                          tensorType(DType::I1, shape), exact()));
  };
}

Generator selectOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Shape shape = randomShapeOfRank(rng, 0, 3);
    Array p = randomArray(DType::I1, shape, Values::Signed, rng);
    Array x = randomArray(dtype, shape, Values::Signed, rng);
    Array y = randomArray(dtype, shape, Values::Signed, rng);
    std::string t = x.typeString();
    out.push_back(program("select " + t, {p, x, y},
                          "%r = shardc.select %a0, %a1, %a2 : " + p.typeString() + ", " + t, t,
                          exact()));
  };
}

Generator convertOp(DType from, DType to, Values values) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    Array x = randomArray(from, randomShapeOfRank(rng, 0, 3), values, rng);
    std::string t = tensorType(to, x.shape());
    out.push_back(program("convert " + x.typeString() + " -> " + t, {x},
                          "%r = shardc.convert %a0 : " + x.typeString() + " -> " + t, t, exact()));
  };
}

/// A dot_general layout in letters, one per dimension: B and C batching;
/// K and L contracting; M and P free in lhs; N and Q free in rhs. Batching
/// and contracting letters pair up by name.
struct DotLayout {
  std::string name;
  std::string lhs, rhs;
  /// Contracting letters in attribute order; empty: as they appear in lhs.
  std::string contractionOrder;
};

const std::vector<DotLayout> &dotLayouts() {
  static const std::vector<DotLayout> layouts = {
      {"plain", "MK", "KN", ""},
      {"lhs_transposed", "KM", "KN", ""},
      {"rhs_transposed", "MK", "NK", ""},
      {"both_transposed", "KM", "NK", ""},
      {"lhs_transposed_two_free_dims", "KMP", "KN", ""},
      {"rhs_transposed_two_free_dims", "MK", "NQK", ""},
      {"batched", "BMK", "BKN", ""},
      {"batched_rhs_transposed", "BMK", "BNK", ""},
      {"batched_lhs_transposed", "BKM", "BKN", ""},
      {"batched_permuted", "MBK", "KNB", ""},
      {"batched_permuted_transposed", "KMB", "NBK", ""},
      {"two_batch_dims", "BCMK", "CBKN", ""},
      // Attention on [B,T,H,hd]: scores q k^T and probs v, per (batch, head).
      {"attention_scores", "BMCK", "BNCK", ""},
      {"attention_values", "BCMK", "BKCN", ""},
      {"attention_projection", "PLMK", "NLK", ""},
      {"multiple_contracting", "MKL", "KLN", ""},
      {"multiple_contracting_reordered", "MKL", "KLN", "LK"},
      {"multiple_contracting_rhs_permuted", "MKL", "LNK", ""},
      {"multiple_contracting_transposed", "KLM", "NKL", ""},
      {"interleaved_free_dims", "MKP", "NKQ", ""},
      {"vector_matrix", "K", "KN", ""},
      {"matrix_vector", "MK", "K", ""},
      {"inner_product", "K", "K", ""},
      {"outer_product", "M", "N", ""},
      {"batched_inner_product", "BK", "BK", ""},
  };
  return layouts;
}

bool isBatchLetter(char c) { return c == 'B' || c == 'C'; }
bool isContractingLetter(char c) { return c == 'K' || c == 'L'; }

/// Sets a few elements of `a` to infinities or NaN and some to zero, so that
/// a sum meets NaN products (0 * inf), inf - inf, and plain infinities.
void sprinkleNonFinite(Array &a, std::mt19937 &rng) {
  const double values[] = {INFINITY, -INFINITY, NAN};
  for (int64_t i = 0; i < a.numElements(); ++i) {
    int64_t roll = uniformInt(rng, 0, 99);
    if (roll < 2)
      a.setDouble(i, values[uniformInt(rng, 0, 2)]);
    else if (roll < 20)
      a.setDouble(i, roll % 2 ? 0.0 : -0.0);
  }
}

/// `withSpecials`: the inputs also hold zeros, infinities and NaN.
Generator dotGeneralOp(DotLayout layout, DType dtype, bool withSpecials = false) {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    // Letter sizes; contracting sizes stay at most 17 (and 129 in the large
    // draw), so that f32 sums stay within the accumulation tolerance.
    std::map<char, int64_t> size;
    for (char c : std::string("BCKLMNPQ"))
      size[c] = isContractingLetter(c) ? std::min<int64_t>(oddSize(rng), 17) : oddSize(rng);
    if (draw == 0) // large: 67x129 by 129x31
      size = {{'B', 3}, {'C', 1}, {'K', 129}, {'L', 1}, {'M', 67}, {'N', 31}, {'P', 3}, {'Q', 5}};
    if (draw == 1) // unit free dimensions: BLAS's matrix-vector and dot cases
      for (char c : std::string("MNPQ"))
        size[c] = 1;
    std::string order = layout.contractionOrder;
    if (order.empty())
      for (char c : layout.lhs)
        if (isContractingLetter(c))
          order += c;
    std::vector<int64_t> lb, rb, lc, rc;
    for (char c : layout.lhs)
      if (isBatchLetter(c)) {
        lb.push_back((int64_t)layout.lhs.find(c));
        rb.push_back((int64_t)layout.rhs.find(c));
      }
    for (char c : order) {
      lc.push_back((int64_t)layout.lhs.find(c));
      rc.push_back((int64_t)layout.rhs.find(c));
    }
    Shape lhsShape, rhsShape, resultShape;
    for (char c : layout.lhs)
      lhsShape.push_back(size[c]);
    for (char c : layout.rhs)
      rhsShape.push_back(size[c]);
    for (char c : layout.lhs)
      if (isBatchLetter(c))
        resultShape.push_back(size[c]);
    for (char c : layout.lhs + layout.rhs)
      if (!isBatchLetter(c) && !isContractingLetter(c))
        resultShape.push_back(size[c]);

    Values values = isFloat(dtype) ? Values::Signed : Values::SmallInt;
    Array x = randomArray(dtype, lhsShape, values, rng);
    Array y = randomArray(dtype, rhsShape, values, rng);
    if (withSpecials) {
      sprinkleNonFinite(x, rng);
      sprinkleNonFinite(y, rng);
    }
    std::string t = tensorType(dtype, resultShape);
    std::string op = "%r = shardc.dot_general %a0, %a1 ";
    if (!lb.empty())
      op += "batching_dims = " + intList(lb) + " x " + intList(rb) + ", ";
    op += "contracting_dims = " + intList(lc) + " x " + intList(rc) + " : (" + x.typeString() +
          ", " + y.typeString() + ") -> " + t;
    out.push_back(program("dot_general " + layout.lhs + " x " + layout.rhs + ": " + x.typeString() +
                              " x " + y.typeString(),
                          {x, y}, op, t, accumulationTol(dtype)));
  };
}

std::string reduceProgramOp(const std::string &kind, const Array &x,
                            const std::vector<int64_t> &dims, std::string &resultType) {
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end())
      shape.push_back(x.shape()[d]);
  resultType = tensorType(x.dtype(), shape);
  return "%r = shardc.reduce " + kind + " %a0 dims = " + intList(dims) + " : (" + x.typeString() +
         ") -> " + resultType;
}

/// Every dimension alone and all dimensions, of ranks 1 to 3, plus a few
/// pairs and an unsorted list.
std::vector<std::vector<int64_t>> reductionDims(int64_t rank) {
  std::vector<std::vector<int64_t>> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back({d});
  if (rank == 2)
    all.push_back({1, 0});
  if (rank == 3) {
    all.push_back({0, 2});
    all.push_back({1, 2});
  }
  if (rank == 4) { // attention's shapes: [B,H,T,S] rows, [B,T,H,hd] heads
    all = {{3}, {0, 1}, {1, 3}, {0, 2}, {0, 1, 2}};
  }
  if (rank > 1) {
    std::vector<int64_t> every;
    for (int64_t d = 0; d < rank; ++d)
      every.push_back(d);
    all.push_back(every);
  }
  return all;
}

Generator reduceOp(std::string kind, DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (int64_t rank = 1; rank <= 4; ++rank) {
      Array x = randomArray(dtype, randomShape(rng, rank), Values::Signed, rng);
      for (const std::vector<int64_t> &dims : reductionDims(rank)) {
        std::string resultType;
        std::string op = reduceProgramOp(kind, x, dims, resultType);
        out.push_back(
            program("reduce " + kind + " dims = " + intList(dims) + " of " + x.typeString(), {x},
                    op, resultType, kind == "sum" ? accumulationTol(dtype) : exact()));
      }
    }
  };
}

/// A broadcast from `in` to `outShape` with `dims`.
Program broadcastProgram(const std::string &what, const Array &in, const Shape &outShape,
                         const std::vector<int64_t> &dims) {
  std::string t = tensorType(in.dtype(), outShape);
  return program("broadcast_in_dim " + what + ": " + in.typeString() + " -> " + t, {in},
                 "%r = shardc.broadcast_in_dim %a0, dims = " + intList(dims) + " : (" +
                     in.typeString() + ") -> " + t,
                 t, exact());
}

Generator broadcastInDimOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    int64_t m = oddSize(rng), n = oddSize(rng), p = oddSize(rng);
    auto arr = [&](Shape s) { return randomArray(dtype, s, Values::Signed, rng); };
    out.push_back(broadcastProgram("row along dim 1", arr({n}), {m, n}, {1}));
    out.push_back(broadcastProgram("column along dim 0", arr({m}), {m, n}, {0}));
    out.push_back(broadcastProgram("size-1 into dim 0", arr({1}), {m, n}, {0}));
    out.push_back(broadcastProgram("size-1 into dim 1", arr({1}), {m, n}, {1}));
    out.push_back(broadcastProgram("size-1 rows", arr({1, n}), {m, n}, {0, 1}));
    out.push_back(broadcastProgram("size-1 columns", arr({m, 1}), {m, n}, {0, 1}));
    out.push_back(broadcastProgram("scalar", arr({}), {m, n}, {}));
    out.push_back(broadcastProgram("transposing", arr({m, n}), {n, m}, {1, 0}));
    out.push_back(broadcastProgram("rank 2 to 3, new middle", arr({m, n}), {m, p, n}, {0, 2}));
    out.push_back(broadcastProgram("rank 2 to 3, new first", arr({m, n}), {p, m, n}, {1, 2}));
    out.push_back(broadcastProgram("rank 2 to 3, new last", arr({m, n}), {m, n, p}, {0, 1}));
    out.push_back(broadcastProgram("rank 1 to 3", arr({n}), {m, n, p}, {1}));
    out.push_back(broadcastProgram("rank 2 to 4, leading", arr({m, n}), {2, 3, m, n}, {2, 3}));
    out.push_back(
        broadcastProgram("rank 3 to 4, new last", arr({m, n, p}), {m, n, p, 2}, {0, 1, 2}));
  };
}

Generator reshapeOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    int64_t m = oddSize(rng), n = oddSize(rng), p = oddSize(rng);
    auto add = [&](const std::string &what, Shape from, Shape to) {
      Array x = randomArray(dtype, from, Values::Signed, rng);
      std::string t = tensorType(dtype, to);
      out.push_back(program("reshape " + what + ": " + x.typeString() + " -> " + t, {x},
                            "%r = shardc.reshape %a0 : (" + x.typeString() + ") -> " + t, t,
                            exact()));
    };
    add("flatten", {m, n}, {m * n});
    add("unflatten", {m * n}, {m, n});
    add("merge last dims", {m, n, p}, {m, n * p});
    add("reorder sizes", {m, n, p}, {p, n, m});
    add("add unit dims", {m, n}, {1, m, 1, n});
    add("to scalar", {1, 1}, {});
  };
}

Generator transposeOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    auto add = [&](const Array &x, const std::vector<int64_t> &perm) {
      Shape shape;
      for (int64_t d : perm)
        shape.push_back(x.shape()[d]);
      std::string t = tensorType(dtype, shape);
      out.push_back(program("transpose " + intList(perm) + " of " + x.typeString(), {x},
                            "%r = shardc.transpose %a0, permutation = " + intList(perm) + " : (" +
                                x.typeString() + ") -> " + t,
                            t, exact()));
    };
    add(randomArray(dtype, randomShape(rng, 2), Values::Signed, rng), {1, 0});
    Array x3 = randomArray(dtype, randomShape(rng, 3), Values::Signed, rng);
    std::vector<int64_t> perm = {0, 1, 2};
    do
      add(x3, perm);
    while (std::next_permutation(perm.begin(), perm.end()));
    // Attention's head transposes, and one that moves every dimension.
    Array x4 = randomArray(dtype, randomShape(rng, 4), Values::Signed, rng);
    for (std::vector<int64_t> p4 : {std::vector<int64_t>{0, 2, 1, 3}, {0, 2, 3, 1}, {3, 1, 0, 2}})
      add(x4, p4);
    // Ten dimensions, every one moved: more than a kernel's walk holds
    // inline.
    Array x10 = randomArray(dtype, {2, 3, 2, 2, 3, 2, 2, 2, 3, 2}, Values::Signed, rng);
    add(x10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
    add(x10, {1, 0, 3, 2, 5, 4, 7, 6, 9, 8});
  };
}

Generator sliceOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (int64_t rank = 1; rank <= 3; ++rank) {
      Array x = randomArray(dtype, randomShape(rng, rank), Values::Signed, rng);
      std::vector<int64_t> start, limit, strides;
      Shape shape;
      for (int64_t size : x.shape()) {
        start.push_back(uniformInt(rng, 0, size - 1));
        limit.push_back(uniformInt(rng, start.back() + 1, size));
        strides.push_back(uniformInt(rng, 1, 3));
        shape.push_back((limit.back() - start.back() - 1) / strides.back() + 1);
      }
      std::string t = tensorType(dtype, shape);
      out.push_back(program("slice of " + x.typeString(), {x},
                            "%r = shardc.slice %a0, start = " + intList(start) +
                                ", limit = " + intList(limit) + ", strides = " + intList(strides) +
                                " : (" + x.typeString() + ") -> " + t,
                            t, exact()));
    }
  };
}

/// dynamic_slice and dynamic_update_slice at start indices drawn from
/// [-2, size + 2), so that clamping is exercised; the update also runs on
/// an intermediate (written in place in the arena) and on an argument
/// (copied first).
Generator dynamicSliceOps(DType dtype, DType indexType) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (int64_t rank = 1; rank <= 4; ++rank) {
      Array x = randomArray(dtype, randomShape(rng, rank), Values::Signed, rng);
      Shape box;
      std::vector<Array> indices;
      std::string names, types;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t size = x.shape()[d];
        box.push_back(uniformInt(rng, 0, 2) == 0 ? size : uniformInt(rng, 1, size));
        indices.push_back(Array::fromInts(indexType, {}, {uniformInt(rng, -2, size + 2)}));
        names += ", %a" + std::to_string(d + 2);
        types += ", " + indices.back().typeString();
      }
      Array update = randomArray(dtype, box, Values::Signed, rng);
      std::vector<Array> args{x, update};
      args.insert(args.end(), indices.begin(), indices.end());
      std::string xt = x.typeString(), bt = update.typeString();
      std::string list = names.substr(2); // "%a2, %a3, ..."
      out.push_back(
          program("dynamic_slice " + bt + " of " + xt, args,
                  "%r = shardc.dynamic_slice %a0 [" + list + "] : (" + xt + types + ") -> " + bt,
                  bt, exact()));
      out.push_back(program("dynamic_update_slice " + bt + " into " + xt, args,
                            "%r = shardc.dynamic_update_slice %a0, %a1 [" + list + "] : (" + xt +
                                ", " + bt + types + ") -> " + xt,
                            xt, exact()));
      if (dtype == DType::I1)
        continue;
      out.push_back(program("dynamic_update_slice " + bt + " into an intermediate " + xt, args,
                            "%t = shardc.add %a0, %a0 : " + xt +
                                "\n  %r = shardc.dynamic_update_slice %t, %a1 [" + list + "] : (" +
                                xt + ", " + bt + types + ") -> " + xt,
                            xt, exact()));
    }
  };
}

Generator concatenateOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (int64_t rank = 1; rank <= 3; ++rank) {
      Shape base = randomShape(rng, rank);
      for (int64_t dim = 0; dim < rank; ++dim) {
        int64_t count = uniformInt(rng, 2, 3);
        std::vector<Array> inputs;
        Shape shape = base;
        shape[dim] = 0;
        std::string names, types;
        for (int64_t i = 0; i < count; ++i) {
          Shape s = base;
          s[dim] = oddSize(rng);
          shape[dim] += s[dim];
          inputs.push_back(randomArray(dtype, s, Values::Signed, rng));
          names += (i ? ", %a" : "%a") + std::to_string(i);
          types += (i ? ", " : "") + inputs.back().typeString();
        }
        std::string t = tensorType(dtype, shape);
        out.push_back(program("concatenate " + std::to_string(count) + " along dim " +
                                  std::to_string(dim) + " into " + t,
                              inputs,
                              "%r = shardc.concatenate " + names + " dim = " + std::to_string(dim) +
                                  " : (" + types + ") -> " + t,
                              t, exact()));
      }
    }
  };
}

Generator takeOp(DType dtype, DType indexType) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (int64_t tableRank = 1; tableRank <= 3; ++tableRank)
      for (int64_t indexRank = 1; indexRank <= 2; ++indexRank) {
        Array table = randomArray(dtype, randomShape(rng, tableRank), Values::Signed, rng);
        Array idx = randomIndices(indexType, randomShape(rng, indexRank), table.shape()[0], rng);
        Shape shape = idx.shape();
        shape.insert(shape.end(), table.shape().begin() + 1, table.shape().end());
        std::string t = tensorType(dtype, shape);
        out.push_back(program("take " + table.typeString() + " by " + idx.typeString(),
                              {table, idx},
                              "%r = shardc.take %a0, %a1 : (" + table.typeString() + ", " +
                                  idx.typeString() + ") -> " + t,
                              t, exact()));
      }
  };
}

/// argmax along each dimension of ranks 1 to 3: values in steps of 0.5,
/// so that maxima tie (the first wins), and at f32 NaNs in some rows (the
/// first NaN wins).
Generator argmaxOp(DType dtype) {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    for (int64_t rank = 1; rank <= 3; ++rank)
      for (int64_t dim = 0; dim < rank; ++dim) {
        Array x = randomArray(dtype, randomShape(rng, rank), Values::Steps, rng);
        if (dtype == DType::F32 && draw % 2 == 1)
          for (int i = 0; i < 3; ++i)
            x.setDouble(uniformInt(rng, 0, x.numElements() - 1), std::nan(""));
        Shape shape = x.shape();
        shape.erase(shape.begin() + dim);
        std::string t = tensorType(DType::I32, shape);
        out.push_back(program("argmax of " + x.typeString() + " along " + std::to_string(dim), {x},
                              "%r = shardc.argmax %a0 dim = " + std::to_string(dim) + " : (" +
                                  x.typeString() + ") -> " + t,
                              t, exact()));
      }
  };
}

Generator scatterAddOp(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (int64_t operandRank = 1; operandRank <= 3; ++operandRank)
      for (int64_t indexRank = 1; indexRank <= 2; ++indexRank) {
        // Few rows and many indices, so that indices repeat.
        Shape operandShape = randomShape(rng, operandRank);
        operandShape[0] = uniformInt(rng, 1, 3) * 2 - 1;
        Array operand = randomArray(dtype, operandShape, Values::Signed, rng);
        Shape indexShape = {uniformInt(rng, 2, 3) * 2 + 1};
        if (indexRank == 2)
          indexShape.push_back(oddSize(rng));
        DType indexType = uniformInt(rng, 0, 1) ? DType::I32 : DType::I64;
        Array idx = randomIndices(indexType, indexShape, operandShape[0], rng);
        Shape updatesShape = indexShape;
        updatesShape.insert(updatesShape.end(), operandShape.begin() + 1, operandShape.end());
        Array updates = randomArray(dtype, updatesShape, Values::Signed, rng);
        std::string t = operand.typeString();
        out.push_back(program("scatter_add into " + t + " by " + idx.typeString(),
                              {operand, idx, updates},
                              "%r = shardc.scatter_add %a0, %a1, %a2 : (" + t + ", " +
                                  idx.typeString() + ", " + updates.typeString() + ") -> " + t,
                              // The CPU kernel accumulates as the reference
                              // does: in double, in index order.
                              t, exact()));
      }
  };
}

//===----------------------------------------------------------------------===//
// Special values for the f32 fast elementwise paths
//===----------------------------------------------------------------------===//

std::vector<float> specialFloats() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float denorm = std::numeric_limits<float>::denorm_min();
  const float tiny = std::numeric_limits<float>::min();
  const float huge = std::numeric_limits<float>::max();
  return {0.0f, -0.0f, 1.0f, -1.0f, 0.5f,   -2.5f,   3.0f, 100.0f, -100.0f,
          inf,  -inf,  nan,  -nan,  denorm, -denorm, tiny, huge,   -huge};
}

Array floatArray(const Shape &shape, const std::vector<float> &values) {
  Array a(DType::F32, shape);
  std::copy(values.begin(), values.end(), a.data<float>());
  return a;
}

/// Sets about one element in five of `a` to NaN.
void sprinkleNaNs(Array &a, std::mt19937 &rng) {
  for (int64_t i = 0; i < a.numElements(); ++i)
    if (uniformInt(rng, 0, 4) == 0)
      a.setDouble(i, NAN);
}

/// Every special value (in the first draw); then random operands of an odd
/// shape with NaNs.
Generator specialUnaryOp(std::string op) {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    if (draw == 0) {
      std::vector<float> specials = specialFloats();
      Array x = floatArray({(int64_t)specials.size()}, specials);
      std::string t = x.typeString();
      out.push_back(program(op + " of special values", {x}, "%r = shardc." + op + " %a0 : " + t, t,
                            relative(1e-5, /*strictSpecials=*/true)));
    }

    Array a = randomArray(DType::F32, randomShape(rng, 2), Values::Signed, rng);
    sprinkleNaNs(a, rng);
    out.push_back(program(op + " with NaNs " + a.typeString(), {a},
                          "%r = shardc." + op + " %a0 : " + a.typeString(), a.typeString(),
                          relative(1e-5, /*strictSpecials=*/true)));
  };
}

/// Every pair of special values: lhs varies along dim 0, rhs along dim 1.
std::pair<Array, Array> specialPairs() {
  std::vector<float> specials = specialFloats();
  int64_t s = (int64_t)specials.size();
  std::vector<float> lhs, rhs;
  for (int64_t i = 0; i < s; ++i)
    for (int64_t j = 0; j < s; ++j) {
      lhs.push_back(specials[i]);
      rhs.push_back(specials[j]);
    }
  return {floatArray({s, s}, lhs), floatArray({s, s}, rhs)};
}

/// Every pair of special values (in the first draw); then random operands
/// of an odd shape with about one NaN in five.
Generator specialBinaryOp(std::string op) {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    if (draw == 0) {
      auto [x, y] = specialPairs();
      std::string t = x.typeString();
      out.push_back(program(op + " of every pair of special values", {x, y},
                            "%r = shardc." + op + " %a0, %a1 : " + t, t,
                            relative(1e-5, /*strictSpecials=*/true)));
    }
    Shape shape = randomShape(rng, 2);
    Array a = randomArray(DType::F32, shape, Values::Signed, rng);
    Array b = randomArray(DType::F32, shape, Values::Signed, rng);
    sprinkleNaNs(a, rng);
    sprinkleNaNs(b, rng);
    out.push_back(program(op + " with NaNs " + a.typeString(), {a, b},
                          "%r = shardc." + op + " %a0, %a1 : " + a.typeString(), a.typeString(),
                          relative(1e-5, /*strictSpecials=*/true)));
  };
}

/// Compare with NaN, infinities and signed zeros.
Generator specialCompareOp(std::string direction) {
  return [=](std::mt19937 &, int draw, std::vector<Program> &out) {
    if (draw != 0)
      return;
    auto [x, y] = specialPairs();
    out.push_back(program("compare " + direction + " of every pair of special values", {x, y},
                          "%r = shardc.compare " + direction + ", %a0, %a1 : " + x.typeString(),
                          tensorType(DType::I1, x.shape()), exact()));
  };
}

/// A select of a compare, the pattern of max's gradient, on special values:
/// the CPU backend fuses the pair (the predicate stays in a register).
Generator specialSelectOfCompare(std::string direction) {
  return [=](std::mt19937 &, int draw, std::vector<Program> &out) {
    if (draw != 0)
      return;
    auto [x, y] = specialPairs();
    std::string t = x.typeString(), p = tensorType(DType::I1, x.shape());
    out.push_back(program("select of compare " + direction + " of special values", {x, y},
                          "%p = shardc.compare " + direction + ", %a0, %a1 : " + t +
                              "\n  %s = shardc.select %p, %a0, %a1 : " + p + ", " + t +
                              "\n  %r = shardc.neg %s : " + t,
                          t, exact()));
  };
}

/// Reductions of rank-2 values holding NaN, infinities and signed zeros,
/// over each dimension and both (the fast f32 reduction paths).
Generator specialReduceOp(std::string kind) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    std::vector<float> specials = specialFloats();
    Shape shape = {oddSize(rng), oddSize(rng)};
    std::vector<float> values;
    for (int64_t i = 0; i < shape[0] * shape[1]; ++i)
      values.push_back(uniformInt(rng, 0, 3) == 0
                           ? specials[uniformInt(rng, 0, (int64_t)specials.size() - 1)]
                           : (float)uniformReal(rng, -2, 2));
    Array x = floatArray(shape, values);
    // Signed zeros only: max and min must pick the same zero as the reference.
    Array zeros = floatArray({5, 3}, {0.0f, -0.0f, 0.0f, -0.0f, -0.0f, 0.0f, 0.0f, 0.0f, -0.0f,
                                      -0.0f, -0.0f, -0.0f, 0.0f, -0.0f, 0.0f});
    for (const Array *in : {&x, &zeros})
      for (const std::vector<int64_t> &dims : reductionDims(2)) {
        std::string resultType;
        std::string op = reduceProgramOp(kind, *in, dims, resultType);
        out.push_back(program("reduce " + kind + " dims = " + intList(dims) +
                                  " of special values " + in->typeString(),
                              {*in}, op, resultType,
                              kind == "sum" ? relative(1e-4, /*strictSpecials=*/true) : exact()));
      }
  };
}

/// Sums of runs long enough to be added in lanes and blocks over the
/// threads (a gradient's squares for its norm): totals and rows of lengths
/// off the blocks and lanes, and totals holding an infinity or a NaN.
Generator longSumOp() {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    for (Shape shape : {Shape{300007}, Shape{3, 70001}, Shape{2, 5, 32771}}) {
      Array x = randomArray(DType::F32, shape, Values::Signed, rng);
      int64_t rank = (int64_t)shape.size();
      std::vector<int64_t> all(rank);
      std::iota(all.begin(), all.end(), 0);
      for (const std::vector<int64_t> &dims : {all, std::vector<int64_t>{rank - 1}}) {
        std::string resultType;
        std::string op = reduceProgramOp("sum", x, dims, resultType);
        out.push_back(program("long sum dims = " + intList(dims) + " of " + x.typeString(), {x}, op,
                              resultType, relative(1e-6)));
      }
    }
    for (float special : {INFINITY, NAN}) {
      std::vector<float> values(100003);
      for (float &v : values)
        v = (float)uniformReal(rng, -2, 2);
      values[70001] = special;
      Array x = floatArray({(int64_t)values.size()}, values);
      std::string resultType;
      std::string op = reduceProgramOp("sum", x, {0}, resultType);
      out.push_back(program("long sum holding " + std::to_string(special), {x}, op, resultType,
                            relative(1e-6, /*strictSpecials=*/true)));
    }
  };
}

/// Conversions of NaN, infinities and out-of-range values: saturation.
Generator specialConvertOp(DType to) {
  return [=](std::mt19937 &, int draw, std::vector<Program> &out) {
    if (draw != 0)
      return;
    std::vector<float> values = specialFloats();
    for (float v : {2.5f, -2.5f, 3e9f, -3e9f, 0.99f, -0.99f})
      values.push_back(v);
    Array x = floatArray({(int64_t)values.size()}, values);
    std::string t = tensorType(to, x.shape());
    out.push_back(program("convert special values to " + std::string(dtypeName(to)), {x},
                          "%r = shardc.convert %a0 : " + x.typeString() + " -> " + t, t, exact()));
  };
}

//===----------------------------------------------------------------------===//
// Chains
//===----------------------------------------------------------------------===//

/// An MLP layer and a softmax-like tail in f32: every fast kernel reads and
/// writes intermediates in the arena, whose blocks are reused by liveness
/// (the programs above read only caller-owned arguments).
Generator mlpChain() {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    int64_t m = oddSize(rng), k = std::min<int64_t>(oddSize(rng), 17), n = oddSize(rng);
    Array x = randomArray(DType::F32, {m, k}, Values::Signed, rng);
    Array w = randomArray(DType::F32, {k, n}, Values::Signed, rng);
    Array bias = randomArray(DType::F32, {n}, Values::Signed, rng);
    std::string mn = tensorType(DType::F32, {m, n}), mk = x.typeString(), kn = w.typeString(),
                nt = bias.typeString(), mt = tensorType(DType::F32, {m}),
                mm = tensorType(DType::F32, {m, m}), flat = tensorType(DType::F32, {m * n});
    std::vector<std::string> lines = {
        "%h = shardc.dot_general %a0, %a1 contracting_dims = [1] x [0] : (" + mk + ", " + kn +
            ") -> " + mn,
        "%b = shardc.broadcast_in_dim %a2, dims = [1] : (" + nt + ") -> " + mn,
        "%z = shardc.add %h, %b : " + mn,
        "%t = shardc.tanh %z : " + mn,
        "%mx = shardc.reduce max %t dims = [1] : (" + mn + ") -> " + mt,
        "%mb = shardc.broadcast_in_dim %mx, dims = [0] : (" + mt + ") -> " + mn,
        "%d = shardc.sub %t, %mb : " + mn,
        "%e = shardc.exp %d : " + mn,
        "%f = shardc.reshape %e : (" + mn + ") -> " + flat,
        "%g = shardc.reshape %f : (" + flat + ") -> " + mn,
        "%s = shardc.reduce sum %g dims = [1] : (" + mn + ") -> " + mt,
        "%sb = shardc.broadcast_in_dim %s, dims = [0] : (" + mt + ") -> " + mn,
        "%p = shardc.div %g, %sb : " + mn,
        "%r = shardc.dot_general %p, %e contracting_dims = [1] x [1] : (" + mn + ", " + mn +
            ") -> " + mm,
    };
    std::string body;
    for (const std::string &line : lines)
      body += (body.empty() ? "" : "\n  ") + line;
    out.push_back(program("mlp layer and softmax of " + mk + " x " + kn, {x, w, bias}, body, mm,
                          accumulationTol(DType::F32)));
  };
}

//===----------------------------------------------------------------------===//
// Fused chains of any rank
//===----------------------------------------------------------------------===//
//
// The fuser merges f32 elementwise chains with row reductions (a trailing
// block of dimensions reduced) and with broadcasts whose operand fills a
// trailing block (x[i % cols]) or a leading block (x[i / cols]) of the
// result, at any rank. These programs are the shapes models use: LayerNorm
// over [B,T,d], attention's softmax over [B,H,T,S]. Draw 0 is large (over
// 2^16 elements, with row lengths that are not multiples of the vector
// width), so that fused kernels split their rows over threads and run
// their vector tails; the other draws are small odd shapes. Each program
// also checks what the fuser made of it.

/// The steps of a plan by opcode, and the reductions inside Fused steps.
struct PlanSummary {
  std::map<OpCode, int> steps;
  int fusedReductions = 0;
  /// The row length of each fused reduction.
  std::vector<int64_t> reductionCols;
  int count(OpCode op) const {
    auto it = steps.find(op);
    return it == steps.end() ? 0 : it->second;
  }
};

PlanSummary summarize(const Plan &plan) {
  PlanSummary s;
  for (const PlanStep &step : plan.steps) {
    ++s.steps[step.op];
    if (step.op != OpCode::Fused)
      continue;
    FusedProgram p = FusedProgram::decode(step.attrs);
    s.fusedReductions += (int)p.reductions.size();
    for (const auto &r : p.reductions)
      s.reductionCols.push_back(r.cols);
  }
  return s;
}

/// An f32 splat literal, e.g. "1.00000001e-05".
std::string f32Literal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", (double)(float)v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

std::string joinLines(const std::vector<std::string> &lines) {
  std::string body;
  for (const std::string &line : lines)
    body += (body.empty() ? "" : "\n  ") + line;
  return body;
}

/// A size from kOddSizes other than 1 (a unit dimension may legitimately
/// let a broadcast fuse that otherwise must not).
int64_t oddSizeAbove1(std::mt19937 &rng) {
  int64_t s;
  do
    s = oddSize(rng);
  while (s == 1);
  return s;
}

/// LayerNorm over the last dimension of x [B,T,d]: mean and variance as
/// reduce sum dims = [2] scaled in [B,T], the statistics broadcast back
/// either directly (dims = [0, 1]) or as the keepdims [B,T,1] form (a
/// reshape, then dims = [0, 1, 2]); gamma and beta [d] along dims = [2].
Generator layerNormChain(bool keepdims) {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    int64_t B = oddSize(rng), T = oddSize(rng), d = oddSize(rng);
    if (draw == 0) // 78189 elements, rows of 389 = 24 * 16 + 5
      B = 3, T = 67, d = 389;
    Array x = randomArray(DType::F32, {B, T, d}, Values::Signed, rng);
    Array gamma = randomArray(DType::F32, {d}, Values::Signed, rng);
    Array beta = randomArray(DType::F32, {d}, Values::Signed, rng);
    std::string btd = x.typeString(), bt = tensorType(DType::F32, {B, T}),
                bt1 = tensorType(DType::F32, {B, T, 1}), dt = gamma.typeString();
    // Broadcasts a [B,T] statistic %from back to [B,T,d] as %to.
    auto back = [&](const std::string &from, const std::string &to) {
      if (!keepdims)
        return "%" + to + " = shardc.broadcast_in_dim %" + from + ", dims = [0, 1] : (" + bt +
               ") -> " + btd;
      return "%" + to + "k = shardc.reshape %" + from + " : (" + bt + ") -> " + bt1 + "\n  %" + to +
             " = shardc.broadcast_in_dim %" + to + "k, dims = [0, 1, 2] : (" + bt1 + ") -> " + btd;
    };
    std::vector<std::string> lines = {
        "%s = shardc.reduce sum %a0 dims = [2] : (" + btd + ") -> " + bt,
        "%cd = shardc.constant dense<" + f32Literal(1.0 / (double)d) + "> : " + bt,
        "%mean = shardc.mul %s, %cd : " + bt,
        back("mean", "mb"),
        "%xc = shardc.sub %a0, %mb : " + btd,
        "%sq = shardc.mul %xc, %xc : " + btd,
        "%vs = shardc.reduce sum %sq dims = [2] : (" + btd + ") -> " + bt,
        "%var = shardc.mul %vs, %cd : " + bt,
        "%eps = shardc.constant dense<1.0e-05> : " + bt,
        "%ve = shardc.add %var, %eps : " + bt,
        "%rs = shardc.rsqrt %ve : " + bt,
        back("rs", "rb"),
        "%n = shardc.mul %xc, %rb : " + btd,
        "%gb = shardc.broadcast_in_dim %a1, dims = [2] : (" + dt + ") -> " + btd,
        "%bb = shardc.broadcast_in_dim %a2, dims = [2] : (" + dt + ") -> " + btd,
        "%g = shardc.mul %n, %gb : " + btd,
        "%r = shardc.add %g, %bb : " + btd,
    };
    Program p = program(std::string("layernorm over the last dim") +
                            (keepdims ? " (keepdims stats)" : "") + " of " + btd,
                        {x, gamma, beta}, joinLines(lines), btd, accumulationTol(DType::F32));
    p.planCheck = [d](const Plan &plan) {
      PlanSummary s = summarize(plan);
      // The mean of the argument is a plain reduce; the variance's sum of
      // squares ends the fused chain (x - mean)^2; rsqrt(var + eps) fuses
      // in [B,T]; the normalization with gamma and beta is one more.
      EXPECT_EQ(s.count(OpCode::Fused), 3);
      EXPECT_EQ(s.fusedReductions, 1);
      EXPECT_EQ(s.reductionCols, std::vector<int64_t>{d});
      EXPECT_EQ(s.count(OpCode::Reduce), 1);
      EXPECT_EQ(s.count(OpCode::BroadcastInDim), 0); // every broadcast is a load
    };
    out.push_back(std::move(p));
  };
}

/// Attention's softmax over the last dimension of logits [B,H,T,S], scaled
/// and masked by [T,S] (dims = [2, 3]): reduce max dims = [3], broadcast
/// back with dims = [0, 1, 2], sub, exp, reduce sum, div.
Generator softmaxRank4() {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    int64_t B = oddSize(rng), H = oddSize(rng), T = oddSize(rng), S = oddSize(rng);
    if (draw == 0) // 66822 elements, rows of 301 = 18 * 16 + 13
      B = 2, H = 3, T = 37, S = 301;
    Array x = randomArray(DType::F32, {B, H, T, S}, Values::Wide, rng);
    Array mask = randomArray(DType::F32, {T, S}, Values::Signed, rng);
    std::string t4 = x.typeString(), t3 = tensorType(DType::F32, {B, H, T}), ts = mask.typeString();
    std::vector<std::string> lines = {
        "%c = shardc.constant dense<0.125> : " + t4,
        "%xs = shardc.mul %a0, %c : " + t4,
        "%mk = shardc.broadcast_in_dim %a1, dims = [2, 3] : (" + ts + ") -> " + t4,
        "%z = shardc.add %xs, %mk : " + t4,
        "%mx = shardc.reduce max %z dims = [3] : (" + t4 + ") -> " + t3,
        "%mb = shardc.broadcast_in_dim %mx, dims = [0, 1, 2] : (" + t3 + ") -> " + t4,
        "%d = shardc.sub %z, %mb : " + t4,
        "%e = shardc.exp %d : " + t4,
        "%s = shardc.reduce sum %e dims = [3] : (" + t4 + ") -> " + t3,
        "%sb = shardc.broadcast_in_dim %s, dims = [0, 1, 2] : (" + t3 + ") -> " + t4,
        "%r = shardc.div %e, %sb : " + t4,
    };
    Program p = program("softmax over the last dim of " + t4, {x, mask}, joinLines(lines), t4,
                        accumulationTol(DType::F32));
    p.planCheck = [S](const Plan &plan) {
      PlanSummary s = summarize(plan);
      // Two fused chains, each ending in its row reduction (max, then sum),
      // and the final div with the broadcast of the sums (loaded along the
      // columns, never stored).
      EXPECT_EQ(s.count(OpCode::Fused), 3);
      EXPECT_EQ(s.count(OpCode::BroadcastInDim), 0);
      EXPECT_EQ(s.fusedReductions, 2);
      EXPECT_EQ(s.reductionCols, (std::vector<int64_t>{S, S}));
      EXPECT_EQ(s.count(OpCode::Reduce), 0);
    };
    out.push_back(std::move(p));
  };
}

/// Reductions over a trailing block of two (or three) dimensions, fed by
/// an elementwise chain: [A,B,C] dims = [1, 2] (and unsorted [2, 1]),
/// [A,B,C,D] dims = [2, 3] and [1, 2, 3].
Generator trailingBlockReduction() {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    auto add = [&](const std::string &kind, const Shape &shape, const std::vector<int64_t> &dims) {
      Array x = randomArray(DType::F32, shape, Values::Signed, rng);
      Array y = randomArray(DType::F32, shape, Values::Signed, rng);
      Shape rshape;
      int64_t cols = 1;
      for (int64_t d = 0; d < (int64_t)shape.size(); ++d)
        if (std::count(dims.begin(), dims.end(), d))
          cols *= shape[d];
        else
          rshape.push_back(shape[d]);
      std::string t = x.typeString(), rt = tensorType(DType::F32, rshape);
      std::vector<std::string> lines = {
          "%m = shardc.mul %a0, %a1 : " + t,
          "%h = shardc.tanh %m : " + t,
          "%y = shardc.add %h, %a0 : " + t,
          "%r = shardc.reduce " + kind + " %y dims = " + intList(dims) + " : (" + t + ") -> " + rt,
      };
      Program p = program("reduce " + kind + " dims = " + intList(dims) + " of a chain over " + t,
                          {x, y}, joinLines(lines), rt,
                          kind == "sum" ? accumulationTol(DType::F32) : elementwiseTol(DType::F32));
      p.planCheck = [cols](const Plan &plan) {
        PlanSummary s = summarize(plan);
        EXPECT_EQ(s.count(OpCode::Fused), 1);
        EXPECT_EQ(s.reductionCols, std::vector<int64_t>{cols});
        EXPECT_EQ(s.count(OpCode::Reduce), 0);
      };
      out.push_back(std::move(p));
    };
    Shape s3 = randomShape(rng, 3), s4 = randomShape(rng, 4);
    if (draw == 0) { // 68191 elements in rows of 37 * 97 = 3589 = 224 * 16 + 5
      s3 = {19, 37, 97};
      s4 = {3, 5, 37, 127};
    }
    for (std::string kind : {"sum", "max", "min"})
      add(kind, s3, {1, 2});
    add("sum", s3, {2, 1});
    add("max", s4, {2, 3});
    add("sum", s4, {1, 2, 3});
  };
}

/// Broadcasts into [B,T,d] that load in the fused kernel: keepdims
/// statistics [B,T,1] (dims = [0, 1, 2], read x[i / d]), a bias [d]
/// (dims = [2]) and a scale [1,1,d] (dims = [0, 1, 2]), both read
/// x[i % d]; and a leading block [B,H] of [B,H,T,S] (dims = [0, 1]).
Generator fusedBroadcasts() {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    int64_t B = oddSize(rng), T = oddSize(rng), d = oddSize(rng);
    if (draw == 0) // 67071 elements, rows of 283 = 17 * 16 + 11
      B = 3, T = 79, d = 283;
    Array x = randomArray(DType::F32, {B, T, d}, Values::Signed, rng);
    Array stats = randomArray(DType::F32, {B, T, 1}, Values::Signed, rng);
    Array bias = randomArray(DType::F32, {d}, Values::Signed, rng);
    Array scale = randomArray(DType::F32, {1, 1, d}, Values::Signed, rng);
    std::string btd = x.typeString();
    std::vector<std::string> lines = {
        "%sb = shardc.broadcast_in_dim %a1, dims = [0, 1, 2] : (" + stats.typeString() + ") -> " +
            btd,
        "%bb = shardc.broadcast_in_dim %a2, dims = [2] : (" + bias.typeString() + ") -> " + btd,
        "%gb = shardc.broadcast_in_dim %a3, dims = [0, 1, 2] : (" + scale.typeString() + ") -> " +
            btd,
        "%u = shardc.sub %a0, %sb : " + btd,
        "%v = shardc.mul %u, %gb : " + btd,
        "%w = shardc.add %v, %bb : " + btd,
        "%r = shardc.tanh %w : " + btd,
    };
    Program p = program("keepdims stats, bias and scale broadcast into " + btd,
                        {x, stats, bias, scale}, joinLines(lines), btd, elementwiseTol(DType::F32));
    p.planCheck = [](const Plan &plan) {
      PlanSummary s = summarize(plan);
      EXPECT_EQ(s.count(OpCode::Fused), 1);
      EXPECT_EQ(s.count(OpCode::BroadcastInDim), 0);
      EXPECT_EQ((int)plan.steps.size(), 1);
    };
    out.push_back(std::move(p));

    // A leading block of rank 4, with the row reduction of the chain.
    int64_t H = oddSize(rng), S = oddSize(rng);
    if (draw == 0) // 65886 elements, rows of 139 = 8 * 16 + 11
      H = 2, S = 139;
    Array y = randomArray(DType::F32, {B, H, T, S}, Values::Signed, rng);
    Array lead = randomArray(DType::F32, {B, H}, Values::Signed, rng);
    std::string t4 = y.typeString(), t3 = tensorType(DType::F32, {B, H, T});
    std::vector<std::string> lines4 = {
        "%lb = shardc.broadcast_in_dim %a1, dims = [0, 1] : (" + lead.typeString() + ") -> " + t4,
        "%u = shardc.mul %a0, %lb : " + t4,
        "%e = shardc.exp %u : " + t4,
        "%r = shardc.reduce sum %e dims = [3] : (" + t4 + ") -> " + t3,
    };
    Program p4 = program("leading block " + lead.typeString() + " broadcast into " + t4, {y, lead},
                         joinLines(lines4), t3, accumulationTol(DType::F32));
    p4.planCheck = [S](const Plan &plan) {
      PlanSummary s = summarize(plan);
      EXPECT_EQ(s.count(OpCode::Fused), 1);
      EXPECT_EQ(s.reductionCols, std::vector<int64_t>{S});
      EXPECT_EQ(s.count(OpCode::BroadcastInDim), 0);
    };
    out.push_back(std::move(p4));
  };
}

/// Broadcasts into the middle of the result ([T] into [B,T,d] with
/// dims = [1], [H,T] into [B,H,T,S] with dims = [1, 2]) are neither rows
/// nor columns of it: they stay separate steps, and the chain that reads
/// them (ending in a row reduction) fuses around them.
Generator midBlockBroadcasts() {
  return [=](std::mt19937 &rng, int draw, std::vector<Program> &out) {
    // No unit sizes: with B or d of 1 the block would be a leading or
    // trailing one, and with T of 1 a scalar; either fuses.
    int64_t B = oddSizeAbove1(rng), T = oddSizeAbove1(rng), d = oddSizeAbove1(rng);
    if (draw == 0) // 70131 elements, rows of 241 = 15 * 16 + 1
      B = 3, T = 97, d = 241;
    Array x = randomArray(DType::F32, {B, T, d}, Values::Signed, rng);
    Array mid = randomArray(DType::F32, {T}, Values::Signed, rng);
    std::string btd = x.typeString(), bt = tensorType(DType::F32, {B, T});
    std::vector<std::string> lines = {
        "%tb = shardc.broadcast_in_dim %a1, dims = [1] : (" + mid.typeString() + ") -> " + btd,
        "%u = shardc.mul %a0, %tb : " + btd,
        "%h = shardc.tanh %u : " + btd,
        "%r = shardc.reduce sum %h dims = [2] : (" + btd + ") -> " + bt,
    };
    Program p = program("mid-block broadcast " + mid.typeString() + " into " + btd, {x, mid},
                        joinLines(lines), bt, accumulationTol(DType::F32));
    p.planCheck = [d](const Plan &plan) {
      PlanSummary s = summarize(plan);
      EXPECT_EQ(s.count(OpCode::BroadcastInDim), 1);
      EXPECT_EQ(s.count(OpCode::Fused), 1);
      EXPECT_EQ(s.reductionCols, std::vector<int64_t>{d});
    };
    out.push_back(std::move(p));

    int64_t H = oddSize(rng), S = oddSizeAbove1(rng);
    Array y = randomArray(DType::F32, {B, H, T, S}, Values::Signed, rng);
    Array ht = randomArray(DType::F32, {H, T}, Values::Signed, rng);
    std::string t4 = y.typeString();
    std::vector<std::string> lines4 = {
        "%hb = shardc.broadcast_in_dim %a1, dims = [1, 2] : (" + ht.typeString() + ") -> " + t4,
        "%u = shardc.sub %a0, %hb : " + t4,
        "%r = shardc.mul %u, %u : " + t4,
    };
    Program p4 = program("mid-block broadcast " + ht.typeString() + " into " + t4, {y, ht},
                         joinLines(lines4), t4, elementwiseTol(DType::F32));
    p4.planCheck = [](const Plan &plan) {
      PlanSummary s = summarize(plan);
      EXPECT_EQ(s.count(OpCode::BroadcastInDim), 1);
      EXPECT_EQ(s.count(OpCode::Fused), 1);
    };
    out.push_back(std::move(p4));
  };
}

//===----------------------------------------------------------------------===//
// Empty dimensions
//===----------------------------------------------------------------------===//

/// A dot_general whose contracting dimension is empty: every result element
/// is a sum of nothing, 0. A dead value computed first leaves its bytes in
/// the arena block the result then reuses, so the kernel must write zeros.
Generator emptyContractionDot(std::string lhsLayout, std::string rhsLayout, DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    int64_t m = oddSize(rng), n = oddSize(rng);
    Shape lhs = lhsLayout == "MK" ? Shape{m, 0} : Shape{0, m};
    Shape rhs = rhsLayout == "KN" ? Shape{0, n} : Shape{n, 0};
    int64_t lc = lhsLayout == "MK" ? 1 : 0, rc = rhsLayout == "KN" ? 0 : 1;
    Array x = randomArray(dtype, lhs, Values::Signed, rng);
    Array y = randomArray(dtype, rhs, Values::Signed, rng);
    Array z = randomArray(dtype, {m, n}, Values::Signed, rng);
    std::string t = z.typeString();
    out.push_back(program("dot_general with empty contraction " + lhsLayout + " x " + rhsLayout,
                          {x, y, z},
                          "%dead = shardc.add %a2, %a2 : " + t +
                              "\n  %r = shardc.dot_general %a0, %a1 contracting_dims = [" +
                              std::to_string(lc) + "] x [" + std::to_string(rc) + "] : (" +
                              x.typeString() + ", " + y.typeString() + ") -> " + t,
                          t, exact()));
  };
}

/// Ops on values with an empty dimension: nothing to compute, and nothing
/// may go wrong.
Generator emptyOps(DType dtype) {
  return [=](std::mt19937 &rng, int, std::vector<Program> &out) {
    int64_t m = oddSize(rng);
    auto arr = [&](Shape s) { return randomArray(dtype, s, Values::Signed, rng); };
    Array x = arr({m, 0}), y = arr({m, 0});
    std::string t = x.typeString(), tt = tensorType(dtype, {0, m});
    out.push_back(program("add of empty", {x, y}, "%r = shardc.add %a0, %a1 : " + t, t, exact()));
    out.push_back(program("neg of empty", {x}, "%r = shardc.neg %a0 : " + t, t, exact()));
    std::string rt;
    std::string reduce = reduceProgramOp("sum", x, {0}, rt);
    out.push_back(program("reduce sum keeping an empty dimension", {x}, reduce, rt, exact()));
    out.push_back(broadcastProgram("empty row", arr({0}), {m, 0}, {1}));
    out.push_back(program("transpose of empty", {x},
                          "%r = shardc.transpose %a0, permutation = [1, 0] : (" + t + ") -> " + tt,
                          tt, exact()));
    for (Shape lhs : {Shape{0, m}, Shape{3, m}}) {
      Shape rhs = {m, lhs[0] == 0 ? 3 : 0}, result = {lhs[0], rhs[1]};
      Array a = arr(lhs), b = arr(rhs);
      std::string rt = tensorType(dtype, result);
      out.push_back(program("dot_general with an empty free dimension", {a, b},
                            "%r = shardc.dot_general %a0, %a1 contracting_dims = [1] x [0] : (" +
                                a.typeString() + ", " + b.typeString() + ") -> " + rt,
                            rt, exact()));
    }
  };
}

//===----------------------------------------------------------------------===//
// The cases
//===----------------------------------------------------------------------===//

std::vector<ConformanceCase> allCases() {
  std::vector<ConformanceCase> cases;
  auto add = [&](std::string name, Generator g, std::string knownBug = "") {
    cases.push_back({std::move(name), std::move(g), std::move(knownBug)});
  };
  auto n = [](DType d) { return std::string(dtypeName(d)); };
  const DType F32 = DType::F32, F64 = DType::F64, F16 = DType::F16, BF16 = DType::BF16,
              I1 = DType::I1, I32 = DType::I32, I64 = DType::I64;

  // Sources.
  for (DType d : {F32, F64, F16, BF16, I1, I32, I64})
    add("constant_" + n(d), constantOp(d));
  for (DType d : {F32, F64, I32, I64})
    add("iota_" + n(d), iotaOp(d));

  // Elementwise: every op of OpCodes.def, floats drawn from its smooth
  // range. f64 and integers run the reference kernels on both sides (the
  // lowering and the buffers are what they check); the kernels' own values
  // are checked against hand-computed ones in ReferenceKernelsTest.
  for (const shardc::test::ElementwiseRow &row : shardc::test::elementwiseRows()) {
    std::string op = row.name;
    for (DType d : {F32, F64}) {
      if (row.arity == 1)
        add(op + "_" + n(d), unaryOp(op, d, Values::Row, {row.lo, row.hi}));
      else
        add(op + "_" + n(d), binaryOp(op, d, Values::Row, Values::Row, {row.lo, row.hi}));
    }
    if (row.integers)
      for (DType d : {I32, I64}) {
        Values rhs = op == "div"   ? Values::NonZero
                     : op == "pow" ? Values::Exponent
                                   : Values::Signed;
        if (row.arity == 1)
          add(op + "_" + n(d), unaryOp(op, d, Values::Signed));
        else
          add(op + "_" + n(d), binaryOp(op, d, Values::Signed, rhs));
      }
  }
  // Half precision for a sample of ops (within one ulp of the rounded
  // double result).
  for (std::string op : {"neg", "abs", "exp", "tanh"})
    for (DType d : {F16, BF16})
      add(op + "_" + n(d), unaryOp(op, d, Values::Signed));
  for (std::string op : {"add", "mul", "div", "max"})
    for (DType d : {F16, BF16})
      add(op + "_" + n(d), binaryOp(op, d, Values::Signed, Values::Signed));
  add("add_i64_wide", binaryOp("add", I64, Values::Wide, Values::Wide));
  for (DType d : {F32, F64})
    add("pow_integer_exponents_" + n(d), binaryOp("pow", d, Values::Signed, Values::Exponent));

  for (std::string dir : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (DType d : {F32, F64, I32})
      add("compare_" + dir + "_" + n(d), compareOp(dir, d));

  for (DType d : {F32, F64, F16, I1, I32})
    add("select_" + n(d), selectOp(d));

  add("convert_f32_to_i32", convertOp(F32, I32, Values::Wide));
  add("convert_i32_to_f32", convertOp(I32, F32, Values::Wide));
  add("convert_f32_to_f64", convertOp(F32, F64, Values::Signed));
  add("convert_f64_to_f32", convertOp(F64, F32, Values::Signed));
  add("convert_f32_to_f16", convertOp(F32, F16, Values::Signed));
  add("convert_f32_to_bf16", convertOp(F32, BF16, Values::Signed));
  add("convert_f16_to_f32", convertOp(F16, F32, Values::Signed));
  add("convert_f32_to_i1", convertOp(F32, I1, Values::Steps));
  add("convert_i32_to_i1", convertOp(I32, I1, Values::Steps));
  add("convert_i1_to_f32", convertOp(I1, F32, Values::Signed));
  add("convert_i32_to_i64", convertOp(I32, I64, Values::Wide));
  add("convert_i64_to_i32", convertOp(I64, I32, Values::Wide));

  // Contractions and reductions.
  for (const DotLayout &layout : dotLayouts())
    for (DType d : {F32, F64, I32})
      add("dot_general_" + layout.name + "_" + n(d), dotGeneralOp(layout, d));
  for (std::string kind : {"sum", "max", "min"})
    for (DType d : {F32, F64, I32})
      add("reduce_" + kind + "_" + n(d), reduceOp(kind, d));

  // Data movement.
  for (DType d : {F32, F64, F16, I1, I32}) {
    add("broadcast_in_dim_" + n(d), broadcastInDimOp(d));
    add("reshape_" + n(d), reshapeOp(d));
    add("transpose_" + n(d), transposeOp(d));
    add("slice_" + n(d), sliceOp(d));
    add("concatenate_" + n(d), concatenateOp(d));
  }
  for (DType d : {F32, F64, I32})
    for (DType index : {I32, I64})
      add("take_" + n(d) + "_by_" + n(index), takeOp(d, index));
  for (DType d : {F32, F16, I1, I64})
    for (DType index : {I32, I64})
      add("dynamic_slices_" + n(d) + "_at_" + n(index), dynamicSliceOps(d, index));
  for (DType d : {F32, F64, I32})
    add("scatter_add_" + n(d), scatterAddOp(d));
  for (DType d : {F32, F64, BF16})
    add("argmax_" + n(d), argmaxOp(d));

  // Special values through the f32 fast paths.
  for (const shardc::test::ElementwiseRow &row : shardc::test::elementwiseRows())
    add("special_values_" + row.name + "_f32",
        row.arity == 1 ? specialUnaryOp(row.name) : specialBinaryOp(row.name));
  for (std::string dir : {"eq", "ne", "lt", "le", "gt", "ge"})
    add("special_values_compare_" + dir + "_f32", specialCompareOp(dir));
  for (std::string dir : {"eq", "ne", "lt", "le", "gt", "ge"})
    add("special_values_select_of_compare_" + dir + "_f32", specialSelectOfCompare(dir));
  for (std::string kind : {"sum", "max", "min"})
    add("special_values_reduce_" + kind + "_f32", specialReduceOp(kind));
  add("long_sums_f32", longSumOp());
  for (DType d : {I32, I64, I1, F16, BF16})
    add("special_values_convert_f32_to_" + n(d), specialConvertOp(d));
  for (const DotLayout &layout : dotLayouts())
    add("special_values_dot_general_" + layout.name + "_f32",
        dotGeneralOp(layout, F32, /*withSpecials=*/true));
  add("mlp_chain_f32", mlpChain());
  add("fused_layernorm_f32", layerNormChain(/*keepdims=*/false));
  add("fused_layernorm_keepdims_f32", layerNormChain(/*keepdims=*/true));
  add("fused_softmax_rank4_f32", softmaxRank4());
  add("fused_trailing_block_reduction_f32", trailingBlockReduction());
  add("fused_broadcasts_f32", fusedBroadcasts());
  add("mid_block_broadcasts_f32", midBlockBroadcasts());

  // Empty dimensions.
  for (std::string l : {"MK", "KM"})
    for (std::string r : {"KN", "NK"})
      for (DType d : {F32, F64, I32})
        add("dot_general_empty_contraction_" + l + "_" + r + "_" + n(d),
            emptyContractionDot(l, r, d));
  for (DType d : {F32, F64, I32})
    add("empty_dims_" + n(d), emptyOps(d));
  return cases;
}

//===----------------------------------------------------------------------===//
// The test
//===----------------------------------------------------------------------===//

/// FNV-1a: a seed that does not depend on the standard library.
uint32_t seedOf(const std::string &name) {
  uint32_t h = 2166136261u;
  for (char c : name)
    h = (h ^ (uint8_t)c) * 16777619u;
  return h;
}

class BackendConformance : public testing::TestWithParam<ConformanceCase> {
protected:
  void SetUp() override { ctx.loadDialect<ShardcDialect, func::FuncDialect>(); }

  /// Runs `p` in the interpreter and on the CPU backend and compares.
  void check(const Program &p) {
    std::string text = p.text();
    SCOPED_TRACE(p.what + "\n" + text);
    if (std::getenv("SHARDC_CONFORMANCE_PRINT"))
      llvm::errs() << text;
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    ASSERT_TRUE(module) << diagnostics;
    ASSERT_TRUE(succeeded(verify(*module))) << diagnostics;
    auto fn = module->lookupSymbol<func::FuncOp>("main");
    ASSERT_TRUE(fn);

    FailureOr<std::vector<Array>> want = interpret(fn, p.args);
    ASSERT_TRUE(succeeded(want)) << diagnostics;
    FailureOr<Plan> plan = lowerToPlan(fn);
    ASSERT_TRUE(succeeded(plan)) << diagnostics;
    if (p.planCheck) {
      SCOPED_TRACE("plan:\n" + describePlan(*plan));
      p.planCheck(*plan);
    }
    std::unique_ptr<Backend> cpu = createCpuBackend();
    StatusOr<std::vector<Array>> got = runPlan(*cpu, *plan, p.args);
    ASSERT_TRUE(got.ok()) << got.message();
    ASSERT_EQ(got->size(), 1u);
    ASSERT_EQ(want->size(), 1u);
    EXPECT_TRUE(sameResult((*got)[0], (*want)[0], p.tol));
  }

  MLIRContext ctx;
};

TEST_P(BackendConformance, MatchesReference) {
  const ConformanceCase &c = GetParam();
  if (!c.knownBug.empty())
    GTEST_SKIP() << c.knownBug;
  std::mt19937 rng(seedOf(c.name));
  for (int draw = 0; draw < kDraws; ++draw) {
    SCOPED_TRACE("draw " + std::to_string(draw));
    std::vector<Program> programs;
    c.generate(rng, draw, programs);
    for (const Program &p : programs) {
      check(p);
      if (HasFatalFailure())
        return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BackendConformance, testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<ConformanceCase> &info) {
                           return info.param.name;
                         });

} // namespace
