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
#include <vector>

namespace shardc::ring {

/// `a` (the left neighbour's) combined with `b` (this member's).
template <typename T> T combine(Reduction kind, T a, T b) {
  switch (kind) {
  case Reduction::Max:
    return a > b || a != a ? a : b; // NaN wins
  case Reduction::Min:
    return a < b || a != a ? a : b; // NaN wins
  default:
    return a + b; // sum, mean
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

/// What the ring all-reduce computes, without the ring: member operands
/// `x` (in group order, `count` elements each) combined into `out` in the
/// ring's order. Chunk c is folded starting from member c, then c + 1, and
/// so on around the ring, which is the order the reduce phase combines it
/// in. For members that cannot all run the ring (several of them behind
/// one process), this gives the ring's bits.
template <typename T>
void reduceInRingOrder(Reduction kind, const std::vector<const T *> &x, T *out, int64_t count) {
  int64_t n = (int64_t)x.size();
  for (int64_t c = 0; c < n; ++c) {
    auto [b, e] = chunk(c, n, count);
    for (int64_t i = b; i < e; ++i) {
      T acc = x[c][i];
      for (int64_t j = 1; j < n; ++j)
        acc = combine<T>(kind, acc, x[(c + j) % n][i]);
      out[i] = kind == Reduction::Mean ? acc / (T)n : acc;
    }
  }
}

} // namespace shardc::ring

#endif // SHARDC_LIB_RUNTIME_RING_H
