//===- CpuFastKernels.cpp - the CPU backend's fast paths ------------------===//
//
// Kernels working directly on a device's buffers for the hot cases of the
// MLP and transformer workloads: dot_general of f32 (and, at bf16, bf16)
// operands (read in place where the product can, copied otherwise; the
// product itself is in CpuGemm.cpp), iota, compare, convert, select,
// splat constants, attention and argmax, and the thread pool the kernels
// share; reductions and data movement are in CpuLayoutKernels.cpp.
// Each returns false when it does not apply, and the caller falls back to
// the reference kernel. The backend conformance tests run every case
// against the reference.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "RegionTeam.h"

#include "shardc/Runtime/StructuredOps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace shardc::cpu {

namespace {

/// How a product step reads its operands, decoded from its attributes and
/// shapes: the same at every call of a plan.
struct ProductLayout {
  std::vector<int64_t> attrs;
  Shape lhs, rhs;
  DotGeneralDims dims;
  OperandLayout a, b;
};

ProductLayout layoutOf(const PlanStep &s, const Shape &lhs, const Shape &rhs) {
  ProductLayout l{s.attrs, lhs, rhs, DotGeneralDims::decode(s.attrs, lhs, rhs), {}, {}};
  const DotGeneralDims &d = l.dims;
  ProductOperands operands = productOperands(d, lhs, rhs);
  l.a = std::move(operands.a);
  l.b = std::move(operands.b);
  return l;
}

/// The layout of product step `s`, decoded once per thread and step: a
/// decode step's products are small enough that decoding them at every
/// call (a dozen allocations each) was a measurable part of their time. A
/// step at the same address is decoded again when its attributes or
/// shapes differ (another plan).
const ProductLayout &productLayout(const PlanStep &s, const Shape &lhs, const Shape &rhs) {
  static thread_local std::unordered_map<const PlanStep *, ProductLayout> known;
  return keptForStep(
      known, s,
      [&](const ProductLayout &l) { return l.attrs == s.attrs && l.lhs == lhs && l.rhs == rhs; },
      [&] { return layoutOf(s, lhs, rhs); });
}

/// Product step `s` on device buffers `b`: false where its operand types
/// have no fast path. With `blockBytes` (a single product, not a batch),
/// its result is made in blocks of whole rows of about that size, and
/// `afterBlock(e0, e1)` runs after elements [e0, e1) of it are written.
bool dotGeneral(const Plan &plan, const PlanStep &s, DeviceBuffers &b, int64_t blockBytes = 0,
                const RangeFn *afterBlock = nullptr) {
  const PlanValue &lv = plan.values[s.inputs[0]], &rv = plan.values[s.inputs[1]];
  const ProductLayout &layout = productLayout(s, lv.shape, rv.shape);
  const DotGeneralDims &dims = layout.dims;
  // f32 operands, or at bf16 precision also bf16 ones (rounded already).
  auto operand = [&](DType t) {
    return t == DType::F32 || (t == DType::BF16 && dims.precision == MatmulPrecision::BF16);
  };
  if (!operand(lv.dtype) || !operand(rv.dtype))
    return false;
  int64_t M = dims.M, N = dims.N, K = dims.K;
  if (dims.B * M * N == 0)
    return true; // nothing to write (BLAS rejects a leading dimension of 0)
  if (K == 0) {  // an empty sum: zeros (BLAS returns without writing)
    std::fill_n((float *)b.ptr[s.outputs[0]], dims.B * M * N, 0.0f);
    if (afterBlock)
      (*afterBlock)(0, dims.B * M * N);
    return true;
  }
  // Packed copies live in per-thread buffers that only grow: a fresh
  // allocation of this size would be mapped and faulted in page by page on
  // every step.
  static thread_local std::vector<float> aCopy, bCopy;
  auto read = [](const void *x, const PlanValue &v, const OperandLayout &o,
                 std::vector<float> &copy) {
    if (!o.pack)
      return x;
    size_t size = dtypeSize(v.dtype), floats = (numElements(v.shape) * size + 3) / 4;
    if (copy.size() < floats)
      copy.resize(floats);
    permute(x, size, v.shape, o.order, copy.data());
    return (const void *)copy.data();
  };
  const void *A = read(b.ptr[s.inputs[0]], lv, layout.a, aCopy);
  const void *Bm = read(b.ptr[s.inputs[1]], rv, layout.b, bCopy);
  float *C = (float *)b.ptr[s.outputs[0]];
  // Blocks of equal rows (to one), each of at least kMinBlockRows / 2: a
  // block of a few rows would take the matrix-vector kernels, which sum in
  // another order, and cost the product's kernels their speed.
  constexpr int64_t kMinBlockRows = 32;
  const MatrixView &av = layout.a.view;
  int64_t target = std::max(kMinBlockRows, blockBytes / (N * (int64_t)sizeof(float)));
  // At bf16 or tf32 a product rounds its operands into buffers first, and a
  // block of a transposed A's rows has gaps: both would be packed again for
  // every block.
  bool rounds = dims.precision != MatmulPrecision::F32;
  if (blockBytes <= 0 || dims.B != 1 || 2 * target > M || (rounds && av.trans)) {
    gemm(M, N, K, A, lv.dtype, av, Bm, rv.dtype, layout.b.view, C, dims.precision);
    if (afterBlock)
      (*afterBlock)(0, dims.B * M * N);
    return true;
  }
  int64_t blocks = (M + target - 1) / target;
  // Row m of A starts m elements in when it is read transposed (A's
  // columns are its rows), m rows in otherwise.
  int64_t rowElements = av.trans ? 1 : av.ld;
  for (int64_t i = 0; i < blocks; ++i) {
    int64_t r0 = M * i / blocks, r1 = M * (i + 1) / blocks;
    MatrixView block = av;
    block.elements -= r0 * rowElements;
    gemm(r1 - r0, N, K, (const uint8_t *)A + r0 * rowElements * (int64_t)dtypeSize(lv.dtype),
         lv.dtype, block, Bm, rv.dtype, layout.b.view, C + r0 * N, dims.precision);
    if (afterBlock)
      (*afterBlock)(r0 * N, r1 * N);
  }
  return true;
}

bool elementwise(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  bool unary = isUnary(s.op), binary = isBinary(s.op);
  const PlanValue &out = plan.values[s.outputs[0]];
  if ((!unary && !binary) || out.dtype != DType::F32)
    return false;
  const float *x = (const float *)b.ptr[s.inputs[0]];
  const float *z = binary ? (const float *)b.ptr[s.inputs[1]] : x;
  elementwiseF32(s.op, x, z, (float *)b.ptr[s.outputs[0]], numElements(out.shape));
  return true;
}

template <typename T> void iotaInto(T *y, const Shape &shape, int64_t dim) {
  std::vector<int64_t> strides = stridesOf(shape);
  int64_t n = numElements(shape), inner = strides[dim], size = shape[dim];
  for (int64_t i = 0; i < n; ++i)
    y[i] = (T)((i / inner) % size);
}

bool iota(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &out = plan.values[s.outputs[0]];
  if (out.dtype == DType::I32)
    iotaInto((int32_t *)b.ptr[s.outputs[0]], out.shape, s.attrs[0]);
  else if (out.dtype == DType::F32)
    iotaInto((float *)b.ptr[s.outputs[0]], out.shape, s.attrs[0]);
  else
    return false;
  return true;
}

/// argmax of an f32 operand along attrs[0], as the reference's: the index
/// of the first largest element, a NaN above every number (the first one
/// wins). In place of the reference kernel's copy of the operand and its
/// per-element reads: a decode step's pick of the next token.
bool argMax(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]];
  if (in.dtype != DType::F32)
    return false;
  int64_t dim = s.attrs[0], size = in.shape[dim], inner = 1, outer = 1;
  for (int64_t d = dim + 1; d < (int64_t)in.shape.size(); ++d)
    inner *= in.shape[d];
  for (int64_t d = 0; d < dim; ++d)
    outer *= in.shape[d];
  const float *x = (const float *)b.ptr[s.inputs[0]];
  int32_t *y = (int32_t *)b.ptr[s.outputs[0]];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *v = x + o * size * inner + i;
      int64_t best = 0;
      float top = v[0];
      for (int64_t k = 1; k < size && !std::isnan(top); ++k)
        if (std::isnan(v[k * inner]) || v[k * inner] > top)
          top = v[k * inner], best = k;
      y[o * inner + i] = (int32_t)best;
    }
  return true;
}

