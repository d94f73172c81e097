//===- Propagate.cpp - --shardc-propagate ---------------------------------===//
//
// Sharding propagation to a fixed point over the ops' sharding rules. The
// state is one DimState per dimension of every value; a step looks at one op
// and, for each of its factors, moves the winning sharding into the open
// dimensions indexed by that factor (see the pass description for the order
// of preference).
//
//===----------------------------------------------------------------------===//

#include "OpStrategy.h"
#include "Reshard.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <limits>
#include <set>
#include <tuple>

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCPROPAGATE
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

FailureOr<MeshOp> findFunctionMesh(func::FuncOp fn) {
  FlatSymbolRefAttr found;
  Operation *foundAt = nullptr;
  auto noteMesh = [&](FlatSymbolRefAttr mesh, Operation *at) -> LogicalResult {
    if (found && found != mesh)
      return at->emitError() << "uses mesh " << mesh << " but " << found
                             << " is used too; a function is sharded over one mesh";
    found = mesh;
    foundAt = at;
    return success();
  };
  auto note = [&](ShardingAttr s, Operation *at) -> LogicalResult {
    return s ? noteMesh(s.getMesh(), at) : success();
  };
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (failed(note(fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName), fn)))
      return failure();
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (failed(note(fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName), fn)))
      return failure();
  WalkResult walk = fn.walk([&](Operation *op) {
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      return failed(note(c.getSharding(), op)) ? WalkResult::interrupt() : WalkResult::advance();
    if (auto m = dyn_cast<ShardMapOp>(op)) {
      for (ArrayAttr list : {m.getInShardings(), m.getOutShardings()})
        for (Attribute a : list)
          if (failed(note(cast<ShardingAttr>(a), op)))
            return WalkResult::interrupt();
      return WalkResult::skip();
    }
    // A collective outside a shard_map names its mesh too (partitioning then
    // reports it).
    if (isCollectiveOp(op))
      return failed(noteMesh(op->getAttrOfType<FlatSymbolRefAttr>("mesh"), op))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    if (auto list = op->getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName))
      for (Attribute a : list)
        if (failed(note(dyn_cast<ShardingAttr>(a), op)))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!found)
    return MeshOp();
  MeshOp mesh = lookupMesh(fn, found);
  if (!mesh)
    return foundAt->emitError() << "unknown mesh " << found;
  return mesh;
}

namespace {

/// Lower is stronger. User annotations are 0 and beat whatever propagation
/// brings (1), wherever it came from; a dimension nothing reached has no
/// priority at all.
constexpr int kAnnotated = 0;
constexpr int kPropagated = 1;
constexpr int kUnset = 1 << 30;
constexpr int kMaxSweeps = 64;

struct DimState {
  SmallVector<StringRef> axes;
  bool open = true;
  /// Annotated with a priority whose round has not come: nothing changes
  /// it and it is no source until then.
  bool held = false;
  int priority = kUnset;
  /// Bytes of the annotated tensor the axes came from: between two claims
  /// of one axis at equal priority, the larger tensor's wins (resharding it
  /// would move more).
  int64_t sourceBytes = 0;
  /// The explicit priority (p0, p1, ...) of that annotation; those without
  /// one come after all.
  int64_t sourceRound = std::numeric_limits<int64_t>::max();
  DimOrigin origin;
};

/// Whether the claim of `a` on an axis beats that of `b`: its annotation's
/// explicit priority, whether it is the annotation itself, then the size of
/// the tensor it came from.
bool stronger(const DimState &a, const DimState &b) {
  return std::make_tuple(a.sourceRound, a.priority, -a.sourceBytes) <
         std::make_tuple(b.sourceRound, b.priority, -b.sourceBytes);
}

class Propagator {
public:
  Propagator(func::FuncOp fn, MeshOp mesh) : fn(fn), mesh(mesh) {}

