//===- CudaKernels.cu - the CUDA backend's build-time kernels -------------===//
//
// One kernel per op family, the element type a runtime argument. Elements
// are read as double (floats) or int64 (integers) and written back with the
// rounding and saturation of Array::setDouble / setInt, so results match the
// reference kernels: bit for bit for data movement and integers, within the
// conformance tolerances for floats.
//
//===----------------------------------------------------------------------===//

#include "CudaKernels.h"

#include "shardc/Runtime/ScalarMath.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

namespace shardc::cuda {

namespace {

constexpr int kBlock = 256;

int gridFor(int64_t n) {
  int64_t blocks = (n + kBlock - 1) / kBlock;
  return (int)(blocks < 1 ? 1 : blocks > (1 << 20) ? (1 << 20) : blocks);
}

#define SHARDC_GRID_STRIDE(i, n)                                                                   \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                        \
       i += (int64_t)gridDim.x * blockDim.x)

enum : int { kF32, kF64, kF16, kBF16, kI1, kI32, kI64 }; // as DType

__device__ bool isFloatType(int dt) { return dt <= kBF16; }

__device__ double loadD(const void *p, int dt, int64_t i) {
  switch (dt) {
  case kF32:
    return ((const float *)p)[i];
  case kF64:
    return ((const double *)p)[i];
  case kF16:
    return __half2float(((const __half *)p)[i]);
  case kBF16:
    return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
  case kI1:
    return ((const uint8_t *)p)[i] ? 1.0 : 0.0;
  case kI32:
    return ((const int32_t *)p)[i];
  default:
    return (double)((const int64_t *)p)[i];
  }
}

template <typename T> __device__ T saturate(double v) {
  if (v != v)
    return 0;
  double lo = (double)(T)((T)1 << (sizeof(T) * 8 - 1)); // the minimum
  if (v <= lo)
    return (T)((T)1 << (sizeof(T) * 8 - 1));
  if (v >= -lo) // 2^(bits-1) and above: the maximum
    return (T) ~((T)1 << (sizeof(T) * 8 - 1));
  return (T)v; // truncates toward zero
}

/// double -> float rounding to odd, so a second rounding (to f16/bf16) is
/// correct, as Array::setDouble does.
__device__ float roundToOdd(double v) {
  if (v != v)
    return __double2float_rn(v);
  float f = __double2float_rz(v);
  if ((double)f != v && !isinf(f))
    f = __uint_as_float(__float_as_uint(f) | 1u);
  return f;
}

__device__ void storeD(void *p, int dt, int64_t i, double v) {
  switch (dt) {
  case kF32:
    ((float *)p)[i] = (float)v;
    return;
  case kF64:
    ((double *)p)[i] = v;
    return;
  case kF16:
    ((__half *)p)[i] = __float2half_rn(roundToOdd(v));
    return;
  case kBF16:
    ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(roundToOdd(v));
    return;
  case kI1:
    ((uint8_t *)p)[i] = v != 0;
    return;
  case kI32:
    ((int32_t *)p)[i] = saturate<int32_t>(v);
    return;
  default:
    ((int64_t *)p)[i] = saturate<int64_t>(v);
    return;
  }
}

__device__ int64_t loadI(const void *p, int dt, int64_t i) {
  switch (dt) {
  case kI1:
    return ((const uint8_t *)p)[i] ? 1 : 0;
  case kI32:
    return ((const int32_t *)p)[i];
  case kI64:
    return ((const int64_t *)p)[i];
  default:
    return saturate<int64_t>(loadD(p, dt, i));
  }
}

__device__ void storeI(void *p, int dt, int64_t i, int64_t v) {
  switch (dt) {
  case kI1:
    ((uint8_t *)p)[i] = v != 0;
    return;
  case kI32:
    ((int32_t *)p)[i] = (int32_t)v;
    return;
  case kI64:
    ((int64_t *)p)[i] = v;
    return;
  default:
    storeD(p, dt, i, (double)v);
    return;
  }
}

__device__ void reportError(int32_t *firstFailingStep, int32_t step) {
  atomicMin(firstFailingStep, step);
}

// Elementwise ----------------------------------------------------------------

__global__ void unaryKernel(int op, int dt, const void *x, void *y, int64_t n) {
  SHARDC_GRID_STRIDE(i, n) {
    if (!isFloatType(dt)) { // neg and abs are the integer unary ops
      int64_t v = loadI(x, dt, i);
      int64_t neg = (int64_t)(0ull - (uint64_t)v);
      storeI(y, dt, i, op == (int)OpCode::Neg || v < 0 ? neg : v);
      continue;
    }
    double v = loadD(x, dt, i), r = 0;
    switch ((OpCode)op) {
#define SHARDC_UNARY(Name, ...)                                                                    \
  case OpCode::Name:                                                                               \
    r = scalar::Name(v);                                                                           \
    break;
#include "shardc/Common/OpCodes.def"
    default:
      r = scalar::quietNaN(v);
      break;
    }
    storeD(y, dt, i, r);
  }
}

__device__ int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0)
    return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  uint64_t r = 1, b = (uint64_t)base;
  while (exp > 0) {
    if (exp & 1)
      r *= b;
    b *= b;
    exp >>= 1;
  }
  return (int64_t)r;
}

