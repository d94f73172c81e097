//===- CollectiveCost.h - the bytes a collective sends ----------*- C++ -*-===//
//
// The one model of communication: the reshard search and the op strategies
// of partitioning, `shardc explain` and the plan's cost (shardc-gpt plan)
// all price a collective with it, and partitioning ranks its choices with
// the link model below. Header-only and MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMMON_COLLECTIVECOST_H
#define SHARDC_COMMON_COLLECTIVECOST_H

#include "shardc/Common/OpCode.h"

#include <cstdint>

namespace shardc {

/// Bytes one device sends for a collective `op` over a group of `n`
/// devices whose input is `bytes` per device: ring all_reduce 2 (n-1)/n,
/// ring all_gather (n-1) (its input is the block), ring reduce_scatter and
/// direct all_to_all (n-1)/n, collective_permute all of it (whatever the
/// group: a caller that knows no block moves counts nothing), all_slice
/// nothing (a local slice). A group of one device sends nothing otherwise.
inline int64_t collectiveBytesSent(OpCode op, int64_t bytes, int64_t n) {
  if (op == OpCode::CollectivePermute)
    return bytes;
  if (n <= 1)
    return 0;
  switch (op) {
  case OpCode::AllReduce:
    return 2 * (n - 1) * bytes / n;
  case OpCode::AllGather:
    return (n - 1) * bytes;
  case OpCode::ReduceScatter:
  case OpCode::AllToAll:
    return (n - 1) * bytes / n;
  default:
    return 0; // AllSlice: local
  }
}

/// What some collectives cost one device: the bytes it sends and the
/// number of collectives it takes part in.
struct CommCost {
  int64_t bytes = 0, collectives = 0;
  CommCost &operator+=(const CommCost &o) {
    bytes += o.bytes;
    collectives += o.collectives;
    return *this;
  }
  bool operator==(const CommCost &o) const {
    return bytes == o.bytes && collectives == o.collectives;
  }
};

/// The link between devices, as partitioning sees it: each collective
/// takes `latencySeconds` to start, then its bytes go at `bytesPerSecond`.
/// The default, no link, ranks by bytes alone, fewer collectives breaking
/// ties: the limit of a link whose latency is negligible. A link with both
/// set ranks by time, so that where collectives are dear (small values,
/// slow starts) fewer of them can beat fewer bytes.
struct LinkModel {
  double latencySeconds = 0, bytesPerSecond = 0;

  bool timed() const { return latencySeconds > 0 && bytesPerSecond > 0; }
  /// The time of `c` over this link (0 without one).
  double seconds(const CommCost &c) const {
    return timed() ? (double)c.collectives * latencySeconds + (double)c.bytes / bytesPerSecond : 0;
  }
  /// Whether `a` costs less than `b`: by time over a link, then by bytes,
  /// then by collectives.
  bool cheaper(const CommCost &a, const CommCost &b) const {
    if (timed()) {
      double ta = seconds(a), tb = seconds(b);
      if (ta != tb)
        return ta < tb;
    }
    if (a.bytes != b.bytes)
      return a.bytes < b.bytes;
    return a.collectives < b.collectives;
  }
};

} // namespace shardc

#endif // SHARDC_COMMON_COLLECTIVECOST_H