  LogicalResult run(ShardingProvenance *provenance) {
    // Annotations with explicit priorities propagate first, lowest number
    // first, each round to a fixed point; then those without one.
    std::set<int64_t> priorities;
    collecting = &priorities;
    seed();
    collecting = nullptr;
    priorities.insert(-1);
    for (int64_t p : priorities) {
      if (p < 0)
        continue;
      round = p;
      seed();
      if (failed(sweep()))
        return failure();
    }
    round = -1;
    seed();
    if (failed(sweep()))
      return failure();
    write();
    if (provenance)
      for (auto &[value, dims] : state) {
        std::vector<DimOrigin> &out = (*provenance)[value];
        for (DimState &d : dims)
          out.push_back(d.origin);
      }
    return success();
  }

private:
  func::FuncOp fn;
  MeshOp mesh;
  llvm::DenseMap<Value, SmallVector<DimState>> state;
  /// The priority whose annotations seed() applies (-1: those without one).
  int64_t round = -1;
  /// When set, seed() only collects the priorities annotations use.
  std::set<int64_t> *collecting = nullptr;

  /// Forward then backward sweeps until nothing changes. Each change only
  /// ever lengthens an open dimension's axes, so this terminates.
  /// Element-wise ops (and sharding constraints) first, to a fixed point,
  /// then all ops (Shardy's op priorities): a sharding travels along a chain
  /// of element-wise ops before a broadcast or a contraction can claim its
  /// axes for another dimension.
  LogicalResult sweep() {
    SmallVector<Operation *> all, elementwise;
    for (Operation &op : fn.getBody().front()) {
      all.push_back(&op);
      if (op.hasTrait<OpTrait::Elementwise>() || isa<ShardingConstraintOp>(op))
        elementwise.push_back(&op);
    }
    bool changed = false;
    for (ArrayRef<Operation *> ops :
         {ArrayRef<Operation *>(elementwise), ArrayRef<Operation *>(all)}) {
      changed = true;
      for (int sweep = 0; changed && sweep < kMaxSweeps; ++sweep) {
        changed = false;
        for (Operation *op : ops)
          changed |= step(op);
        for (Operation *op : llvm::reverse(ops))
          changed |= step(op);
      }
      if (changed)
        break;
    }
    // Every change lengthens an open dimension's axes, so the sweeps settle
    // long before the cap; reaching it means a rule keeps undoing another.
    if (changed)
      return fn.emitError() << "sharding propagation did not settle after " << kMaxSweeps
                            << " sweeps (a sharding rule that changes a value back and forth)";
    return success();
  }

  static int64_t rankOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : -1;
  }

  SmallVector<DimState> &dimsOf(Value v) {
    auto it = state.find(v);
    if (it == state.end())
      it = state.try_emplace(v, SmallVector<DimState>(rankOf(v))).first;
    return it->second;
  }

