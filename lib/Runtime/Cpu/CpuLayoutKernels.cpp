//===- CpuLayoutKernels.cpp - data movement and reductions at memory speed -===//
//
// transpose, broadcast_in_dim, slice and concatenate of any rank are one
// strided copy: each result dimension reads the operand with a stride (0
// for broadcast dimensions), and adjacent dimensions that walk memory
// evenly are merged, so the inner loop is a memcpy, a fill or one strided
// run. f32 reductions over any set of dimensions walk the operand once in
// memory order with the innermost run either summed or added into a row of
// accumulators. These are the shapes attention and LayerNorm produce
// ([B,T,H,hd] transposes, [B,T,d] row sums, [B,T,F] bias gradients).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace shardc::cpu {

namespace {

/// A few int64s (a rank's worth: sizes, strides, an index), inline up to
/// eight and on the heap beyond. The kernels here build a handful per step,
/// and as vectors they were most of a decode step's allocations.
class Dims {
public:
  explicit Dims(size_t n = 0, int64_t value = 0) { assign(n, value); }
  Dims(const Dims &o) { *this = o; }
  Dims &operator=(const Dims &o) {
    if (this != &o) {
      assign(o.n_, 0);
      std::copy(o.data(), o.data() + o.n_, data());
    }
    return *this;
  }
  void assign(size_t n, int64_t value) {
    n_ = n;
    if (n > kInline)
      heap_.assign(n, value);
    else
      std::fill(inline_, inline_ + n, value);
  }
  void push_back(int64_t v) {
    if (n_ == kInline)
      heap_.assign(inline_, inline_ + kInline);
    if (n_ >= kInline)
      heap_.push_back(v);
    else
      inline_[n_] = v;
    ++n_;
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t &operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t &back() { return data()[n_ - 1]; }
  int64_t back() const { return data()[n_ - 1]; }

private:
  static constexpr size_t kInline = 8;
  int64_t *data() { return n_ > kInline ? heap_.data() : inline_; }
  const int64_t *data() const { return n_ > kInline ? heap_.data() : inline_; }
  int64_t inline_[kInline];
  std::vector<int64_t> heap_;
  size_t n_ = 0;
};

/// Row-major element strides of `shape`.
Dims stridesIn(const Shape &shape) {
  Dims s(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Dimensions of a walk: sizes with one stride per operand.
struct Walk {
  Dims size, in, out; // element strides
};

/// Merges dimension pairs whose strides are contiguous in both operands and
/// drops size-1 dimensions.
Walk collapse(const Shape &shape, const Dims &in, const Dims &out) {
  Walk w;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (!w.size.empty() && w.in.back() == in[d] * shape[d] && w.out.back() == out[d] * shape[d]) {
      w.size.back() *= shape[d];
      w.in.back() = in[d];
      w.out.back() = out[d];
      continue;
    }
    w.size.push_back(shape[d]);
    w.in.push_back(in[d]);
    w.out.push_back(out[d]);
  }
  if (w.size.empty()) {
    w.size.push_back(1);
    w.in.push_back(1);
    w.out.push_back(1);
  }
  return w;
}

/// Where outer iteration `o` of a walk starts in both operands (the
/// innermost dimension is each iteration's run), stepped one iteration at
/// a time.
struct Cursor {
  const Walk &w;
  Dims idx;
  int64_t in = 0, out = 0; // element offsets

  Cursor(const Walk &w, int64_t o) : w(w), idx(w.size.size(), 0) {
    for (int64_t d = (int64_t)w.size.size() - 2; d >= 0; --d) {
      idx[d] = o % w.size[d];
      o /= w.size[d];
      in += idx[d] * w.in[d];
      out += idx[d] * w.out[d];
    }
  }
  void next() {
    for (int64_t d = (int64_t)w.size.size() - 2; d >= 0; --d) {
      in += w.in[d];
      out += w.out[d];
      if (++idx[d] < w.size[d])
        return;
      in -= w.in[d] * w.size[d];
      out -= w.out[d] * w.size[d];
      idx[d] = 0;
    }
  }
};

/// y[out offsets] = x[in offsets] over the walk, elements of type T; the
/// outer iterations are split over the shared thread pool. A copy is
/// worth its bytes: often it reads what the step before wrote on both
/// threads, and on one thread alone it would fetch the other's half line
/// by line from that core's cache (18 us instead of 2 for attention's
/// 128 KB q, k and v slices of a padded decode step).
template <typename T> void copyWalk(const T *x, T *y, const Walk &w) {
  size_t r = w.size.size();
  int64_t n = w.size[r - 1], si = w.in[r - 1], so = w.out[r - 1];
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < r; ++d)
    outer *= w.size[d];
  if (outer == 0 || n == 0)
    return; // an empty array
  parallelRange(
      outer,
      [&](int64_t o0, int64_t o1) {
        Cursor at(w, o0);
        for (int64_t o = o0; o < o1; ++o, at.next()) {
          const T *xs = x + at.in;
          T *ys = y + at.out;
          if (si == 1 && so == 1)
            std::memcpy(ys, xs, n * sizeof(T));
          else if (si == 0 && so == 1)
            std::fill(ys, ys + n, *xs);
          else
            for (int64_t i = 0; i < n; ++i)
              ys[i * so] = xs[i * si];
        }
      },
      outer * n * (int64_t)sizeof(T));
}

bool copyBySize(size_t es, const uint8_t *x, uint8_t *y, const Walk &w) {
  switch (es) {
  case 1:
    copyWalk((const uint8_t *)x, y, w);
    return true;
  case 2:
    copyWalk((const uint16_t *)x, (uint16_t *)y, w);
    return true;
  case 4:
    copyWalk((const uint32_t *)x, (uint32_t *)y, w);
    return true;
  case 8:
    copyWalk((const uint64_t *)x, (uint64_t *)y, w);
    return true;
  default:
    return false;
  }
}

bool transpose(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
  Dims is = stridesIn(in.shape), os = stridesIn(out.shape), from(s.attrs.size());
  for (size_t i = 0; i < s.attrs.size(); ++i)
    from[i] = is[s.attrs[i]];
  return copyBySize(dtypeSize(out.dtype), b.ptr[s.inputs[0]], b.ptr[s.outputs[0]],
                    collapse(out.shape, from, os));
}

bool broadcast(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
  Dims is = stridesIn(in.shape), os = stridesIn(out.shape), from(out.shape.size(), 0);
  for (size_t i = 0; i < s.attrs.size(); ++i)
    if (in.shape[i] != 1)
      from[s.attrs[i]] = is[i];
  return copyBySize(dtypeSize(out.dtype), b.ptr[s.inputs[0]], b.ptr[s.outputs[0]],
                    collapse(out.shape, from, os));
}

bool slice(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
  size_t r = in.shape.size(), es = dtypeSize(out.dtype);
  Dims is = stridesIn(in.shape), os = stridesIn(out.shape), from(r);
  int64_t base = 0;
  for (size_t d = 0; d < r; ++d) {
    base += s.attrs[d] * is[d];
    from[d] = is[d] * s.attrs[2 * r + d];
  }
  return copyBySize(es, b.ptr[s.inputs[0]] + base * es, b.ptr[s.outputs[0]],
                    collapse(out.shape, from, os));
}

/// The corner of a dynamic box: start index i of `s` (inputs from
/// `first` on, i32 or i64 scalars) clamped to [0, operand - box] as
/// StableHLO clamps it, as an element offset into the operand.
int64_t dynamicCorner(const Plan &plan, const PlanStep &s, size_t first, const Shape &operand,
                      const Shape &box, const DeviceBuffers &b) {
  Dims strides = stridesIn(operand);
  int64_t offset = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    int32_t id = s.inputs[first + d];
    int64_t i = plan.values[id].dtype == DType::I64 ? *(const int64_t *)b.ptr[id]
                                                    : *(const int32_t *)b.ptr[id];
    offset += std::clamp<int64_t>(i, 0, operand[d] - box[d]) * strides[d];
  }
  return offset;
}

bool dynamicSlice(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
  size_t es = dtypeSize(out.dtype);
  int64_t base = dynamicCorner(plan, s, 1, in.shape, out.shape, b);
  return copyBySize(es, b.ptr[s.inputs[0]] + base * es, b.ptr[s.outputs[0]],
                    collapse(out.shape, stridesIn(in.shape), stridesIn(out.shape)));
}

/// The row indices (input 1, i32 or i64) of a take or scatter_add into a
/// table of `rows` rows, or false when one is out of range: the step is
/// then left to the reference kernel, which names it.
bool rowIndices(const Plan &plan, const PlanStep &s, const DeviceBuffers &b, int64_t rows,
                std::vector<int64_t> &out) {
  const PlanValue &indices = plan.values[s.inputs[1]];
  int64_t n = numElements(indices.shape);
  const uint8_t *idx = b.ptr[s.inputs[1]];
  bool wide = indices.dtype == DType::I64;
  out.resize(n);
  for (int64_t p = 0; p < n; ++p) {
    out[p] = wide ? ((const int64_t *)idx)[p] : (int64_t)((const int32_t *)idx)[p];
    if (out[p] < 0 || out[p] >= rows)
      return false;
  }
  return true;
}

/// Rows of the table by index, copied in place of the reference's copy of
/// the whole table (a decode step looks up one row of 256).
bool take(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &table = plan.values[s.inputs[0]];
  int64_t rows = table.shape[0];
  size_t rowBytes = rows ? table.bytes() / rows : 0;
  static thread_local std::vector<int64_t> at; // only this thread reads it
  if (!rowIndices(plan, s, b, rows, at))
    return false;
  const uint8_t *t = b.ptr[s.inputs[0]];
  uint8_t *y = b.ptr[s.outputs[0]];
  for (size_t p = 0; p < at.size(); ++p)
    std::memcpy(y + p * rowBytes, t + at[p] * rowBytes, rowBytes);
  return true;
}

/// take's adjoint on f32 tables (an embedding's gradient): each element of
/// the operand accumulates its updates in double, in index order, and is
/// rounded once, as the reference kernel does, without its per-element
/// reads through the Array. Threads split the columns, so each element
/// keeps its order.
bool scatterAdd(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &table = plan.values[s.inputs[0]];
  if (table.dtype != DType::F32 || plan.values[s.inputs[2]].dtype != DType::F32)
    return false;
  int64_t rows = table.shape[0];
  int64_t rowSize = rows ? numElements(table.shape) / rows : 0;
  std::vector<int64_t> at;
  if (!rowIndices(plan, s, b, rows, at))
    return false;
  int64_t n = (int64_t)at.size();
  const float *operand = (const float *)b.ptr[s.inputs[0]];
  const float *updates = (const float *)b.ptr[s.inputs[2]];
  float *y = (float *)b.ptr[s.outputs[0]];
  parallelRange(
      rowSize,
      [&](int64_t c0, int64_t c1) {
        std::vector<double> acc((size_t)(rows * (c1 - c0)));
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = c0; c < c1; ++c)
            acc[r * (c1 - c0) + (c - c0)] = operand[r * rowSize + c];
        for (int64_t p = 0; p < n; ++p) {
          double *a = &acc[at[p] * (c1 - c0)];
          const float *u = updates + p * rowSize + c0;
          for (int64_t c = 0; c < c1 - c0; ++c)
            a[c] += u[c];
        }
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = c0; c < c1; ++c)
            y[r * rowSize + c] = (float)acc[r * (c1 - c0) + (c - c0)];
      },
      n * rowSize + rows * rowSize);
  return true;
}

