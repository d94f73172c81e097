//===- Partition.cpp - --shardc-partition ---------------------------------===//
//
// Rewrites a propagated global function into the per-device program. The
// walk keeps, for every global value, its local value and the layout that
// local value is in. Each op with a sharding rule is computed on the layout
// its factors allow, the cheapest by bytes (OpStrategy.h), with its operands
// resharded to it, and its result is resharded to the layout propagation
// chose (Reshard.h plans the collectives).
//
// A sharded reduction (a contracting dimension of dot_general, a reduced
// dimension of reduce, the indices of scatter_add) leaves each device with a
// partial sum. Such a value stays partial through the ops that are linear in
// it (its ShardingRule's PartialFlow: adds of values partial alike, products
// with a whole value, the data-movement ops) and is reduced once, where an
// op needs it whole or a layout uses the axes it is pending over: three
// partial products summed cost one all_reduce, not three.
//
//===----------------------------------------------------------------------===//

#include "OpStrategy.h"
#include "Padding.h"
#include "Reshard.h"

#include "shardc/Dialect/Shardc/IR/ShardcAttrs.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCPARTITION
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

namespace {

struct Local {
  Value value;
  Layout layout;
  /// The mesh axes a sum is pending over, in mesh order; empty when the
  /// local values are the global value's blocks.
  Axes partial;
  /// Why the value is partial: the sharded reduction that made it so.
  std::string cause;
};

bool usesAny(MeshOp mesh, const Layout &layout, ArrayRef<StringRef> axes) {
  for (const auto &dim : layout)
    for (StringRef a : dim)
      if (overlapsAny(mesh, axes, a))
        return true;
  return false;
}

/// A splat zero is a partial value over any axes: every device holding 0
/// sums to 0.
bool isZeroSplat(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto splat = c ? dyn_cast<SplatElementsAttr>(c.getValue()) : nullptr;
  if (!splat)
    return false;
  if (auto f = dyn_cast<FloatAttr>(splat.getSplatValue<Attribute>()))
    return f.getValue().isZero();
  if (auto i = dyn_cast<IntegerAttr>(splat.getSplatValue<Attribute>()))
    return i.getValue().isZero();
  return false;
}

std::string opName(Operation *op) {
  return op->getName().getStringRef().str() + " at " + formatLocation(op->getLoc());
}

/// Every pair of sub-axes of one axis the function's shardings name must
/// nest (each factor boundary divides the next: "a":(1)2 and "a":(2)3 on an
/// axis of 6 do, "a":(1)2 and "a":(3)2 do not): data moves between layouts
/// over the finest factors both cut the axis into.
LogicalResult checkSubAxesNest(func::FuncOp fn, MeshOp mesh) {
  std::map<int64_t, std::map<int64_t, std::string>> cuts; // axis -> boundary -> who cut it
  auto note = [&](ShardingAttr s) {
    if (!s)
      return;
    for (DimShardingAttr d : s.getDims())
      for (StringAttr a : d.getAxes()) {
        int64_t axis = mesh.getAxisIndex(a.getValue());
        if (axis < 0)
          continue;
        int64_t pre = mesh.getAxisPreSize(a.getValue());
        cuts[axis].emplace(pre, a.getValue().str());
        cuts[axis].emplace(pre * mesh.getAxisSize(a.getValue()), a.getValue().str());
      }
  };
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    note(fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName));
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    note(fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName));
  fn.walk([&](Operation *op) {
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      note(c.getSharding());
    if (auto list = op->getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName))
      for (Attribute a : list)
        note(dyn_cast<ShardingAttr>(a));
  });
  for (auto &[axis, at] : cuts) {
    int64_t previous = 1;
    std::string who;
    for (auto &[cut, name] : at) {
      if (cut % previous != 0)
        return fn.emitError("sub-axes ")
               << axisSyntax(who) << " and " << axisSyntax(name) << " of mesh axis \""
               << cast<StringAttr>(mesh.getAxisNames()[axis]).getValue() << "\" do not nest ("
               << previous << " does not divide " << cut
               << "): shardc cannot move data between layouts that use both";
      previous = cut;
      who = name;
    }
  }
  return success();
}

