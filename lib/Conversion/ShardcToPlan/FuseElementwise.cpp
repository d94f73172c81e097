//===- FuseElementwise.cpp - fusing elementwise chains in a plan ----------===//
//
// A single pass over the steps grows a group of fusible steps with one
// element count. A step that is not fusible but reads a value the group
// produced closes the group (the group must run before it); any other step
// is stepped over, and the fused step takes the place of the group's last
// member, where all its inputs exist. A closed group of at least two
// computing steps, or of one and a broadcast, becomes one Fused step; its outputs are the members'
// values that anything outside the group reads. A compare joins when only
// selects read it, and a select joins the group of its compare: the
// predicate lives in a register as 1.0 or 0.0.
//
// With row programs (CPU compiles), a row reduction no longer ends its
// group: the group goes on, and reads the reduction back where it is
// broadcast along the reduction's rows (through reshapes, which move after
// the fused step, or go where only the group read them; one row's
// reduction is a scalar to the broadcast), once however many broadcasts
// read it. A softmax, max, exp, sum and divide, is then one pass over
// memory rather than three, and so is a layer norm. A reduction of a
// reduction the group makes does not join it.
//
//===----------------------------------------------------------------------===//

#include "FuseElementwise.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace shardc {

bool isF32Splat(const Array &a) {
  if (a.dtype() != DType::F32 || a.numElements() == 0)
    return false;
  const float *p = a.data<float>();
  for (int64_t i = 1; i < a.numElements(); ++i)
    if (std::memcmp(&p[i], &p[0], 4) != 0)
      return false;
  return true;
}

namespace {

bool isElementwise(OpCode op) { return isUnary(op) || isBinary(op); }

/// Rows longer than this stay with the chain of programs: a row program's
/// interpreter holds every register of a row (and validation takes rows of
/// up to FusedProgram::kMaxRowProgramCols).
constexpr int64_t kMaxRowProgramCols = int64_t(1) << 14;

class Fuser {
public:
  Fuser(Plan &plan, const FuseOptions &options)
      : plan(plan), rowPrograms(options.rowPrograms), bf16Outputs(options.bf16Outputs) {
    for (size_t s = 0; s < plan.steps.size(); ++s)
      for (int32_t id : plan.steps[s].inputs)
        readers[id].push_back(s);
    for (int32_t id : plan.results)
      readers[id].push_back(SIZE_MAX); // read by the caller
  }

  void run() {
    int64_t count = -1;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      const PlanStep &step = plan.steps[s];
      if (!rowValues.empty()) {
        // A reshape of a reduction the group makes: it moves after the
        // fused step, and its result is the reduction still.
        if (step.op == OpCode::Reshape && rowValues.count(step.inputs[0])) {
          rowValues[step.outputs[0]] = rowValues[step.inputs[0]];
          deferred.push_back(s);
          continue;
        }
        // The reduction broadcast along its rows: read back inside.
        if (step.op == OpCode::BroadcastInDim && rowValues.count(step.inputs[0]) &&
            elements(step) == count) {
          // (One row's statistic is a scalar to broadcastLoad.)
          std::optional<FusedProgram::Input> how = broadcastLoad(step);
          bool alongRow =
              how && ((how->mode == FusedProgram::AlongColumns && how->cols == rowCols) ||
                      (how->mode == FusedProgram::Scalar && count == rowCols));
          if (alongRow) {
            group.push_back(s);
            readsRows = true;
            continue;
          }
        }
      }
      // A broadcast loads its source from memory: a source the group
      // computes must be stored first, so the group ends before it.
      bool loadsGroupValue = step.op == OpCode::BroadcastInDim && readsGroup(step);
      // A row reduction of a value the group computes ends the chain inside
      // the fused kernel (its input is then never stored), unless the group
      // may read it back (a row program), then over rows of one length.
      // (Not of a reduction the group makes: that has no register.)
      if (isRowReduction(step) && computedBy(step.inputs[0], group)) {
        int64_t cols = rowReductionCols(step);
        if (rowPrograms && cols <= kMaxRowProgramCols && (rowCols == 0 || cols == rowCols)) {
          group.push_back(s);
          rowCols = cols;
          rowValues[step.outputs[0]] = s;
          continue;
        }
        if (!readsRows) {
          group.push_back(s);
          finish(); // a reduction ends the chain: nothing may read it inside
          continue;
        }
        finish(); // the reduction runs on its own, after the row program
        continue;
      }
      std::set<size_t> members(group.begin(), group.end());
      // A convert to bf16 of a value the group computes: the group stores
      // the value rounded, and the f32 value only if something else reads it.
      if (bf16Outputs && isBf16Cast(step) && producedBy(step.inputs[0], members) &&
          elements(step) == count) {
        group.push_back(s);
        continue;
      }
      // A select joins the group that computes its predicate.
      bool selectOfGroup = step.op == OpCode::Select && producedBy(step.inputs[0], members);
      bool readsReduction = false; // not as a register: it is complete only after the group
      for (int32_t id : step.inputs)
        readsReduction |= rowValues.count(id) > 0;
      if (fusible(step) && !loadsGroupValue && !readsReduction &&
          (step.op != OpCode::Select || selectOfGroup) &&
          (group.empty() || elements(step) == count)) {
        if (group.empty())
          count = elements(step);
        group.push_back(s);
        continue;
      }
      if (readsGroup(step) || fusible(step)) {
        finish();
        if (fusible(step) && step.op != OpCode::Select) {
          count = elements(step);
          group.push_back(s);
        }
      }
    }
    finish();
    // Drop the members replaced by fused steps; reshapes of a row program's
    // reductions follow its fused step.
    std::vector<PlanStep> kept;
    std::vector<PlanStep> steps = std::move(plan.steps);
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!removed.count(s) && !moved.count(s))
        kept.push_back(std::move(steps[s]));
      if (auto after = movedAfter.find(s); after != movedAfter.end())
        for (size_t m : after->second)
          kept.push_back(std::move(steps[m]));
    }
    plan.steps = std::move(kept);
  }

