//===- ShardcToPlan.cpp - lowering to the executable plan -----------------===//
//
// One step per op with its attributes flattened as Plan.h documents, then
// buffer assignment: a linear scan over the steps that places each new value
// in the best-fitting free block of the arena and frees a value after its
// last use. Results are never freed; arguments live outside the arena.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/ShardcToPlan.h"

#include "FuseElementwise.h"
#include "MergeCollectives.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdlib>
#include <map>

using namespace mlir;

namespace shardc {

namespace {

constexpr int64_t kAlignment = 64;

std::vector<std::string> axisNames(ArrayAttr axes) {
  std::vector<std::string> out;
  for (Attribute a : axes)
    out.push_back(cast<StringAttr>(a).getValue().str());
  return out;
}

void append(std::vector<int64_t> &to, ArrayRef<int64_t> from) {
  to.insert(to.end(), from.begin(), from.end());
}

/// Fills the opcode and attributes of `step` from `op`.
LogicalResult describe(Operation *op, PlanStep &step) {
  auto simple = [&](OpCode code) {
    step.op = code;
    return success();
  };
  auto reduceKind = [](ReduceKind k) -> int64_t {
    switch (k) {
    case ReduceKind::Sum: return 0;
    case ReduceKind::Max: return 1;
    case ReduceKind::Min: return 2;
    case ReduceKind::Mean: return 3;
    }
    return 0;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ConstantOp c) -> LogicalResult {
        std::optional<Array> value = elementsToArray(c.getValue());
        if (!value)
          return c.emitError("cannot read the elements of this constant");
        step.constant = std::move(*value);
        return simple(OpCode::Constant);
      })
      .Case([&](IotaOp c) {
        step.ints = {c.getDimAttr().getInt()};
        return simple(OpCode::Iota);
      })
#define SHARDC_UNARY(Name, ...) .Case([&](Name##Op) { return simple(OpCode::Name); })
#define SHARDC_BINARY(Name, ...) .Case([&](Name##Op) { return simple(OpCode::Name); })
#include "shardc/Runtime/OpCodes.def"
      .Case([&](CompareOp c) {
        step.ints = {(int64_t)c.getDirection()};
        return simple(OpCode::Compare);
      })
      .Case([&](SelectOp) { return simple(OpCode::Select); })
      .Case([&](ConvertOp) { return simple(OpCode::Convert); })
      .Case([&](DotGeneralOp c) {
        step.ints = {(int64_t)c.getLhsBatchingDims().size(),
                     (int64_t)c.getLhsContractingDims().size()};
        append(step.ints, c.getLhsBatchingDims());
        append(step.ints, c.getRhsBatchingDims());
        append(step.ints, c.getLhsContractingDims());
        append(step.ints, c.getRhsContractingDims());
        return simple(OpCode::DotGeneral);
      })
      .Case([&](ReduceOp c) {
        step.ints = {reduceKind(c.getKind())};
        append(step.ints, c.getDims());
        return simple(OpCode::Reduce);
      })
      .Case([&](BroadcastInDimOp c) {
        append(step.ints, c.getDims());
        return simple(OpCode::BroadcastInDim);
      })
      .Case([&](ReshapeOp) { return simple(OpCode::Reshape); })
      .Case([&](StopGradientOp) { return simple(OpCode::Reshape); }) // a copy
      .Case([&](TransposeOp c) {
        append(step.ints, c.getPermutation());
        return simple(OpCode::Transpose);
      })
      .Case([&](SliceOp c) {
        append(step.ints, c.getStart());
        append(step.ints, c.getLimit());
        append(step.ints, c.getStrides());
        return simple(OpCode::Slice);
      })
      .Case([&](DynamicSliceOp) { return simple(OpCode::DynamicSlice); })
      .Case([&](DynamicUpdateSliceOp) { return simple(OpCode::DynamicUpdateSlice); })
      .Case([&](ConcatenateOp c) {
        step.ints = {c.getDimAttr().getInt()};
        return simple(OpCode::Concatenate);
      })
      .Case([&](TakeOp) { return simple(OpCode::Take); })
      .Case([&](ScatterAddOp) { return simple(OpCode::ScatterAdd); })
      .Case([&](AllReduceOp c) {
        step.ints = {reduceKind(c.getKind())};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllReduce);
      })
      .Case([&](AllGatherOp c) {
        step.ints = {c.getDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllGather);
      })
      .Case([&](ReduceScatterOp c) {
        step.ints = {reduceKind(c.getKind()), c.getDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::ReduceScatter);
      })
      .Case([&](AllToAllOp c) {
        step.ints = {c.getSplitDimAttr().getInt(), c.getConcatDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllToAll);
      })
      .Case([&](AllSliceOp c) {
        step.ints = {c.getDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllSlice);
      })
      .Case([&](CollectivePermuteOp c) {
        step.ints.assign(c.getSources().begin(), c.getSources().end());
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::CollectivePermute);
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError("cannot be lowered to an executable plan; ")
               << (isa<ShardMapOp, ShardingConstraintOp>(other)
                       ? "partition the function first"
                       : "no backend runs it");
      });
}

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