__global__ void binaryKernel(int op, int dt, const void *a, const void *b, void *y, int64_t n,
                             int32_t *errors, int32_t step) {
  SHARDC_GRID_STRIDE(i, n) {
    if (!isFloatType(dt)) {
      int64_t x = loadI(a, dt, i), z = loadI(b, dt, i), r = 0;
      switch ((OpCode)op) {
      case OpCode::Add:
        r = (int64_t)((uint64_t)x + (uint64_t)z);
        break;
      case OpCode::Sub:
        r = (int64_t)((uint64_t)x - (uint64_t)z);
        break;
      case OpCode::Mul:
        r = (int64_t)((uint64_t)x * (uint64_t)z);
        break;
      case OpCode::Div:
        if (z == 0) {
          reportError(errors, step);
          r = 0;
        } else {
          r = (x == INT64_MIN && z == -1) ? x : x / z;
        }
        break;
      case OpCode::Max:
        r = x > z ? x : z;
        break;
      case OpCode::Min:
        r = x < z ? x : z;
        break;
      default:
        r = intPow(x, z);
        break;
      }
      storeI(y, dt, i, r);
      continue;
    }
    double x = loadD(a, dt, i), z = loadD(b, dt, i), r = 0;
    switch ((OpCode)op) {
#define SHARDC_BINARY(Name, ...)                                                                   \
  case OpCode::Name:                                                                               \
    r = scalar::Name(x, z);                                                                        \
    break;
#include "shardc/Common/OpCodes.def"
    default:
      r = scalar::quietNaN(x);
      break;
    }
    storeD(y, dt, i, r);
  }
}

__global__ void compareKernel(int dir, int dt, const void *a, const void *b, uint8_t *y,
                              int64_t n) {
  SHARDC_GRID_STRIDE(i, n) {
    bool r;
    if (isFloatType(dt)) {
      double x = loadD(a, dt, i), z = loadD(b, dt, i);
      r = dir == 0   ? x == z
          : dir == 1 ? x != z
          : dir == 2 ? x < z
          : dir == 3 ? x <= z
          : dir == 4 ? x > z
                     : x >= z;
    } else {
      int64_t x = loadI(a, dt, i), z = loadI(b, dt, i);
      r = dir == 0   ? x == z
          : dir == 1 ? x != z
          : dir == 2 ? x < z
          : dir == 3 ? x <= z
          : dir == 4 ? x > z
                     : x >= z;
    }
    y[i] = r;
  }
}

template <typename T>
__global__ void selectKernel(const uint8_t *p, const T *a, const T *b, T *y, int64_t n) {
  SHARDC_GRID_STRIDE(i, n) { y[i] = p[i] ? a[i] : b[i]; }
}

__global__ void convertKernel(int from, int to, const void *x, void *y, int64_t n) {
  SHARDC_GRID_STRIDE(i, n) {
    if (!isFloatType(from) && !isFloatType(to))
      storeI(y, to, i, loadI(x, from, i));
    else
      storeD(y, to, i, loadD(x, from, i));
  }
}

__global__ void iotaKernel(int dt, void *y, int64_t n, int64_t inner, int64_t size) {
  SHARDC_GRID_STRIDE(i, n) { storeI(y, dt, i, (i / inner) % size); }
}

template <typename T> __global__ void fillKernel(T value, T *y, int64_t n) {
  SHARDC_GRID_STRIDE(i, n) { y[i] = value; }
}

__global__ void divideKernel(int dt, void *y, int64_t n, int64_t count) {
  SHARDC_GRID_STRIDE(i, n) {
    if (isFloatType(dt))
      storeD(y, dt, i, loadD(y, dt, i) / (double)count);
    else
      storeI(y, dt, i, loadI(y, dt, i) / count);
  }
}

// Data movement -----------------------------------------------------------------

template <typename T>
__device__ void copyViewElements(const T *x, T *y, const StridedView &v, int64_t n) {
  SHARDC_GRID_STRIDE(i, n) {
    int64_t rest = i, from = v.inOffset, to = v.outOffset;
    for (int d = v.rank - 1; d >= 0; --d) {
      int64_t idx = rest % v.shape[d];
      rest /= v.shape[d];
      from += idx * v.inStrides[d];
      to += idx * v.outStrides[d];
    }
    y[to] = x[from];
  }
}

template <typename T>
__global__ void stridedCopyKernel(const T *x, T *y, StridedView v, int64_t n) {
  copyViewElements(x, y, v, n);
}

/// Every thread reads the starts itself: a few bytes, cached after the
/// first reads, and no launch has to wait for another.
template <typename T>
__global__ void dynamicCopyKernel(const T *x, T *y, StridedView v, DynamicCorner c, int64_t n) {
  int64_t corner = 0;
  for (int d = 0; d < v.rank; ++d) {
    int64_t start = c.indexBytes[d] == 8 ? *(const int64_t *)c.index[d]
                                         : (int64_t) * (const int32_t *)c.index[d];
    start = start < 0 ? 0 : start > c.limit[d] ? c.limit[d] : start;
    corner += start * c.strides[d];
  }
  if (c.intoOutput)
    v.outOffset += corner;
  else
    v.inOffset += corner;
  copyViewElements(x, y, v, n);
}

