//===- CompileCacheTest.cpp - the compile cache ---------------------------===//

#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/CompileCache.h"
#include "shardc/Runtime/File.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace shardc;

namespace {

/// A small valid plan: y = -x on one device.
Plan negPlan(int64_t n) {
  Plan p;
  p.entry = "main";
  p.values = {PlanValue{DType::F32, {n}, -1}, PlanValue{DType::F32, {n}, 0}};
  p.args = {0};
  p.results = {1};
  p.argNames = {"x"};
  p.argShardings = {NamedSharding{Mesh{}, PartitionSpec(1)}};
  p.resultShardings = {NamedSharding{Mesh{}, PartitionSpec(1)}};
  p.argGlobalShapes = {{n}};
  p.resultGlobalShapes = {{n}};
  PlanStep neg;
  neg.op = OpCode::Neg;
  neg.inputs = {0};
  neg.outputs = {1};
  neg.location = "test.mlir:1:1";
  p.steps = {neg};
  p.arenaBytes = 64 * ((n * 4 + 63) / 64);
  return p;
}

std::string tempDir() {
  char tmpl[] = "/tmp/shardc-cache-test-XXXXXX";
  return mkdtemp(tmpl);
}

TEST(CompileCache, KeysDependOnEveryPart) {
  std::string a = CompileCache::keyFor({"module", "main", "cpu"});
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a, CompileCache::keyFor({"module", "main", "cpu"}));
  EXPECT_NE(a, CompileCache::keyFor({"module", "main", "cuda"}));
  EXPECT_NE(a, CompileCache::keyFor({"module", "mai", "ncpu"})); // framing
}

TEST(CompileCache, SecondCallWithTheSameKeyIsAMemoryHit) {
  CompileCache cache; // memory only
  int compiles = 0;
  auto compile = [&]() -> StatusOr<Plan> {
    ++compiles;
    return negPlan(8);
  };
  ASSERT_TRUE(cache.getOrCompile("k8", compile).ok());
  ASSERT_TRUE(cache.getOrCompile("k8", compile).ok());
  EXPECT_EQ(compiles, 1);
  ASSERT_TRUE(cache.getOrCompile("k16", compile).ok()); // another batch size
  EXPECT_EQ(compiles, 2);
  CompileCache::Stats s = cache.stats();
  EXPECT_EQ(s.memoryHits, 1);
  EXPECT_EQ(s.misses, 2);
  EXPECT_EQ(s.diskHits, 0);
}

TEST(CompileCache, DiskEntriesAreSharedAndCorruptOnesRecompiled) {
  std::string dir = tempDir();
  int compiles = 0;
  auto compile = [&]() -> StatusOr<Plan> {
    ++compiles;
    return negPlan(8);
  };
  {
    CompileCache first(dir);
    ASSERT_TRUE(first.getOrCompile("key", compile).ok());
  }
  CompileCache second(dir);
  StatusOr<std::shared_ptr<const Plan>> hit = second.getOrCompile("key", compile);
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(second.stats().diskHits, 1);
  EXPECT_EQ((*hit)->steps.size(), 1u);

  // Corrupt the entry: it is recompiled and rewritten.
  std::string path = dir + "/key.shardc";
  StatusOr<std::string> bytes = readFile(path);
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  damaged[damaged.size() / 2] ^= 0x5a;
  ASSERT_TRUE(writeFileAtomically(path, damaged).ok());
  CompileCache third(dir);
  ASSERT_TRUE(third.getOrCompile("key", compile).ok());
  EXPECT_EQ(compiles, 2);
  EXPECT_EQ(third.stats().corruptEntries, 1);
  EXPECT_TRUE(readArtifact(path).ok());

  // A crafted entry (checksum recomputed, an opcode swapped so the step has
  // the wrong arity) is untrusted input too: rejected, recompiled.
  Plan crafted = negPlan(8);
  crafted.steps[0].op = OpCode::Add;
  ASSERT_TRUE(writeFileAtomically(path, serializePlan(crafted)).ok());
  CompileCache fourth(dir);
  StatusOr<std::shared_ptr<const Plan>> again = fourth.getOrCompile("key", compile);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(compiles, 3);
  EXPECT_EQ(fourth.stats().corruptEntries, 1);
  EXPECT_EQ((*again)->steps[0].op, OpCode::Neg);
  std::system(("rm -rf " + dir).c_str());
}

TEST(CompileCache, ConcurrentWritersLeaveAValidEntry) {
  std::string dir = tempDir();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        CompileCache fresh(dir);
        if (!fresh.getOrCompile("shared", [] { return StatusOr<Plan>(negPlan(1024)); }).ok())
          ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  StatusOr<Plan> plan = readArtifact(dir + "/shared.shardc");
  ASSERT_TRUE(plan.ok()) << plan.message();
  EXPECT_EQ(plan->values[1].shape, Shape{1024});
  std::system(("rm -rf " + dir).c_str());
}

TEST(CompileCache, CompileErrorsAreReturnedAndNotCached) {
  CompileCache cache;
  StatusOr<std::shared_ptr<const Plan>> r =
      cache.getOrCompile("bad", [] { return StatusOr<Plan>(Status::error("no")); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "no");
  EXPECT_TRUE(cache.getOrCompile("bad", [] { return StatusOr<Plan>(negPlan(2)); }).ok());
}

} // namespace

TEST(CompileCache, AnotherBuildsPlansAreNeverRead) {
  // The fingerprint carries a hash of the compiler's sources.
  std::string fingerprint = CompileCache::compilerFingerprint();
  EXPECT_NE(fingerprint.find("shardc-"), std::string::npos);
  EXPECT_GE(fingerprint.size(), 16u + 6u);
  std::string dir = tempDir();
  int compiles = 0;
  auto compile = [&]() -> StatusOr<Plan> {
    ++compiles;
    return negPlan(4);
  };
  std::vector<std::string> parts{"program", "main", "cpu"};
  std::string older = CompileCache::keyFor("shardc-0.1.0-plan3-0123456789abcdef", parts);
  std::string ours = CompileCache::keyFor(parts);
  EXPECT_NE(older, ours);
  EXPECT_EQ(ours, CompileCache::keyFor(fingerprint, parts));
  {
    CompileCache old(dir); // what an older build left on disk
    ASSERT_TRUE(old.getOrCompile(older, compile).ok());
  }
  CompileCache cache(dir);
  ASSERT_TRUE(cache.getOrCompile(ours, compile).ok());
  EXPECT_EQ(compiles, 2);
  EXPECT_EQ(cache.stats().diskHits, 0);
  EXPECT_EQ(cache.stats().misses, 1);
  std::system(("rm -rf " + dir).c_str());
}
