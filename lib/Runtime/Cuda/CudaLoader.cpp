//===- CudaLoader.cpp - the CUDA backend, loaded at run time --------------===//
//
// libshardc_runtime links no CUDA library. The first time a CUDA backend is
// asked for, this opens the plugin libshardc_cuda.so, which links cudart,
// cuBLAS, NVRTC and NCCL, from the directory of libshardc_runtime itself
// (or SHARDC_CUDA_PLUGIN, a path). A missing plugin or a missing CUDA
// library is one error naming it; the CPU backend is unaffected.
//
//===----------------------------------------------------------------------===//

#include "CudaPlugin.h"

#include "shardc/Runtime/Environment.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace shardc {

namespace {

struct Plugin {
  ShardcCudaCreateFn create = nullptr;
  ShardcCudaTimingFn timing = nullptr;
  std::string error; // why it is not loaded
};

/// The directory of the object that holds this code (libshardc_runtime.so).
std::string ownDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&cudaBackendBuilt), &info) || !info.dli_fname)
    return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

const Plugin &plugin() {
  static Plugin p;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!cudaBackendBuilt()) {
      p.error = "this build has no CUDA backend (configure with -DSHARDC_ENABLE_CUDA=ON "
                "where CUDA 13 and NCCL are installed)";
      return;
    }
    const char *given = envValue(Env::CudaPlugin);
    std::string path = given && *given ? given : ownDirectory() + "libshardc_cuda.so";
    if (access(path.c_str(), R_OK) != 0) {
      p.error = "the CUDA backend " + path + " is missing (install it beside " +
                "libshardc_runtime, or name it in SHARDC_CUDA_PLUGIN)";
      return;
    }
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      p.error = "cannot load the CUDA backend " + path + ": " + (why ? why : "unknown error") +
                " (it needs the CUDA 13 runtime, cuBLAS, NVRTC and NCCL libraries)";
      return;
    }
    auto abi = reinterpret_cast<ShardcCudaAbiFn>(dlsym(handle, "shardc_cuda_plugin_abi"));
    p.create = reinterpret_cast<ShardcCudaCreateFn>(dlsym(handle, "shardc_cuda_create"));
    p.timing = reinterpret_cast<ShardcCudaTimingFn>(dlsym(handle, "shardc_cuda_last_call_timing"));
    if (!abi || !p.create || !p.timing || abi() != cuda::kPluginAbi) {
      p.create = nullptr, p.timing = nullptr;
      p.error = path + " is not the CUDA backend of this shardc (entry points or ABI "
                       "version differ; rebuild it with this runtime)";
    }
    // The plugin stays loaded: backends it made may live until exit.
  });
  return p;
}

} // namespace

bool cudaBackendBuilt() {
#ifdef SHARDC_HAVE_CUDA_PLUGIN
  return true;
#else
  return false;
#endif
}

StatusOr<std::unique_ptr<Backend>> createCudaBackend(const CudaOptions &options) {
  const Plugin &p = plugin();
  if (!p.create)
    return Status::error(p.error);
  std::string error;
  Backend *backend = p.create(&options, &error);
  if (!backend)
    return Status::error(error);
  return std::unique_ptr<Backend>(backend);
}

CudaCallTiming cudaLastCallTiming(Backend &backend) {
  const Plugin &p = plugin();
  return p.timing ? p.timing(&backend) : CudaCallTiming{};
}

} // namespace shardc
