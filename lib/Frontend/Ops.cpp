//===- Ops.cpp - the dialect's ops on traced Tensors ----------------------===//
//
// One function per op of the dialect: check the operands as the op's
// verifier would (so errors name the user's line, not the program's), infer
// the result type, and record the node. Binary ops broadcast NumPy-style and
// turn numbers into splats of the other operand's dtype.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "shardc/Runtime/Plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>

namespace shardc {

using trace::fail;
using trace::Graph;
using trace::typeOf;

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

Tensor::Tensor() = default;

static const trace::Value &valueOf(const Tensor &t) {
  if (!t.graph())
    throw TraceError("use of an empty Tensor (not produced by a trace)");
  return t.graph()->values[t.id()];
}

DType Tensor::dtype() const { return valueOf(*this).dtype; }
const Shape &Tensor::shape() const { return valueOf(*this).shape; }
std::string Tensor::typeString() const { return typeOf(dtype(), shape()); }

int64_t Tensor::dim(int64_t d) const {
  int64_t r = rank();
  if (d < -r || d >= r)
    throw TraceError("dimension " + std::to_string(d) + " out of range for " + typeString());
  return shape()[d < 0 ? d + r : d];
}

namespace {

/// Checks that `t` belongs to the trace in progress and to the block being
/// traced; returns the graph.
Graph &graphOf(const Tensor &t, const CallSite &site, const char *op) {
  Graph *g = trace::activeGraph();
  if (!g)
    fail(site, op, "called outside a trace (run it inside Client::jit or traceToModule)");
  if (!t.graph())
    fail(site, op, "operand is an empty Tensor");
  if (t.graph() != g)
    fail(site, op, "operand " + t.typeString() + " belongs to another trace");
  if (g->values[t.id()].block != g->current())
    fail(site, op,
         g->insideShardMap() ? "operand " + t.typeString() +
                                   " is defined outside this shard_map body: pass it as an input"
                             : "operand " + t.typeString() + " is a value of a shard_map body");
  return *g;
}

Graph &activeOrFail(const CallSite &site, const char *op) {
  Graph *g = trace::activeGraph();
  if (!g)
    fail(site, op, "called outside a trace (run it inside Client::jit or traceToModule)");
  return *g;
}

Tensor record(Graph &g, const char *op, std::vector<int> operands, DType dtype, Shape shape,
              std::string properties, const CallSite &site) {
  int result = g.newValue(dtype, std::move(shape));
  g.blocks[g.current()].nodes.push_back(
      {op, std::move(operands), {result}, std::move(properties), site, -1});
  return Tensor(trace::activeGraphHandle(), result);
}

std::string i64Array(const std::vector<int64_t> &v) {
  std::string s = "array<i64";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : ": ") + std::to_string(v[i]);
  return s + ">";
}

std::string listString(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

int64_t normalizeDim(int64_t d, int64_t rank, const CallSite &site, const char *op) {
  if (d < -rank || d >= rank)
    fail(site, op,
         "dimension " + std::to_string(d) + " out of range for rank " + std::to_string(rank));
  return d < 0 ? d + rank : d;
}

std::string splatLiteral(DType dtype, double v) {
  char buf[64];
  if (!isFloat(dtype)) {
    if (dtype == DType::I1)
      return v != 0 ? "true" : "false";
    std::snprintf(buf, sizeof(buf), "%lld", (long long)v);
  } else if (std::isnan(v) || std::isinf(v)) {
    // Non-finite floats are written by their bits.
    if (dtype == DType::F64) {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      std::snprintf(buf, sizeof(buf), "0x%016llX", (unsigned long long)bits);
    } else if (dtype == DType::F32) {
      float f = (float)v;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      std::snprintf(buf, sizeof(buf), "0x%08X", bits);
    } else {
      uint16_t bits = dtype == DType::F16 ? floatToHalf((float)v) : floatToBF16((float)v);
      std::snprintf(buf, sizeof(buf), "0x%04X", bits);
    }
  } else {
    std::snprintf(buf, sizeof(buf), "%.17e", v);
  }
  return buf;
}

void checkShape(const Shape &shape, DType dtype, const CallSite &site, const char *op) {
  for (int64_t d : shape)
    if (d < 0)
      fail(site, op, "negative dimension in " + typeOf(dtype, shape));
}

Tensor splat(Graph &g, DType dtype, const Shape &shape, double v, const CallSite &site) {
  if (!isFloat(dtype)) {
    // A number given for an integer tensor must be one of its values.
    double lo = dtype == DType::I1    ? 0
                : dtype == DType::I32 ? -2147483648.0
                                      : -9223372036854775808.0;
    double hi = dtype == DType::I1 ? 1 : dtype == DType::I32 ? 2147483647.0 : 9223372036854775807.0;
    if (!std::isfinite(v) || v != std::trunc(v) || v < lo || v > hi) {
      char number[32];
      std::snprintf(number, sizeof(number), "%.17g", v);
      fail(site, "constant",
           std::string("the number ") + number + " is not a value of " + dtypeName(dtype));
    }
  }
  return record(g, "shardc.constant", {}, dtype, shape,
                "value = dense<" + splatLiteral(dtype, v) + "> : " + trace::mlirType(dtype, shape),
                site);
}

/// The NumPy broadcast of two shapes.
Shape broadcastShapes(const Shape &a, const Shape &b, const CallSite &site, const char *op,
                      const std::string &ta, const std::string &tb) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(site, op, "shapes " + ta + " and " + tb + " are not compatible for broadcasting");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Both operands as Tensors of one dtype and shape.
std::pair<Tensor, Tensor> coerce(const Operand &a, const Operand &b, const CallSite &site,
                                 const char *op) {
  if (a.isScalar && b.isScalar)
    fail(site, op, "needs at least one Tensor operand");
  Graph &g = graphOf(a.isScalar ? b.tensor : a.tensor, site, op);
  if (!a.isScalar)
    graphOf(a.tensor, site, op);
  if (!b.isScalar)
    graphOf(b.tensor, site, op);
  if (a.isScalar)
    return {splat(g, b.tensor.dtype(), b.tensor.shape(), a.scalar, site), b.tensor};
  if (b.isScalar)
    return {a.tensor, splat(g, a.tensor.dtype(), a.tensor.shape(), b.scalar, site)};
  Tensor x = a.tensor, y = b.tensor;
  if (x.dtype() != y.dtype())
    fail(site, op,
         "operand dtypes differ: " + x.typeString() + " and " + y.typeString() +
             " (convert one with astype)");
  if (x.shape() != y.shape()) {
    Shape s = broadcastShapes(x.shape(), y.shape(), site, op, x.typeString(), y.typeString());
    if (x.shape() != s)
      x = broadcast_to(x, s, site);
    if (y.shape() != s)
      y = broadcast_to(y, s, site);
  }
  return {x, y};
}

Tensor binary(const char *name, const char *op, const Operand &a, const Operand &b,
              const CallSite &site, bool floatOnly = false) {
  auto [x, y] = coerce(a, b, site, name);
  if (x.dtype() == DType::I1)
    fail(site, name, "is not defined on i1");
  if (floatOnly && !isFloat(x.dtype()))
    fail(site, name, "needs float operands, got " + x.typeString());
  return record(*x.graph(), op, {x.id(), y.id()}, x.dtype(), x.shape(), "", site);
}

Tensor unary(const char *name, const char *op, const Tensor &x, const CallSite &site,
             bool floatOnly) {
  Graph &g = graphOf(x, site, name);
  if (floatOnly && !isFloat(x.dtype()))
    fail(site, name, "needs a float operand, got " + x.typeString());
  if (x.dtype() == DType::I1)
    fail(site, name, "is not defined on i1");
  return record(g, op, {x.id()}, x.dtype(), x.shape(), "", site);
}

Tensor compare(const char *direction, const Operand &a, const Operand &b, const CallSite &site) {
  auto [x, y] = coerce(a, b, site, "compare");
  if (x.dtype() == DType::I1)
    fail(site, "compare", "is not defined on i1 (use where or astype)");
  return record(*x.graph(), "shardc.compare", {x.id(), y.id()}, DType::I1, x.shape(),
                std::string("direction = #shardc<compare_direction ") + direction + ">", site);
}

Tensor reduce(const char *kind, const char *name, const Tensor &x, std::vector<int64_t> dims,
              bool keepdims, const CallSite &site) {
  Graph &g = graphOf(x, site, name);
  if (x.dtype() == DType::I1)
    fail(site, name, "is not defined on i1");
  if (dims.empty()) {
    dims.resize(x.rank());
    std::iota(dims.begin(), dims.end(), 0);
  }
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t &d : dims) {
    d = normalizeDim(d, x.rank(), site, name);
    if (reduced[d])
      fail(site, name, "dimension " + std::to_string(d) + " listed twice");
    if (x.shape()[d] == 0)
      fail(site, name,
           "reduces dimension " + std::to_string(d) + " of " + x.typeString() + ", which is empty");
    reduced[d] = true;
  }
  Shape out, kept;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!reduced[i])
      out.push_back(x.shape()[i]);
    kept.push_back(reduced[i] ? 1 : x.shape()[i]);
  }
  Tensor r =
      dims.empty()
          ? x
          : record(g, "shardc.reduce", {x.id()}, x.dtype(), out,
                   "dims = " + i64Array(dims) + ", kind = #shardc<reduce_kind " + kind + ">", site);
  return keepdims ? reshape(r, kept, site) : r;
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Tensor add(Operand a, Operand b, CallSite s) { return binary("add", "shardc.add", a, b, s); }
Tensor sub(Operand a, Operand b, CallSite s) { return binary("sub", "shardc.sub", a, b, s); }
Tensor mul(Operand a, Operand b, CallSite s) { return binary("mul", "shardc.mul", a, b, s); }
Tensor div(Operand a, Operand b, CallSite s) { return binary("div", "shardc.div", a, b, s); }
Tensor maximum(Operand a, Operand b, CallSite s) {
  return binary("maximum", "shardc.max", a, b, s);
}
Tensor minimum(Operand a, Operand b, CallSite s) {
  return binary("minimum", "shardc.min", a, b, s);
}
Tensor pow(Operand a, Operand b, CallSite s) {
  return binary("pow", "shardc.pow", a, b, s, /*floatOnly=*/true);
}

