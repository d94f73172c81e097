//===- CudaBackend.h - plans on NVIDIA GPUs ---------------------*- C++ -*-===//
//
// The CUDA backend runs a Plan with one GPU per mesh position: cuBLAS for
// dot_general, kernels generated at run time (NVRTC) for fused regions,
// kernels built with nvcc for the other ops, NCCL for collectives. It builds
// wherever CUDA 13 is installed, as the plugin libshardc_cuda.so, which
// libshardc_runtime loads the first time createCudaBackend() is called: the
// runtime and host programs link no CUDA library. Where the build has no
// CUDA backend, the plugin or a CUDA library cannot be loaded, or no GPU is
// usable, createCudaBackend() returns an error saying which.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_CUDABACKEND_H
#define SHARDC_RUNTIME_CUDABACKEND_H

#include "shardc/Runtime/Backend.h"

#include <memory>
#include <string>

namespace shardc {

struct CudaOptions {
  /// Multi-process runs (one process per GPU): this process's rank and the
  /// number of processes, with the NCCL unique id exchanged through the file
  /// SHARDC_NCCL_ID_FILE (written by rank 0). -1: one process drives every
  /// GPU. Also read from SHARDC_NCCL_RANK / SHARDC_NCCL_NRANKS.
  int processRank = -1;
  int processCount = 0;
};

/// True when this build contains the CUDA backend.
bool cudaBackendBuilt();

/// A backend on the GPUs of this machine, or why there is none (no CUDA in
/// this build, no driver, no device), as one line.
StatusOr<std::unique_ptr<Backend>> createCudaBackend(const CudaOptions &options = {});

/// Device time of the last execute() on the first GPU (CUDA events): the
/// steps alone, and the whole call with the copies in and out. Zeros for a
/// backend that is not the CUDA backend. For benchmarks.
struct CudaCallTiming {
  double stepsMs = 0, totalMs = 0;
};
CudaCallTiming cudaLastCallTiming(Backend &backend);

} // namespace shardc

#endif // SHARDC_RUNTIME_CUDABACKEND_H
