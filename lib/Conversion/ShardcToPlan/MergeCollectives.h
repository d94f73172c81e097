//===- MergeCollectives.h - buckets of all_reduces in a plan ----*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_SHARDCTOPLAN_MERGECOLLECTIVES_H
#define SHARDC_LIB_CONVERSION_SHARDCTOPLAN_MERGECOLLECTIVES_H

#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Merges all_reduces over the same axes, of the same kind and element
/// type, into one step over several buffers (a bucket, like DDP's): each is
/// delayed until a step reads its result or its bucket holds `bucketBytes`,
/// so a data-parallel step's per-parameter gradient reductions become a few
/// collectives. Runs before buffer assignment (which then sees the new
/// order); 0 merges nothing.
void mergeAllReduces(Plan &plan, int64_t bucketBytes);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_MERGECOLLECTIVES_H