__device__ int64_t viewOffset(const StridedView &v, int64_t linear) {
  int64_t off = v.inOffset;
  for (int d = v.rank - 1; d >= 0; --d) {
    off += (linear % v.shape[d]) * v.inStrides[d];
    linear /= v.shape[d];
  }
  return off;
}

int64_t viewCount(const StridedView &v) {
  int64_t n = 1;
  for (int d = 0; d < v.rank; ++d)
    n *= v.shape[d];
  return n;
}

/// sum, max or min (kind 0..2) of two floats; NaN wins max and min.
__device__ double combineFloat(int kind, double acc, double v) {
  if (kind == 0)
    return acc + v;
  if (v != v || acc != acc)
    return __longlong_as_double(0x7ff8000000000000ll);
  return kind == 1 ? fmax(acc, v) : fmin(acc, v);
}

__device__ int64_t combineInt(int kind, int64_t a, int64_t b) {
  return kind == 0   ? (int64_t)((uint64_t)a + (uint64_t)b)
         : kind == 1 ? (a > b ? a : b)
                     : (a < b ? a : b);
}

/// One warp per output element; lanes stride over the reduced elements and
/// combine in a fixed shuffle tree.
__global__ void reduceKernel(int kind, int dt, const void *x, void *y, StridedView kept,
                             StridedView reduced, int64_t outputs, int64_t count) {
  int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp >= outputs)
    return;
  int64_t base = viewOffset(kept, warp);
  if (isFloatType(dt)) {
    double inf = __longlong_as_double(0x7ff0000000000000ll);
    double acc = kind == 0 ? 0.0 : kind == 1 ? -inf : inf;
    for (int64_t j = lane; j < count; j += 32)
      acc = combineFloat(kind, acc, loadD(x, dt, base + viewOffset(reduced, j)));
    for (int o = 16; o > 0; o >>= 1)
      acc = combineFloat(kind, acc, __shfl_down_sync(0xffffffffu, acc, o));
    if (lane == 0)
      storeD(y, dt, warp, acc);
    return;
  }
  int64_t acc = kind == 0 ? 0 : kind == 1 ? INT64_MIN : INT64_MAX;
  for (int64_t j = lane; j < count; j += 32) {
    int64_t v = loadI(x, dt, base + viewOffset(reduced, j));
    acc = combineInt(kind, acc, v);
  }
  for (int o = 16; o > 0; o >>= 1) {
    int64_t v = __shfl_down_sync(0xffffffffu, acc, o);
    acc = combineInt(kind, acc, v);
  }
  if (lane == 0)
    storeI(y, dt, warp, acc);
}

template <typename T>
__global__ void takeKernel(const T *table, int64_t rows, int64_t rowElems, int indexType,
                           const void *indices, T *out, int64_t n, int32_t *errors, int32_t step) {
  SHARDC_GRID_STRIDE(i, n) {
    int64_t p = i / rowElems, j = i % rowElems;
    int64_t r = loadI(indices, indexType, p);
    if (r < 0 || r >= rows) {
      reportError(errors, step);
      out[i] = T();
      continue;
    }
    out[i] = table[r * rowElems + j];
  }
}

__global__ void scatterAddKernel(int dt, void *out, int64_t rows, int64_t rowElems, int indexType,
                                 const void *indices, const void *updates, int64_t n,
                                 int32_t *errors, int32_t step) {
  SHARDC_GRID_STRIDE(i, n) {
    int64_t p = i / rowElems, j = i % rowElems;
    int64_t r = loadI(indices, indexType, p);
    if (r < 0 || r >= rows) {
      reportError(errors, step);
      continue;
    }
    int64_t o = r * rowElems + j;
    switch (dt) {
    case kF32:
      atomicAdd((float *)out + o, ((const float *)updates)[i]);
      break;
    case kF64:
      atomicAdd((double *)out + o, ((const double *)updates)[i]);
      break;
    case kF16:
      atomicAdd((__half *)out + o, ((const __half *)updates)[i]);
      break;
    case kBF16:
      atomicAdd((__nv_bfloat16 *)out + o, ((const __nv_bfloat16 *)updates)[i]);
      break;
    case kI32:
      atomicAdd((int *)out + o, ((const int *)updates)[i]);
      break; // wraps
    case kI64:
      atomicAdd((unsigned long long *)out + o, (unsigned long long)((const int64_t *)updates)[i]);
      break;
    default: // i1: adding makes true
      if (((const uint8_t *)updates)[i])
        ((uint8_t *)out)[o] = 1;
      break;
    }
  }
}

__global__ void naiveMatmulKernel(int dt, const void *a, const void *b, void *c, int64_t batch,
                                  int64_t m, int64_t n, int64_t k) {
  SHARDC_GRID_STRIDE(i, batch * m * n) {
    int64_t bi = i / (m * n), row = (i / n) % m, col = i % n;
    uint64_t acc = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      acc += (uint64_t)loadI(a, dt, (bi * m + row) * k + kk) *
             (uint64_t)loadI(b, dt, (bi * k + kk) * n + col);
    storeI(c, dt, i, (int64_t)acc);
  }
}

} // namespace

