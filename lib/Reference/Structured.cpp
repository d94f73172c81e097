//===- Structured.cpp - reference contractions, reductions, data movement -===//

#include "shardc/Reference/Kernels.h"

#include <algorithm>

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace shardc::ref {

/// Calls fn(index, linear) for every index of `shape` in row-major order.
template <typename Fn> static void forEachIndex(const Shape &shape, Fn fn) {
  int64_t n = numElements(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(idx, i);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

static int64_t linearize(const std::vector<int64_t> &idx, const std::vector<int64_t> &strides) {
  int64_t l = 0;
  for (size_t d = 0; d < idx.size(); ++d)
    l += idx[d] * strides[d];
  return l;
}

/// Copies element `from` of `src` to element `to` of `dst` (same dtype).
static void copyElement(const Array &src, int64_t from, Array &dst, int64_t to) {
  size_t es = dtypeSize(src.dtype());
  std::memcpy(dst.bytes() + to * es, src.bytes() + from * es, es);
}

Array transpose(const Array &x, const Dims &perm) {
  Shape shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    shape[i] = x.shape()[perm[i]];
  Array out(x.dtype(), shape);
  std::vector<int64_t> inStrides = stridesOf(x.shape());
  forEachIndex(shape, [&](const std::vector<int64_t> &idx, int64_t i) {
    int64_t from = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      from += idx[d] * inStrides[perm[d]];
    copyElement(x, from, out, i);
  });
  return out;
}

/// out[b, m, n] = sum_k a[b, m, k] * c[b, k, n] over packed row-major
/// operands, accumulated in Acc and handed to `store` by linear index.
template <typename Acc, typename T, typename Store>
static void batchedMatmul(const std::vector<T> &a, const std::vector<T> &c, int64_t B, int64_t M,
                          int64_t N, int64_t K, Store store) {
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        Acc acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (Acc)a[(bi * M + m) * K + k] * (Acc)c[(bi * K + k) * N + n];
        store((bi * M + m) * N + n, acc);
      }
}

Array dotGeneral(const Array &lhs, const Array &rhs, const DotDims &dims) {
  // Permute lhs to (batch, free, contracting) and rhs to (batch, contracting,
  // free); then it is a batch of plain matrix products in row-major order.
  auto isIn = [](const Dims &v, int64_t d) {
    for (int64_t x : v)
      if (x == d)
        return true;
    return false;
  };
  Dims lhsFree, rhsFree;
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!isIn(dims.lhsBatching, d) && !isIn(dims.lhsContracting, d))
      lhsFree.push_back(d);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!isIn(dims.rhsBatching, d) && !isIn(dims.rhsContracting, d))
      rhsFree.push_back(d);
  Dims lperm = dims.lhsBatching, rperm = dims.rhsBatching;
  lperm.insert(lperm.end(), lhsFree.begin(), lhsFree.end());
  lperm.insert(lperm.end(), dims.lhsContracting.begin(), dims.lhsContracting.end());
  rperm.insert(rperm.end(), dims.rhsContracting.begin(), dims.rhsContracting.end());
  rperm.insert(rperm.end(), rhsFree.begin(), rhsFree.end());

  int64_t B = 1, M = 1, N = 1, K = 1;
  Shape shape;
  for (int64_t d : dims.lhsBatching) {
    B *= lhs.shape()[d];
    shape.push_back(lhs.shape()[d]);
  }
  for (int64_t d : lhsFree) {
    M *= lhs.shape()[d];
    shape.push_back(lhs.shape()[d]);
  }
  for (int64_t d : rhsFree) {
    N *= rhs.shape()[d];
    shape.push_back(rhs.shape()[d]);
  }
  for (int64_t d : dims.lhsContracting)
    K *= lhs.shape()[d];

  // A rounding precision yields f32, from f32 operands or (bf16) operands
  // rounded already.
  Array out(dims.precision != MatmulPrecision::F32 ? DType::F32 : lhs.dtype(), shape);
  Array l = transpose(lhs, lperm), r = transpose(rhs, rperm);
  if (isFloat(lhs.dtype())) {
    std::vector<double> ld = l.toDoubles(), rd = r.toDoubles();
    if (dims.precision != MatmulPrecision::F32)
      for (std::vector<double> *v : {&ld, &rd})
        for (double &x : *v)
          x = dims.precision == MatmulPrecision::BF16 ? bf16ToFloat(floatToBF16((float)x))
                                                      : roundToTF32((float)x);
    batchedMatmul<double>(ld, rd, B, M, N, K, [&](int64_t i, double v) { out.setDouble(i, v); });
  } else // integers wrap around, as in two's complement
    batchedMatmul<uint64_t>(l.toInts(), r.toInts(), B, M, N, K,
                            [&](int64_t i, uint64_t v) { out.setInt(i, (int64_t)v); });
  return out;
}