class Partitioner {
public:
  Partitioner(func::FuncOp fn, MeshOp mesh, const PartitionOptions &options)
      : fn(fn), mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())),
        b(fn.getContext()), options(options), planner(options.link) {}

  LogicalResult run() {
    if (failed(checkPadding(fn, mesh, options.padUneven)) || failed(checkSubAxesNest(fn, mesh)))
      return failure();
    Block &old = fn.getBody().front();
    Block *body = new Block();
    fn.getBody().push_back(body);
    b.setInsertionPointToStart(body);

    SmallVector<Type> argTypes;
    for (BlockArgument arg : old.getArguments()) {
      auto global = cast<RankedTensorType>(arg.getType());
      auto s =
          fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), ShardcDialect::kShardingAttrName);
      Layout layout = s ? layoutOf(s, mesh) : replicatedLayout(global.getRank());
      RankedTensorType local = localType(global, layout, mesh);
      argTypes.push_back(local);
      map[arg] = {body->addArgument(local, arg.getLoc()), layout};
      if (pads(mesh, global, layout))
        fn.setArgAttr(arg.getArgNumber(), ShardcDialect::kGlobalShapeAttrName,
                      b.getDenseI64ArrayAttr(global.getShape()));
    }

    for (Operation &op : old.without_terminator())
      if (failed(partition(&op)))
        return failure();

    // Results: reshard to the function's result shardings.
    Operation *ret = old.getTerminator();
    SmallVector<Value> results;
    SmallVector<Type> resultTypes;
    for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
      auto global = cast<RankedTensorType>(v.getType());
      auto s = fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
      Layout want = s ? layoutOf(s, mesh) : replicatedLayout(global.getRank());
      Local have = whole(ret, v, want);
      results.push_back(
          reshard(b, ret->getLoc(),
                  "reshard result #" + std::to_string(i) + " of @" + fn.getSymName().str(), mesh,
                  have.value, global, have.layout, want));
      resultTypes.push_back(results.back().getType());
      if (pads(mesh, global, want))
        fn.setResultAttr(i, ShardcDialect::kGlobalShapeAttrName,
                         b.getDenseI64ArrayAttr(global.getShape()));
    }
    func::ReturnOp::create(b, ret->getLoc(), results);

    old.dropAllDefinedValueUses();
    old.erase();
    fn.setFunctionType(FunctionType::get(fn.getContext(), argTypes, resultTypes));
    fn->setAttr(ShardcDialect::kPartitionedAttrName, meshRef);
    return success();
  }