/// Copies the operand unless the output already lies in its buffer (the
/// plan updates in place), then writes the box: one position of a cache
/// costs the update's bytes.
bool dynamicUpdateSlice(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]], &update = plan.values[s.inputs[1]];
  size_t es = dtypeSize(in.dtype);
  uint8_t *y = b.ptr[s.outputs[0]];
  if (y != b.ptr[s.inputs[0]] && in.bytes())
    std::memcpy(y, b.ptr[s.inputs[0]], in.bytes());
  int64_t base = dynamicCorner(plan, s, 2, in.shape, update.shape, b);
  return copyBySize(es, b.ptr[s.inputs[1]], y + base * es,
                    collapse(update.shape, stridesIn(update.shape), stridesIn(in.shape)));
}

bool concatenate(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &out = plan.values[s.outputs[0]];
  int64_t dim = s.attrs[0];
  size_t es = dtypeSize(out.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= out.shape[d];
  for (size_t d = dim + 1; d < out.shape.size(); ++d)
    inner *= out.shape[d];
  int64_t rowBytes = out.shape[dim] * inner * (int64_t)es, at = 0;
  uint8_t *y = b.ptr[s.outputs[0]];
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    int64_t chunk = plan.values[s.inputs[i]].shape[dim] * inner * (int64_t)es;
    const uint8_t *x = b.ptr[s.inputs[i]];
    parallelRange(
        outer,
        [&](int64_t o0, int64_t o1) {
          for (int64_t o = o0; o < o1; ++o)
            std::memcpy(y + o * rowBytes + at, x + o * chunk, chunk);
        },
        outer * chunk / (int64_t)es);
    at += chunk;
  }
  return true;
}