private:
  Plan &plan;
  bool rowPrograms, bf16Outputs;
  std::map<int32_t, std::vector<size_t>> readers;
  std::set<size_t> removed;
  // The open group: its members, the reductions it may read back (value ->
  // its reduce step, through reshapes), their row length, whether a member
  // reads one, and the reshapes deferred past it.
  std::vector<size_t> group;
  std::map<int32_t, size_t> rowValues;
  int64_t rowCols = 0;
  bool readsRows = false;
  std::vector<size_t> deferred;
  std::set<size_t> moved;                           // deferred steps of fused row programs
  std::map<size_t, std::vector<size_t>> movedAfter; // fused step -> the reshapes after it

  /// Closes the open group (fusing it if it is worth a kernel).
  void finish() {
    close(group);
    group.clear();
    rowValues.clear();
    rowCols = 0;
    readsRows = false;
    deferred.clear();
  }

  /// Whether `step` reads a value the open group makes (a member's, or a
  /// reduction's through a deferred reshape).
  bool readsGroup(const PlanStep &step) {
    for (int32_t id : step.inputs) {
      if (rowValues.count(id))
        return true;
      for (size_t g : group)
        if (std::count(plan.steps[g].outputs.begin(), plan.steps[g].outputs.end(), id))
          return true;
    }
    return false;
  }

  int64_t elements(const PlanStep &s) { return numElements(plan.values[s.outputs[0]].shape); }

  /// How a fused broadcast member loads its source, if it can: a scalar,
  /// or an operand that fills a trailing block of the result's dimensions
  /// (x[i % cols], e.g. a bias [d] over [B,T,d]) or a leading block
  /// (x[i / cols], e.g. row statistics [B,T,1] over [B,T,d]), whatever the
  /// ranks. Unit dimensions on either side are skipped.
  std::optional<FusedProgram::Input> broadcastLoad(const PlanStep &s) {
    const PlanValue &in = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
    if (numElements(in.shape) == 1)
      return FusedProgram::Input{FusedProgram::Scalar, 1};
    int64_t rank = (int64_t)out.shape.size(), lo = rank, hi = -1, last = -1;
    for (size_t i = 0; i < in.shape.size(); ++i) {
      if (in.shape[i] == 1)
        continue;
      int64_t d = s.attrs[i];
      if (d <= last || in.shape[i] != out.shape[d])
        return std::nullopt; // a transposing broadcast
      last = d;
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    if (hi < 0 || numElements(out.shape) == 0)
      return std::nullopt;
    // Every result dimension in [lo, hi] comes from the operand.
    int64_t covered = 1;
    for (int64_t d = lo; d <= hi; ++d)
      covered *= out.shape[d];
    if (covered != numElements(in.shape))
      return std::nullopt;
    auto units = [&](int64_t from, int64_t to) {
      for (int64_t d = from; d < to; ++d)
        if (out.shape[d] != 1)
          return false;
      return true;
    };
    if (units(hi + 1, rank))
      return FusedProgram::Input{FusedProgram::AlongRows, numElements(in.shape)};
    if (units(0, lo))
      return FusedProgram::Input{FusedProgram::AlongColumns,
                                 numElements(out.shape) / numElements(in.shape)};
    return std::nullopt;
  }

  /// The row length of an f32 reduction over a trailing block of its
  /// operand's dimensions (rows are the leading ones), or 0.
  int64_t rowReductionCols(const PlanStep &s) {
    if (s.op != OpCode::Reduce || s.attrs.size() < 2 || s.attrs[0] > 2)
      return 0;
    const PlanValue &in = plan.values[s.inputs[0]];
    int64_t rank = (int64_t)in.shape.size();
    std::vector<int64_t> dims(s.attrs.begin() + 1, s.attrs.end());
    std::sort(dims.begin(), dims.end());
    int64_t cols = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != rank - (int64_t)dims.size() + (int64_t)i)
        return 0;
      cols *= in.shape[dims[i]];
    }
    // Totals (one row) stay with the plain reduce kernel: the fused one
    // splits its work over threads by rows.
    return in.dtype == DType::F32 && (int64_t)dims.size() < rank && cols > 0 ? cols : 0;
  }

  bool isRowReduction(const PlanStep &s) { return rowReductionCols(s) > 0; }

  bool isBf16Cast(const PlanStep &s) {
    return s.op == OpCode::Convert && plan.values[s.inputs[0]].dtype == DType::F32 &&
           plan.values[s.outputs[0]].dtype == DType::BF16;
  }

  bool fusible(const PlanStep &s) {
    if (s.op == OpCode::Compare) {
      // Its i1 result lives in a register (as 1.0 or 0.0) only if nothing
      // but selects' predicates read it.
      int32_t out = s.outputs[0];
      for (int32_t id : s.inputs)
        if (plan.values[id].dtype != DType::F32)
          return false;
      for (size_t r : readers[out])
        if (r == SIZE_MAX || plan.steps[r].op != OpCode::Select || plan.steps[r].inputs[1] == out ||
            plan.steps[r].inputs[2] == out)
          return false;
      return true;
    }
    if (s.op == OpCode::Select) // its predicate comes from a fused compare
      return plan.values[s.outputs[0]].dtype == DType::F32 &&
             plan.values[s.inputs[1]].dtype == DType::F32 &&
             plan.values[s.inputs[2]].dtype == DType::F32;
    if (s.outputs.size() != 1 || plan.values[s.outputs[0]].dtype != DType::F32)
      return false;
    for (int32_t id : s.inputs)
      if (plan.values[id].dtype != DType::F32)
        return false;
    if (isElementwise(s.op))
      return true;
    if (s.op == OpCode::Constant)
      return isF32Splat(s.constant);
    if (s.op == OpCode::BroadcastInDim)
      return broadcastLoad(s).has_value();
    return false;
  }

  void close(const std::vector<size_t> &group) {
    int computing = 0, broadcasts = 0;
    for (size_t g : group) {
      computing += isElementwise(plan.steps[g].op) || plan.steps[g].op == OpCode::Compare ||
                   plan.steps[g].op == OpCode::Select || plan.steps[g].op == OpCode::Convert;
      broadcasts += plan.steps[g].op == OpCode::BroadcastInDim;
    }
    // One op on a broadcast value is worth a kernel too: the broadcast is
    // then loaded, never stored (a bias added to a product).
    if (computing == 0 || computing + broadcasts < 2)
      return;
    std::set<size_t> members(group.begin(), group.end());
    // A compare whose select ended up outside the group would have to store
    // an i1 value: leave the group unfused then.
    for (size_t g : group)
      if (plan.steps[g].op == OpCode::Compare)
        for (size_t r : readers[plan.steps[g].outputs[0]])
          if (!members.count(r))
            return;
    FusedProgram program;
    PlanStep fused;
    fused.op = OpCode::Fused;
    fused.location = plan.steps[group.back()].location;
    std::map<int32_t, int64_t> reg; // value id -> register
    std::vector<std::pair<int32_t, FusedProgram::Input>> inputs;
    auto inputReg = [&](int32_t id, FusedProgram::Input how) {
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].first == id && inputs[i].second.mode == how.mode)
          return (int64_t)i;
      inputs.push_back({id, how});
      return (int64_t)inputs.size() - 1;
    };
    // First pass: find the inputs, so instruction registers follow them.
    for (size_t g : group) {
      const PlanStep &s = plan.steps[g];
      if (s.op == OpCode::Reduce)
        continue; // reads a member's value
      if (s.op == OpCode::BroadcastInDim && rowValues.count(s.inputs[0]))
        continue; // reads a member's reduction
      if (s.op == OpCode::Convert)
        continue; // a member's value, stored rounded
      if (s.op == OpCode::BroadcastInDim) {
        inputReg(s.inputs[0], *broadcastLoad(s));
        continue;
      }
      for (int32_t id : s.inputs)
        if (!producedBy(id, members))
          inputReg(id, {FusedProgram::Whole, 0});
    }
    for (auto &[id, how] : inputs)
      program.inputs.push_back(how);
    int64_t next = (int64_t)inputs.size();
    std::vector<std::pair<int32_t, FusedProgram::RowReduction>> reductions;
    std::map<size_t, int64_t> reductionOf; // reduce step -> its reduction
    std::map<int64_t, int64_t> readOf;     // reduction -> the register reading it back
    for (size_t g : group) {
      const PlanStep &s = plan.steps[g];
      int32_t out = s.outputs[0];
      if (s.op == OpCode::Reduce) {
        reductionOf[g] = (int64_t)reductions.size();
        reductions.push_back({out, {reg[s.inputs[0]], (Reduction)s.attrs[0], rowReductionCols(s)}});
        continue;
      }
      if (s.op == OpCode::Convert) { // the same register, stored as bf16
        reg[out] = reg.at(s.inputs[0]);
        continue;
      }
      if (s.op == OpCode::BroadcastInDim && rowValues.count(s.inputs[0])) {
        // One read of each reduction; later broadcasts of it share it.
        int64_t k = reductionOf.at(rowValues.at(s.inputs[0]));
        if (auto read = readOf.find(k); read != readOf.end()) {
          reg[out] = read->second;
          continue;
        }
        program.instructions.push_back({OpCode::Reduce, k, 0, 0.0f, 0});
        reg[out] = readOf[k] = next++;
        continue;
      }
      if (s.op == OpCode::BroadcastInDim) {
        reg[out] = inputReg(s.inputs[0], *broadcastLoad(s));
        continue;
      }
      FusedProgram::Instruction in{s.op, 0, 0, 0.0f, 0};
      if (s.op == OpCode::Constant) {
        in.value = s.constant.data<float>()[0];
      } else {
        auto regOf = [&](int32_t id) {
          auto it = reg.find(id);
          return it != reg.end() ? it->second : inputReg(id, {FusedProgram::Whole, 0});
        };
        in.x = regOf(s.inputs[0]);
        in.y = s.inputs.size() > 1 ? regOf(s.inputs[1]) : 0;
        if (s.op == OpCode::Compare)
          in.direction = s.attrs[0];
        else if (s.op == OpCode::Select)
          in.z = regOf(s.inputs[2]);
      }
      program.instructions.push_back(in);
      reg[out] = next++;
    }
    for (auto &[id, how] : inputs)
      fused.inputs.push_back(id);
    // Outputs: members' values read outside the group, then the reductions.
    for (size_t g : group) {
      if (plan.steps[g].op == OpCode::Reduce)
        continue;
      int32_t out = plan.steps[g].outputs[0];
      bool outside = false;
      for (size_t r : readers[out])
        outside |= !members.count(r);
      if (outside) {
        fused.outputs.push_back(out);
        program.outputs.push_back(reg[out]);
        program.outputTypes.push_back(plan.values[out].dtype);
      } else {
        plan.values[out].offset = kNotMaterialized;
      }
    }
    for (auto &[id, reduction] : reductions) {
      fused.outputs.push_back(id);
      program.reductions.push_back(reduction);
    }
    // Output types are encoded only where one is not f32.
    if (std::all_of(program.outputTypes.begin(), program.outputTypes.end(),
                    [](DType t) { return t == DType::F32; }))
      program.outputTypes.clear();
    for (size_t g : group)
      removed.insert(g);
    if (fused.outputs.empty())
      return; // nothing reads the chain: it is dead
    fused.attrs = program.encode();
    removed.erase(group.back());
    plan.steps[group.back()] = std::move(fused);
    // Reshapes of the reductions read them once the fused step made them,
    // unless only the group read them back (a layer norm's statistics):
    // those go, with any reshape that only they read.
    std::set<size_t> unread;
    for (auto d = deferred.rbegin(); d != deferred.rend(); ++d) {
      bool read = false;
      for (size_t r : readers[plan.steps[*d].outputs[0]])
        read |= r == SIZE_MAX || (!members.count(r) && !unread.count(r));
      if (!read) {
        unread.insert(*d);
        plan.values[plan.steps[*d].outputs[0]].offset = kNotMaterialized;
      }
    }
    std::vector<size_t> after;
    for (size_t d : deferred)
      if (!unread.count(d))
        after.push_back(d);
    removed.insert(unread.begin(), unread.end());
    moved.insert(after.begin(), after.end());
    movedAfter[group.back()] = after;
  }

  /// Whether a member other than a reduction computes value `id`.
  bool computedBy(int32_t id, const std::vector<size_t> &members) {
    for (size_t g : members)
      if (plan.steps[g].op != OpCode::Reduce && plan.steps[g].outputs[0] == id)
        return true;
    return false;
  }

  bool producedBy(int32_t id, const std::set<size_t> &members) {
    for (size_t g : members)
      if (plan.steps[g].outputs[0] == id)
        return true;
    return false;
  }
};

} // namespace

void fuseElementwise(Plan &plan, const FuseOptions &options) { Fuser(plan, options).run(); }

} // namespace shardc
