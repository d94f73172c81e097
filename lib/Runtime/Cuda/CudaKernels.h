//===- CudaKernels.h - the CUDA backend's build-time kernels ----*- C++ -*-===//
//
// Launchers for the kernels compiled with nvcc (CudaKernels.cu): every op
// that is not a matmul, a fused region or a collective. Each enqueues work on
// `stream` and returns at once; none synchronizes. Element types are runtime
// arguments (one kernel per op, not per type) to keep the build small: the
// type switch is uniform across a warp and costs nothing next to memory.
// Semantics follow the reference kernels: floats computed in double and
// rounded once, integers in int64 with wrap-around, conversions saturating.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CUDA_CUDAKERNELS_H
#define SHARDC_LIB_RUNTIME_CUDA_CUDAKERNELS_H

#include "shardc/Runtime/Plan.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace shardc::cuda {

/// Arrays of up to this rank take the strided paths.
constexpr int kMaxRank = 8;

/// A strided view: element (i0, ..., ir-1) of `shape` lives at
/// offset + sum(i_d * strides[d]) (in elements).
struct StridedView {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t inStrides[kMaxRank] = {};
  int64_t outStrides[kMaxRank] = {};
  int64_t inOffset = 0, outOffset = 0;
};

/// The corner of a dynamic box, read on the device so the host never waits
/// for it: start d is the rank-0 value at index[d] (indexBytes[d] 4: i32,
/// 8: i64), clamped to [0, limit[d]] (operand dim - box dim); the corner,
/// sum(start_d * strides[d]) over the operand's strides, is added to the
/// view's inOffset (a slice reads the box) or outOffset (an update writes it).
struct DynamicCorner {
  const void *index[kMaxRank] = {};
  int indexBytes[kMaxRank] = {};
  int64_t limit[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
  bool intoOutput = false;
};

/// Data errors found on the device (an index out of range, an integer
/// division by zero) record the smallest failing step index here; the host
/// reads it once after the step loop. INT32_MAX: no error.
struct DeviceErrors {
  int32_t *firstFailingStep; // device pointer to one int32
};

/// A step of a structured op (the SHARDC_STRUCTURED rows of OpCodes.def)
/// as its CUDA kernel sees it: device pointers and the plan's values.
struct StructuredLaunch {
  std::vector<const void *> inputs;
  std::vector<const PlanValue *> inputValues;
  void *output;
  const PlanValue *outputValue;
  const std::vector<int64_t> &attrs;
  cudaStream_t stream;
  /// Where a kernel reports bad data (take's index out of range), as this
  /// step, stepIndex.
  DeviceErrors errors;
  int32_t stepIndex;
};
/// One launcher per row, each in CudaKernels.cu. take's out-of-range
/// indices give zeros, scatter_add's are skipped; both are reported.
#define SHARDC_STRUCTURED(Name, ...) void launch##Name(const StructuredLaunch &step);
#include "shardc/Common/OpCodes.def"

/// Unary elementwise op (Neg..Erf) on n elements of `dtype`.
void launchUnary(OpCode op, DType dtype, const void *x, void *y, int64_t n, cudaStream_t stream);
/// Binary elementwise op (Add..Pow); integer division by zero is reported.
void launchBinary(OpCode op, DType dtype, const void *a, const void *b, void *y, int64_t n,
                  DeviceErrors errors, int32_t step, cudaStream_t stream);
/// y (i1) = a <dir> b, dir = eq ne lt le gt ge.
void launchCompare(int64_t dir, DType dtype, const void *a, const void *b, uint8_t *y, int64_t n,
                   cudaStream_t stream);
void launchSelect(size_t elemBytes, const uint8_t *pred, const void *a, const void *b, void *y,
                  int64_t n, cudaStream_t stream);
void launchConvert(DType from, DType to, const void *x, void *y, int64_t n, cudaStream_t stream);
/// y[i] = (i / inner) % size.
void launchIota(DType dtype, void *y, int64_t n, int64_t inner, int64_t size, cudaStream_t stream);
/// Fills n elements with one value (elemBytes of `value`, read on the host).
void launchFill(size_t elemBytes, const void *value, void *y, int64_t n, cudaStream_t stream);
/// y[i] = y[i] / count (the mean of an all_reduce after its sum).
void launchDivideByCount(DType dtype, void *y, int64_t n, int64_t count, cudaStream_t stream);
/// Copies the elements of `view` from x to y (transpose, slice, broadcast
/// with zero strides, concatenate into a block, collective repacking).
void launchStridedCopy(size_t elemBytes, const void *x, void *y, const StridedView &view,
                       cudaStream_t stream);
/// launchStridedCopy with the corner of view.rank dimensions added to one
/// side (dynamic_slice, dynamic_update_slice).
void launchDynamicCopy(size_t elemBytes, const void *x, void *y, const StridedView &view,
                       const DynamicCorner &corner, cudaStream_t stream);
/// Reduces: output element o at kept index k reads x at keptBase(k) +
/// reduced offsets. kept/reduced views use inStrides only.
void launchReduce(int64_t kind, DType dtype, const void *x, void *y, const StridedView &kept,
                  const StridedView &reduced, cudaStream_t stream);
/// C[b] = A[b] x B[b], A: M x K, B: K x N, row-major, for element types
/// cuBLAS does not multiply (integers): products in int64, wrapping.
void launchNaiveMatmul(DType dtype, const void *a, const void *b, void *c, int64_t batch, int64_t m,
                       int64_t n, int64_t k, cudaStream_t stream);

} // namespace shardc::cuda

#endif // SHARDC_LIB_RUNTIME_CUDA_CUDAKERNELS_H