void launchUnary(OpCode op, DType dtype, const void *x, void *y, int64_t n, cudaStream_t stream) {
  if (n > 0)
    unaryKernel<<<gridFor(n), kBlock, 0, stream>>>((int)op, (int)dtype, x, y, n);
}

void launchBinary(OpCode op, DType dtype, const void *a, const void *b, void *y, int64_t n,
                  DeviceErrors errors, int32_t step, cudaStream_t stream) {
  if (n > 0)
    binaryKernel<<<gridFor(n), kBlock, 0, stream>>>((int)op, (int)dtype, a, b, y, n,
                                                    errors.firstFailingStep, step);
}

void launchCompare(int64_t dir, DType dtype, const void *a, const void *b, uint8_t *y, int64_t n,
                   cudaStream_t stream) {
  if (n > 0)
    compareKernel<<<gridFor(n), kBlock, 0, stream>>>((int)dir, (int)dtype, a, b, y, n);
}

void launchSelect(size_t elemBytes, const uint8_t *pred, const void *a, const void *b, void *y,
                  int64_t n, cudaStream_t stream) {
  if (n <= 0)
    return;
  switch (elemBytes) {
  case 1:
    selectKernel<<<gridFor(n), kBlock, 0, stream>>>(pred, (const uint8_t *)a, (const uint8_t *)b,
                                                    (uint8_t *)y, n);
    break;
  case 2:
    selectKernel<<<gridFor(n), kBlock, 0, stream>>>(pred, (const uint16_t *)a, (const uint16_t *)b,
                                                    (uint16_t *)y, n);
    break;
  case 4:
    selectKernel<<<gridFor(n), kBlock, 0, stream>>>(pred, (const uint32_t *)a, (const uint32_t *)b,
                                                    (uint32_t *)y, n);
    break;
  default:
    selectKernel<<<gridFor(n), kBlock, 0, stream>>>(pred, (const uint64_t *)a, (const uint64_t *)b,
                                                    (uint64_t *)y, n);
    break;
  }
}

void launchConvert(DType from, DType to, const void *x, void *y, int64_t n, cudaStream_t stream) {
  if (n > 0)
    convertKernel<<<gridFor(n), kBlock, 0, stream>>>((int)from, (int)to, x, y, n);
}

void launchIota(DType dtype, void *y, int64_t n, int64_t inner, int64_t size, cudaStream_t stream) {
  if (n > 0)
    iotaKernel<<<gridFor(n), kBlock, 0, stream>>>((int)dtype, y, n, inner, size);
}

void launchFill(size_t elemBytes, const void *value, void *y, int64_t n, cudaStream_t stream) {
  if (n <= 0)
    return;
  uint64_t v = 0;
  std::memcpy(&v, value, elemBytes);
  switch (elemBytes) {
  case 1:
    fillKernel<<<gridFor(n), kBlock, 0, stream>>>((uint8_t)v, (uint8_t *)y, n);
    break;
  case 2:
    fillKernel<<<gridFor(n), kBlock, 0, stream>>>((uint16_t)v, (uint16_t *)y, n);
    break;
  case 4:
    fillKernel<<<gridFor(n), kBlock, 0, stream>>>((uint32_t)v, (uint32_t *)y, n);
    break;
  default:
    fillKernel<<<gridFor(n), kBlock, 0, stream>>>(v, (uint64_t *)y, n);
    break;
  }
}

void launchDivideByCount(DType dtype, void *y, int64_t n, int64_t count, cudaStream_t stream) {
  if (n > 0)
    divideKernel<<<gridFor(n), kBlock, 0, stream>>>((int)dtype, y, n, count);
}

void launchStridedCopy(size_t elemBytes, const void *x, void *y, const StridedView &view,
                       cudaStream_t stream) {
  int64_t n = viewCount(view);
  if (n <= 0)
    return;
  switch (elemBytes) {
  case 1:
    stridedCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint8_t *)x, (uint8_t *)y, view, n);
    break;
  case 2:
    stridedCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint16_t *)x, (uint16_t *)y, view,
                                                         n);
    break;
  case 4:
    stridedCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint32_t *)x, (uint32_t *)y, view,
                                                         n);
    break;
  default:
    stridedCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint64_t *)x, (uint64_t *)y, view,
                                                         n);
    break;
  }
}

void launchDynamicCopy(size_t elemBytes, const void *x, void *y, const StridedView &view,
                       const DynamicCorner &corner, cudaStream_t stream) {
  int64_t n = viewCount(view);
  if (n <= 0)
    return;
  switch (elemBytes) {
  case 1:
    dynamicCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint8_t *)x, (uint8_t *)y, view,
                                                         corner, n);
    break;
  case 2:
    dynamicCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint16_t *)x, (uint16_t *)y, view,
                                                         corner, n);
    break;
  case 4:
    dynamicCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint32_t *)x, (uint32_t *)y, view,
                                                         corner, n);
    break;
  default:
    dynamicCopyKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint64_t *)x, (uint64_t *)y, view,
                                                         corner, n);
    break;
  }
}

void launchReduce(int64_t kind, DType dtype, const void *x, void *y, const StridedView &kept,
                  const StridedView &reduced, cudaStream_t stream) {
  int64_t outputs = viewCount(kept), count = viewCount(reduced);
  if (outputs <= 0)
    return;
  int64_t threads = outputs * 32;
  int grid = (int)((threads + kBlock - 1) / kBlock);
  reduceKernel<<<grid, kBlock, 0, stream>>>((int)kind, (int)dtype, x, y, kept, reduced, outputs,
                                            count);
}

