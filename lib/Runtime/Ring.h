//===- Ring.h - the arithmetic order of the ring collectives ----*- C++ -*-===//
//
// The ring all-reduce splits a buffer into one chunk per member and, at
// step s of its reduce phase, has member r combine chunk r - 1 - s from its
// left neighbour into its own: combine(left, mine). The CPU backend's
// shared-memory ring (CpuCollectives.cpp) and the one between processes
// (ProcessGroup.cpp) share these definitions, so they give the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_RING_H
#define SHARDC_LIB_RUNTIME_RING_H

#include "shardc/Runtime/Plan.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace shardc::ring {

/// `a` (the left neighbour's) combined with `b` (this member's).
template <typename T> T combine(Reduction kind, T a, T b) {
  switch (kind) {
  case Reduction::Max: return a > b || a != a ? a : b; // NaN wins
  case Reduction::Min: return a < b || a != a ? a : b; // NaN wins
  default: return a + b;                               // sum, mean
  }
}

/// Chunk c (taken modulo n) of `count` elements split over n members:
/// [begin, end), the first count % n chunks one element longer.
inline std::pair<int64_t, int64_t> chunk(int64_t c, int64_t n, int64_t count) {
  c = ((c % n) + n) % n;
  int64_t base = count / n, extra = count % n;
  int64_t begin = c * base + std::min(c, extra);
  return {begin, begin + base + (c < extra ? 1 : 0)};
}

} // namespace shardc::ring

#endif // SHARDC_LIB_RUNTIME_RING_H
