//===- RegionTeam.h - a whole light plan in one OpenMP region ---*- C++ -*-===//
//
// A decode step is a few hundred microseconds of small steps, about twenty
// of which are worth two cores (the products with the weight matrices).
// Each of those opened an OpenMP parallel region, and with GNU OpenMP a
// region costs microseconds even when its threads are spinning: every
// barrier ends with a futex system call. A region per product made the
// handovers a quarter of the step.
//
// runInOneRegion opens one region for the whole plan instead. The calling
// thread runs the plan; the region's other threads wait, spinning, for the
// ranges parallelRange hands them, and a handover is a store and a load of
// shared memory. The team is OpenMP's own threads, so no second set of
// threads competes with the pool BLAS and oneDNN use outside the region;
// inside it they see a nested level and run on the calling thread alone.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CPU_REGIONTEAM_H
#define SHARDC_LIB_RUNTIME_CPU_REGIONTEAM_H

#include "RangeFn.h"

#include <cstdint>
#include <functional>

namespace shardc::cpu {

/// Runs body on the calling thread inside one OpenMP parallel region of
/// `threads` threads, whose other threads run the ranges parallelRange hands
/// them until body returns. Runs body alone where threads < 2, without
/// OpenMP, or inside a team already. An exception body throws is rethrown
/// here, after the region closes.
void runInOneRegion(int threads, const std::function<void()> &body);

/// Whether the calling thread leads a team of runInOneRegion.
bool leadsRegionTeam();

/// Whether the calling thread is one of a team's other threads, running a
/// range it was handed (a parallelRange inside it runs on this thread).
bool inRegionTeamWorker();

/// Runs fn over [0, n) split in contiguous ranges across the team the
/// calling thread leads, its own range first, and returns when every range
/// has run. Returns false, running nothing, where it leads no team.
bool teamRange(int64_t n, RangeFn fn);

} // namespace shardc::cpu

#endif // SHARDC_LIB_RUNTIME_CPU_REGIONTEAM_H
