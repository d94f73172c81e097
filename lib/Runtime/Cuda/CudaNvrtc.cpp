//===- CudaNvrtc.cpp - run-time compilation of CUDA C++ -------------------===//
//
// No fast math and no FMA contraction: generated kernels round like the CPU
// backend's loops, which the conformance tests compare them with.
//
//===----------------------------------------------------------------------===//

#include "CudaNvrtc.h"

#include <nvrtc.h>

#include <vector>

namespace shardc::cuda {

StatusOr<std::string> compileWithNvrtc(const std::string &source, const std::string &arch) {
  nvrtcProgram program;
  nvrtcResult r =
      nvrtcCreateProgram(&program, source.c_str(), "shardc_fused.cu", 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    return Status::error(std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(r));
  std::string archOption = "--gpu-architecture=" + arch;
  const char *options[] = {archOption.c_str(), "--std=c++17",     "--fmad=false",
                           "--ftz=false",      "--prec-div=true", "--prec-sqrt=true"};
  r = nvrtcCompileProgram(program, (int)(sizeof(options) / sizeof(options[0])), options);
  if (r != NVRTC_SUCCESS) {
    size_t logSize = 0;
    nvrtcGetProgramLogSize(program, &logSize);
    std::string log(logSize, '\0');
    if (logSize)
      nvrtcGetProgramLog(program, log.data());
    nvrtcDestroyProgram(&program);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
    return Status::error(std::string("NVRTC failed to compile a fused kernel for ") + arch + " (" +
                         nvrtcGetErrorString(r) + "): " + log);
  }
  bool cubin = arch.rfind("sm_", 0) == 0;
  size_t size = 0;
  r = cubin ? nvrtcGetCUBINSize(program, &size) : nvrtcGetPTXSize(program, &size);
  std::string code(size, '\0');
  if (r == NVRTC_SUCCESS)
    r = cubin ? nvrtcGetCUBIN(program, code.data()) : nvrtcGetPTX(program, code.data());
  nvrtcDestroyProgram(&program);
  if (r != NVRTC_SUCCESS)
    return Status::error(std::string("NVRTC: cannot read the compiled code: ") +
                         nvrtcGetErrorString(r));
  return code;
}

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

} // namespace shardc::cuda
