//===- Rematerialize.cpp - recomputing elementwise values late ------------===//
//
// See Rematerialize.h. The steps are cut into stretches at every step that
// cannot be copied (a product, a reduction, a layout change): a value read
// in a later stretch than the one that made it is stored across the cut.
// Such a value is recomputed in the reader's stretch when its chain is
// short, and when the values recomputed from the same leaves weigh more
// than the leaves kept alive for them. A value a product reads where it is
// made, and only products read later, is kept: its copy would be a pass of
// its own.
//
//===----------------------------------------------------------------------===//

#include "Rematerialize.h"

#include "FuseElementwise.h"

#include <algorithm>
#include <map>
#include <set>

namespace shardc {

namespace {

/// The most steps recomputed for one value.
constexpr size_t kMaxChain = 24;
/// Fewer bytes freed than this are not worth the recomputation.
constexpr int64_t kMinFreedBytes = int64_t(1) << 20;

class Rematerializer {
public:
  explicit Rematerializer(Plan &plan) : plan(plan) {}

  void run() {
    size_t values = plan.values.size(), steps = plan.steps.size();
    producer.assign(values, -1);
    lastReader.assign(values, -1);
    std::vector<std::vector<size_t>> readers(values);
    for (size_t s = 0; s < steps; ++s) {
      for (int32_t id : plan.steps[s].outputs)
        producer[id] = (int64_t)s;
      for (int32_t id : plan.steps[s].inputs) {
        readers[id].push_back(s);
        lastReader[id] = std::max(lastReader[id], (int64_t)s);
      }
    }
    std::vector<bool> kept(values, false); // arguments and results
    for (int32_t id : plan.args)
      kept[id] = true;
    for (int32_t id : plan.results) {
      kept[id] = true;
      lastReader[id] = INT64_MAX;
    }
    // Stretches: a step that cannot be copied ends one.
    stretch.assign(steps, 0);
    copyable.assign(steps, false);
    for (size_t s = 0, n = 0; s < steps; ++s) {
      copyable[s] = canCopy(plan.steps[s]);
      stretch[s] = n;
      n += !copyable[s];
    }

    // Candidates, grouped by their leaves.
    std::map<std::vector<int32_t>, std::vector<int32_t>> byLeaves;
    std::vector<int64_t> lastFar(values, -1);
    for (size_t v = 0; v < values; ++v) {
      if (kept[v] || producer[v] < 0 || !copyable[producer[v]])
        continue;
      // A copy fuses with a reader that runs over as many elements; one of
      // another count (a row statistic broadcast over its rows) would be
      // cut from its group by the copy.
      int64_t count = numElements(plan.values[v].shape);
      bool fits = true, storedAnyway = false, farFuses = false;
      for (size_t r : readers[v])
        if (stretch[r] != stretch[producer[v]]) {
          lastFar[v] = std::max(lastFar[v], (int64_t)r);
          fits &= !copyable[r] || numElements(plan.values[plan.steps[r].outputs[0]].shape) == count;
          farFuses |= copyable[r];
        } else {
          storedAnyway |= plan.steps[r].op == OpCode::DotGeneral;
        }
      if (lastFar[v] < 0 || !fits)
        continue;
      // Stored for a product where it is made, and read later only by steps
      // a copy cannot fuse with (a weight gradient's product): recomputed,
      // it would be a pass over memory of its own, reading its leaves and
      // writing it again, to save its bytes in between. It is kept.
      if (storedAnyway && !farFuses)
        continue;
      std::set<int32_t> leaves;
      size_t chain = 0;
      if (!collect((int32_t)v, leaves, chain, count))
        continue;
      byLeaves[std::vector<int32_t>(leaves.begin(), leaves.end())].push_back((int32_t)v);
    }
    std::vector<bool> chosen(values, false);
    bool any = false;
    for (auto &[leaves, group] : byLeaves) {
      int64_t freed = 0, last = -1;
      bool predicate = false;
      for (int32_t v : group) {
        freed += (int64_t)plan.values[v].bytes();
        last = std::max(last, lastFar[v]);
        predicate |= plan.values[v].dtype == DType::I1;
      }
      int64_t extended = 0;
      for (int32_t l : leaves)
        if (!kept[l] && lastReader[l] < last)
          extended += (int64_t)plan.values[l].bytes();
      // A compare read across a cut is copied whatever it frees: the fused
      // kernel of its group cannot store an i1 value, so without a copy for
      // the later select neither group would fuse (a loss's one-hot pick,
      // read again by its gradient).
      if (!predicate && (freed <= extended || freed - extended < kMinFreedBytes))
        continue;
      for (int32_t v : group)
        chosen[v] = true;
      any = true;
    }
    if (!any)
      return;

    // Each far reader of a chosen value reads a copy made in its stretch,
    // just before the first reader there that needs it.
    std::vector<PlanStep> out;
    out.reserve(steps);
    std::map<std::pair<int32_t, int64_t>, int32_t> copies; // (value, stretch) -> copy
    for (size_t s = 0; s < steps; ++s) {
      // Copyable steps stay in plan.steps too, as the originals of copies.
      PlanStep step = copyable[s] ? plan.steps[s] : std::move(plan.steps[s]);
      for (int32_t &id : step.inputs)
        if (chosen[id] && stretch[s] != stretch[producer[id]])
          id = copyOf(id, stretch[s], copies, out);
      out.push_back(std::move(step));
    }
    plan.steps = std::move(out);
  }

private:
  Plan &plan;
  std::vector<int64_t> producer, lastReader, stretch;
  std::vector<bool> copyable;

