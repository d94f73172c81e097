//===- CudaConformanceTest.cpp - artifacts on the CPU and CUDA backends ---===//
//
// The GPU machine has no MLIR, so its conformance suite runs compiled plans:
// test/gpu/artifacts/<case>/ holds plan.shardc, its inputs arg<i>.npy and
// the reference interpreter's results result<i>.npy (written by
// test/gpu/make_artifacts.sh). Each case runs on the CPU backend (always:
// it checks the artifacts and this harness) and on the CUDA backend (where
// a GPU is usable; skipped otherwise, and for plans needing more GPUs than
// the machine has).
//
// Comparison: integers and i1 bit-exact; f32 within 1e-4 * max(1, |want|)
// (cuBLAS and the reductions accumulate in a different order than the
// reference's double sums); f64 1e-10; NaN must meet NaN.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/CudaBackend.h"
#include "shardc/Runtime/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace shardc;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name;
  Plan plan;
  std::vector<Array> args, expected;
};

std::vector<Case> loadCases() {
  std::vector<Case> cases;
  std::vector<fs::path> dirs;
  for (const auto &entry : fs::directory_iterator(SHARDC_GPU_ARTIFACTS_DIR))
    if (entry.is_directory())
      dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path &dir : dirs) {
    Case c;
    c.name = dir.filename().string();
    StatusOr<Plan> plan = readArtifact((dir / "plan.shardc").string());
    EXPECT_TRUE(plan.ok()) << c.name << ": " << (plan.ok() ? "" : plan.message());
    if (!plan.ok())
      continue;
    c.plan = std::move(*plan);
    for (size_t i = 0; i < c.plan.args.size(); ++i) {
      StatusOr<Array> a = readNpy((dir / ("arg" + std::to_string(i) + ".npy")).string());
      EXPECT_TRUE(a.ok()) << c.name << ": " << (a.ok() ? "" : a.message());
      if (a.ok())
        c.args.push_back(std::move(*a));
    }
    for (size_t i = 0; i < c.plan.results.size(); ++i) {
      StatusOr<Array> a = readNpy((dir / ("result" + std::to_string(i) + ".npy")).string());
      EXPECT_TRUE(a.ok()) << c.name << ": " << (a.ok() ? "" : a.message());
      if (a.ok())
        c.expected.push_back(std::move(*a));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

testing::AssertionResult matches(const Array &got, const Array &want) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    return testing::AssertionFailure()
           << "got " << got.typeString() << ", want " << want.typeString();
  int64_t bad = 0;
  std::string shown;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    bool ok;
    if (!isFloat(want.dtype())) {
      ok = got.getInt(i) == want.getInt(i);
    } else {
      double g = got.getDouble(i), w = want.getDouble(i);
      double rel = want.dtype() == DType::F64 ? 1e-10 : 1e-4;
      if (std::isnan(g) || std::isnan(w))
        ok = std::isnan(g) && std::isnan(w);
      else if (std::isinf(g) || std::isinf(w))
        ok = g == w;
      else
        ok = std::fabs(g - w) <= rel * std::max(1.0, std::fabs(w));
    }
    if (!ok && ++bad <= 5)
      shown += "\n  element " + std::to_string(i) + ": got " + std::to_string(got.getDouble(i)) +
               ", want " + std::to_string(want.getDouble(i));
  }
  if (bad == 0)
    return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << bad << " of " << want.numElements() << " elements differ" << shown;
}

/// Runs every case; a plan needing more GPUs than the machine has is
/// counted and skipped.
void runCases(Backend &backend) {
  std::vector<Case> cases = loadCases();
  ASSERT_FALSE(cases.empty()) << "no artifacts under " << SHARDC_GPU_ARTIFACTS_DIR;
  int64_t skipped = 0;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<std::vector<Array>> got = runPlan(backend, c.plan, c.args);
    if (!got.ok() && got.message().find("usable GPU(s)") != std::string::npos) {
      ++skipped;
      continue;
    }
    // Go on with the other cases: one failure should not hide the rest.
    EXPECT_TRUE(got.ok()) << got.message();
    if (!got.ok())
      continue;
    EXPECT_EQ(got->size(), c.expected.size());
    if (got->size() != c.expected.size())
      continue;
    for (size_t r = 0; r < got->size(); ++r)
      EXPECT_TRUE(matches((*got)[r], c.expected[r])) << "result " << r;
  }
  if (skipped)
    std::printf("%lld case(s) need more GPUs than this machine has: not run\n", (long long)skipped);
}

TEST(GpuArtifacts, CpuBackendMatchesTheReference) {
  std::unique_ptr<Backend> cpu = createCpuBackend();
  runCases(*cpu);
}

TEST(GpuArtifacts, CudaBackendMatchesTheReference) {
  StatusOr<std::unique_ptr<Backend>> cuda = createCudaBackend();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.message();
  runCases(**cuda);
}

} // namespace
