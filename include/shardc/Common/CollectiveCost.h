//===- CollectiveCost.h - the bytes a collective sends ----------*- C++ -*-===//
//
// The one model of communication: the reshard search and the op strategies
// of partitioning, `shardc explain` and the plan's cost (shardc-gpt plan)
// all price a collective with it. Header-only and MLIR-free.
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

} // namespace shardc

#endif // SHARDC_COMMON_COLLECTIVECOST_H
