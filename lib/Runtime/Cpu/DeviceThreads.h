//===- DeviceThreads.h - the CPU backend's device threads, kept -*- C++ -*-===//
//
// One thread per simulated device, started once and kept between calls, as
// a device outlives the programs it runs. What a thread keeps for itself
// lives as long as the backend: oneDNN's primitives and streams, the packed
// bf16 operands of its products, its OpenMP team and the core it is pinned
// to. Threads made for each call rebuilt all of that on every step of a
// training loop over several devices.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CPU_DEVICETHREADS_H
#define SHARDC_LIB_RUNTIME_CPU_DEVICETHREADS_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace shardc::cpu {

class DeviceThreads {
public:
  DeviceThreads() = default;
  DeviceThreads(const DeviceThreads &) = delete;
  DeviceThreads &operator=(const DeviceThreads &) = delete;
  ~DeviceThreads();

  /// Runs job(0) .. job(cores.size() - 1), each on its own thread, and
  /// returns when all have returned. Thread i is pinned to the cores[i]-th
  /// core of the process's affinity mask, or not pinned where cores[i] is
  /// negative. The same threads run every call with the same cores; other
  /// cores start new ones. `enter` runs on each thread before its job, every
  /// call (it sets per-thread state that may change between calls).
  void run(const std::vector<int64_t> &cores, const std::function<void()> &enter,
           const std::function<void(int64_t)> &job);

  /// The threads' ids, in job order (empty before the first call).
  std::vector<std::thread::id> ids() const;

private:
  void start(const std::vector<int64_t> &cores);
  void stop();
  void loop(int64_t index, int64_t core, uint64_t seen);

  std::vector<std::thread> threads;
  std::vector<int64_t> pinned; // the cores of `threads`
  mutable std::mutex m;
  std::condition_variable wake, finished;
  uint64_t generation = 0; // one per call
  int64_t running = 0;     // jobs of this call not yet returned
  bool quit = false;
  const std::function<void()> *enterFn = nullptr;
  const std::function<void(int64_t)> *jobFn = nullptr;
};

/// Pins the calling thread to the `index`-th core of the process's
/// affinity mask (nothing where it has no such core, or off Linux).
void pinToCore(int64_t index);

} // namespace shardc::cpu

#endif // SHARDC_LIB_RUNTIME_CPU_DEVICETHREADS_H
