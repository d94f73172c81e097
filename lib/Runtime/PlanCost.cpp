//===- PlanCost.cpp - what one device of a plan computes and sends --------===//

#include "shardc/Runtime/PlanCost.h"

#include <algorithm>

namespace shardc {

int64_t PlanCost::collectiveBytes() const {
  int64_t total = 0;
  for (const CollectiveTraffic &c : collectives)
    total += c.bytesSent;
  return total;
}

int64_t PlanCost::collectiveCount() const {
  int64_t total = 0;
  for (const CollectiveTraffic &c : collectives)
    total += c.count;
  return total;
}

PlanCost analyzePlanCost(const Plan &plan) {
  PlanCost cost;
  auto bytesOf = [&](int32_t v) -> int64_t {
    const PlanValue &value = plan.values[v];
    return value.offset == kNotMaterialized ? 0 : (int64_t)value.bytes();
  };
  for (const PlanStep &step : plan.steps) {
    if (isCollective(step.op)) {
      int64_t n = plan.mesh.groupSize(step.axes);
      auto it = std::find_if(
          cost.collectives.begin(), cost.collectives.end(),
          [&](const CollectiveTraffic &c) { return c.op == step.op && c.axes == step.axes; });
      if (it == cost.collectives.end()) {
        cost.collectives.push_back({step.op, step.axes, n, 0, 0});
        it = cost.collectives.end() - 1;
      }
      // A permute that leaves every block where it is sends nothing.
      bool stays = step.op == OpCode::CollectivePermute;
      for (size_t r = 0; stays && r < step.attrs.size(); ++r)
        stays = step.attrs[r] == (int64_t)r;
      for (int32_t in : step.inputs) { // a merged all_reduce: one per buffer
        it->count += 1;
        it->bytesSent += stays ? 0 : collectiveBytesSent(step.op, bytesOf(in), n);
      }
      continue;
    }
    if (step.op == OpCode::Constant)
      continue;
    for (int32_t v : step.inputs)
      cost.memoryBytes += bytesOf(v);
    for (int32_t v : step.outputs)
      cost.memoryBytes += bytesOf(v);
    if (step.op == OpCode::DotGeneral && step.inputs.size() >= 2) {
      DotGeneralDims d = DotGeneralDims::decode(step.attrs, plan.values[step.inputs[0]].shape,
                                                plan.values[step.inputs[1]].shape);
      cost.productFlops += 2.0 * (double)d.B * (double)d.M * (double)d.N * (double)d.K;
    }
    // Attention's products: scores and values (two [T,T,H] per batch item
    // and head) forward, five backward; a causal item computes half.
    // Attention over separate keys: at most, as lengths may cut it.
    if (step.op == OpCode::Attention || step.op == OpCode::AttentionGrad) {
      const Shape &q = plan.values[step.inputs[0]].shape;
      double T = (double)q[1], S = (double)plan.values[step.inputs[1]].shape[1];
      // Causal: query t sees min(t + 1, S) keys.
      double pairs = !step.attrs[0] ? T * S
                     : T <= S       ? T * (T + 1) / 2
                                    : S * (S + 1) / 2 + (T - S) * S;
      double products = step.op == OpCode::Attention ? 2 : 5;
      cost.productFlops += 2.0 * products * (double)q[0] * (double)q[2] * pairs * (double)q[3];
    }
    if (step.op == OpCode::QkvAttention || step.op == OpCode::QkvAttentionGrad) {
      const Shape &s = plan.values[step.inputs[0]].shape;
      double T = (double)s[1], pairs = step.attrs[0] ? T * (T + 1) / 2 : T * T;
      double products = step.op == OpCode::QkvAttention ? 2 : 5;
      cost.productFlops += 2.0 * products * (double)s[0] * (double)s[3] * pairs * (double)s[4];
    }
  }
  return cost;
}

} // namespace shardc
