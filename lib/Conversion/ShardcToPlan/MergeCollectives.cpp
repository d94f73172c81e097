//===- MergeCollectives.cpp - buckets of all_reduces in a plan ------------===//
//
// One pass over the steps keeps, per (axes, kind, element type), a bucket
// of all_reduces not yet emitted (one step, inputs i -> outputs i). A
// non-collective step that reads a pending result waits too, after the
// buckets, so that a gradient's norm does not cut its bucket short. The
// buckets and the waiting steps are emitted when one bucket is full, when a
// collective would read a pending result, and at the end. Moving steps
// later is safe: every value is written once, by an earlier step, and
// buffer assignment runs afterwards on the new order.
//
//===----------------------------------------------------------------------===//

#include "MergeCollectives.h"

#include <map>
#include <set>
#include <tuple>

namespace shardc {

void mergeAllReduces(Plan &plan, int64_t bucketBytes) {
  if (bucketBytes <= 0)
    return;
  using Key = std::tuple<std::vector<std::string>, int64_t, DType>;
  std::map<Key, PlanStep> pending; // buckets not yet emitted
  std::map<Key, int64_t> pendingBytes;
  std::set<int32_t> waiting;           // results of pending buckets and deferred steps
  std::vector<PlanStep> deferred, out; // steps that read them, in order
  // Every bucket, then the steps waiting on them: their inputs all exist
  // then, since a deferred step reads only earlier values.
  auto flushAll = [&] {
    for (auto &[key, step] : pending)
      out.push_back(std::move(step));
    for (PlanStep &step : deferred)
      out.push_back(std::move(step));
    pending.clear();
    pendingBytes.clear();
    deferred.clear();
    waiting.clear();
  };
  for (PlanStep &step : plan.steps) {
    bool reads = false;
    for (int32_t id : step.inputs)
      reads |= waiting.count(id) > 0;
    bool mergeable = step.op == OpCode::AllReduce && step.inputs.size() == 1 &&
                     step.outputs.size() == 1 &&
                     (int64_t)plan.values[step.inputs[0]].bytes() < bucketBytes;
    if (reads && (mergeable || isCollective(step.op) || deferred.size() >= 1024))
      flushAll(); // a collective keeps its place among the others
    else if (reads) {
      // Compute on a pending result (a gradient's norm) waits with it, so
      // the bucket can grow past it.
      for (int32_t id : step.outputs)
        waiting.insert(id);
      deferred.push_back(std::move(step));
      continue;
    }
    if (!mergeable) {
      out.push_back(std::move(step));
      continue;
    }
    Key key{step.axes, step.attrs[0], plan.values[step.inputs[0]].dtype};
    auto [it, fresh] = pending.try_emplace(key, step);
    if (!fresh) {
      it->second.inputs.push_back(step.inputs[0]);
      it->second.outputs.push_back(step.outputs[0]);
    }
    waiting.insert(step.outputs[0]);
    if ((pendingBytes[key] += (int64_t)plan.values[step.inputs[0]].bytes()) >= bucketBytes)
      flushAll();
  }
  flushAll();
  plan.steps = std::move(out);
}

} // namespace shardc