/// The sum of a contiguous run in double: over eight lanes (independent
/// additions; one running sum waits for each addition before the next),
/// then the lanes added pairwise and the rest of the run in order. The
/// order depends on n alone.
double sumRun(const float *x, int64_t n) {
  double lanes[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j)
      lanes[j] += x[i + j];
  double s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
             ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; i < n; ++i)
    s += x[i];
  return s;
}

/// The elements of a block of a long run (sumLongRun).
constexpr int64_t kSumBlock = int64_t(1) << 15;

/// sumRun for a run long enough for the shared pool (a total, such as the
/// squares of a gradient for its norm): blocks of kSumBlock elements summed
/// across the threads, then the blocks' sums in order, whatever the thread
/// count.
double sumLongRun(const float *x, int64_t n) {
  if (n < 2 * kSumBlock)
    return sumRun(x, n);
  int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
  std::vector<double> part(blocks);
  parallelRange(
      blocks,
      [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b)
          part[b] = sumRun(x + b * kSumBlock, std::min(kSumBlock, n - b * kSumBlock));
      },
      n);
  double s = 0;
  for (double p : part)
    s += p;
  return s;
}

/// as[i] += xs[i] for i in [0, n), in double: a row added into a row of
/// sums, each sum in the same order as one element at a time, in vectors
/// across the row (AVX-512 or AVX2 where the CPU has them).
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void addRowInto(double *as, const float *xs, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    as[i] += xs[i];
}

