//===- PlaceReaders.cpp - fused readers next to their products ------------===//
//
// See PlaceReaders.h. A scheduling pass over the fused plan: it moves steps
// earlier, never later, and only to where their inputs exist.
//
//===----------------------------------------------------------------------===//

#include "PlaceReaders.h"

#include <algorithm>
#include <set>

namespace shardc {

void placeReadersAfterProducts(Plan &plan) {
  size_t values = plan.values.size();
  // Each value's producer, first and last readers, and the reader before
  // its last.
  std::vector<int64_t> producer(values, -1), firstReader(values, -1), lastReader(values, -1),
      beforeLast(values, -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (int32_t id : plan.steps[s].inputs) {
      if (firstReader[id] < 0)
        firstReader[id] = (int64_t)s;
      if (lastReader[id] != (int64_t)s) {
        beforeLast[id] = lastReader[id];
        lastReader[id] = (int64_t)s;
      }
    }
    for (int32_t id : plan.steps[s].outputs)
      producer[id] = (int64_t)s;
  }
  std::vector<bool> held(values, false); // arguments and results live throughout
  for (int32_t id : plan.args)
    held[id] = true;
  for (int32_t id : plan.results)
    held[id] = true;
  // Whether step s, moved up to right after step `to`, frees at least the
  // bytes it then holds longer: the inputs that die there against its
  // outputs.
  auto frees = [&](size_t s, int64_t to) {
    int64_t freed = 0, kept = 0;
    std::set<int32_t> seen;
    for (int32_t id : plan.steps[s].inputs)
      if (seen.insert(id).second && !held[id] && lastReader[id] == (int64_t)s &&
          beforeLast[id] <= to)
        freed += (int64_t)plan.values[id].bytes();
    for (int32_t id : plan.steps[s].outputs)
      kept += (int64_t)plan.values[id].bytes();
    return freed >= kept;
  };
  // For each product, the Fused step that reads its result over as many
  // elements and can run right after it: its first reader, or a later one
  // that frees as much as it holds by moving. (A copy that
  // rematerialization placed in the backward pass frees nothing: moved up
  // to its forward product, it would keep its output alive across the
  // pass in between.)
  std::vector<int64_t> follower(plan.steps.size(), -1), moved(plan.steps.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep &step = plan.steps[s];
    if (step.op != OpCode::Fused || step.outputs.empty())
      continue;
    int64_t count = numElements(plan.values[step.outputs[0]].shape);
    int32_t result = -1; // the latest product's result it reads
    for (int32_t id : step.inputs) {
      int64_t p = producer[id];
      if (p >= 0 && plan.steps[p].op == OpCode::DotGeneral &&
          numElements(plan.values[id].shape) == count && (result < 0 || p > producer[result]))
        result = id;
    }
    if (result < 0)
      continue;
    int64_t product = producer[result], ready = -1; // the last producer of the others
    for (int32_t id : step.inputs)
      if (producer[id] != product)
        ready = std::max(ready, producer[id]);
    if (follower[product] >= 0 || ready > product ||
        (firstReader[result] != (int64_t)s && !frees(s, product)))
      continue;
    follower[product] = (int64_t)s;
    moved[s] = product;
  }
  std::vector<PlanStep> out;
  out.reserve(plan.steps.size());
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (moved[s] >= 0)
      continue;
    out.push_back(std::move(plan.steps[s]));
    if (follower[s] >= 0)
      out.push_back(std::move(plan.steps[follower[s]]));
  }
  plan.steps = std::move(out);
}

} // namespace shardc
