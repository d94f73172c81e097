//===- DeviceThreads.cpp - the CPU backend's device threads, kept ---------===//

#include "DeviceThreads.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

namespace shardc::cpu {

void pinToCore(int64_t index) {
#ifdef __linux__
  cpu_set_t set;
  if (index < 0 || sched_getaffinity(0, sizeof(set), &set) != 0)
    return;
  for (int c = 0, seen = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set) && seen++ == index) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
      return;
    }
#else
  (void)index;
#endif
}

DeviceThreads::~DeviceThreads() { stop(); }

void DeviceThreads::run(const std::vector<int64_t> &cores, const std::function<void()> &enter,
                        const std::function<void(int64_t)> &job) {
  if (cores != pinned) {
    stop();
    start(cores);
  }
  std::unique_lock<std::mutex> lock(m);
  enterFn = &enter;
  jobFn = &job;
  running = (int64_t)threads.size();
  ++generation;
  wake.notify_all();
  finished.wait(lock, [&] { return running == 0; });
  enterFn = nullptr;
  jobFn = nullptr;
}

std::vector<std::thread::id> DeviceThreads::ids() const {
  std::lock_guard<std::mutex> lock(m);
  std::vector<std::thread::id> out;
  for (const std::thread &t : threads)
    out.push_back(t.get_id());
  return out;
}

void DeviceThreads::start(const std::vector<int64_t> &cores) {
  std::lock_guard<std::mutex> lock(m);
  quit = false;
  pinned = cores;
  for (size_t i = 0; i < cores.size(); ++i)
    threads.emplace_back(
        [this, i, core = cores[i], now = generation] { loop((int64_t)i, core, now); });
}

void DeviceThreads::stop() {
  {
    std::lock_guard<std::mutex> lock(m);
    quit = true;
  }
  wake.notify_all();
  for (std::thread &t : threads)
    t.join();
  threads.clear();
  pinned.clear();
}

void DeviceThreads::loop(int64_t index, int64_t core, uint64_t seen) {
  pinToCore(core);
  // `seen` is the generation when the thread was made: `run` bumps it after
  // `start` returns, so a thread made for a call runs that call's job.
  for (;;) {
    const std::function<void()> *enter;
    const std::function<void(int64_t)> *job;
    {
      std::unique_lock<std::mutex> lock(m);
      wake.wait(lock, [&] { return quit || generation != seen; });
      if (quit)
        return;
      seen = generation;
      enter = enterFn;
      job = jobFn;
    }
    (*enter)();
    (*job)(index);
    std::lock_guard<std::mutex> lock(m);
    if (--running == 0)
      finished.notify_one();
  }
}

} // namespace shardc::cpu
