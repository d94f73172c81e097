//===- DeviceThreadsTest.cpp - the CPU backend's kept device threads ------===//
//
// The threads run every job of a call at the same time (collectives wait
// on each other), are the same threads from one call to the next, run the
// per-call setup before each job, and are replaced when the cores change.
//
//===----------------------------------------------------------------------===//

#include "Cpu/DeviceThreads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <set>

using namespace shardc::cpu;

namespace {

const std::function<void()> nothing = [] {};

/// A number for the calling thread, new for each thread made (thread ids
/// may be reused once a thread has ended; thread-local storage is not).
int threadSerial() {
  static std::atomic<int> made{0};
  thread_local int serial = ++made;
  return serial;
}

TEST(DeviceThreads, RunsEveryJobOnceEachOnItsOwnThread) {
  DeviceThreads threads;
  std::vector<std::thread::id> ran(4);
  std::atomic<int> calls{0};
  threads.run({-1, -1, -1, -1}, nothing, [&](int64_t i) {
    ran[i] = std::this_thread::get_id();
    ++calls;
  });
  EXPECT_EQ(calls.load(), 4);
  std::set<std::thread::id> distinct(ran.begin(), ran.end());
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_EQ(distinct.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(threads.ids(), ran);
}

TEST(DeviceThreads, JobsRunAtTheSameTime) {
  // Each job waits until all have started, as devices wait in a
  // collective: jobs run one after another would never get there.
  DeviceThreads threads;
  const int n = 3;
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> timedOut{0};
  threads.run({-1, -1, -1}, nothing, [&](int64_t) {
    std::unique_lock<std::mutex> lock(m);
    if (++arrived == n)
      cv.notify_all();
    if (!cv.wait_for(lock, std::chrono::seconds(20), [&] { return arrived == n; }))
      ++timedOut;
  });
  EXPECT_EQ(timedOut.load(), 0);
}

TEST(DeviceThreads, KeepsTheSameThreadsBetweenCalls) {
  DeviceThreads threads;
  std::vector<int> first(2), later(2);
  threads.run({-1, -1}, nothing, [&](int64_t i) { first[i] = threadSerial(); });
  for (int call = 0; call < 200; ++call)
    threads.run({-1, -1}, nothing, [&](int64_t i) { later[i] = threadSerial(); });
  EXPECT_EQ(first, later);
  EXPECT_NE(first[0], first[1]);
}

TEST(DeviceThreads, OtherCoresStartOtherThreads) {
  DeviceThreads threads;
  std::vector<int> two(2), three(3), pinned(2);
  threads.run({-1, -1}, nothing, [&](int64_t i) { two[i] = threadSerial(); });
  threads.run({-1, -1, -1}, nothing, [&](int64_t i) { three[i] = threadSerial(); });
  for (int serial : two)
    EXPECT_EQ(std::count(three.begin(), three.end(), serial), 0);
  threads.run({0, 0}, nothing, [&](int64_t i) { pinned[i] = threadSerial(); });
  for (int serial : three)
    EXPECT_EQ(std::count(pinned.begin(), pinned.end(), serial), 0);
  EXPECT_EQ(threads.ids().size(), 2u);
}

TEST(DeviceThreads, EntersEachCallBeforeItsJob) {
  // Per-thread state set by `enter` (as the OpenMP team size is) is the
  // current call's when the job runs, on kept threads too.
  thread_local int setting = 0;
  DeviceThreads threads;
  for (int call = 1; call <= 3; ++call) {
    std::vector<int> seen(2, -1);
    threads.run(
        {-1, -1}, [&] { setting = call; }, [&](int64_t i) { seen[i] = setting; });
    EXPECT_EQ(seen, std::vector<int>(2, call)) << "call " << call;
  }
}

} // namespace
