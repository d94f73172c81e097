//===- DeviceGroup.h - threads standing in for devices ----------*- C++ -*-===//
//
// The simulated devices of the CPU backend: one thread per device, and the
// shared state their collectives synchronize on. A barrier that can be
// aborted keeps one device's error from deadlocking the others.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CPU_DEVICEGROUP_H
#define SHARDC_LIB_RUNTIME_CPU_DEVICEGROUP_H

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace shardc::cpu {

class AbortableBarrier {
public:
  explicit AbortableBarrier(int64_t count) : count(count) {}
  /// Waits for all `count` threads; false if the barrier was aborted.
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex);
    if (aborted)
      return false;
    uint64_t gen = generation;
    if (++arrived == count) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return true;
    }
    cv.wait(lock, [&] { return generation != gen || aborted; });
    return !aborted;
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex);
    aborted = true;
    cv.notify_all();
  }
  bool isAborted() {
    std::lock_guard<std::mutex> lock(mutex);
    return aborted;
  }

private:
  std::mutex mutex;
  std::condition_variable cv;
  int64_t count, arrived = 0;
  uint64_t generation = 0;
  bool aborted = false;
};

/// What the devices share while running one plan: the barrier, and for the
/// collective in progress, each device's operand and working buffer.
struct DeviceGroup {
  explicit DeviceGroup(int64_t n) : barrier(n), operands(n), work(n) {}
  AbortableBarrier barrier;
  std::vector<const void *> operands;
  std::vector<void *> work;
};

} // namespace shardc::cpu

#endif // SHARDC_LIB_RUNTIME_CPU_DEVICEGROUP_H