Tensor operator+(const Tensor &a, Operand b) { return add(a, b, b.site); }
Tensor operator-(const Tensor &a, Operand b) { return sub(a, b, b.site); }
Tensor operator*(const Tensor &a, Operand b) { return mul(a, b, b.site); }
Tensor operator/(const Tensor &a, Operand b) { return div(a, b, b.site); }
Tensor operator+(double a, Operand b) { return add(Operand(a, b.site), b, b.site); }
Tensor operator-(double a, Operand b) { return sub(Operand(a, b.site), b, b.site); }
Tensor operator*(double a, Operand b) { return mul(Operand(a, b.site), b, b.site); }
Tensor operator/(double a, Operand b) { return div(Operand(a, b.site), b, b.site); }
Tensor operator-(Operand a) {
  if (a.isScalar)
    fail(a.site, "neg", "needs a Tensor operand");
  return neg(a.tensor, a.site);
}

#define SHARDC_UNARY(Name, name, number, types, ...)                                               \
  Tensor name(const Tensor &x, CallSite s) {                                                       \
    bool floatOnly = !acceptsIntegers(OpCode::Name);                                               \
    return unary(#name, "shardc." #name, x, s, floatOnly);                                         \
  }
#include "shardc/Common/OpCodes.def"

Tensor equal(Operand a, Operand b, CallSite s) { return compare("eq", a, b, s); }
Tensor not_equal(Operand a, Operand b, CallSite s) { return compare("ne", a, b, s); }
Tensor less(Operand a, Operand b, CallSite s) { return compare("lt", a, b, s); }
Tensor less_equal(Operand a, Operand b, CallSite s) { return compare("le", a, b, s); }
Tensor greater(Operand a, Operand b, CallSite s) { return compare("gt", a, b, s); }
Tensor greater_equal(Operand a, Operand b, CallSite s) { return compare("ge", a, b, s); }

Tensor where(const Tensor &pred, Operand a, Operand b, CallSite site) {
  Graph &g = graphOf(pred, site, "where");
  if (pred.dtype() != DType::I1)
    fail(site, "where", "the predicate must be i1, got " + pred.typeString());
  auto [x, y] = coerce(a, b, site, "where");
  Tensor p = pred;
  Shape s = broadcastShapes(p.shape(), x.shape(), site, "where", p.typeString(), x.typeString());
  if (p.shape() != s)
    p = broadcast_to(p, s, site);
  if (x.shape() != s) {
    x = broadcast_to(x, s, site);
    y = broadcast_to(y, s, site);
  }
  return record(g, "shardc.select", {p.id(), x.id(), y.id()}, x.dtype(), s, "", site);
}

Tensor stop_gradient(const Tensor &x, CallSite site) {
  Graph &g = graphOf(x, site, "stop_gradient");
  return record(g, "shardc.stop_gradient", {x.id()}, x.dtype(), x.shape(), "", site);
}

Tensor astype(const Tensor &x, DType dtype, CallSite site) {
  Graph &g = graphOf(x, site, "astype");
  if (x.dtype() == dtype)
    return x;
  return record(g, "shardc.convert", {x.id()}, dtype, x.shape(), "", site);
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

Tensor full(const Shape &shape, double value, DType dtype, CallSite site) {
  Graph &g = activeOrFail(site, "full");
  checkShape(shape, dtype, site, "full");
  return splat(g, dtype, shape, value, site);
}

Tensor zeros_like(const Tensor &x, CallSite site) { return full_like(x, 0.0, site); }

Tensor full_like(const Tensor &x, double value, CallSite site) {
  Graph &g = graphOf(x, site, "full_like");
  return splat(g, x.dtype(), x.shape(), value, site);
}

Tensor iota(const Shape &shape, int64_t dim, DType dtype, CallSite site) {
  Graph &g = activeOrFail(site, "iota");
  if (dtype == DType::I1)
    fail(site, "iota", "is not defined on i1");
  checkShape(shape, dtype, site, "iota");
  dim = normalizeDim(dim, (int64_t)shape.size(), site, "iota");
  return record(g, "shardc.iota", {}, dtype, shape, "dim = " + std::to_string(dim) + " : i64",
                site);
}

Tensor constant(const Array &value, CallSite site) {
  Graph &g = activeOrFail(site, "constant");
  std::string literal;
  if (value.dtype() == DType::I1) {
    literal = "[";
    for (int64_t i = 0; i < value.numElements(); ++i)
      literal += (i ? ", " : "") + std::string(value.getInt(i) ? "true" : "false");
    literal += "]";
    if (value.rank() != 1) // nested lists would be needed: go through a reshape
      return reshape(
          constant(Array::fromInts(DType::I1, {value.numElements()}, value.toInts()), site),
          value.shape(), site);
  } else {
    // The raw little-endian bytes, exact for every dtype.
    static const char *hex = "0123456789ABCDEF";
    literal = "\"0x";
    for (size_t i = 0; i < value.sizeInBytes(); ++i) {
      literal += hex[value.bytes()[i] >> 4];
      literal += hex[value.bytes()[i] & 15];
    }
    literal += "\"";
  }
  if (value.numElements() == 0)
    return splat(g, value.dtype(), value.shape(), 0, site);
  return record(g, "shardc.constant", {}, value.dtype(), value.shape(),
                "value = dense<" + literal + "> : " + trace::mlirType(value.dtype(), value.shape()),
                site);
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

namespace {

Tensor dotGeneral(const Tensor &lhs, const Tensor &rhs, const DotDims &dimsIn,
                  std::optional<MatmulPrecision> precision, const CallSite &site) {
  const char *op = "dot_general";
  Graph &g = graphOf(lhs, site, op);
  graphOf(rhs, site, op);
  if (precision == MatmulPrecision::BF16) {
    for (const Tensor *t : {&lhs, &rhs})
      if (t->dtype() != DType::F32 && t->dtype() != DType::BF16)
        fail(site, op, "at bf16 precision needs f32 or bf16 operands, got " + t->typeString());
  } else if (precision) {
    if (lhs.dtype() != DType::F32 || rhs.dtype() != DType::F32)
      fail(site, op,
           std::string("at ") + matmulPrecisionName(*precision) +
               " precision needs f32 operands, got " + lhs.typeString() + " and " +
               rhs.typeString());
  } else if (lhs.dtype() != rhs.dtype() || !isFloat(lhs.dtype())) {
    fail(site, op,
         "needs float operands of one dtype, got " + lhs.typeString() + " and " + rhs.typeString());
  }
  DotDims d = dimsIn;
  if (d.lhsBatching.size() != d.rhsBatching.size() ||
      d.lhsContracting.size() != d.rhsContracting.size())
    fail(site, op, "lhs and rhs list different numbers of batching or contracting dims");
  std::vector<bool> lhsUsed(lhs.rank()), rhsUsed(rhs.rank());
  auto claim = [&](std::vector<int64_t> &dims, const Tensor &t, std::vector<bool> &used,
                   const char *side) {
    for (int64_t &x : dims) {
      x = normalizeDim(x, t.rank(), site, op);
      if (used[x])
        fail(site, op, std::string(side) + " dimension " + std::to_string(x) + " is listed twice");
      used[x] = true;
    }
  };
  claim(d.lhsBatching, lhs, lhsUsed, "lhs");
  claim(d.lhsContracting, lhs, lhsUsed, "lhs");
  claim(d.rhsBatching, rhs, rhsUsed, "rhs");
  claim(d.rhsContracting, rhs, rhsUsed, "rhs");
  Shape out;
  for (size_t i = 0; i < d.lhsBatching.size(); ++i) {
    int64_t a = lhs.shape()[d.lhsBatching[i]], b = rhs.shape()[d.rhsBatching[i]];
    if (a != b)
      fail(site, op,
           "batch dimensions differ: " + lhs.typeString() + " dim " +
               std::to_string(d.lhsBatching[i]) + " vs " + rhs.typeString() + " dim " +
               std::to_string(d.rhsBatching[i]));
    out.push_back(a);
  }
  for (size_t i = 0; i < d.lhsContracting.size(); ++i)
    if (lhs.shape()[d.lhsContracting[i]] != rhs.shape()[d.rhsContracting[i]])
      fail(site, op,
           "contracting dimensions differ: " + lhs.typeString() + " dim " +
               std::to_string(d.lhsContracting[i]) + " vs " + rhs.typeString() + " dim " +
               std::to_string(d.rhsContracting[i]));
  for (int64_t i = 0; i < lhs.rank(); ++i)
    if (!lhsUsed[i])
      out.push_back(lhs.shape()[i]);
  for (int64_t i = 0; i < rhs.rank(); ++i)
    if (!rhsUsed[i])
      out.push_back(rhs.shape()[i]);
  std::string properties = "lhs_batching_dims = " + i64Array(d.lhsBatching) +
                           ", lhs_contracting_dims = " + i64Array(d.lhsContracting) +
                           ", rhs_batching_dims = " + i64Array(d.rhsBatching) +
                           ", rhs_contracting_dims = " + i64Array(d.rhsContracting);
  if (precision)
    properties += std::string(", precision = \"") + matmulPrecisionName(*precision) + "\"";
  return record(g, "shardc.dot_general", {lhs.id(), rhs.id()}, precision ? DType::F32 : lhs.dtype(),
                out, properties, site);
}

} // namespace

Tensor dot_general(const Tensor &lhs, const Tensor &rhs, const DotDims &dims, CallSite site) {
  return dotGeneral(lhs, rhs, dims, std::nullopt, site);
}

Tensor dot_general(const Tensor &lhs, const Tensor &rhs, const DotDims &dims,
                   MatmulPrecision precision, CallSite site) {
  return dotGeneral(lhs, rhs, dims, precision, site);
}

Tensor matmul(const Tensor &a, const Tensor &b, CallSite site) {
  graphOf(a, site, "matmul");
  graphOf(b, site, "matmul");
  if (a.rank() < 2 || b.rank() < 2)
    fail(site, "matmul",
         "needs operands of rank >= 2, got " + a.typeString() + " x " + b.typeString());
  if (a.dim(-1) != b.dim(-2))
    fail(site, "matmul", "inner dimensions differ: " + a.typeString() + " x " + b.typeString());
  // [..., k] x [k, n]: one product over every leading row.
  if (b.rank() == 2)
    return dot_general(a, b, {{}, {}, {a.rank() - 1}, {0}}, site);
  // Leading dimensions are batch dimensions, broadcast as in NumPy.
  Shape aBatch(a.shape().begin(), a.shape().end() - 2);
  Shape bBatch(b.shape().begin(), b.shape().end() - 2);
  Shape batch = broadcastShapes(aBatch, bBatch, site, "matmul", a.typeString(), b.typeString());
  auto lift = [&](const Tensor &x) {
    Shape want = batch;
    want.push_back(x.dim(-2));
    want.push_back(x.dim(-1));
    return x.shape() == want ? x : broadcast_to(x, want, site);
  };
  Tensor x = lift(a), y = lift(b);
  int64_t nb = (int64_t)batch.size();
  std::vector<int64_t> batchDims(nb);
  for (int64_t i = 0; i < nb; ++i)
    batchDims[i] = i;
  return dot_general(x, y, {batchDims, batchDims, {nb + 1}, {nb}}, site);
}

Tensor sum(const Tensor &x, std::vector<int64_t> dims, bool keepdims, CallSite site) {
  return reduce("sum", "sum", x, std::move(dims), keepdims, site);
}
Tensor max(const Tensor &x, std::vector<int64_t> dims, bool keepdims, CallSite site) {
  return reduce("max", "max", x, std::move(dims), keepdims, site);
}
Tensor min(const Tensor &x, std::vector<int64_t> dims, bool keepdims, CallSite site) {
  return reduce("min", "min", x, std::move(dims), keepdims, site);
}
Tensor argmax(const Tensor &x, int64_t dim, CallSite site) {
  Graph &g = graphOf(x, site, "argmax");
  if (!isFloat(x.dtype()))
    fail(site, "argmax", "takes floating-point values, not " + x.typeString());
  dim = normalizeDim(dim, x.rank(), site, "argmax");
  if (x.shape()[dim] == 0)
    fail(site, "argmax",
         "dimension " + std::to_string(dim) + " of " + x.typeString() + " is empty");
  Shape out = x.shape();
  out.erase(out.begin() + dim);
  return record(g, "shardc.argmax", {x.id()}, DType::I32, out,
                "dim = " + std::to_string(dim) + " : i64", site);
}
Tensor mean(const Tensor &x, std::vector<int64_t> dims, bool keepdims, CallSite site) {
  graphOf(x, site, "mean");
  if (!isFloat(x.dtype()))
    fail(site, "mean", "needs a float operand, got " + x.typeString());
  Tensor s = sum(x, dims, keepdims, site);
  int64_t count =
      std::max<int64_t>(1, numElements(x.shape()) / std::max<int64_t>(1, numElements(s.shape())));
  if (numElements(s.shape()) == 0)
    count = 1;
  return div(s, (double)count, site);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Tensor broadcast_in_dim(const Tensor &x, const Shape &shape, std::vector<int64_t> dims,
                        CallSite site) {
  Graph &g = graphOf(x, site, "broadcast_in_dim");
  checkShape(shape, x.dtype(), site, "broadcast_in_dim");
  if ((int64_t)dims.size() != x.rank())
    fail(site, "broadcast_in_dim",
         "needs one result dimension per operand dimension (" + std::to_string(x.rank()) +
             "), got " + listString(dims));
  for (size_t i = 0; i < dims.size(); ++i) {
    dims[i] = normalizeDim(dims[i], (int64_t)shape.size(), site, "broadcast_in_dim");
    if (i && dims[i] <= dims[i - 1])
      fail(site, "broadcast_in_dim", "dims must increase, got " + listString(dims));
    int64_t n = x.shape()[i];
    if (n != 1 && n != shape[dims[i]])
      fail(site, "broadcast_in_dim",
           "cannot broadcast " + x.typeString() + " to " + typeOf(x.dtype(), shape) +
               " along dims " + listString(dims));
  }
  if (x.shape() == shape)
    return x;
  return record(g, "shardc.broadcast_in_dim", {x.id()}, x.dtype(), shape,
                "dims = " + i64Array(dims), site);
}

Tensor broadcast_to(const Tensor &x, const Shape &shape, CallSite site) {
  graphOf(x, site, "broadcast_to");
  if (x.rank() > (int64_t)shape.size())
    fail(site, "broadcast_to",
         "cannot broadcast " + x.typeString() + " to lower rank " + typeOf(x.dtype(), shape));
  int64_t offset = (int64_t)shape.size() - x.rank();
  std::vector<int64_t> dims(x.rank());
  std::iota(dims.begin(), dims.end(), offset);
  for (int64_t i = 0; i < x.rank(); ++i)
    if (x.shape()[i] != 1 && x.shape()[i] != shape[i + offset])
      fail(site, "broadcast_to",
           "cannot broadcast " + x.typeString() + " to " + typeOf(x.dtype(), shape));
  // Size-1 dimensions that grow are reshaped away first, so the broadcast
  // names only the dimensions it keeps (the form the fuser loads directly).
  Shape kept;
  std::vector<int64_t> keptDims;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!(x.shape()[i] == 1 && shape[i + offset] != 1)) {
      kept.push_back(x.shape()[i]);
      keptDims.push_back(dims[i]);
    }
  if ((int64_t)kept.size() == x.rank())
    return broadcast_in_dim(x, shape, dims, site);
  return broadcast_in_dim(reshape(x, kept, site), shape, keptDims, site);
}

Tensor reshape(const Tensor &x, Shape shape, CallSite site) {
  Graph &g = graphOf(x, site, "reshape");
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        fail(site, "reshape", "only one dimension may be -1");
      inferred = (int64_t)i;
    } else if (shape[i] < 0) {
      fail(site, "reshape", "negative dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  int64_t n = numElements(x.shape());
  if (inferred >= 0) {
    if (known == 0 || n % known)
      fail(site, "reshape", "cannot infer the -1 dimension reshaping " + x.typeString());
    shape[inferred] = n / known;
    known = n;
  }
  if (known != n)
    fail(site, "reshape",
         "cannot reshape " + x.typeString() + " (" + std::to_string(n) + " elements) to " +
             typeOf(x.dtype(), shape));
  if (shape == x.shape())
    return x;
  return record(g, "shardc.reshape", {x.id()}, x.dtype(), shape, "", site);
}

Tensor transpose(const Tensor &x, std::vector<int64_t> perm, CallSite site) {
  Graph &g = graphOf(x, site, "transpose");
  if ((int64_t)perm.size() != x.rank())
    fail(site, "transpose",
         "permutation " + listString(perm) + " does not match " + x.typeString());
  std::vector<bool> seen(x.rank());
  Shape out;
  for (int64_t &p : perm) {
    p = normalizeDim(p, x.rank(), site, "transpose");
    if (seen[p])
      fail(site, "transpose", listString(perm) + " is not a permutation");
    seen[p] = true;
    out.push_back(x.shape()[p]);
  }
  return record(g, "shardc.transpose", {x.id()}, x.dtype(), out, "permutation = " + i64Array(perm),
                site);
}

Tensor slice(const Tensor &x, std::vector<int64_t> start, std::vector<int64_t> limit,
             std::vector<int64_t> strides, CallSite site) {
  Graph &g = graphOf(x, site, "slice");
  if (strides.empty())
    strides.assign(x.rank(), 1);
  if ((int64_t)start.size() != x.rank() || (int64_t)limit.size() != x.rank() ||
      (int64_t)strides.size() != x.rank())
    fail(site, "slice",
         "needs start, limit and strides of rank " + std::to_string(x.rank()) + " for " +
             x.typeString());
  Shape out;
  for (int64_t i = 0; i < x.rank(); ++i) {
    // Negative bounds count from the end, as in NumPy.
    if (start[i] < 0)
      start[i] += x.shape()[i];
    if (limit[i] < 0)
      limit[i] += x.shape()[i];
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > x.shape()[i] || strides[i] < 1)
      fail(site, "slice",
           "bounds " + listString(start) + ".." + listString(limit) + " step " +
               listString(strides) + " do not fit " + x.typeString());
    out.push_back((limit[i] - start[i] + strides[i] - 1) / strides[i]);
  }
  return record(g, "shardc.slice", {x.id()}, x.dtype(), out,
                "limit = " + i64Array(limit) + ", start = " + i64Array(start) +
                    ", strides = " + i64Array(strides),
                site);
}

Tensor concatenate(const std::vector<Tensor> &xs, int64_t dim, CallSite site) {
  if (xs.empty())
    fail(site, "concatenate", "needs at least one operand");
  Graph &g = graphOf(xs[0], site, "concatenate");
  dim = normalizeDim(dim, xs[0].rank(), site, "concatenate");
  Shape out = xs[0].shape();
  out[dim] = 0;
  std::vector<int> ids;
  for (const Tensor &x : xs) {
    graphOf(x, site, "concatenate");
    Shape a = x.shape(), b = xs[0].shape();
    if (x.dtype() != xs[0].dtype() || a.size() != b.size())
      fail(site, "concatenate",
           "operands " + xs[0].typeString() + " and " + x.typeString() +
               " differ in dtype or rank");
    out[dim] += a[dim];
    a[dim] = b[dim] = 0;
    if (a != b)
      fail(site, "concatenate",
           "operands " + xs[0].typeString() + " and " + x.typeString() +
               " differ outside dimension " + std::to_string(dim));
    ids.push_back(x.id());
  }
  return record(g, "shardc.concatenate", ids, xs[0].dtype(), out,
                "dim = " + std::to_string(dim) + " : i64", site);
}

/// The start indices of a dynamic box into `x`: one integer scalar per
/// dimension, all of one dtype; returns their ids.
static std::vector<int> startIndices(Graph &g, const Tensor &x, const std::vector<Tensor> &start,
                                     CallSite site, const char *op) {
  if ((int64_t)start.size() != x.rank())
    fail(site, op,
         "needs " + std::to_string(x.rank()) + " start indices for " + x.typeString() + ", got " +
             std::to_string(start.size()));
  std::vector<int> ids;
  for (const Tensor &i : start) {
    graphOf(i, site, op);
    if (i.rank() != 0 || (i.dtype() != DType::I32 && i.dtype() != DType::I64) ||
        i.dtype() != start[0].dtype())
      fail(site, op,
           "start indices must be i32 or i64 scalars of one dtype, got " + i.typeString());
    ids.push_back(i.id());
  }
  return ids;
}

Tensor dynamic_slice(const Tensor &x, const std::vector<Tensor> &start, Shape sizes,
                     CallSite site) {
  Graph &g = graphOf(x, site, "dynamic_slice");
  std::vector<int> ids = startIndices(g, x, start, site, "dynamic_slice");
  if ((int64_t)sizes.size() != x.rank())
    fail(site, "dynamic_slice", "sizes " + listString(sizes) + " do not match " + x.typeString());
  for (int64_t d = 0; d < x.rank(); ++d)
    if (sizes[d] < 0 || sizes[d] > x.shape()[d])
      fail(site, "dynamic_slice", "sizes " + listString(sizes) + " do not fit " + x.typeString());
  ids.insert(ids.begin(), x.id());
  return record(g, "shardc.dynamic_slice", ids, x.dtype(), sizes, "", site);
}

Tensor dynamic_update_slice(const Tensor &x, const Tensor &update, const std::vector<Tensor> &start,
                            CallSite site) {
  Graph &g = graphOf(x, site, "dynamic_update_slice");
  graphOf(update, site, "dynamic_update_slice");
  std::vector<int> ids = startIndices(g, x, start, site, "dynamic_update_slice");
  bool fits = update.dtype() == x.dtype() && update.rank() == x.rank();
  for (int64_t d = 0; fits && d < x.rank(); ++d)
    fits = update.shape()[d] <= x.shape()[d];
  if (!fits)
    fail(site, "dynamic_update_slice",
         "the update " + update.typeString() + " does not fit " + x.typeString());
  ids.insert(ids.begin(), {x.id(), update.id()});
  return record(g, "shardc.dynamic_update_slice", ids, x.dtype(), x.shape(), "", site);
}

Tensor take(const Tensor &table, const Tensor &indices, CallSite site) {
  Graph &g = graphOf(table, site, "take");
  graphOf(indices, site, "take");
  if (table.rank() < 1)
    fail(site, "take", "needs a table of rank >= 1, got " + table.typeString());
  if (indices.dtype() != DType::I32 && indices.dtype() != DType::I64)
    fail(site, "take", "indices must be i32 or i64, got " + indices.typeString());
  Shape out = indices.shape();
  out.insert(out.end(), table.shape().begin() + 1, table.shape().end());
  return record(g, "shardc.take", {table.id(), indices.id()}, table.dtype(), out, "", site);
}

/// The properties of an attention op: its causal flag and scale, every
/// digit of the scale kept.
static std::string attentionProperties(bool causal, double scale) {
  char text[96];
  std::snprintf(text, sizeof text, "causal = %s, scale = %.17e : f64", causal ? "true" : "false",
                scale);
  return text;
}

Tensor qkv_attention(const Tensor &qkv, bool causal, double scale, CallSite site) {
  Graph &g = graphOf(qkv, site, "qkv_attention");
  if ((qkv.dtype() != DType::F32 && qkv.dtype() != DType::F64) || qkv.rank() != 5 ||
      qkv.shape()[2] != 3)
    fail(site, "qkv_attention",
         "qkv must be [B, T, 3, N, H] of f32 or f64 (queries, keys and values along dimension "
         "2), got " +
             qkv.typeString());
  if (!std::isfinite(scale) || scale <= 0)
    fail(site, "qkv_attention", "scale must be positive and finite, got " + std::to_string(scale));
  const Shape &s = qkv.shape();
  return record(g, "shardc.qkv_attention", {qkv.id()}, qkv.dtype(), {s[0], s[1], s[3], s[4]},
                attentionProperties(causal, scale), site);
}

Tensor dot_product_attention(const Tensor &q, const Tensor &k, const Tensor &v, double scale,
                             bool causal, const Tensor &kvLengths, CallSite site) {
  const char *op = "dot_product_attention";
  Graph &g = graphOf(q, site, op);
  graphOf(k, site, op);
  graphOf(v, site, op);
  if ((q.dtype() != DType::F32 && q.dtype() != DType::F64) || q.rank() != 4)
    fail(site, op, "q must be [B, T, N, H] of f32 or f64, got " + q.typeString());
  const Shape &qs = q.shape(), &ks = k.shape();
  if (k.dtype() != q.dtype() || k.rank() != 4 || ks[0] != qs[0] || ks[2] != qs[2] || ks[3] != qs[3])
    fail(site, op,
         "k must be [B, S, N, H] with q's B, N, H and dtype, got " + k.typeString() + " for q " +
             q.typeString());
  if (v.dtype() != k.dtype() || v.shape() != ks)
    fail(site, op, "v must be " + k.typeString() + ", got " + v.typeString());
  if (!std::isfinite(scale) || scale <= 0)
    fail(site, op, "scale must be positive and finite, got " + std::to_string(scale));
  std::vector<int> operands{q.id(), k.id(), v.id()};
  if (kvLengths.graph()) {
    graphOf(kvLengths, site, op);
    if (kvLengths.dtype() != DType::I32 || kvLengths.shape() != Shape{qs[0]})
      fail(site, op,
           "kv_lengths must be i32[" + std::to_string(qs[0]) + "], got " + kvLengths.typeString());
    operands.push_back(kvLengths.id());
  }
  return record(g, "shardc.attention", operands, q.dtype(), qs, attentionProperties(causal, scale),
                site);
}

Tensor scatter_add(const Tensor &table, const Tensor &indices, const Tensor &updates,
                   CallSite site) {
  Graph &g = graphOf(table, site, "scatter_add");
  graphOf(indices, site, "scatter_add");
  graphOf(updates, site, "scatter_add");
  if (indices.dtype() != DType::I32 && indices.dtype() != DType::I64)
    fail(site, "scatter_add", "indices must be i32 or i64, got " + indices.typeString());
  if (table.dtype() == DType::I1)
    fail(site, "scatter_add", "is not defined on i1");
  Shape want = indices.shape();
  if (table.rank() >= 1)
    want.insert(want.end(), table.shape().begin() + 1, table.shape().end());
  if (table.rank() < 1 || updates.shape() != want || updates.dtype() != table.dtype())
    fail(site, "scatter_add",
         "updates must be " + typeOf(table.dtype(), want) + " for table " + table.typeString() +
             " and indices " + indices.typeString() + ", got " + updates.typeString());
  return record(g, "shardc.scatter_add", {table.id(), indices.id(), updates.id()}, table.dtype(),
                table.shape(), "", site);
}

Tensor with_sharding_constraint(const Tensor &x, const PartitionSpec &spec, CallSite site) {
  Graph &g = graphOf(x, site, "with_sharding_constraint");
  if (g.insideShardMap())
    fail(site, "with_sharding_constraint", "is not available inside shard_map");
  if (g.mesh.axisNames.empty())
    fail(site, "with_sharding_constraint", "needs a mesh: shard the arguments or give jit a mesh");
  Status valid = NamedSharding{g.mesh, spec}.validate(x.shape());
  if (!valid.ok())
    fail(site, "with_sharding_constraint", valid.message());
  return record(g, "shardc.sharding_constraint", {x.id()}, x.dtype(), x.shape(),
                "sharding = " + trace::shardingAttr(spec), site);
}

} // namespace shardc
