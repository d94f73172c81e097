//===- CudaFusedCodegen.h - CUDA C++ for fused programs ---------*- C++ -*-===//
//
// Turns the program of a Fused step into the source of one CUDA kernel,
// compiled at run time with NVRTC (CudaNvrtc.h). Pure string generation: no
// CUDA header is needed, so it is built and tested everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CUDA_CUDAFUSEDCODEGEN_H
#define SHARDC_LIB_RUNTIME_CUDA_CUDAFUSEDCODEGEN_H

#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Status.h"

#include <string>

namespace shardc::cuda {

/// The name every generated kernel has (one kernel per module).
constexpr const char *kFusedKernelName = "shardc_fused";

/// Threads per block of a generated kernel. Row kernels (programs with
/// reductions) run one block per row and must be launched with exactly
/// this many threads.
constexpr int kFusedBlock = 256;

/// A generated kernel. Its parameters, in order: one `const float *` per
/// input, one `float *` per output then per reduction, and `long long n`,
/// the element count of the chain (rows * cols for row kernels).
///   elementwise kernel: any grid, a grid-stride loop over the n elements;
///   row kernel: grid = n / rowCols blocks of kFusedBlock threads, block r
///   computes row r and stores each reduction's value for it.
struct FusedKernel {
  std::string source;
  bool rowKernel = false;
  int64_t rowCols = 0; // row kernels: the row length
};

/// Checks that `program` is well formed for a step with these many inputs
/// and outputs (registers defined before use, known ops and load modes).
Status validateFusedProgram(const FusedProgram &program, size_t numInputs, size_t numOutputs);

/// The CUDA C++ source of `program`'s kernel (validated first).
StatusOr<FusedKernel> generateFusedKernel(const FusedProgram &program, size_t numInputs,
                                          size_t numOutputs);

} // namespace shardc::cuda

#endif // SHARDC_LIB_RUNTIME_CUDA_CUDAFUSEDCODEGEN_H