  /// Steps that are cheap to run again, of what the elementwise fusion
  /// fuses: f32 elementwise ops, compares and selects, splat constants, and
  /// broadcasts of small operands (loaded, not stored, once fused).
  bool canCopy(const PlanStep &s) const {
    if (s.outputs.size() != 1)
      return false;
    const PlanValue &out = plan.values[s.outputs[0]];
    auto f32 = [&](int32_t id) { return plan.values[id].dtype == DType::F32; };
    switch (s.op) {
    case OpCode::Compare:
      return out.dtype == DType::I1 && std::all_of(s.inputs.begin(), s.inputs.end(), f32);
    case OpCode::Select:
      return out.dtype == DType::F32 && s.inputs.size() == 3 && f32(s.inputs[1]) &&
             f32(s.inputs[2]);
    case OpCode::Constant:
      return isF32Splat(s.constant);
    case OpCode::BroadcastInDim:
      return out.dtype == DType::F32 && s.inputs.size() == 1 &&
             numElements(plan.values[s.inputs[0]].shape) * 8 <= numElements(out.shape);
    default:
      return (isUnary(s.op) || isBinary(s.op)) && out.dtype == DType::F32 &&
             std::all_of(s.inputs.begin(), s.inputs.end(), f32);
    }
  }

  /// The leaves `v`'s chain starts from (values of steps that cannot be
  /// copied, and arguments); false when the chain is longer than kMaxChain
  /// or one of its steps runs over other than `count` elements (the copy
  /// would not fuse as one).
  bool collect(int32_t v, std::set<int32_t> &leaves, size_t &chain, int64_t count) {
    int64_t p = producer[v];
    if (p < 0 || !copyable[p]) {
      leaves.insert(v);
      return true;
    }
    if (++chain > kMaxChain || numElements(plan.values[v].shape) != count)
      return false;
    if (plan.steps[p].op == OpCode::BroadcastInDim) { // its source is loaded
      leaves.insert(plan.steps[p].inputs[0]);
      return true;
    }
    for (int32_t in : plan.steps[p].inputs)
      if (!collect(in, leaves, chain, count))
        return false;
    return true;
  }

  /// `v` computed again in stretch `at`: its chain's steps copied into
  /// `out` (each once per stretch), reading the leaves themselves.
  int32_t copyOf(int32_t v, int64_t at, std::map<std::pair<int32_t, int64_t>, int32_t> &copies,
                 std::vector<PlanStep> &out) {
    int64_t p = producer[v];
    if (p < 0 || !copyable[p])
      return v;
    auto found = copies.find({v, at});
    if (found != copies.end())
      return found->second;
    PlanStep copy = plan.steps[p];
    if (copy.op != OpCode::BroadcastInDim) // a broadcast's source is a leaf
      for (int32_t &in : copy.inputs)
        in = copyOf(in, at, copies, out);
    int32_t id = (int32_t)plan.values.size();
    plan.values.push_back(plan.values[v]);
    copy.outputs = {id};
    copies[{v, at}] = id;
    out.push_back(std::move(copy));
    return id;
  }
};

} // namespace

void rematerializeElementwise(Plan &plan) { Rematerializer(plan).run(); }

} // namespace shardc
