//===- DeviceGroup.h - threads standing in for devices ----------*- C++ -*-===//
//
// The simulated devices of the CPU backend: one thread per device, and the
// shared state their collectives synchronize on. A barrier that can be
// aborted keeps one device's error from deadlocking the others.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CPU_DEVICEGROUP_H
#define SHARDC_LIB_RUNTIME_CPU_DEVICEGROUP_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace shardc {
class ProcessGroup;
} // namespace shardc

namespace shardc::cpu {

class AbortableBarrier {
public:
  /// `spin`: wait by spinning briefly before sleeping (worth it when every
  /// thread has a core of its own; a waste when threads share cores).
  AbortableBarrier(int64_t count, bool spin) : count(count), spin(spin) {}
  /// Waits for all `count` threads; false if the barrier was aborted.
  bool wait() {
    uint64_t gen;
    {
      std::unique_lock<std::mutex> lock(mutex);
      if (aborted)
        return false;
      gen = generation.load(std::memory_order_relaxed);
      if (++arrived == count) {
        arrived = 0;
        generation.store(gen + 1, std::memory_order_release);
        cv.notify_all();
        return true;
      }
    }
    // The others usually arrive within microseconds: a sleep and a wake-up
    // cost more than that.
    for (int i = 0; spin && i < kSpins; ++i) {
      if (generation.load(std::memory_order_acquire) != gen)
        return !isAborted();
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return generation.load(std::memory_order_relaxed) != gen || aborted; });
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
  static constexpr int kSpins = 4000; // a few tens of microseconds
  std::mutex mutex;
  std::condition_variable cv;
  int64_t count, arrived = 0;
  bool spin;
  std::atomic<uint64_t> generation{0};
  bool aborted = false;
};

/// What the devices share while running one plan: the barrier of this
/// process's device threads, and for the collective in progress, each
/// device's operand and working buffer (indexed by device of the mesh).
/// When the mesh spans processes, `processes` is how the others are
/// reached: process p runs the `localDevices` devices from p * localDevices
/// on, and the operands of other processes' devices are received into
/// `staged` before a collective reads them.
struct DeviceGroup {
  DeviceGroup(int64_t threads, int64_t devices, bool spin)
      : barrier(threads, spin), operands(devices), work(devices), staged(devices) {}
  AbortableBarrier barrier;
  std::vector<const void *> operands;
  std::vector<void *> work;
  ProcessGroup *processes = nullptr;
  int64_t localDevices = 0;
  std::vector<std::vector<uint8_t>> staged;
  /// The process that runs device `d`.
  int owner(int64_t d) const { return (int)(d / localDevices); }
};

} // namespace shardc::cpu

#endif // SHARDC_LIB_RUNTIME_CPU_DEVICEGROUP_H
