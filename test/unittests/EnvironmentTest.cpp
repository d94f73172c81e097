//===- EnvironmentTest.cpp - the variables shardc reads, and the profile --===//
//
// Every row of Environment.def is documented in docs/environment.md; the
// numeric reader rejects what is not a number; the CPU backend's profile is
// an option (CpuBackendOptions), printed only where asked for.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/Environment.h"
#include "shardc/Runtime/Plan.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

using namespace shardc;

namespace {

TEST(Environment, EveryVariableIsDocumented) {
  std::ifstream in(SHARDC_SOURCE_DIR "/docs/environment.md");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  std::set<std::string> names;
  for (const EnvVariable &v : environmentVariables()) {
    EXPECT_NE(text.str().find(std::string("`") + v.name), std::string::npos)
        << v.name << " is read but not in docs/environment.md";
    EXPECT_TRUE(names.insert(v.name).second) << v.name << " is in the table twice";
    EXPECT_STREQ(envName(v.id), v.name);
  }
}

TEST(Environment, ReadsValuesAndRejectsMalformedNumbers) {
  ::setenv("SHARDC_ARRAY_CACHE_MB", "512", 1);
  EXPECT_EQ(envInt(Env::ArrayCacheMb), 512);
  EXPECT_TRUE(envIs(Env::ArrayCacheMb, "512"));
  EXPECT_FALSE(envIs(Env::ArrayCacheMb, "51"));
  for (const char *bad : {"", "abc", "-3", "12MB", "99999999999999999999999"}) {
    ::setenv("SHARDC_ARRAY_CACHE_MB", bad, 1);
    EXPECT_EQ(envInt(Env::ArrayCacheMb), std::nullopt) << "'" << bad << "'";
  }
  ::unsetenv("SHARDC_ARRAY_CACHE_MB");
  EXPECT_EQ(envValue(Env::ArrayCacheMb), nullptr);
  EXPECT_EQ(envInt(Env::ArrayCacheMb), std::nullopt);
}

/// One device: y = exp(x) on 4 floats.
Plan expPlan() {
  Plan p;
  p.entry = "main";
  p.mesh = Mesh{{"x"}, {1}};
  p.values.push_back({DType::F32, {4}, kArgument});
  p.values.push_back({DType::F32, {4}, 0});
  p.args = {0};
  p.argNames = {"x"};
  p.argShardings = {{p.mesh, {{}}}};
  p.argGlobalShapes = {{4}};
  p.donated = {false};
  p.results = {1};
  p.resultShardings = {{p.mesh, {{}}}};
  p.resultGlobalShapes = {{4}};
  p.steps.push_back({OpCode::Exp, {0}, {1}, {}, {}, {}, "model.mlir:7:3"});
  p.arenaBytes = p.unsharedBytes = 64;
  return p;
}

TEST(CpuBackendOptions, ProfileIsAnOption) {
  ::unsetenv("SHARDC_PROFILE");
  EXPECT_FALSE(CpuBackendOptions::fromEnvironment().profile);
  ::setenv("SHARDC_PROFILE", "1", 1);
  EXPECT_TRUE(CpuBackendOptions::fromEnvironment().profile);
  ::unsetenv("SHARDC_PROFILE");

  Plan plan = expPlan();
  ASSERT_TRUE(validatePlan(plan).ok()) << validatePlan(plan).message();
  Array x = Array::fromDoubles(DType::F32, {4}, {0, 1, 2, 3});
  for (bool profile : {false, true}) {
    CpuBackendOptions options;
    options.profile = profile;
    std::unique_ptr<Backend> cpu = createCpuBackend(options);
    testing::internal::CaptureStderr();
    StatusOr<std::vector<Array>> y = runPlan(*cpu, plan, {x});
    std::string said = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(y.ok()) << y.message();
    EXPECT_NEAR((*y)[0].getDouble(3), std::exp(3.0), 1e-4);
    if (profile)
      EXPECT_NE(said.find(" ms  model.mlir:7:3 exp"), std::string::npos) << said;
    else
      EXPECT_EQ(said.find(" ms "), std::string::npos) << said;
  }
}

} // namespace