template <typename T> void compareInto(const T *a, const T *c, uint8_t *y, int64_t n, int64_t dir) {
  switch (dir) { // eq ne lt le gt ge; NaN compares false except ne
  case 0:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] == c[i];
    break;
  case 1:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] != c[i];
    break;
  case 2:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] < c[i];
    break;
  case 3:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] <= c[i];
    break;
  case 4:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] > c[i];
    break;
  default:
    for (int64_t i = 0; i < n; ++i)
      y[i] = a[i] >= c[i];
    break;
  }
}

bool compare(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]];
  int64_t n = numElements(in.shape);
  uint8_t *y = b.ptr[s.outputs[0]];
  if (in.dtype == DType::I32)
    compareInto((const int32_t *)b.ptr[s.inputs[0]], (const int32_t *)b.ptr[s.inputs[1]], y, n,
                s.attrs[0]);
  else if (in.dtype == DType::F32)
    compareInto((const float *)b.ptr[s.inputs[0]], (const float *)b.ptr[s.inputs[1]], y, n,
                s.attrs[0]);
  else
    return false;
  return true;
}

/// i1, i32 or bf16 to f32 (exact conversions), and f32 to bf16 (rounded as
/// bf16 products round their operands).
bool convert(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &in = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
  int64_t n = numElements(in.shape);
  if (in.dtype == DType::F32 && out.dtype == DType::BF16) {
    toBf16((const float *)b.ptr[s.inputs[0]], (uint16_t *)b.ptr[s.outputs[0]], n);
    return true;
  }
  if (out.dtype != DType::F32)
    return false;
  float *y = (float *)b.ptr[s.outputs[0]];
  if (in.dtype == DType::I1) {
    const uint8_t *x = b.ptr[s.inputs[0]];
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] ? 1.0f : 0.0f;
  } else if (in.dtype == DType::I32) {
    const int32_t *x = (const int32_t *)b.ptr[s.inputs[0]];
    for (int64_t i = 0; i < n; ++i)
      y[i] = (float)x[i]; // |x| < 2^31: float rounding as the reference's
  } else if (in.dtype == DType::BF16) {
    fromBf16((const uint16_t *)b.ptr[s.inputs[0]], y, n);
  } else {
    return false;
  }
  return true;
}

