//===- CudaPlugin.cpp - libshardc_cuda.so's entry points ------------------===//

#include "CudaPlugin.h"

#define SHARDC_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

SHARDC_PLUGIN_EXPORT int shardc_cuda_plugin_abi() { return shardc::cuda::kPluginAbi; }

SHARDC_PLUGIN_EXPORT shardc::Backend *shardc_cuda_create(const shardc::CudaOptions *options,
                                                         std::string *error) {
  shardc::StatusOr<std::unique_ptr<shardc::Backend>> backend =
      shardc::cuda::createBackend(*options);
  if (!backend.ok()) {
    *error = backend.message();
    return nullptr;
  }
  return backend->release();
}

SHARDC_PLUGIN_EXPORT shardc::CudaCallTiming shardc_cuda_last_call_timing(shardc::Backend *backend) {
  return shardc::cuda::lastCallTiming(*backend);
}
