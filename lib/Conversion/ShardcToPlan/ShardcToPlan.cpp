//===- ShardcToPlan.cpp - lowering to the executable plan -----------------===//
//
// One step per op with its attributes flattened as Plan.h documents, then
// the plan-level passes: fusion (FuseElementwise), merged all_reduces
// (MergeCollectives) and buffer assignment (BufferAssignment).
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/ShardcToPlan.h"

#include "BufferAssignment.h"
#include "FuseElementwise.h"
#include "PlaceReaders.h"
#include "MergeCollectives.h"
#include "Rematerialize.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Conversion/RuntimeTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdlib>

using namespace mlir;

namespace shardc {

namespace {

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
/// Splat constants of at least this many elements are read as one
/// element until fusion is done: the adjoints' zeros and the optimizer's
/// factors are the size of a parameter or an activation, and fusion takes
/// nearly all of them as scalars.
constexpr int64_t kLargeSplatElements = 1 << 16;

LogicalResult describe(Operation *op, PlanStep &step) {
  auto simple = [&](OpCode code) {
    step.op = code;
    return success();
  };
  auto reduceKind = [](ReduceKind k) -> int64_t {
    switch (k) {
    case ReduceKind::Sum:
      return 0;
    case ReduceKind::Max:
      return 1;
    case ReduceKind::Min:
      return 2;
    case ReduceKind::Mean:
      return 3;
    }
    return 0;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](ConstantOp c) -> LogicalResult {
        if (failed(checkResultFitsInMemory(c)))
          return failure();
        // A large splat keeps its one element until fusion has read it as
        // a scalar (expandSplats).
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        ElementsAttr elements = c.getValue();
        if (dense && dense.isSplat() && dense.getNumElements() >= kLargeSplatElements)
          elements =
              DenseElementsAttr::get(RankedTensorType::get({}, dense.getType().getElementType()),
                                     dense.getSplatValue<Attribute>());
        std::optional<Array> value = elementsToArray(elements);
        if (!value)
          return c.emitError("cannot read the elements of this constant");
        step.constant = std::move(*value);
        return simple(OpCode::Constant);
      })
      .Case([&](IotaOp c) -> LogicalResult {
        if (failed(checkResultFitsInMemory(c)))
          return failure();
        step.attrs = {c.getDimAttr().getInt()};
        return simple(OpCode::Iota);
      })
#define SHARDC_UNARY(Name, ...) .Case([&](Name##Op) { return simple(OpCode::Name); })
#define SHARDC_BINARY(Name, ...) .Case([&](Name##Op) { return simple(OpCode::Name); })
#include "shardc/Common/OpCodes.def"
      .Case([&](CompareOp c) {
        step.attrs = {(int64_t)c.getDirection()};
        return simple(OpCode::Compare);
      })
      .Case([&](SelectOp) { return simple(OpCode::Select); })
      .Case([&](ConvertOp) { return simple(OpCode::Convert); })
      .Case([&](DotGeneralOp c) {
        auto list = [](ArrayRef<int64_t> dims) { return std::vector<int64_t>(dims); };
        step.attrs =
            DotGeneralDims::encode(list(c.getLhsBatchingDims()), list(c.getRhsBatchingDims()),
                                   list(c.getLhsContractingDims()), list(c.getRhsContractingDims()),
                                   c.getProductPrecision());
        return simple(OpCode::DotGeneral);
      })
      .Case([&](ReduceOp c) {
        step.attrs = {reduceKind(c.getKind())};
        append(step.attrs, c.getDims());
        return simple(OpCode::Reduce);
      })
      .Case([&](BroadcastInDimOp c) {
        append(step.attrs, c.getDims());
        return simple(OpCode::BroadcastInDim);
      })
      .Case([&](ReshapeOp) { return simple(OpCode::Reshape); })
      .Case([&](StopGradientOp) { return simple(OpCode::Reshape); }) // a copy
      .Case([&](TransposeOp c) {
        append(step.attrs, c.getPermutation());
        return simple(OpCode::Transpose);
      })
      .Case([&](SliceOp c) {
        append(step.attrs, c.getStart());
        append(step.attrs, c.getLimit());
        append(step.attrs, c.getStrides());
        return simple(OpCode::Slice);
      })
      .Case([&](DynamicSliceOp) { return simple(OpCode::DynamicSlice); })
      .Case([&](DynamicUpdateSliceOp) { return simple(OpCode::DynamicUpdateSlice); })
      .Case([&](ConcatenateOp c) {
        step.attrs = {c.getDimAttr().getInt()};
        return simple(OpCode::Concatenate);
      })
#define SHARDC_STRUCTURED(Name, ...)                                                               \
  .Case([&](Name##Op c) {                                                                          \
    step.attrs = c.getPlanAttrs();                                                                 \
    return simple(OpCode::Name);                                                                   \
  })
#include "shardc/Common/OpCodes.def"
      .Case([&](AllReduceOp c) {
        step.attrs = {reduceKind(c.getKind())};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllReduce);
      })
      .Case([&](AllGatherOp c) {
        step.attrs = {c.getDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllGather);
      })
      .Case([&](ReduceScatterOp c) {
        step.attrs = {reduceKind(c.getKind()), c.getDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::ReduceScatter);
      })
      .Case([&](AllToAllOp c) {
        step.attrs = {c.getSplitDimAttr().getInt(), c.getConcatDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllToAll);
      })
      .Case([&](AllSliceOp c) {
        step.attrs = {c.getDimAttr().getInt()};
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::AllSlice);
      })
      .Case([&](CollectivePermuteOp c) {
        step.attrs.assign(c.getSources().begin(), c.getSources().end());
        step.axes = axisNames(c.getAxes());
        return simple(OpCode::CollectivePermute);
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitError("cannot be lowered to an executable plan; ")
               << (isa<ShardMapOp, ShardingConstraintOp>(other) ? "partition the function first"
                                                                : "no backend runs it");
      });
}

} // namespace

