//===- RegionTeam.cpp - a whole light plan in one OpenMP region -----------===//

#include "RegionTeam.h"

#include <atomic>
#include <exception>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace shardc::cpu {

namespace {

/// What the leader hands its team: one range function at a time.
struct Team {
  int threads = 1;
  /// Counts the handovers; the last one, with `over` set, dismisses the team.
  std::atomic<uint64_t> posted{0};
  /// The team's threads still running the current handover.
  std::atomic<int> running{0};
  bool over = false;
  const RangeFn *fn = nullptr;
  int64_t n = 0;
  /// The first exception a team thread's range threw; the leader rethrows it.
  std::atomic<bool> failed{false};
  std::exception_ptr error;
};

thread_local Team *led = nullptr;  // the team this thread leads
thread_local bool working = false; // this thread runs a team's ranges

/// One turn of a wait. Spins a while, then yields the core at each turn
/// (a long wait means the leader runs steps of its own, or the machine is
/// shared).
inline void relax(int &turns) {
  if (++turns < 4096) {
#if defined(__x86_64__) && defined(__GNUC__)
    _mm_pause();
#endif
    return;
  }
  std::this_thread::yield();
}

/// The range of [0, n) thread t of T runs.
inline void rangeOf(int64_t n, int t, int T, int64_t &begin, int64_t &end) {
  begin = n * t / T;
  end = n * (t + 1) / T;
}

void serve(Team &team, int t) {
  working = true;
  uint64_t seen = 0;
  for (;;) {
    uint64_t now;
    for (int turns = 0; (now = team.posted.load(std::memory_order_acquire)) == seen;)
      relax(turns);
    seen = now;
    if (team.over)
      break;
    int64_t begin, end;
    rangeOf(team.n, t, team.threads, begin, end);
    try {
      if (begin < end)
        (*team.fn)(begin, end);
    } catch (...) {
      if (!team.failed.exchange(true))
        team.error = std::current_exception();
    }
    team.running.fetch_sub(1, std::memory_order_release);
  }
  working = false;
}

} // namespace

bool leadsRegionTeam() { return led != nullptr; }

bool inRegionTeamWorker() { return working; }

void runInOneRegion(int threads, const std::function<void()> &body) {
#ifdef _OPENMP
  if (threads < 2 || led || working || omp_in_parallel()) {
    body();
    return;
  }
  Team team;
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num();
    if (t == 0) {
      team.threads = omp_get_num_threads(); // before the first handover
      led = team.threads > 1 ? &team : nullptr;
      try {
        body();
      } catch (...) {
        error = std::current_exception();
      }
      led = nullptr;
      team.over = true;
      team.posted.fetch_add(1, std::memory_order_release);
    } else {
      serve(team, t);
    }
  }
  if (error)
    std::rethrow_exception(error);
#else
  (void)threads;
  body();
#endif
}

bool teamRange(int64_t n, RangeFn fn) {
  Team *team = led;
  if (!team)
    return false;
  team->fn = &fn;
  team->n = n;
  team->running.store(team->threads - 1, std::memory_order_relaxed);
  team->posted.fetch_add(1, std::memory_order_release);
  int64_t begin, end;
  rangeOf(n, 0, team->threads, begin, end);
  std::exception_ptr own;
  // While the others run theirs, a range of this thread's own hands nothing
  // on (the team is busy): a parallelRange inside it runs here, as on them.
  led = nullptr, working = true;
  try {
    if (begin < end)
      fn(begin, end);
  } catch (...) {
    own = std::current_exception();
  }
  led = team, working = false;
  // The others read fn and n until they are done: wait even after a throw.
  for (int turns = 0; team->running.load(std::memory_order_acquire) != 0;)
    relax(turns);
  if (own)
    std::rethrow_exception(own);
  if (team->failed.exchange(false)) {
    std::exception_ptr theirs = team->error;
    team->error = nullptr;
    std::rethrow_exception(theirs);
  }
  return true;
}

} // namespace shardc::cpu