/// f32 reduce over any dimensions (kind 0 sum, 1 max, 2 min). Sums
/// accumulate in double, as the reference does (in another order: lanes
/// and blocks of a run, sumRun).
bool reduce(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]];
  Reduction kind = (Reduction)s.attrs[0];
  if (in.dtype != DType::F32 || kind == Reduction::Mean)
    return false;
  size_t r = in.shape.size();
  std::vector<bool> reduced(r, false);
  for (size_t i = 1; i < s.attrs.size(); ++i)
    reduced[s.attrs[i]] = true;
  // Result strides for the kept dimensions, 0 for the reduced ones.
  Dims is = stridesIn(in.shape), os(r, 0);
  int64_t stride = 1;
  for (int64_t d = (int64_t)r - 1; d >= 0; --d)
    if (!reduced[d]) {
      os[d] = stride;
      stride *= in.shape[d];
    }
  int64_t outN = stride;
  Walk w = collapse(in.shape, is, os);
  std::vector<double> acc(outN, reductionIdentity(kind));
  const float *x = (const float *)b.ptr[s.inputs[0]];
  size_t nd = w.size.size();
  int64_t n = w.size[nd - 1], so = w.out[nd - 1];
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < nd; ++d)
    outer *= w.size[d];
  auto combine = [kind](double a, float v) -> double {
    if (kind == Reduction::Sum)
      return a + v;
    if (v != v || a != a)
      return NAN;
    return kind == Reduction::Max ? std::max<double>(a, v) : std::min<double>(a, v);
  };
  // Walks outer iterations [o0, o1) into `into`.
  auto walk = [&](int64_t o0, int64_t o1, double *into) {
    Cursor at(w, o0);
    for (int64_t o = o0; o < o1; ++o, at.next()) {
      const float *xs = x + at.in; // the innermost run is contiguous in memory order
      if (so == 0 && kind == Reduction::Sum) {
        // One walk of one run (a total) takes the pool itself.
        into[at.out] += outer == 1 ? sumLongRun(xs, n) : sumRun(xs, n);
      } else if (so == 0) {
        double a = into[at.out];
        for (int64_t i = 0; i < n; ++i)
          a = combine(a, xs[i]);
        into[at.out] = a;
      } else if (so == 1 && kind == Reduction::Sum) {
        addRowInto(into + at.out, xs, n); // a bias gradient's column sums
      } else {
        double *as = into + at.out;
        for (int64_t i = 0; i < n; ++i)
          as[i * so] = combine(as[i * so], xs[i]);
      }
    }
  };
  // Large sums split the walk over the shared pool, each part into its own
  // accumulators, added in part order (the same result for a given thread
  // count). Max and min keep one walk, so ties of signed zeros resolve as
  // the reference does.
  int parts = kind == Reduction::Sum && outer > 1 && outer * n >= (int64_t(1) << 16)
                  ? (int)std::min<int64_t>(sharedThreadPoolSize(), outer)
                  : 1;
  if (outer > 0 && n > 0) {
    if (parts <= 1) {
      walk(0, outer, acc.data());
    } else {
      std::vector<std::vector<double>> partial(parts, std::vector<double>(outN, 0.0));
      parallelRange(
          parts,
          [&](int64_t p0, int64_t p1) {
            for (int64_t p = p0; p < p1; ++p)
              walk(outer * p / parts, outer * (p + 1) / parts, partial[p].data());
          },
          outer * n);
      for (int p = 0; p < parts; ++p)
        for (int64_t i = 0; i < outN; ++i)
          acc[i] += partial[p][i];
    }
  }
  float *y = (float *)b.ptr[s.outputs[0]];
  for (int64_t i = 0; i < outN; ++i)
    y[i] = (float)acc[i];
  return true;
}

} // namespace

