//===- BufferAssignment.h - arena offsets by liveness -----------*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_SHARDCTOPLAN_BUFFERASSIGNMENT_H
#define SHARDC_LIB_CONVERSION_SHARDCTOPLAN_BUFFERASSIGNMENT_H

#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Places every intermediate value of `plan` in its arena (PlanValue::offset,
/// Plan::arenaBytes, Plan::unsharedBytes), reusing blocks after their last
/// use. Plain C++ over the plan; no MLIR.
void assignBuffers(Plan &plan);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_BUFFERASSIGNMENT_H