  /// Applies an annotation to `v`: closed dims are fixed; `{"a", ?}` seeds an
  /// open dimension with "a".
  void annotate(Value v, ShardingAttr s, const std::string &source) {
    if (!s || s.getRank() != rankOf(v))
      return;
    if (collecting) {
      for (DimShardingAttr dim : s.getDims())
        collecting->insert(dim.getPriority());
      return;
    }
    SmallVector<DimState> &dims = dimsOf(v);
    for (int64_t d = 0; d < s.getRank(); ++d) {
      int64_t priority = s.getDims()[d].getPriority();
      DimState &st = dims[d];
      if (priority != round) {
        // A later round's annotation holds its dimension until then
        // (annotations without a priority come after all explicit ones).
        bool later = round >= 0 && (priority > round || priority < 0);
        if (later && st.open && st.axes.empty()) {
          st.held = true;
          st.open = false;
        }
        continue;
      }
      if (st.held) {
        st.held = false;
        st.open = true;
      }
      if (!st.open)
        continue; // the value's own annotation came first
      // An annotation on a use meets the value's own: never repeat an axis,
      // and only extend what the value has (a function result returning an
      // argument annotated {"a", ?} keeps "a"). An axis an earlier round
      // propagated into another dimension of the value gives way to it.
      for (int64_t e = 0; e < s.getRank(); ++e) {
        DimState &other = dims[e];
        if (e == d || other.priority == kAnnotated || other.held)
          continue;
        auto it = llvm::find_if(other.axes,
                                [&](StringRef a) { return overlapsAny(mesh, s.getDimAxes(d), a); });
        if (it != other.axes.end())
          other.axes.erase(it, other.axes.end());
      }
      if (usedElsewhere(v, d, s.getDimAxes(d)))
        continue;
      SmallVector<StringRef, 2> axes = mergeSubAxes(mesh, s.getDimAxes(d));
      if (st.priority == kAnnotated && (axes.size() < st.axes.size() ||
                                        !std::equal(st.axes.begin(), st.axes.end(), axes.begin())))
        continue;
      st.axes.assign(axes.begin(), axes.end());
      st.open = s.getDims()[d].getIsOpen();
      st.priority = kAnnotated;
      st.sourceBytes = bytesOf(v);
      st.sourceRound = priority >= 0 ? priority : std::numeric_limits<int64_t>::max();
      st.origin = DimOrigin{source, {}};
    }
  }

  std::string where(Operation *op) { return formatLocation(op->getLoc()); }

