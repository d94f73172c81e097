//===- FusedJitEnvironment.cpp - the suites run with JIT-compiled fused kernels //
//
// The driver and the embedding API install the FusedJit into the CPU
// backend; so do the suites that run plans, so that conformance and
// partition equivalence check the kernels users get. SHARDC_FUSED_JIT=0
// runs them on the tile-program interpreter instead. Otherwise a JIT that
// cannot be created, or a kernel that does not compile, fails the test that
// met it: falling back to the interpreter would pass without checking the
// kernels at all.
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
      ADD_FAILURE() << "the fused-kernel JIT cannot be created: " << error
                    << " (SHARDC_FUSED_JIT=0 runs the suites on the interpreter)";
    shardc::setFusedKernelCompiler(jit);
  }
  void TearDown() override {
    if (!jit)
      return;
    shardc::FusedJitStats s = jit->stats();
    std::printf("fused kernels: %lld compiled (%.1f ms), %lld declined, %lld failed\n",
                (long long)s.compiled, s.compileMs, (long long)s.declined, (long long)s.failed);
    EXPECT_EQ(s.failed, 0) << "fused kernels failed to compile and ran on the interpreter";
  }

private:
  std::shared_ptr<shardc::FusedJit> jit;
};
testing::Environment *const environment =
    testing::AddGlobalTestEnvironment(new FusedJitEnvironment);
} // namespace