/// select on 4-byte elements.
bool select(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const PlanValue &out = plan.values[s.outputs[0]];
  if (dtypeSize(out.dtype) != 4)
    return false;
  const uint8_t *p = b.ptr[s.inputs[0]];
  const uint32_t *x = (const uint32_t *)b.ptr[s.inputs[1]];
  const uint32_t *z = (const uint32_t *)b.ptr[s.inputs[2]];
  uint32_t *y = (uint32_t *)b.ptr[s.outputs[0]];
  int64_t n = numElements(out.shape);
  for (int64_t i = 0; i < n; ++i) { // branch-free: masks vectorize, branches mispredict
    uint32_t m = 0u - (uint32_t)(p[i] != 0);
    y[i] = (x[i] & m) | (z[i] & ~m);
  }
  return true;
}

/// Splat constants are filled, not copied.
bool constant(const Plan &plan, const PlanStep &s, DeviceBuffers &b) {
  const Array &c = s.constant;
  size_t es = dtypeSize(c.dtype());
  int64_t n = c.numElements();
  if (n == 0 || es != 4)
    return false;
  const uint32_t *src = (const uint32_t *)c.bytes();
  for (int64_t i = 1; i < n; ++i)
    if (src[i] != src[0])
      return false;
  uint32_t *y = (uint32_t *)b.ptr[s.outputs[0]];
  std::fill(y, y + n, src[0]);
  return true;
}

/// qkv_attention and its gradient at f32: q, k and v read in place from the
/// packed operand (rows 3 N H floats apart), the gradient written alike.
bool qkvAttention(const Plan &plan, const PlanStep &s, DeviceBuffers &b, bool grad) {
  if (plan.values[s.inputs[0]].dtype != DType::F32)
    return false;
  const Shape &shape = plan.values[s.inputs[0]].shape;
  AttentionDims d;
  d.B = shape[0], d.T = d.S = shape[1], d.N = shape[3], d.H = shape[4];
  d.causal = s.attrs[0] != 0;
  d.scale = attentionScale(s.attrs);
  int64_t NH = d.N * d.H;
  d.qRow = d.kRow = d.vRow = 3 * NH;
  const float *qkv = (const float *)b.ptr[s.inputs[0]];
  if (!grad) {
    attentionForward(d, qkv, qkv + NH, qkv + 2 * NH, nullptr, (float *)b.ptr[s.outputs[0]]);
    return true;
  }
  float *g = (float *)b.ptr[s.outputs[0]];
  attentionBackward(d, qkv, qkv + NH, qkv + 2 * NH, nullptr, (const float *)b.ptr[s.inputs[1]], g,
                    g + NH, g + 2 * NH);
  return true;
}