  void seed() {
    Block &entry = fn.getBody().front();
    for (BlockArgument arg : entry.getArguments()) {
      std::string name = "argument #" + std::to_string(arg.getArgNumber());
      if (auto n =
              fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), ShardcDialect::kArgNameAttrName))
        name = "argument '" + n.getValue().str() + "'";
      annotate(
          arg,
          fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), ShardcDialect::kShardingAttrName),
          name);
    }
    for (Operation &op : entry) {
      if (auto c = dyn_cast<ShardingConstraintOp>(op)) {
        annotate(c.getResult(), c.getSharding(), "sharding_constraint at " + where(&op));
      } else if (auto m = dyn_cast<ShardMapOp>(op)) {
        for (auto [v, s] : llvm::zip(m.getResults(), m.getOutShardings()))
          annotate(v, cast<ShardingAttr>(s), "shard_map out_shardings at " + where(&op));
        // Inputs are resharded to in_shardings; seed open producers with them.
        for (auto [v, s] : llvm::zip(m.getInputs(), m.getInShardings()))
          annotate(v, cast<ShardingAttr>(s), "shard_map in_shardings at " + where(&op));
      } else if (auto list = op.getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName)) {
        for (auto [v, s] : llvm::zip(op.getResults(), list))
          annotate(v, dyn_cast<ShardingAttr>(s), "shardings of " + where(&op));
      }
    }
    Operation *ret = entry.getTerminator();
    for (auto [i, v] : llvm::enumerate(ret->getOperands()))
      annotate(v, fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName),
               "result #" + std::to_string(i));
  }

  int64_t bytesOf(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getNumElements() * std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  }

  /// Whether another dimension of `v` holds one of `axes`, and cannot give
  /// it up to `claim`: it is annotated or closed, or holds it by a claim at
  /// least as strong.
  bool usedElsewhere(Value v, int64_t dim, ArrayRef<StringRef> axes,
                     const DimState *claim = nullptr) {
    SmallVector<DimState> &dims = dimsOf(v);
    for (int64_t d = 0; d < (int64_t)dims.size(); ++d)
      if (d != dim)
        for (StringRef a : axes)
          if (overlapsAny(mesh, dims[d].axes, a) &&
              !(claim && dims[d].open && !dims[d].held && dims[d].priority != kAnnotated &&
                stronger(*claim, dims[d])))
            return true;
    return false;
  }

  /// The other dimensions of `v` drop `axes` (and the axes after them), which
  /// a stronger claim takes.
  void giveWay(Value v, int64_t dim, ArrayRef<StringRef> axes) {
    SmallVector<DimState> &dims = dimsOf(v);
    for (int64_t d = 0; d < (int64_t)dims.size(); ++d) {
      if (d == dim)
        continue;
      auto it =
          llvm::find_if(dims[d].axes, [&](StringRef a) { return overlapsAny(mesh, axes, a); });
      dims[d].axes.erase(it, dims[d].axes.end());
    }
  }

  /// One propagation step through `op`; true if anything changed.
  bool step(Operation *op) {
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
    if (!ruleOp)
      return false;
    ShardingRule rule = ruleOp.getShardingRule();
    // A slot is where a factor appears: a dimension of an operand or
    // result, and the factor's place among that dimension's factors.
    struct Slot {
      Value value;
      int64_t dim;
      const DimFactors *factors;
      size_t position;
    };
    std::vector<std::vector<Slot>> slots(rule.factors.size());
    auto addSlots = [&](Value v, const std::vector<DimFactors> &dims) {
      for (auto [d, factors] : llvm::enumerate(dims))
        for (auto [k, f] : llvm::enumerate(factors))
          slots[f].push_back({v, (int64_t)d, &factors, k});
    };
    for (auto [i, dims] : llvm::enumerate(rule.operandDims))
      addSlots(op->getOperand(i), dims);
    for (auto [i, dims] : llvm::enumerate(rule.resultDims))
      addSlots(op->getResult(i), dims);
    // The axes a slot's dimension gives each of its factors: all of them
    // where the dimension is the factor alone (even where they pad it).
    auto dimSize = [](const Slot &s) {
      return cast<RankedTensorType>(s.value.getType()).getDimSize(s.dim);
    };
    auto whole = [&](const Slot &s) { return isWholeFactor(rule, *s.factors, dimSize(s)); };
    auto splitAt = [&](const Slot &s) {
      return axesByFactor(mesh, rule, *s.factors, dimSize(s), dimsOf(s.value)[s.dim].axes);
    };
    auto axesAt = [&](const Slot &s) { return splitAt(s)[s.position]; };

    // The winning sharding along each factor.
    struct Winner {
      const Slot *slot = nullptr;
      Axes axes;
    };
    std::vector<Winner> winners(rule.factors.size());
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind == FactorKind::NeedReplication)
        continue;
      Winner &best = winners[f];
      for (const Slot &s : slots[f]) {
        DimState &st = dimsOf(s.value)[s.dim];
        Axes axes = axesAt(s);
        if (st.held || axes.empty())
          continue;
        if (!best.slot) {
          best = {&s, axes};
          continue;
        }
        DimState &b = dimsOf(best.slot->value)[best.slot->dim];
        // At equal priority, a sharding that extends the other agrees with
        // it and says more: it wins; then the larger tensor.
        bool extends = axes.size() > best.axes.size() &&
                       std::equal(best.axes.begin(), best.axes.end(), axes.begin());
        bool extended = best.axes.size() > axes.size() &&
                        std::equal(axes.begin(), axes.end(), best.axes.begin());
        if (st.priority < b.priority ||
            (st.priority == b.priority &&
             (extends || (!extended && bytesOf(s.value) > bytesOf(best.slot->value)))))
          best = {&s, axes};
      }
    }
    // Factors whose winners want the same axis take it in order of priority,
    // then of the winner's tensor size (Shardy's rule: the larger tensor's
    // sharding moves the more bytes if resharded).
    std::vector<size_t> order;
    for (size_t f = 0; f < rule.factors.size(); ++f)
      if (winners[f].slot)
        order.push_back(f);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      const DimState &a = dimsOf(winners[x].slot->value)[winners[x].slot->dim];
      const DimState &b = dimsOf(winners[y].slot->value)[winners[y].slot->dim];
      if (a.priority != b.priority)
        return a.priority < b.priority;
      return bytesOf(winners[x].slot->value) > bytesOf(winners[y].slot->value);
    });
    bool changed = false;
    for (size_t f : order) {
      const Slot *best = winners[f].slot;
      const Axes &want = winners[f].axes;
      DimState winner = dimsOf(best->value)[best->dim];
      for (const Slot &s : slots[f]) {
        DimState &st = dimsOf(s.value)[s.dim];
        if (!st.open)
          continue;
        // The dimension's axes by factor: those before this factor must
        // fill theirs (blocks stay contiguous), none may come after.
        SmallVector<Axes> split = splitAt(s);
        Axes before;
        bool filled = true;
        for (size_t k = 0; k < s.position; ++k) {
          filled &= getGroupSize(mesh, split[k]) == rule.factors[(*s.factors)[k]].size;
          before.append(split[k].begin(), split[k].end());
        }
        const Axes &have = split[s.position];
        if (!filled || have == want || st.axes.size() != before.size() + have.size())
          continue;
        // Only extend: an open dimension keeps the axes it has.
        if (have.size() > want.size() || !std::equal(have.begin(), have.end(), want.begin()))
          continue;
        // The longest prefix of the winner that divides the factor and the
        // dimension, and repeats no axis of the value's dimensions.
        // A winner that pads the factor (an annotation asked for padding)
        // carries into dimensions that are the factor alone, as it is.
        auto type = cast<RankedTensorType>(s.value.getType());
        bool padded = rule.factors[f].size % getGroupSize(mesh, want) != 0 && whole(s);
        Axes axes = want;
        // An axis another open dimension of the value holds by a weaker
        // claim (propagated from a smaller tensor, or a later priority)
        // gives way: that dimension drops it and what follows it.
        DimState claim = winner;
        claim.priority = std::max(winner.priority, kPropagated);
        auto usable = [&] {
          Axes all = before;
          all.append(axes.begin(), axes.end());
          return (padded || (rule.factors[f].size % getGroupSize(mesh, axes) == 0 &&
                             type.getDimSize(s.dim) % getGroupSize(mesh, all) == 0)) &&
                 !usedElsewhere(s.value, s.dim, axes, &claim) &&
                 llvm::none_of(axes, [&](StringRef a) { return overlapsAny(mesh, before, a); });
        };
        while (axes.size() > have.size() && !usable())
          axes.pop_back();
        if (axes.size() == have.size())
          continue;
        giveWay(s.value, s.dim, axes);
        // Axes the dimension had keep the strength of the claim that won
        // them: were a weaker claim extending them to weaken their hold, a
        // stronger claim elsewhere could take them back, the weaker one
        // extend again, and the sweeps would never settle. (A dimension
        // holds axes only while its claim is the strongest so far, so the
        // claims that move an axis grow stronger each time: they are few.)
        DimState held = st;
        held.priority = claim.priority;
        bool keepsHold = !st.axes.empty() && stronger(held, claim);
        Axes all = before;
        all.append(axes.begin(), axes.end());
        st.axes.assign(mergeSubAxes(mesh, all));
        st.priority = claim.priority;
        if (!keepsHold) {
          st.sourceBytes = winner.sourceBytes;
          st.sourceRound = winner.sourceRound;
        }
        st.origin = winner.origin;
        st.origin.path.push_back(op);
        changed = true;
      }
    }
    return changed;
  }

  ShardingAttr toAttr(Value v) {
    MLIRContext *ctx = fn.getContext();
    SmallVector<DimShardingAttr> dims;
    for (DimState &st : dimsOf(v)) {
      SmallVector<StringAttr> axes;
      for (StringRef a : st.axes)
        axes.push_back(StringAttr::get(ctx, a));
      dims.push_back(DimShardingAttr::get(ctx, axes, /*is_open=*/false));
    }
    return ShardingAttr::get(ctx, FlatSymbolRefAttr::get(mesh.getSymNameAttr()), dims);
  }

  void write() {
    Block &entry = fn.getBody().front();
    for (BlockArgument arg : entry.getArguments())
      if (rankOf(arg) >= 0)
        fn.setArgAttr(arg.getArgNumber(), ShardcDialect::kShardingAttrName, toAttr(arg));
    for (Operation &op : entry.without_terminator()) {
      if (op.getNumResults() == 0 ||
          llvm::any_of(op.getResults(), [](Value v) { return rankOf(v) < 0; }))
        continue;
      SmallVector<Attribute> list;
      for (Value v : op.getResults())
        list.push_back(toAttr(v));
      op.setAttr(ShardcDialect::kShardingsAttrName, ArrayAttr::get(fn.getContext(), list));
    }
    // Results: the value's sharding where the result had no annotation;
    // otherwise the annotation closed, each open dimension extended by what
    // propagation found when that extends it. Every dimension is closed
    // afterwards.
    MLIRContext *ctx = fn.getContext();
    for (auto [i, v] : llvm::enumerate(entry.getTerminator()->getOperands())) {
      if (rankOf(v) < 0)
        continue;
      auto user = fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
      if (!user || user.getRank() != rankOf(v)) {
        if (!user)
          fn.setResultAttr(i, ShardcDialect::kShardingAttrName, toAttr(v));
        continue;
      }
      SmallVector<DimShardingAttr> dims;
      SmallVector<StringRef> used; // never an axis twice in one sharding
      for (int64_t d = 0; d < user.getRank(); ++d)
        for (StringRef a : user.getDimAxes(d))
          used.push_back(a);
      for (int64_t d = 0; d < user.getRank(); ++d) {
        // getDimAxes returns its axes by value: hold them, not a view of
        // a temporary (which outlives its storage only while it is inline).
        SmallVector<StringRef> mine = user.getDimAxes(d);
        ArrayRef<StringRef> found = dimsOf(v)[d].axes;
        bool extends = user.getDims()[d].getIsOpen() && found.size() >= mine.size() &&
                       std::equal(mine.begin(), mine.end(), found.begin());
        for (size_t k = mine.size(); extends && k < found.size(); ++k)
          extends = !overlapsAny(mesh, used, found[k]);
        if (extends)
          for (size_t k = mine.size(); k < found.size(); ++k)
            used.push_back(found[k]);
        SmallVector<StringAttr> axes;
        for (StringRef a : extends ? found : mine)
          axes.push_back(StringAttr::get(ctx, a));
        dims.push_back(DimShardingAttr::get(ctx, axes, /*is_open=*/false));
      }
      fn.setResultAttr(i, ShardcDialect::kShardingAttrName,
                       ShardingAttr::get(ctx, user.getMesh(), dims));
    }
  }
};

} // namespace

