//===- FusedJitEnvironment.cpp - the suites run with JIT-compiled fused kernels //
//
// The driver and the embedding API install the FusedJit into the CPU
// backend; so do the suites that run plans, so that conformance and
// partition equivalence check the kernels users get. SHARDC_FUSED_JIT=0
// runs them on the tile-program interpreter instead.
//
//===----------------------------------------------------------------------===//

#include "shardc/JIT/FusedJit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
class FusedJitEnvironment : public testing::Environment {
public:
  // Every program compiles on first use (the suites' tensors are small, so
  // the default policy would leave most of them interpreted).
  void SetUp() override {
    const char *env = std::getenv("SHARDC_FUSED_JIT");
    if (env && std::string(env) == "0")
      return;
    std::string error;
    jit = shardc::FusedJit::create(shardc::FusedJitOptions{0, 0}, error);
    if (!jit)
      std::printf("no fused JIT: %s\n", error.c_str());
    shardc::setFusedKernelCompiler(jit);
  }
  void TearDown() override {
    if (!jit)
      return;
    shardc::FusedJitStats s = jit->stats();
    std::printf("fused kernels: %lld compiled (%.1f ms), %lld declined, %lld failed\n",
                (long long)s.compiled, s.compileMs, (long long)s.declined,
                (long long)s.failed);
  }

private:
  std::shared_ptr<shardc::FusedJit> jit;
};
testing::Environment *const environment =
    testing::AddGlobalTestEnvironment(new FusedJitEnvironment);
} // namespace