private:
  func::FuncOp fn;
  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
  OpBuilder b;
  PartitionOptions options;
  ReshardPlanner planner;
  PaddingMasks paddingMasks{b, mesh};
  llvm::DenseMap<Value, Local> map;

  /// The local value of `v`, which an op earlier in the body (or the
  /// signature) produced. Not finding it is a bug of this pass: it stops
  /// with a message naming the value rather than read an empty Local.
  Local &local(Value v) {
    auto it = map.find(v);
    if (it == map.end()) {
      std::string what;
      llvm::raw_string_ostream os(what);
      v.getLoc().print(os);
      llvm::report_fatal_error(llvm::Twine("shardc-partition: internal error: no local value "
                                           "for a value defined at ") +
                               what + " in @" + fn.getSymName());
    }
    return it->second;
  }
  /// A partial value once reduced: global value -> its whole local value.
  llvm::DenseMap<Value, Local> reduced;
  /// Values a sharding_constraint keeps partial: every user linear in them
  /// takes them partial, however many there are.
  llvm::DenseSet<Value> askedPartial;
  /// Partial results reduced where they are made because they could not
  /// move to their layout while partial: "[{"d"}] to [{"e"}]".
  llvm::DenseMap<Value, std::string> reducedToMove;
  /// Per axes: true on the first device of each group (firstOfEachGroup).
  llvm::StringMap<Value> firstDeviceMask;
  /// Reshards already emitted: global value -> (layout, partial axes, local
  /// value).
  llvm::DenseMap<Value, SmallVector<std::tuple<Layout, Axes, Value>, 1>> resharded;

  RankedTensorType globalType(Value v) { return cast<RankedTensorType>(v.getType()); }

  /// Whether a value partial over `have.partial` can move to `want` before
  /// it is reduced: `want` must not use those axes, and must not gather
  /// (reducing first makes the all_reduce smaller), and no collective of the
  /// reshard may run over them. The devices whose partial sums one
  /// all_reduce adds must hold the same block of the value: a slice over
  /// such an axis would keep another block on each, a permute over one
  /// would move blocks past each other ([{"d"}] partial over "c" to
  /// [{"e"}] on a mesh c=2, d=2, e=4 slices by "c", then permutes).
  bool canStayPartial(const Local &have, const Layout &want, RankedTensorType global) {
    if (usesAny(mesh, want, have.partial) ||
        localBytes(mesh, global, want) > localBytes(mesh, global, have.layout))
      return false;
    if (have.layout == want)
      return true;
    ReshardPlan plan = planReshard(mesh, global, have.layout, want);
    for (const std::vector<ReshardStep> *steps : {&plan.before, &plan.steps})
      for (const ReshardStep &step : *steps)
        for (StringRef a : step.axes)
          if (overlapsAny(mesh, have.partial, a))
            return false;
    return true;
  }

  /// The whole value of `v`, reduced once for all its users: a
  /// reduce_scatter when `want` is its layout split further by exactly the
  /// pending axes, otherwise an all_reduce.
  Local whole(Operation *user, Value v, const Layout &want) {
    Local &have = local(v);
    if (have.partial.empty())
      return have;
    auto it = reduced.find(v);
    if (it != reduced.end())
      return it->second;
    Local done = have;
    done.partial.clear();
    done.value = reduce(user->getLoc(), have.value, globalType(v), done.layout, want, have.partial,
                        ReduceKind::Sum,
                        have.cause + "; reduced once, where " + opName(user) + " needs it whole");
    return reduced[v] = done;
  }

  /// The local value of `v` in layout `want`, kept partial when `keepPartial`
  /// and the value can stay partial in `want`, else reduced first; a reshard
  /// made for an earlier user is reused.
  Value operandIn(Operation *user, unsigned i, const Layout &want, bool keepPartial = false) {
    Value v = user->getOperand(i);
    Local have = local(v);
    if (!have.partial.empty() && !(keepPartial && canStayPartial(have, want, globalType(v))))
      have = whole(user, v, want);
    if (have.layout == want)
      return have.value;
    for (auto &[layout, partial, value] : resharded[v])
      if (layout == want && partial == have.partial)
        return value;
    Value value =
        reshard(b, user->getLoc(), "reshard operand #" + std::to_string(i) + " of " + opName(user),
                mesh, have.value, globalType(v), have.layout, want);
    resharded[v].emplace_back(want, have.partial, value);
    return value;
  }

  /// Whether `v` is to be reduced where it is, rather than kept partial for
  /// its user: it is reduced already, or it has several uses (each would
  /// reduce its own result: one reduction here costs less), or its one use
  /// is not linear in it. A value a sharding_constraint keeps partial stays
  /// so while all its uses are linear in it.
  bool needsWhole(Value v) {
    if (reduced.count(v))
      return true;
    if (askedPartial.contains(v)) // kept partial by a sharding_constraint
      return llvm::any_of(v.getUses(), [&](OpOperand &use) { return !linearUse(use); });
    if (!v.hasOneUse())
      return true;
    return !linearUse(*v.getUses().begin());
  }

  /// Whether the user of `use` is linear in it (see PartialFlow).
  bool linearUse(OpOperand &use) {
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(use.getOwner());
    if (!ruleOp)
      return false;
    ShardingRule rule = ruleOp.getShardingRule();
    return rule.partialFlow != PartialFlow::None &&
           llvm::is_contained(rule.linearOperands, use.getOperandNumber());
  }

  /// The layout propagation gave `v` (the partitioner's map holds it for the
  /// values already partitioned; this reads the annotations for any).
  Layout propagatedLayout(Value v) {
    auto rank = cast<RankedTensorType>(v.getType()).getRank();
    ShardingAttr s;
    if (auto arg = dyn_cast<BlockArgument>(v))
      s = fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), ShardcDialect::kShardingAttrName);
    else if (auto list =
                 v.getDefiningOp()->getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName))
      s = dyn_cast<ShardingAttr>(list[cast<OpResult>(v).getResultNumber()]);
    return s && s.getRank() == rank ? layoutOf(s, mesh) : replicatedLayout(rank);
  }

  /// Whether `v` is expected to be partial over some of `axes`: a sum or a
  /// contraction over a dimension split over them, or an op linear in such
  /// a value (up to a few ops back).
  bool predictPartial(Value v, ArrayRef<StringRef> axes, int depth = 0) {
    if (auto it = map.find(v); it != map.end())
      return !it->second.partial.empty();
    Operation *def = v.getDefiningOp();
    if (!def || depth > 8)
      return false;
    auto splitOver = [&](Value operand, int64_t d) {
      return llvm::any_of(propagatedLayout(operand)[d],
                          [&](StringRef a) { return overlapsAny(mesh, axes, a); });
    };
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(def);
    if (!ruleOp)
      return false;
    ShardingRule rule = ruleOp.getShardingRule();
    // A sum over a Reduction factor whose dimension is split over `axes`
    // (a contraction, a reduce).
    if (rule.partial == Reduction::Sum && !rule.accumulator)
      for (size_t f = 0; f < rule.factors.size(); ++f) {
        if (rule.factors[f].kind != FactorKind::Reduction)
          continue;
        if (std::optional<FactorPosition> at = ShardingRule::find(rule.operandDims[0], f);
            at && splitOver(def->getOperand(0), at->dim))
          return true;
      }
    if (rule.partialFlow == PartialFlow::None)
      return false;
    return llvm::any_of(rule.linearOperands, [&](unsigned i) {
      return predictPartial(def->getOperand(i), axes, depth + 1);
    });
  }

  /// Whether the chain of single linear uses from `v` reaches a sum with
  /// another term expected to be partial over `axes`.
  bool meetsAnotherPartial(Value v, ArrayRef<StringRef> axes) {
    for (int steps = 0; steps < 16 && v.hasOneUse(); ++steps) {
      OpOperand &use = *v.getUses().begin();
      Operation *user = use.getOwner();
      if (!linearUse(use) || user->getNumResults() != 1)
        return false;
      ShardingRule rule = cast<ShardingRuleOpInterface>(user).getShardingRule();
      if (rule.partialFlow == PartialFlow::Additive)
        for (unsigned i : rule.linearOperands)
          if (i != use.getOperandNumber() && user->getOperand(i) != v &&
              predictPartial(user->getOperand(i), axes))
            return true;
      v = user->getResult(0);
    }
    return false;
  }

  /// A whole local value as a partial one over `axes`: the first device of
  /// each group keeps it, the others hold zeros (a select, so that even inf
  /// and NaN sum back to themselves).
  Value firstOfEachGroup(Location at, Value local, ArrayRef<StringRef> axes) {
    std::string key = layoutStr(Layout{Axes(axes.begin(), axes.end())});
    Location loc = causeLoc(at, "a whole value joining a sum partial over " + key);
    Type i1 = b.getI1Type();
    Value &scalar = firstDeviceMask[key]; // made once per function
    if (!scalar) {
      int64_t n = getGroupSize(mesh, axes);
      SmallVector<bool> first(n, false);
      first[0] = true;
      Value all = ConstantOp::create(
          b, loc, DenseElementsAttr::get(RankedTensorType::get({n}, i1), ArrayRef<bool>(first)));
      Value mine = AllSliceOp::create(b, loc, RankedTensorType::get({1}, i1), all, meshRef,
                                      b.getStrArrayAttr(axes), b.getI64IntegerAttr(0));
      scalar = ReshapeOp::create(b, loc, RankedTensorType::get({}, i1), mine);
    }
    auto type = cast<RankedTensorType>(local.getType());
    Value mask = BroadcastInDimOp::create(b, loc, type.clone(i1), scalar, ArrayRef<int64_t>{});
    Value zero = ConstantOp::create(b, loc, cast<ElementsAttr>(b.getZeroAttr(type)));
    return SelectOp::create(b, loc, type, mask, local, zero);
  }

  /// `a` and `b` together, in mesh order.
  Axes unite(ArrayRef<StringRef> a, ArrayRef<StringRef> b) {
    Axes all(a.begin(), a.end());
    for (StringRef x : b)
      if (!llvm::is_contained(all, x))
        all.push_back(x);
    llvm::sort(all, [&](StringRef x, StringRef y) { return meshOrder(mesh, x, y); });
    return mergeSubAxes(mesh, all);
  }

  /// Which operands of `op` stay partial (see PartialFlow), given the layouts
  /// they are needed in and the axes the op's factors use; returns the axes
  /// they are partial over, and their cause in `cause`.
  Axes keptPartials(Operation *op, const ShardingRule &rule, ArrayRef<Layout> wants,
                    ArrayRef<SmallVector<StringRef, 2>> factorAxes, SmallVectorImpl<bool> &keep,
                    SmallVectorImpl<bool> &toPartial, std::string &cause) {
    keep.assign(op->getNumOperands(), false);
    toPartial.assign(op->getNumOperands(), false);
    if (rule.partialFlow == PartialFlow::None)
      return {};
    Layout used;
    for (const auto &axes : factorAxes)
      used.push_back(axes);
    auto candidate = [&](unsigned i) {
      const Local &have = local(op->getOperand(i));
      // A result larger than the operand (a broadcast) would make the
      // reduction larger.
      for (Value r : op->getResults())
        if (globalType(r).getNumElements() > globalType(op->getOperand(i)).getNumElements())
          return false;
      return !have.partial.empty() && !usesAny(mesh, used, have.partial) &&
             !needsWhole(op->getOperand(i)) &&
             canStayPartial(have, wants[i], globalType(op->getOperand(i)));
    };
    if (rule.partialFlow == PartialFlow::Multiplicative) {
      // The largest partial operand stays partial; the others are reduced.
      std::optional<unsigned> best;
      for (unsigned i : rule.linearOperands)
        if (candidate(i) && (!best || globalType(op->getOperand(i)).getNumElements() >
                                          globalType(op->getOperand(*best)).getNumElements()))
          best = i;
      if (!best)
        return {};
      keep[*best] = true;
      cause = local(op->getOperand(*best)).cause;
      return local(op->getOperand(*best)).partial;
    }
    // Additive: every linear operand partial over the same axes (a zero
    // constant is partial over any), else all are reduced.
    std::optional<Axes> axes;
    SmallVector<unsigned> whole;
    for (unsigned i : rule.linearOperands) {
      Value v = op->getOperand(i);
      if (local(v).partial.empty()) {
        if (!isZeroSplat(v))
          whole.push_back(i);
        continue;
      }
      if (!candidate(i) || (axes && *axes != local(v).partial))
        return {};
      if (!axes) {
        axes = local(v).partial;
        cause = local(v).cause;
      }
    }
    if (!axes)
      return {};
    // Whole operands join the sum as partial values (kept by the first
    // device of each group, zero on the others) where the sum meets another
    // partial term further on: a chain of sums (a norm's squares) then
    // costs one reduction, not one per partial term. Elsewhere reducing the
    // partial operands now costs the same.
    if (!whole.empty()) {
      if (op->getNumResults() != 1 || !meetsAnotherPartial(op->getResult(0), *axes))
        return {};
      for (unsigned i : whole) {
        if (usesAny(mesh, wants[i], *axes))
          return {};
        toPartial[i] = true;
      }
    }
    for (unsigned i : rule.linearOperands)
      keep[i] = true;
    return *axes;
  }

  FailureOr<SmallVector<Layout>> resultLayouts(Operation *op) {
    auto list = op->getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName);
    if (!list)
      return op->emitError("has no '") << ShardcDialect::kShardingsAttrName
                                       << "'; run --shardc-propagate before --shardc-partition";
    SmallVector<Layout> layouts;
    for (Attribute a : list)
      layouts.push_back(layoutOf(cast<ShardingAttr>(a), mesh));
    return layouts;
  }

  LogicalResult partition(Operation *op) {
    if (auto c = dyn_cast<ShardingConstraintOp>(op)) {
      // Propagation may have filled the constraint's open dimensions.
      FailureOr<SmallVector<Layout>> filled = resultLayouts(op);
      Layout want = succeeded(filled) ? (*filled)[0] : layoutOf(c.getSharding(), mesh);
      const Local &have = local(c.getOperand());
      if (!c.getSharding().getPartial().empty())
        return keepPartialAsAsked(c, want);
      bool keep = !have.partial.empty() && !needsWhole(c.getOperand()) &&
                  canStayPartial(have, want, globalType(c.getResult()));
      Local result{operandIn(op, 0, want, keep), want};
      if (keep) {
        result.partial = have.partial;
        result.cause = have.cause;
      }
      map[c.getResult()] = result;
      return success();
    }
    if (auto m = dyn_cast<ShardMapOp>(op))
      return inlineShardMap(m);
    if (isCollectiveOp(op))
      return op->emitError("a collective in a global function must be inside a "
                           "shard_map");
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
    if (!ruleOp)
      return op->emitError("cannot be partitioned: it has no sharding rule");
    return partitionWithRule(op, ruleOp.getShardingRule());
  }

  /// A sharding_constraint with `partial = {...}`: its operand must be
  /// partial over exactly those axes here, and stays so.
  /// Why a value that could have been partial is whole, for a diagnostic:
  /// " (...)", or empty.
  std::string whyWhole(Value v) {
    if (!v.hasOneUse())
      return " (a partial value with several uses is reduced where it is made)";
    auto it = reducedToMove.find(v);
    if (it != reducedToMove.end())
      return " (reduced where it is made: it cannot move from " + it->second +
             " while partial over them)";
    return "";
  }

  LogicalResult keepPartialAsAsked(ShardingConstraintOp c, const Layout &want) {
    Axes asked = unite(c.getSharding().getPartialAxes(), {});
    Local have = local(c.getOperand());
    auto axesStr = [](ArrayRef<StringRef> axes) {
      return layoutStr(Layout{SmallVector<StringRef, 2>(axes.begin(), axes.end())});
    };
    if (have.partial != asked)
      return c.emitError("asks for a value partial over ")
             << axesStr(asked) << ", but here it is "
             << (have.partial.empty() ? "whole" + whyWhole(c.getOperand())
                                      : "partial over " + axesStr(have.partial));
    if (usesAny(mesh, want, asked))
      return c.emitError("keeps a value partial over ")
             << axesStr(asked) << ", so no dimension may be split over those axes; "
             << "it is to be " << layoutStr(want);
    // Reduced on the way, the value would be whole but counted as partial:
    // the reduction after would add it up once per device of the group.
    if (!canStayPartial(have, want, globalType(c.getResult())))
      return c.emitError("keeps a value partial over ")
             << axesStr(asked) << ", but it cannot move from " << layoutStr(have.layout) << " to "
             << layoutStr(want)
             << " while partial: that would gather it, or run collectives over those axes";
    Local result = have;
    result.value = operandIn(c, 0, want, /*keepPartial=*/true);
    result.layout = want;
    map[c.getResult()] = result;
    askedPartial.insert(c.getResult());
    return success();
  }

  LogicalResult inlineShardMap(ShardMapOp m) {
    Block &body = m.getBody().front();
    IRMapping inner;
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      Layout want = layoutOf(cast<ShardingAttr>(m.getInShardings()[i]), mesh);
      inner.map(arg, operandIn(m, i, want));
    }
    for (Operation &op : body.without_terminator()) {
      Operation *copy = b.clone(op, inner);
      if (isCollectiveOp(copy))
        copy->setLoc(
            causeLoc(op.getLoc(), "written in the shard_map at " + formatLocation(m.getLoc())));
    }
    for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands()))
      map[m.getResult(i)] = {inner.lookup(v),
                             layoutOf(cast<ShardingAttr>(m.getOutShardings()[i]), mesh)};
    return success();
  }

  LogicalResult partitionWithRule(Operation *op, ShardingRule rule) {
    FailureOr<SmallVector<Layout>> wanted = resultLayouts(op);
    if (failed(wanted))
      return failure();
    SmallVector<Layout> have;
    for (Value v : op->getOperands())
      have.push_back(local(v).layout);
    bool mayStayPartial = llvm::all_of(op->getResults(), [&](Value r) { return !needsWhole(r); });
    FactorAxes factorAxes =
        chooseOpStrategy({op, rule, mesh, have, *wanted, mayStayPartial, planner});

    // Operands in the layout the factors give them, partial ones kept
    // partial where the op is linear in them.
    SmallVector<Layout> wants;
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      wants.push_back(layoutFor(mesh, rule.operandDims[i], factorAxes));
    SmallVector<bool> keep, toPartial;
    std::string pendingCause;
    Axes pending = keptPartials(op, rule, wants, factorAxes, keep, toPartial, pendingCause);
    SmallVector<Value> operands;
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      operands.push_back(operandIn(op, i, wants[i], keep[i]));
      if (toPartial[i])
        operands.back() = firstOfEachGroup(op->getLoc(), operands.back(), pending);
    }
    // A reduction over a padded dimension must not see the padding: every
    // operand indexed by the factor gets the reduction's identity there.
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind != FactorKind::Reduction || factorAxes[f].empty() ||
          rule.factors[f].size % getGroupSize(mesh, factorAxes[f]) == 0)
        continue;
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        if (std::optional<FactorPosition> at = ShardingRule::find(rule.operandDims[i], f))
          operands[i] = paddingMasks.mask(op->getLoc(), operands[i], at->dim, rule.factors[f].size,
                                          factorAxes[f], rule.partial);
    }

    Axes partialAxes = reductionAxes(mesh, rule, factorAxes);

    // An accumulating op (scatter_add) adds its accumulator once, after the
    // partial sums are combined; into zeros it adds nothing, and the sum
    // can stay pending.
    Value addAfter;
    if (rule.accumulator && !partialAxes.empty() &&
        !isZeroSplat(op->getOperand(*rule.accumulator))) {
      addAfter = operands[*rule.accumulator];
      auto type = cast<RankedTensorType>(addAfter.getType());
      operands[*rule.accumulator] =
          ConstantOp::create(b, op->getLoc(), cast<ElementsAttr>(b.getZeroAttr(type)));
    }

    // The local op.
    SmallVector<Layout> computed;
    SmallVector<Type> types;
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      computed.push_back(layoutFor(mesh, rule.resultDims[i], factorAxes));
      types.push_back(localType(globalType(result), computed.back(), mesh));
    }
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(types);
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != ShardcDialect::kShardingsAttrName)
        state.addAttribute(attr.getName(), attr.getValue());
    cast<ShardingRuleOpInterface>(op).localizeAttributes(state.attributes,
                                                         ValueRange(operands).getTypes(), types);
    Operation *local = b.create(state);

    ReduceKind kind = toReduceKind(rule.partial);
    std::string cause = partialAxes.empty() ? pendingCause : partialCause(op, rule, factorAxes);
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      Value value = local->getResult(i);
      Layout layout = computed[i];
      RankedTensorType global = globalType(result);
      const Layout &want = (*wanted)[i];
      Axes partial = pending;
      if (!partialAxes.empty()) {
        if (kind != ReduceKind::Sum || addAfter) {
          // Max and min combine at once; so does a sum the operand of a
          // scatter_add is added to.
          value = reduce(op->getLoc(), value, global, layout, want, partialAxes, kind, cause);
          if (addAfter) {
            // The operand was laid out like the local result before the
            // combine, which may have scattered it further.
            addAfter =
                reshard(b, op->getLoc(), "reshard the operand of " + opName(op), mesh, addAfter,
                        globalType(op->getOperand(*rule.accumulator)), computed[i], layout);
            value = AddOp::create(b, op->getLoc(), addAfter, value);
          }
        } else {
          partial = unite(pending, partialAxes);
        }
      }
      Local have{value, layout, partial, cause};
      // Reduced here when no single linear user can take it partial: as
      // early as possible, where the all_reduce can overlap what follows.
      bool whole = !partial.empty() && needsWhole(result);
      if (!partial.empty() && (whole || !canStayPartial(have, want, global))) {
        if (!whole)
          reducedToMove[result] = layoutStr(have.layout) + " to " + layoutStr(want);
        have.value =
            reduce(op->getLoc(), value, global, have.layout, want, partial, ReduceKind::Sum, cause);
        have.partial.clear();
      }
      have.value = reshard(b, op->getLoc(), "reshard the result of " + opName(op), mesh, have.value,
                           global, have.layout, want);
      have.layout = want;
      map[result] = have;
    }
    return success();
  }

  /// Why `op`'s results are partial: "partial results of shardc.dot_general
  /// at ..., whose contracting dimensions are sharded (dim 1 of operand #0
  /// over [{"model"}])".
  std::string partialCause(Operation *op, const ShardingRule &rule,
                           ArrayRef<SmallVector<StringRef, 2>> factorAxes) {
    std::string dims;
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind != FactorKind::Reduction || factorAxes[f].empty())
        continue;
      for (auto [i, operandDims] : llvm::enumerate(rule.operandDims)) {
        std::optional<FactorPosition> at = ShardingRule::find(operandDims, f);
        if (!at)
          continue;
        dims += (dims.empty() ? "" : ", ") + std::string("dim ") + std::to_string(at->dim) +
                " of operand #" + std::to_string(i) + " over " + layoutStr(Layout{factorAxes[f]});
        break;
      }
    }
    return "partial results of " + opName(op) + ", whose " + rule.reductionName +
           " dimensions are sharded (" + dims + ")";
  }

  /// Completes a value partial over `axes`: a reduce_scatter when `want`
  /// splits one dimension of `layout` further by exactly those axes,
  /// otherwise an all_reduce. Updates `layout` to the returned value's.
  Value reduce(Location at, Value value, RankedTensorType global, Layout &layout,
               const Layout &want, ArrayRef<StringRef> axes, ReduceKind kind,
               const std::string &cause) {
    Location loc = causeLoc(at, cause);
    auto axesAttr = b.getStrArrayAttr(axes);
    auto kindAttr = ReduceKindAttr::get(b.getContext(), kind);
    if (std::optional<size_t> d = scatterDim(mesh, global, layout, want, axes)) {
      layout[*d].append(axes.begin(), axes.end());
      return ReduceScatterOp::create(b, loc, localType(global, layout, mesh), kindAttr, value,
                                     meshRef, axesAttr, b.getI64IntegerAttr(*d));
    }
    return AllReduceOp::create(b, loc, kindAttr, value, meshRef, axesAttr);
  }
};
} // namespace

