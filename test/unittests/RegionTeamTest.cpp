//===- RegionTeamTest.cpp - a whole plan in one OpenMP region -------------===//
//
// Inside runInOneRegion the ranges parallelRange hands out run exactly once
// each, on the team's threads; a range a team thread runs keeps its nested
// ranges; errors reach the caller; a region inside a region runs alone.
//
//===----------------------------------------------------------------------===//

#include "Cpu/CpuKernels.h"
#include "Cpu/RegionTeam.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace shardc::cpu;

namespace {

/// Two threads, where the machine lets OpenMP make them.
bool twoThreads() {
#ifdef _OPENMP
  return omp_get_thread_limit() >= 2;
#else
  return false;
#endif
}

TEST(RegionTeam, EveryIndexRunsOnce) {
  EXPECT_FALSE(leadsRegionTeam());
  int handed = 0;
  runInOneRegion(2, [&] {
    EXPECT_EQ(leadsRegionTeam(), twoThreads());
    for (int64_t n : {0, 1, 2, 3, 17, 1000, 4097}) {
      std::vector<std::atomic<int>> ran(n);
      bool ok = teamRange(n, [&](int64_t begin, int64_t end) {
        EXPECT_LE(0, begin);
        EXPECT_LE(begin, end);
        EXPECT_LE(end, n);
        for (int64_t i = begin; i < end; ++i)
          ++ran[i];
      });
      if (!ok)
        continue;
      ++handed;
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(ran[i].load(), 1) << "index " << i << " of " << n;
    }
  });
  EXPECT_EQ(handed, twoThreads() ? 7 : 0);
  EXPECT_FALSE(leadsRegionTeam());
  EXPECT_FALSE(teamRange(4, [](int64_t, int64_t) { FAIL() << "no team to run it"; }));
}

TEST(RegionTeam, ParallelRangeHandsLargeWorkToTheOtherThread) {
  if (!twoThreads())
    GTEST_SKIP() << "OpenMP makes one thread here";
  setBlasThreads(2, /*concurrentCallers=*/false);
  if (sharedThreadPoolSize() < 2) {
    setBlasThreads(1, /*concurrentCallers=*/false);
    GTEST_SKIP() << "BLAS shares no OpenMP pool here";
  }
  std::thread::id caller = std::this_thread::get_id();
  std::mutex m;
  std::set<std::thread::id> ran, nested;
  bool workerSawItself = false;
  runInOneRegion(2, [&] {
    parallelRange(
        2,
        [&](int64_t begin, int64_t) {
          {
            std::lock_guard<std::mutex> lock(m);
            ran.insert(std::this_thread::get_id());
            if (std::this_thread::get_id() != caller)
              workerSawItself = inRegionTeamWorker();
          }
          if (begin == 0) // the caller's own range: the other thread is busy
            parallelRange(
                2, [&](int64_t, int64_t) { EXPECT_EQ(std::this_thread::get_id(), caller); },
                int64_t(1) << 20);
          if (begin == 1) // a nested range stays on the thread that runs it
            parallelRange(
                2,
                [&](int64_t, int64_t) {
                  std::lock_guard<std::mutex> lock(m);
                  nested.insert(std::this_thread::get_id());
                },
                int64_t(1) << 20);
        },
        int64_t(1) << 20);
    // Small work stays on the caller.
    parallelRange(2, [&](int64_t, int64_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
  });
  setBlasThreads(1, /*concurrentCallers=*/false);
  EXPECT_EQ(ran.size(), 2u);
  EXPECT_TRUE(workerSawItself);
  ASSERT_EQ(nested.size(), 1u);
  EXPECT_NE(*nested.begin(), caller);
  EXPECT_FALSE(inRegionTeamWorker());
}

TEST(RegionTeam, ErrorsReachTheCaller) {
  runInOneRegion(2, [&] {
    if (!leadsRegionTeam())
      return;
    // Thrown by the other thread's range, then by the caller's.
    for (int64_t thrower : {1, 0}) {
      EXPECT_THROW(teamRange(2,
                             [&](int64_t begin, int64_t) {
                               if (begin == thrower)
                                 throw std::runtime_error("range");
                             }),
                   std::runtime_error);
      // The team still runs what it is handed afterwards.
      std::atomic<int> ran{0};
      EXPECT_TRUE(teamRange(2, [&](int64_t begin, int64_t end) { ran += (int)(end - begin); }));
      EXPECT_EQ(ran.load(), 2);
    }
  });
  EXPECT_THROW(runInOneRegion(2, [] { throw std::runtime_error("body"); }), std::runtime_error);
  EXPECT_FALSE(leadsRegionTeam());
}

TEST(RegionTeam, ARegionInsideARegionRunsAlone) {
  int calls = 0;
  runInOneRegion(2, [&] {
    bool leads = leadsRegionTeam();
    runInOneRegion(2, [&] {
      ++calls;
      EXPECT_EQ(leadsRegionTeam(), leads); // still the outer team's leader
    });
  });
  runInOneRegion(1, [&] {
    ++calls;
    EXPECT_FALSE(leadsRegionTeam());
  });
  EXPECT_EQ(calls, 2);
}

} // namespace