int64_t allReduceBucketBytes() {
  static const int64_t bytes = [] {
    const char *v = std::getenv("SHARDC_ALLREDUCE_BUCKET_BYTES");
    return v && *v ? std::max<int64_t>(0, std::atoll(v)) : int64_t(4) << 20;
  }();
  return bytes;
}

FailureOr<Plan> lowerToPlan(func::FuncOp fn) {
  if (fn.isExternal() || !llvm::hasSingleElement(fn.getBody()))
    return fn.emitError("only single-block functions with a body can be lowered");
  Plan plan;
  plan.entry = fn.getSymName().str();
  MeshOp mesh;
  if (auto ref = fn->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName)) {
    mesh = lookupMesh(fn, ref);
  } else {
    FailureOr<MeshOp> used = findFunctionMesh(fn);
    if (failed(used))
      return failure();
    if (*used)
      return fn.emitError("is sharded but not partitioned; run --shardc-propagate and "
                          "--shardc-partition first");
  }
  if (mesh)
    plan.mesh = toRuntimeMesh(mesh);

  llvm::DenseMap<Value, int32_t> ids;
  auto addValue = [&](Value v) -> FailureOr<int32_t> {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    std::optional<DType> dtype = type ? toDType(type.getElementType()) : std::nullopt;
    if (!dtype)
      return emitError(v.getLoc()) << "cannot lower a value of type " << v.getType();
    plan.values.push_back(
        PlanValue{*dtype, Shape(type.getShape().begin(), type.getShape().end()), -1});
    return ids[v] = (int32_t)plan.values.size() - 1;
  };
  // The global shape: recorded where the layout pads it, else the local
  // shape times the blocks of each dimension.
  auto signature = [&](ShardingAttr s, DenseI64ArrayAttr recorded, const Shape &local,
                       std::vector<Shape> &globals) {
    NamedSharding named{plan.mesh, PartitionSpec(local.size())};
    if (s && mesh)
      named = toNamedSharding(s, mesh);
    Shape global = local;
    for (size_t d = 0; d < global.size(); ++d)
      global[d] *= plan.mesh.groupSize(named.spec[d]);
    if (recorded)
      global.assign(recorded.asArrayRef().begin(), recorded.asArrayRef().end());
    globals.push_back(global);
    return named;
  };

  Block &body = fn.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    FailureOr<int32_t> id = addValue(arg);
    if (failed(id))
      return failure();
    unsigned i = arg.getArgNumber();
    plan.args.push_back(*id);
    auto name = fn.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName);
    plan.argNames.push_back(name ? name.getValue().str() : "arg" + std::to_string(i));
    plan.argShardings.push_back(
        signature(fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName),
                  fn.getArgAttrOfType<DenseI64ArrayAttr>(i, ShardcDialect::kGlobalShapeAttrName),
                  plan.values[*id].shape, plan.argGlobalShapes));
    plan.donated.push_back(fn.getArgAttr(i, ShardcDialect::kDonatedAttrName) != nullptr);
  }

  for (Operation &op : body.without_terminator()) {
    PlanStep step;
    if (failed(describe(&op, step)))
      return failure();
    step.location = formatLocation(op.getLoc());
    for (Value v : op.getOperands())
      step.inputs.push_back(ids.lookup(v));
    for (Value v : op.getResults()) {
      FailureOr<int32_t> id = addValue(v);
      if (failed(id))
        return failure();
      step.outputs.push_back(*id);
    }
    plan.steps.push_back(std::move(step));
  }
  for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands())) {
    int32_t id = ids.lookup(v);
    plan.results.push_back(id);
    plan.resultShardings.push_back(signature(
        fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName),
        fn.getResultAttrOfType<DenseI64ArrayAttr>(i, ShardcDialect::kGlobalShapeAttrName),
        plan.values[id].shape, plan.resultGlobalShapes));
  }

  fuseElementwise(plan);
  mergeAllReduces(plan, allReduceBucketBytes());

  // Buffer assignment by liveness.
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
    bool elementwise = (step.op >= OpCode::Neg && step.op <= OpCode::Erf) ||
                       (step.op >= OpCode::Add && step.op <= OpCode::Pow);
    if (elementwise || step.op == OpCode::Fused || step.op == OpCode::AllReduce ||
        step.op == OpCode::Reshape) {
      std::vector<FusedProgram::Input> modes;
      if (step.op == OpCode::Fused)
        modes = FusedProgram::decode(step.ints).inputs;
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
      plan.unsharedBytes += ((int64_t)plan.values[id].bytes() + kAlignment - 1) /
                            kAlignment * kAlignment;
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
  plan.id = Plan::newId();
  // What the backends will rely on; a plan that breaks it is a bug here.
  if (Status valid = validatePlan(plan); !valid.ok())
    return fn.emitError("lowering made an invalid plan: ") << valid.message();
  return plan;
}

} // namespace shardc