LogicalResult partitionFunction(func::FuncOp fn, const PartitionOptions &options) {
  if (fn.isExternal() || fn->hasAttr(ShardcDialect::kPartitionedAttrName))
    return success();
  if (!llvm::hasSingleElement(fn.getBody()))
    return fn.emitError("partitioning handles single-block functions only");
  FailureOr<MeshOp> mesh = findFunctionMesh(fn);
  if (failed(mesh))
    return failure();
  if (!*mesh)
    return success(); // nothing is sharded: the program is the same everywhere
  for (Type t : fn.getArgumentTypes())
    if (!isa<RankedTensorType>(t))
      return fn.emitError("partitioning needs tensor arguments, got ") << t;
  return Partitioner(fn, *mesh, options).run();
}

namespace {
/// `x` as %g prints it ("5", "1e+09").
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

struct ShardcPartitionPass : impl::ShardcPartitionBase<ShardcPartitionPass> {
  using ShardcPartitionBase::ShardcPartitionBase;
  void runOnOperation() override {
    PartitionOptions options;
    options.padUneven = padUneven;
    if (linkLatencyNs < 0 || linkBytesPerS < 0 || (linkLatencyNs > 0) != (linkBytesPerS > 0)) {
      // Not the module's emitError: that would print the whole module.
      mlir::emitError(getOperation().getLoc(),
                      "--shardc-partition: link-latency-ns and link-bytes-per-s go together, "
                      "both positive (got ")
          << shortNumber(linkLatencyNs) << " and " << shortNumber(linkBytesPerS) << ")";
      return signalPassFailure();
    }
    options.link = {linkLatencyNs * 1e-9, linkBytesPerS};
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if ((entry.empty() || fn.getSymName() == entry) && failed(partitionFunction(fn, options)))
        return signalPassFailure();
  }
};
} // namespace

} // namespace shardc