/// attention at f32: q [B,T,N,H], k and v [B,S,N,H], kv_lengths [B]; and
/// with `grad` its gradient from dout (after v), dq, dk and dv written one
/// after another along positions ([B, T + 2S, N, H]).
bool attention(const Plan &plan, const PlanStep &s, DeviceBuffers &b, bool grad) {
  const PlanValue &q = plan.values[s.inputs[0]];
  if (q.dtype != DType::F32)
    return false;
  AttentionDims d;
  d.B = q.shape[0], d.T = q.shape[1], d.N = q.shape[2], d.H = q.shape[3];
  d.S = plan.values[s.inputs[1]].shape[1];
  d.causal = s.attrs[0] != 0;
  d.scale = attentionScale(s.attrs);
  size_t lengthsAt = grad ? 4 : 3;
  const int32_t *lengths =
      s.inputs.size() > lengthsAt ? (const int32_t *)b.ptr[s.inputs[lengthsAt]] : nullptr;
  const float *qp = (const float *)b.ptr[s.inputs[0]], *kp = (const float *)b.ptr[s.inputs[1]],
              *vp = (const float *)b.ptr[s.inputs[2]];
  float *out = (float *)b.ptr[s.outputs[0]];
  if (!grad) {
    attentionForward(d, qp, kp, vp, lengths, out);
    return true;
  }
  int64_t NH = d.N * d.H;
  d.gradBatch = (d.T + 2 * d.S) * NH;
  attentionBackward(d, qp, kp, vp, lengths, (const float *)b.ptr[s.inputs[3]], out, out + d.T * NH,
                    out + (d.T + d.S) * NH);
  return true;
}

} // namespace

bool dotGeneralInBlocks(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                        int64_t blockBytes, RangeFn afterBlock) {
  return dotGeneral(plan, step, buffers, blockBytes, &afterBlock);
}

bool runFastKernel(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers) {
  switch (step.op) {
  case OpCode::DotGeneral:
    return dotGeneral(plan, step, buffers);
  case OpCode::Reduce:
    return runLayoutKernel(plan, step, buffers);
  case OpCode::BroadcastInDim:
  case OpCode::Transpose:
  case OpCode::Slice:
  case OpCode::Concatenate:
  case OpCode::Take:
  case OpCode::ScatterAdd:
  case OpCode::DynamicSlice:
  case OpCode::DynamicUpdateSlice:
    return runLayoutKernel(plan, step, buffers);
  case OpCode::Attention:
  case OpCode::AttentionGrad:
    return attention(plan, step, buffers, step.op == OpCode::AttentionGrad);
  case OpCode::QkvAttention:
  case OpCode::QkvAttentionGrad:
    return qkvAttention(plan, step, buffers, step.op == OpCode::QkvAttentionGrad);
  case OpCode::ArgMax:
    return argMax(plan, step, buffers);
  case OpCode::Iota:
    return iota(plan, step, buffers);
  case OpCode::Compare:
    return compare(plan, step, buffers);
  case OpCode::Convert:
    return convert(plan, step, buffers);
  case OpCode::Select:
    return select(plan, step, buffers);
  case OpCode::Constant:
    return constant(plan, step, buffers);
  case OpCode::Reshape: {
    const PlanValue &out = plan.values[step.outputs[0]];
    if (buffers.ptr[step.outputs[0]] != buffers.ptr[step.inputs[0]])
      std::memmove(buffers.ptr[step.outputs[0]], buffers.ptr[step.inputs[0]], out.bytes());
    return true;
  }
  default:
    return elementwise(plan, step, buffers);
  }
}

void parallelRange(int64_t n, RangeFn fn, int64_t work) {
  bool large = (work < 0 ? n : work) >= (int64_t(1) << 16) && n > 1;
  // Inside a plan's one region (RegionTeam.h): the team takes the ranges,
  // and a range a team thread runs stays on that thread.
  if (large && leadsRegionTeam() && teamRange(n, fn))
    return;
  int threads = large && !inRegionTeamWorker() ? sharedThreadPoolSize() : 1;
  if (threads <= 1) {
    fn(0, n);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    fn(n * t / nt, n * (t + 1) / nt);
  }
#else
  fn(0, n);
#endif
}

} // namespace shardc::cpu