// argmax along a dimension: one thread per output, walking the `size`
// elements `inner` apart (the first of equals; NaN above every number).
__global__ void argMaxKernel(int dt, const void *x, int32_t *y, int64_t outer, int64_t size,
                             int64_t inner) {
  SHARDC_GRID_STRIDE(t, outer * inner) {
    int64_t base = (t / inner) * size * inner + t % inner, best = 0;
    double top = loadD(x, dt, base);
    for (int64_t k = 1; k < size && !isnan(top); ++k) {
      double v = loadD(x, dt, base + k * inner);
      if (isnan(v) || v > top) {
        top = v;
        best = k;
      }
    }
    y[t] = (int32_t)best;
  }
}

void launchArgMax(const StructuredLaunch &step) {
  const Shape &shape = step.inputValues[0]->shape;
  int64_t dim = step.attrs[0], outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  int64_t n = outer * inner;
  if (n <= 0)
    return;
  argMaxKernel<<<gridFor(n), kBlock, 0, step.stream>>>((int)step.inputValues[0]->dtype,
                                                       step.inputs[0], (int32_t *)step.output,
                                                       outer, shape[dim], inner);
}

void launchTake(const StructuredLaunch &step) {
  const PlanValue &table = *step.inputValues[0], &indices = *step.inputValues[1];
  int64_t rows = table.shape[0], rowElems = rows ? numElements(table.shape) / rows : 0;
  int64_t n = numElements(indices.shape) * rowElems;
  if (n <= 0)
    return;
  int it = (int)indices.dtype;
  const void *x = step.inputs[0], *idx = step.inputs[1];
  int32_t *e = step.errors.firstFailingStep, at = step.stepIndex;
  cudaStream_t stream = step.stream;
  switch (dtypeSize(table.dtype)) {
  case 1:
    takeKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint8_t *)x, rows, rowElems, it, idx,
                                                  (uint8_t *)step.output, n, e, at);
    break;
  case 2:
    takeKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint16_t *)x, rows, rowElems, it, idx,
                                                  (uint16_t *)step.output, n, e, at);
    break;
  case 4:
    takeKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint32_t *)x, rows, rowElems, it, idx,
                                                  (uint32_t *)step.output, n, e, at);
    break;
  default:
    takeKernel<<<gridFor(n), kBlock, 0, stream>>>((const uint64_t *)x, rows, rowElems, it, idx,
                                                  (uint64_t *)step.output, n, e, at);
    break;
  }
}

void launchScatterAdd(const StructuredLaunch &step) {
  const PlanValue &operand = *step.inputValues[0], &indices = *step.inputValues[1];
  // The output starts as a copy of the operand, unless it is the operand's
  // buffer (the step runs in place). A failed copy is the runtime's last
  // error, which the backend reads after every step.
  if (step.output != step.inputs[0] && operand.bytes())
    (void)cudaMemcpyAsync(step.output, step.inputs[0], operand.bytes(), cudaMemcpyDeviceToDevice,
                          step.stream);
  int64_t rows = operand.shape[0], rowElems = rows ? numElements(operand.shape) / rows : 0;
  int64_t n = numElements(indices.shape) * rowElems;
  if (n > 0)
    scatterAddKernel<<<gridFor(n), kBlock, 0, step.stream>>>(
        (int)operand.dtype, step.output, rows, rowElems, (int)indices.dtype, step.inputs[1],
        step.inputs[2], n, step.errors.firstFailingStep, step.stepIndex);
}

// qkv_attention and its gradient by the definition: one thread per query
// row (b, n, t) for the output and dq, one per key row (b, n, s) for dk
// and dv. q, k and v are rows 3 N H elements apart in the packed operand;
// the gradient is written alike. Sums in the element type (f32 or f64),
// scores recomputed where needed; the statistics of each query row (max,
// sum, D) pass from the first kernel of the gradient to the second in a
// stream-ordered buffer.
struct AttentionShape {
  int64_t B, T, N, H;
  bool causal;
  double scale;
};

template <typename T>
__device__ T attentionScore(const T *qkv, const AttentionShape &a, int64_t b, int64_t n, int64_t t,
                            int64_t s) {
  int64_t row = 3 * a.N * a.H;
  const T *q = qkv + (b * a.T + t) * row + n * a.H;
  const T *k = qkv + (b * a.T + s) * row + a.N * a.H + n * a.H;
  T x = 0;
  for (int64_t h = 0; h < a.H; ++h)
    x += q[h] * k[h];
  return x * (T)a.scale;
}

/// The max and the sum of exp(score - max) of query row (b, n, t).
template <typename T>
__device__ void attentionRow(const T *qkv, const AttentionShape &a, int64_t b, int64_t n, int64_t t,
                             T &top, T &sum) {
  int64_t seen = a.causal ? t + 1 : a.T;
  top = -INFINITY;
  for (int64_t s = 0; s < seen; ++s)
    top = max(top, attentionScore(qkv, a, b, n, t, s));
  sum = 0;
  for (int64_t s = 0; s < seen; ++s)
    sum += exp(attentionScore(qkv, a, b, n, t, s) - top);
}

