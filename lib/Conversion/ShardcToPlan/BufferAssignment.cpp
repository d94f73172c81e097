//===- BufferAssignment.cpp - arena offsets by liveness -------------------===//
//
// A linear scan over the steps that places each new value in the
// best-fitting free block of the arena and frees a value after its last
// use. Results are never freed; arguments live outside the arena. Some
// steps write over an input they read for the last time: elementwise steps
// and all_reduce element over element, a reshape over its bytes, and a
// dynamic_update_slice over its operand (or over a donated argument).
//
//===----------------------------------------------------------------------===//

#include "BufferAssignment.h"

#include <algorithm>
#include <climits>
#include <map>

namespace shardc {

namespace {

constexpr int64_t kAlignment = 64;

/// Best-fit allocation of aligned blocks in one arena.
class ArenaAllocator {
public:
  int64_t allocate(int64_t bytes) {
    bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    auto best = free.end();
    for (auto it = free.begin(); it != free.end(); ++it)
      if (it->second >= bytes && (best == free.end() || it->second < best->second))
        best = it;
    if (best == free.end()) {
      int64_t offset = end;
      end += bytes;
      return offset;
    }
    int64_t offset = best->first, size = best->second;
    free.erase(best);
    if (size > bytes)
      free[offset + bytes] = size - bytes;
    return offset;
  }
  void release(int64_t offset, int64_t bytes) {
    bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    auto it = free.emplace(offset, bytes).first;
    auto next = std::next(it);
    if (next != free.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free.erase(next);
    }
    if (it != free.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free.erase(it);
      }
    }
  }
  int64_t size() const { return end; }

private:
  std::map<int64_t, int64_t> free; // offset -> size
  int64_t end = 0;
};

} // namespace

void assignBuffers(Plan &plan) {
  std::vector<int64_t> lastUse(plan.values.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (int32_t id : plan.steps[s].outputs)
      lastUse[id] = s;
    for (int32_t id : plan.steps[s].inputs)
      lastUse[id] = s;
  }
  for (int32_t id : plan.results)
    lastUse[id] = INT64_MAX;
  std::vector<bool> isArg(plan.values.size(), false);
  std::vector<int32_t> argPosition(plan.values.size(), -1);
  for (size_t i = 0; i < plan.args.size(); ++i) {
    isArg[plan.args[i]] = true;
    argPosition[plan.args[i]] = (int32_t)i;
  }
  ArenaAllocator arena;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep &step = plan.steps[s];
    // A dynamic_update_slice whose operand is read for the last time
    // writes its box over it: over its arena block, or over the buffer of
    // a donated argument (the caller gave it up), so a cache updated per
    // token is never copied.
    std::vector<int32_t> done;
    if (step.op == OpCode::DynamicUpdateSlice && lastUse[step.inputs[0]] == (int64_t)s) {
      int32_t in = step.inputs[0];
      PlanValue &v = plan.values[step.outputs[0]];
      const PlanValue &operand = plan.values[in];
      int32_t arg = isArg[in] ? argPosition[in] : operand.inArgument;
      if (arg >= 0 && plan.donated[arg]) {
        v.offset = kInArgument;
        v.inArgument = arg;
      } else if (operand.offset >= 0) {
        v.offset = operand.offset;
        done.push_back(in); // its block now belongs to the output
      }
    }
    // An elementwise step may write its result over an input it reads for
    // the last time, element i over element i: no new buffer, and the data
    // stays in cache. (Inputs a fused step broadcasts are read at other
    // indices and never qualify.) An all_reduce reduces in place too.
    std::vector<int32_t> reusable;
    // A reshape keeps the row-major bytes: over its input, it is free.
    bool elementwise = isUnary(step.op) || isBinary(step.op);
    if (elementwise || step.op == OpCode::Fused || step.op == OpCode::AllReduce ||
        step.op == OpCode::Reshape) {
      std::vector<FusedProgram::Input> modes;
      if (step.op == OpCode::Fused)
        modes = FusedProgram::decode(step.attrs).inputs;
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        int32_t id = step.inputs[i];
        bool whole = modes.empty() || modes[i].mode == FusedProgram::Whole;
        if (whole && !isArg[id] && lastUse[id] == (int64_t)s && plan.values[id].offset >= 0 &&
            std::find(reusable.begin(), reusable.end(), id) == reusable.end())
          reusable.push_back(id);
      }
    }
    for (size_t o = 0; o < step.outputs.size(); ++o) {
      int32_t id = step.outputs[o];
      plan.unsharedBytes +=
          ((int64_t)plan.values[id].bytes() + kAlignment - 1) / kAlignment * kAlignment;
      if (plan.values[id].offset != kArgument)
        continue; // placed above
      // A merged all_reduce copies input i to output i in turn: output i may
      // only take input i's block, or it would overwrite an input not yet
      // copied.
      auto it = std::find_if(reusable.begin(), reusable.end(), [&](int32_t in) {
        return plan.values[in].bytes() == plan.values[id].bytes() &&
               (step.op != OpCode::AllReduce || in == step.inputs[o]);
      });
      if (it != reusable.end()) {
        plan.values[id].offset = plan.values[*it].offset;
        done.push_back(*it); // its block now belongs to the output
        reusable.erase(it);
        continue;
      }
      plan.values[id].offset = arena.allocate((int64_t)plan.values[id].bytes());
    }
    for (const auto *list : {&step.inputs, &step.outputs})
      for (int32_t id : *list)
        if (!isArg[id] && plan.values[id].offset >= 0 && lastUse[id] == (int64_t)s &&
            std::find(done.begin(), done.end(), id) == done.end()) {
          arena.release(plan.values[id].offset, (int64_t)plan.values[id].bytes());
          done.push_back(id);
        }
  }
  plan.arenaBytes = arena.size();
}

} // namespace shardc
