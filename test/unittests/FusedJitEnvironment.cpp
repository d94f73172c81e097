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

namespace {
class FusedJitEnvironment : public testing::Environment {
public:
  void SetUp() override { jit = shardc::installFusedJit(); }
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