Array reduce(Reduction kind, const Array &x, const Dims &dims) {
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t d : dims)
    reduced[d] = true;
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!reduced[d])
      shape.push_back(x.shape()[d]);
  int64_t outN = numElements(shape);
  int64_t count = x.numElements() / (outN ? outN : 1);
  std::vector<int64_t> outStrides = stridesOf(shape);
  auto outIndex = [&](const std::vector<int64_t> &idx) {
    int64_t o = 0, k = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (!reduced[d])
        o += idx[d] * outStrides[k++];
    return o;
  };
  Array out(x.dtype(), shape);
  if (isFloat(x.dtype())) {
    double init = kind == Reduction::Max ? -INFINITY : kind == Reduction::Min ? INFINITY : 0.0;
    std::vector<double> acc(outN, init);
    forEachIndex(x.shape(), [&](const std::vector<int64_t> &idx, int64_t i) {
      double v = x.getDouble(i);
      double &a = acc[outIndex(idx)];
      if (kind == Reduction::Sum || kind == Reduction::Mean)
        a += v;
      else if (std::isnan(v) || std::isnan(a))
        a = NAN;
      else
        a = kind == Reduction::Max ? std::max(a, v) : std::min(a, v);
    });
    for (int64_t o = 0; o < outN; ++o)
      out.setDouble(o, kind == Reduction::Mean ? acc[o] / count : acc[o]);
  } else {
    int64_t init = kind == Reduction::Max   ? std::numeric_limits<int64_t>::min()
                   : kind == Reduction::Min ? std::numeric_limits<int64_t>::max()
                                            : 0;
    std::vector<int64_t> acc(outN, init);
    forEachIndex(x.shape(), [&](const std::vector<int64_t> &idx, int64_t i) {
      int64_t v = x.getInt(i);
      int64_t &a = acc[outIndex(idx)];
      if (kind == Reduction::Sum || kind == Reduction::Mean)
        a = (int64_t)((uint64_t)a + (uint64_t)v);
      else
        a = kind == Reduction::Max ? std::max(a, v) : std::min(a, v);
    });
    for (int64_t o = 0; o < outN; ++o)
      out.setInt(o, kind == Reduction::Mean ? acc[o] / count : acc[o]);
  }
  return out;
}

Array broadcastInDim(const Array &x, const Shape &resultShape, const Dims &dims) {
  Array out(x.dtype(), resultShape);
  std::vector<int64_t> inStrides = stridesOf(x.shape());
  forEachIndex(resultShape, [&](const std::vector<int64_t> &idx, int64_t i) {
    int64_t from = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      if (x.shape()[d] != 1)
        from += idx[dims[d]] * inStrides[d];
    copyElement(x, from, out, i);
  });
  return out;
}

Array reshape(const Array &x, const Shape &shape) {
  Array out(x.dtype(), shape);
  if (x.sizeInBytes()) // an empty array may have no buffer at all
    std::memcpy(out.bytes(), x.bytes(), x.sizeInBytes());
  return out;
}

Array slice(const Array &x, const Dims &start, const Dims &limit, const Dims &strides) {
  Shape shape(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d)
    shape[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d];
  Array out(x.dtype(), shape);
  std::vector<int64_t> inStrides = stridesOf(x.shape());
  forEachIndex(shape, [&](const std::vector<int64_t> &idx, int64_t i) {
    int64_t from = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      from += (start[d] + idx[d] * strides[d]) * inStrides[d];
    copyElement(x, from, out, i);
  });
  return out;
}

Dims clampedCorner(const Shape &x, const Shape &box, const std::vector<const Array *> &indices) {
  Dims corner(x.size());
  for (size_t d = 0; d < x.size(); ++d)
    corner[d] = std::clamp<int64_t>(indices[d]->getInt(0), 0, x[d] - box[d]);
  return corner;
}

Array dynamicSlice(const Array &x, const Dims &corner, const Shape &shape) {
  Dims limit(x.rank()), strides(x.rank(), 1);
  for (int64_t d = 0; d < x.rank(); ++d)
    limit[d] = corner[d] + shape[d];
  return slice(x, corner, limit, strides);
}

Array dynamicUpdateSlice(const Array &x, const Array &update, const Dims &corner) {
  Array out = x;
  std::vector<int64_t> outStrides = stridesOf(x.shape());
  forEachIndex(update.shape(), [&](const std::vector<int64_t> &idx, int64_t i) {
    int64_t to = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      to += (corner[d] + idx[d]) * outStrides[d];
    copyElement(update, i, out, to);
  });
  return out;
}

Array concatenate(const std::vector<const Array *> &inputs, int64_t dim) {
  Shape shape = inputs[0]->shape();
  shape[dim] = 0;
  for (const Array *a : inputs)
    shape[dim] += a->shape()[dim];
  Array out(inputs[0]->dtype(), shape);
  std::vector<int64_t> outStrides = stridesOf(shape);
  int64_t offset = 0;
  for (const Array *a : inputs) {
    forEachIndex(a->shape(), [&](const std::vector<int64_t> &idx, int64_t i) {
      std::vector<int64_t> o = idx;
      o[dim] += offset;
      copyElement(*a, i, out, linearize(o, outStrides));
    });
    offset += a->shape()[dim];
  }
  return out;
}

} // namespace shardc::ref
