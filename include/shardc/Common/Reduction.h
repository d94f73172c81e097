//===- Reduction.h - how values are combined --------------------*- C++ -*-===//
//
// Header-only and MLIR-free: the dialect's partial results, the lowering
// and the runtime's kernels share these numbers.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMMON_REDUCTION_H
#define SHARDC_COMMON_REDUCTION_H

#include <cstdint>

namespace shardc {

/// How values are combined: by reduce, all_reduce and reduce_scatter steps
/// (their attrs[0]), a fused program's row reductions, the reference
/// kernels and the partitioner's partial results. The dialect's
/// `#shardc<reduce_kind>` attribute has the same numbers.
enum class Reduction : int64_t { Sum = 0, Max = 1, Min = 2, Mean = 3 };

/// Where an accumulator starts: 0 (Sum, Mean), -inf (Max), +inf (Min).
inline double reductionIdentity(Reduction kind) {
  return kind == Reduction::Max ? -__builtin_inf() : kind == Reduction::Min ? __builtin_inf() : 0.0;
}

} // namespace shardc

#endif // SHARDC_COMMON_REDUCTION_H