template <typename T> __global__ void qkvAttentionKernel(const T *qkv, T *out, AttentionShape a) {
  SHARDC_GRID_STRIDE(i, a.B * a.N * a.T) {
    int64_t t = i % a.T, n = (i / a.T) % a.N, b = i / (a.T * a.N);
    int64_t row = 3 * a.N * a.H, seen = a.causal ? t + 1 : a.T;
    T top, sum;
    attentionRow(qkv, a, b, n, t, top, sum);
    T *o = out + ((b * a.T + t) * a.N + n) * a.H;
    for (int64_t h = 0; h < a.H; ++h)
      o[h] = 0;
    for (int64_t s = 0; s < seen; ++s) {
      T p = exp(attentionScore(qkv, a, b, n, t, s) - top) / sum;
      const T *v = qkv + (b * a.T + s) * row + 2 * a.N * a.H + n * a.H;
      for (int64_t h = 0; h < a.H; ++h)
        o[h] += p * v[h];
    }
  }
}

/// dP[t, s] = dout[t] . v[s].
template <typename T>
__device__ T attentionDp(const T *qkv, const T *dout, const AttentionShape &a, int64_t b, int64_t n,
                         int64_t t, int64_t s) {
  const T *g = dout + ((b * a.T + t) * a.N + n) * a.H;
  const T *v = qkv + (b * a.T + s) * 3 * a.N * a.H + 2 * a.N * a.H + n * a.H;
  T x = 0;
  for (int64_t h = 0; h < a.H; ++h)
    x += g[h] * v[h];
  return x;
}

template <typename T>
__global__ void qkvAttentionQueryGradKernel(const T *qkv, const T *dout, T *grad, T *stats,
                                            AttentionShape a) {
  SHARDC_GRID_STRIDE(i, a.B * a.N * a.T) {
    int64_t t = i % a.T, n = (i / a.T) % a.N, b = i / (a.T * a.N);
    int64_t row = 3 * a.N * a.H, seen = a.causal ? t + 1 : a.T;
    T top, sum, D = 0;
    attentionRow(qkv, a, b, n, t, top, sum);
    for (int64_t s = 0; s < seen; ++s)
      D += exp(attentionScore(qkv, a, b, n, t, s) - top) / sum *
           attentionDp(qkv, dout, a, b, n, t, s);
    stats[3 * i] = top, stats[3 * i + 1] = sum, stats[3 * i + 2] = D;
    T *dq = grad + (b * a.T + t) * row + n * a.H;
    for (int64_t h = 0; h < a.H; ++h)
      dq[h] = 0;
    for (int64_t s = 0; s < seen; ++s) {
      T p = exp(attentionScore(qkv, a, b, n, t, s) - top) / sum;
      T ds = p * (attentionDp(qkv, dout, a, b, n, t, s) - D) * (T)a.scale;
      const T *k = qkv + (b * a.T + s) * row + a.N * a.H + n * a.H;
      for (int64_t h = 0; h < a.H; ++h)
        dq[h] += ds * k[h];
    }
  }
}

template <typename T>
__global__ void qkvAttentionKeyGradKernel(const T *qkv, const T *dout, T *grad, const T *stats,
                                          AttentionShape a) {
  SHARDC_GRID_STRIDE(i, a.B * a.N * a.T) {
    int64_t s = i % a.T, n = (i / a.T) % a.N, b = i / (a.T * a.N);
    int64_t row = 3 * a.N * a.H;
    T *dk = grad + (b * a.T + s) * row + a.N * a.H + n * a.H, *dv = dk + a.N * a.H;
    for (int64_t h = 0; h < a.H; ++h)
      dk[h] = dv[h] = 0;
    for (int64_t t = a.causal ? s : 0; t < a.T; ++t) {
      const T *st = stats + 3 * ((b * a.N + n) * a.T + t);
      T p = exp(attentionScore(qkv, a, b, n, t, s) - st[0]) / st[1];
      T ds = p * (attentionDp(qkv, dout, a, b, n, t, s) - st[2]) * (T)a.scale;
      const T *q = qkv + (b * a.T + t) * row + n * a.H;
      const T *g = dout + ((b * a.T + t) * a.N + n) * a.H;
      for (int64_t h = 0; h < a.H; ++h) {
        dk[h] += ds * q[h];
        dv[h] += p * g[h];
      }
    }
  }
}

AttentionShape attentionShape(const StructuredLaunch &step) {
  const Shape &shape = step.inputValues[0]->shape;
  double scale;
  std::memcpy(&scale, &step.attrs[1], sizeof scale);
  return {shape[0], shape[1], shape[3], shape[4], step.attrs[0] != 0, scale};
}

template <typename T> void qkvAttention(const StructuredLaunch &step) {
  AttentionShape a = attentionShape(step);
  int64_t n = a.B * a.N * a.T;
  if (n > 0 && a.H > 0)
    qkvAttentionKernel<T>
        <<<gridFor(n), kBlock, 0, step.stream>>>((const T *)step.inputs[0], (T *)step.output, a);
}