/// The large splat constants whose steps fusion did not take: their one
/// element, filled out to their value's shape.
static void expandSplats(Plan &plan) {
  for (PlanStep &step : plan.steps) {
    if (step.op != OpCode::Constant)
      continue;
    const PlanValue &out = plan.values[step.outputs[0]];
    if (step.constant.shape() == out.shape)
      continue;
    Array full(out.dtype, out.shape);
    bool floating = isFloat(out.dtype);
    double x = floating ? step.constant.getDouble(0) : 0;
    int64_t n = floating ? 0 : step.constant.getInt(0);
    for (int64_t i = 0; i < full.numElements(); ++i)
      floating ? full.setDouble(i, x) : full.setInt(i, n);
    step.constant = std::move(full);
  }
}

FailureOr<Plan> lowerToPlan(func::FuncOp fn, int64_t allReduceBucketBytes,
                            const FuseOptions &fuse) {
  if (fn.isExternal() || !llvm::hasSingleElement(fn.getBody()))
    return fn.emitError("only single-block functions with a body can be lowered");
  // A plan's buffers have sizes: what the caller passes and gets has shapes.
  for (auto [kind, types] :
       {std::pair<const char *, ArrayRef<Type>>{"argument", fn.getArgumentTypes()},
        {"result", fn.getResultTypes()}})
    for (auto [i, t] : llvm::enumerate(types))
      if (auto r = dyn_cast<RankedTensorType>(t); !r || !r.hasStaticShape())
        return fn.emitError(kind) << " #" << i << " has type " << t
                                  << ": a program takes and gives tensors of static shape";
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
    plan.resultShardings.push_back(
        signature(fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName),
                  fn.getResultAttrOfType<DenseI64ArrayAttr>(i, ShardcDialect::kGlobalShapeAttrName),
                  plan.values[id].shape, plan.resultGlobalShapes));
  }

  rematerializeElementwise(plan);
  fuseElementwise(plan, fuse);
  placeReadersAfterProducts(plan);
  expandSplats(plan);
  mergeAllReduces(plan, std::max<int64_t>(0, allReduceBucketBytes));

  assignBuffers(plan);
  plan.id = Plan::newId();
  // What the backends will rely on; a plan that breaks it is a bug here.
  if (Status valid = validatePlan(plan); !valid.ok())
    return fn.emitError("lowering made an invalid plan: ") << valid.message();
  return plan;
}

LogicalResult checkMemoryBudget(func::FuncOp fn, const Plan &plan, int64_t budget) {
  int64_t arguments = 0;
  for (int32_t id : plan.args)
    arguments += (int64_t)plan.values[id].bytes();
  int64_t need = plan.arenaBytes + arguments;
  if (budget <= 0 || need <= budget)
    return success();
  return fn.emitError() << "@" << fn.getSymName() << " needs " << need
                        << " bytes per device (buffers " << plan.arenaBytes << ", argument shards "
                        << arguments << "), over --memory-budget " << budget;
}

} // namespace shardc
