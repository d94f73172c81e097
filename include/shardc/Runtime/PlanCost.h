//===- PlanCost.h - what one device of a plan computes and sends -*- C++ -*-===//
//
// The work of one call of a plan on one device, counted from its steps:
// the products' floating-point operations, the bytes the steps read and
// write in memory, and the bytes each collective sends, with the usual
// algorithms (the model of `shardc explain`). It prices nothing: a device
// profile turns it into time (see shardc-gpt plan).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_PLANCOST_H
#define SHARDC_RUNTIME_PLANCOST_H

#include "shardc/Common/CollectiveCost.h"
#include "shardc/Runtime/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

/// The collectives of one kind over one set of mesh axes.
struct CollectiveTraffic {
  OpCode op;                     // AllReduce, AllGather, ...
  std::vector<std::string> axes; // the groups' axes
  int64_t groupSize = 1;         // devices per group
  int64_t count = 0;             // collectives (a merged all_reduce counts
                                 // once per buffer it reduces)
  int64_t bytesSent = 0;         // per device, all of them together
};

struct PlanCost {
  /// 2 M N K per product of [M, K] x [K, N] (times its batch), per device.
  double productFlops = 0;
  /// Bytes the steps read and write per device: inputs and outputs of every
  /// step but the collectives (values a fused step keeps in registers are
  /// not counted).
  int64_t memoryBytes = 0;
  std::vector<CollectiveTraffic> collectives; // in order of first use
  int64_t collectiveBytes() const;
  int64_t collectiveCount() const;
};

PlanCost analyzePlanCost(const Plan &plan);

} // namespace shardc

#endif // SHARDC_RUNTIME_PLANCOST_H