template <typename T> void qkvAttentionGrad(const StructuredLaunch &step) {
  AttentionShape a = attentionShape(step);
  int64_t n = a.B * a.N * a.T;
  if (n <= 0 || a.H <= 0)
    return;
  // A failed allocation is the runtime's last error, which the backend reads
  // after every step.
  T *stats = nullptr;
  if (cudaMallocAsync((void **)&stats, 3 * n * sizeof(T), step.stream) != cudaSuccess)
    return;
  const T *qkv = (const T *)step.inputs[0], *dout = (const T *)step.inputs[1];
  T *grad = (T *)step.output;
  qkvAttentionQueryGradKernel<T><<<gridFor(n), kBlock, 0, step.stream>>>(qkv, dout, grad, stats, a);
  qkvAttentionKeyGradKernel<T><<<gridFor(n), kBlock, 0, step.stream>>>(qkv, dout, grad, stats, a);
  (void)cudaFreeAsync(stats, step.stream);
}

void launchQkvAttention(const StructuredLaunch &step) {
  if (step.inputValues[0]->dtype == DType::F64)
    qkvAttention<double>(step);
  else
    qkvAttention<float>(step);
}

void launchQkvAttentionGrad(const StructuredLaunch &step) {
  if (step.inputValues[0]->dtype == DType::F64)
    qkvAttentionGrad<double>(step);
  else
    qkvAttentionGrad<float>(step);
}

// attention and its gradient over separate q [B,T,N,H], k and v [B,S,N,H]
// (with kv_lengths, causal).
struct SeparateAttention {
  int64_t B, T, S, N, H;
  bool causal;
  double scale;
};

/// Batch item b's keys: [0, its length clamped to [0, S]).
__device__ int64_t keysOf(const int32_t *lengths, const SeparateAttention &a, int64_t b) {
  int64_t len = lengths ? (int64_t)lengths[b] : a.S;
  return len < 0 ? 0 : len > a.S ? a.S : len;
}

/// The keys query t of batch item b sees: [0, the result).
__device__ int64_t keysSeen(const int32_t *lengths, const SeparateAttention &a, int64_t b,
                            int64_t t) {
  int64_t len = keysOf(lengths, a, b);
  return a.causal && len > t + 1 ? t + 1 : len;
}

/// x . y over H elements.
template <typename T> __device__ T rowDot(const T *x, const T *y, int64_t H) {
  T sum = 0;
  for (int64_t h = 0; h < H; ++h)
    sum += x[h] * y[h];
  return sum;
}

/// The shape and attributes of an attention or attention_grad step.
SeparateAttention separateAttention(const StructuredLaunch &step) {
  const Shape &q = step.inputValues[0]->shape;
  double scale;
  std::memcpy(&scale, &step.attrs[1], sizeof scale);
  return {q[0], q[1], step.inputValues[1]->shape[1], q[2], q[3], step.attrs[0] != 0, scale};
}

// attention by the definition: one thread per query row (b, t, n), over
// the keys it sees.
template <typename T>
__global__ void attentionKernel(const T *q, const T *k, const T *v, const int32_t *lengths, T *out,
                                SeparateAttention a) {
  SHARDC_GRID_STRIDE(i, a.B * a.T * a.N) {
    int64_t n = i % a.N, t = (i / a.N) % a.T, b = i / (a.N * a.T);
    int64_t seen = keysSeen(lengths, a, b, t);
    const T *qt = q + i * a.H;
    T *o = out + i * a.H;
    for (int64_t h = 0; h < a.H; ++h)
      o[h] = 0;
    if (seen == 0)
      continue;
    auto key = [&](const T *x, int64_t s) { return x + ((b * a.S + s) * a.N + n) * a.H; };
    auto score = [&](int64_t s) { return rowDot(qt, key(k, s), a.H) * (T)a.scale; };
    T top = -INFINITY, sum = 0;
    for (int64_t s = 0; s < seen; ++s)
      top = max(top, score(s));
    for (int64_t s = 0; s < seen; ++s)
      sum += exp(score(s) - top);
    for (int64_t s = 0; s < seen; ++s) {
      T p = exp(score(s) - top) / sum;
      const T *vs = key(v, s);
      for (int64_t h = 0; h < a.H; ++h)
        o[h] += p * vs[h];
    }
  }
}

template <typename T> void attention(const StructuredLaunch &step) {
  SeparateAttention a = separateAttention(step);
  int64_t n = a.B * a.T * a.N;
  if (n <= 0 || a.H <= 0)
    return;
  const int32_t *lengths = step.inputs.size() == 4 ? (const int32_t *)step.inputs[3] : nullptr;
  attentionKernel<T><<<gridFor(n), kBlock, 0, step.stream>>>(
      (const T *)step.inputs[0], (const T *)step.inputs[1], (const T *)step.inputs[2], lengths,
      (T *)step.output, a);
}

void launchAttention(const StructuredLaunch &step) {
  if (step.inputValues[0]->dtype == DType::F64)
    attention<double>(step);
  else
    attention<float>(step);
}

