//===- CudaNvrtc.h - run-time compilation of CUDA C++ -----------*- C++ -*-===//
//
// NVRTC compiles generated kernels in process. It needs no GPU and no driver,
// so this is tested on every machine with CUDA installed.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CUDA_CUDANVRTC_H
#define SHARDC_LIB_RUNTIME_CUDA_CUDANVRTC_H

#include "shardc/Runtime/Status.h"

#include <string>

namespace shardc::cuda {

/// Compiles `source` for `arch`: a virtual architecture ("compute_90") gives
/// PTX text, a real one ("sm_90") a CUBIN image. Errors carry NVRTC's log.
StatusOr<std::string> compileWithNvrtc(const std::string &source, const std::string &arch);

/// NVRTC's version, e.g. "13.0".
std::string nvrtcVersionString();

} // namespace shardc::cuda

#endif // SHARDC_LIB_RUNTIME_CUDA_CUDANVRTC_H
