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

namespace {
class FusedJitEnvironment : public testing::Environment {
public:
  void SetUp() override { shardc::installFusedJit(); }
};
testing::Environment *const environment =
    testing::AddGlobalTestEnvironment(new FusedJitEnvironment);
} // namespace