// attention_grad by the definition: one thread per query row (b, t, n)
// for dq and the row's statistics (max, sum, D), then one per key row
// (b, s, n) for dk and dv over the queries that see it. dout is laid out as
// q; the gradient [B, T + 2S, N, H] holds dq, dk and dv one after another
// along positions.
template <typename T>
__global__ void attentionQueryGradKernel(const T *q, const T *k, const T *v, const T *dout,
                                         const int32_t *lengths, T *grad, T *stats,
                                         SeparateAttention a) {
  SHARDC_GRID_STRIDE(i, a.B * a.T * a.N) {
    int64_t n = i % a.N, t = (i / a.N) % a.T, b = i / (a.N * a.T);
    int64_t seen = keysSeen(lengths, a, b, t);
    const T *qt = q + i * a.H, *gt = dout + i * a.H;
    auto key = [&](const T *x, int64_t s) { return x + ((b * a.S + s) * a.N + n) * a.H; };
    auto score = [&](int64_t s) { return rowDot(qt, key(k, s), a.H) * (T)a.scale; };
    T top = -INFINITY, sum = 0, D = 0;
    for (int64_t s = 0; s < seen; ++s)
      top = max(top, score(s));
    for (int64_t s = 0; s < seen; ++s)
      sum += exp(score(s) - top);
    for (int64_t s = 0; s < seen; ++s)
      D += exp(score(s) - top) / sum * rowDot(gt, key(v, s), a.H);
    stats[3 * i] = top, stats[3 * i + 1] = sum, stats[3 * i + 2] = D;
    T *dq = grad + ((b * (a.T + 2 * a.S) + t) * a.N + n) * a.H;
    for (int64_t h = 0; h < a.H; ++h)
      dq[h] = 0;
    for (int64_t s = 0; s < seen; ++s) {
      T p = exp(score(s) - top) / sum;
      T ds = p * (rowDot(gt, key(v, s), a.H) - D) * (T)a.scale;
      const T *ks = key(k, s);
      for (int64_t h = 0; h < a.H; ++h)
        dq[h] += ds * ks[h];
    }
  }
}

template <typename T>
__global__ void attentionKeyGradKernel(const T *q, const T *k, const T *v, const T *dout,
                                       const int32_t *lengths, T *grad, const T *stats,
                                       SeparateAttention a) {
  SHARDC_GRID_STRIDE(i, a.B * a.S * a.N) {
    int64_t n = i % a.N, s = (i / a.N) % a.S, b = i / (a.N * a.S);
    T *dk = grad + ((b * (a.T + 2 * a.S) + a.T + s) * a.N + n) * a.H;
    T *dv = dk + a.S * a.N * a.H;
    for (int64_t h = 0; h < a.H; ++h)
      dk[h] = dv[h] = 0;
    // Queries t >= s see key s when causal, all do otherwise, unless its
    // batch item's length cuts it.
    if (s >= keysOf(lengths, a, b))
      continue;
    const T *ks = k + i * a.H, *vs = v + i * a.H;
    for (int64_t t = a.causal ? s : 0; t < a.T; ++t) {
      int64_t row = (b * a.T + t) * a.N + n;
      const T *st = stats + 3 * row, *qt = q + row * a.H, *gt = dout + row * a.H;
      T p = exp(rowDot(qt, ks, a.H) * (T)a.scale - st[0]) / st[1];
      T ds = p * (rowDot(gt, vs, a.H) - st[2]) * (T)a.scale;
      for (int64_t h = 0; h < a.H; ++h) {
        dk[h] += ds * qt[h];
        dv[h] += p * gt[h];
      }
    }
  }
}

template <typename T> void attentionGrad(const StructuredLaunch &step) {
  SeparateAttention a = separateAttention(step);
  int64_t rows = a.B * a.T * a.N, keys = a.B * a.S * a.N;
  if (a.H <= 0)
    return;
  const T *qp = (const T *)step.inputs[0], *kp = (const T *)step.inputs[1],
          *vp = (const T *)step.inputs[2], *dout = (const T *)step.inputs[3];
  const int32_t *lengths = step.inputs.size() == 5 ? (const int32_t *)step.inputs[4] : nullptr;
  T *grad = (T *)step.output;
  // A failed allocation is the runtime's last error, which the backend reads
  // after every step.
  T *stats = nullptr;
  if (rows > 0) {
    if (cudaMallocAsync((void **)&stats, 3 * rows * sizeof(T), step.stream) != cudaSuccess)
      return;
    attentionQueryGradKernel<T>
        <<<gridFor(rows), kBlock, 0, step.stream>>>(qp, kp, vp, dout, lengths, grad, stats, a);
  }
  if (keys > 0)
    attentionKeyGradKernel<T>
        <<<gridFor(keys), kBlock, 0, step.stream>>>(qp, kp, vp, dout, lengths, grad, stats, a);
  if (stats)
    (void)cudaFreeAsync(stats, step.stream);
}

void launchAttentionGrad(const StructuredLaunch &step) {
  if (step.inputValues[0]->dtype == DType::F64)
    attentionGrad<double>(step);
  else
    attentionGrad<float>(step);
}

void launchNaiveMatmul(DType dtype, const void *a, const void *b, void *c, int64_t batch, int64_t m,
                       int64_t n, int64_t k, cudaStream_t stream) {
  int64_t total = batch * m * n;
  if (total > 0)
    naiveMatmulKernel<<<gridFor(total), kBlock, 0, stream>>>((int)dtype, a, b, c, batch, m, n, k);
}

} // namespace shardc::cuda