void permute(const void *x, size_t elementSize, const Shape &shape,
             const std::vector<int64_t> &perm, void *out) {
  Dims is = stridesIn(shape), from(perm.size());
  Shape outShape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    outShape[i] = shape[perm[i]];
    from[i] = is[perm[i]];
  }
  copyBySize(elementSize, (const uint8_t *)x, (uint8_t *)out,
             collapse(outShape, from, stridesIn(outShape)));
}

bool runLayoutKernel(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers) {
  switch (step.op) {
  case OpCode::Transpose:
    return transpose(plan, step, buffers);
  case OpCode::BroadcastInDim:
    return broadcast(plan, step, buffers);
  case OpCode::Slice:
    return slice(plan, step, buffers);
  case OpCode::Concatenate:
    return concatenate(plan, step, buffers);
  case OpCode::Take:
    return take(plan, step, buffers);
  case OpCode::ScatterAdd:
    return scatterAdd(plan, step, buffers);
  case OpCode::DynamicSlice:
    return dynamicSlice(plan, step, buffers);
  case OpCode::DynamicUpdateSlice:
    return dynamicUpdateSlice(plan, step, buffers);
  case OpCode::Reduce:
    return reduce(plan, step, buffers);
  default:
    return false;
  }
}

} // namespace shardc::cpu