LogicalResult propagateShardings(func::FuncOp fn, ShardingProvenance *provenance) {
  if (fn.isExternal())
    return success();
  if (!llvm::hasSingleElement(fn.getBody()))
    return fn.emitError("sharding propagation handles single-block functions only");
  FailureOr<MeshOp> mesh = findFunctionMesh(fn);
  if (failed(mesh))
    return failure();
  if (!*mesh)
    return success(); // nothing is sharded
  return Propagator(fn, *mesh).run(provenance);
}

namespace {
struct ShardcPropagatePass : impl::ShardcPropagateBase<ShardcPropagatePass> {
  using ShardcPropagateBase::ShardcPropagateBase;
  ShardcPropagatePass(const std::string &function, ShardingProvenance *provenance)
      : provenance(provenance) {
    entry = function;
  }
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if ((entry.empty() || fn.getSymName() == entry) &&
          !fn->hasAttr(ShardcDialect::kPartitionedAttrName) &&
          failed(propagateShardings(fn, provenance)))
        return signalPassFailure();
  }
  /// Where each value's sharding came from, when a caller asks
  /// (`shardc explain`).
  ShardingProvenance *provenance = nullptr;
};
} // namespace

std::unique_ptr<Pass> createPropagatePass(const std::string &entry,
                                          ShardingProvenance *provenance) {
  return std::make_unique<ShardcPropagatePass>(entry, provenance);
}

} // namespace shardc
