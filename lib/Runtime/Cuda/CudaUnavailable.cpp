//===- CudaUnavailable.cpp - createCudaBackend in builds without CUDA -----===//

#include "shardc/Runtime/CudaBackend.h"

namespace shardc {

bool cudaBackendBuilt() { return false; }

StatusOr<std::unique_ptr<Backend>> createCudaBackend(const CudaOptions &) {
  return Status::error("this build has no CUDA backend (configure with "
                       "-DSHARDC_ENABLE_CUDA=ON where CUDA 13 and NCCL are installed)");
}

CudaCallTiming cudaLastCallTiming(Backend &) { return {}; }

} // namespace shardc
