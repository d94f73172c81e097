//===- CudaPlugin.h - the entry points of libshardc_cuda.so -----*- C++ -*-===//
//
// The CUDA backend lives in a plugin that links the CUDA libraries, so that
// libshardc_runtime links none. The runtime's loader (CudaLoader.cpp) opens
// the plugin with dlopen the first time a CUDA backend is asked for and
// finds these C entry points with dlsym. Both sides come from one build:
// the ABI number guards against a plugin left over from another.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CUDA_CUDAPLUGIN_H
#define SHARDC_LIB_RUNTIME_CUDA_CUDAPLUGIN_H

#include "shardc/Runtime/CudaBackend.h"

#include <string>

namespace shardc::cuda {

/// The backend itself (CudaBackend.cpp).
StatusOr<std::unique_ptr<Backend>> createBackend(const CudaOptions &options);
CudaCallTiming lastCallTiming(Backend &backend);

/// Bumped whenever an entry point, CudaOptions, CudaCallTiming or Backend
/// changes.
constexpr int kPluginAbi = 1;

} // namespace shardc::cuda

extern "C" {
/// shardc_cuda_plugin_abi(): kPluginAbi.
using ShardcCudaAbiFn = int (*)();
/// shardc_cuda_create(options, error): a new backend, or nullptr with
/// *error set.
using ShardcCudaCreateFn = shardc::Backend *(*)(const shardc::CudaOptions *options,
                                                std::string *error);
/// shardc_cuda_last_call_timing(backend).
using ShardcCudaTimingFn = shardc::CudaCallTiming (*)(shardc::Backend *backend);
}

#endif // SHARDC_LIB_RUNTIME_CUDA_CUDAPLUGIN_H
