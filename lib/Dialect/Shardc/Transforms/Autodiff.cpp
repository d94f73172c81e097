//===- Autodiff.cpp - --shardc-autodiff -----------------------------------===//
//
// Reverse-mode differentiation: the new function first computes the forward
// program (a clone), then walks its ops backwards, asking each op's gradient
// rule (GradientRules.cpp) for its operands' adjoints and summing the
// adjoints of values used more than once. A shard_map's adjoint is a
// shard_map over the reverse sweep of its body. Ops of a checkpointed group
// (shardc.checkpoint) are recomputed in the backward pass, as its policy
// says, instead of being held from the forward one.
//
//===----------------------------------------------------------------------===//

#include "GradientRules.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Autodiff.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <set>
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCAUTODIFF
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

static bool isFloatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

static Value splatLike(OpBuilder &b, Location loc, Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(tensor, b.getFloatAttr(tensor.getElementType(), value)));
}

/// Whether `v` is a constant splat of zero.
static bool isZeroSplat(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || !dense.isSplat())
    return false;
  if (auto f = dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>()))
    return f.getValue().isZero();
  return false;
}

/// The parts of `v` along `dim` if it is a concatenation there (with their
/// offsets), else `v` itself as one part.
static SmallVector<std::pair<int64_t, Value>> partsAlong(Value v, int64_t dim) {
  SmallVector<std::pair<int64_t, Value>> parts;
  auto concat = v.getDefiningOp<ConcatenateOp>();
  if (concat && concat.getDimAttr().getInt() == dim) {
    int64_t at = 0;
    for (Value p : concat->getOperands()) {
      parts.push_back({at, p});
      at += cast<RankedTensorType>(p.getType()).getDimSize(dim);
    }
  } else {
    parts.push_back({0, v});
  }
  return parts;
}

/// acc + g, where the gradients of slices (their operand padded with zeros
/// by concatenation) meet: the sum of disjoint padded pieces is the
/// concatenation of the pieces, with no zeros filled and nothing added. So
/// q, k and v sliced from one projection give it one concatenated
/// gradient. Other sums are an add.
static Value accumulate(OpBuilder &b, Location loc, Value acc, Value g) {
  if (isZeroSplat(acc))
    return g;
  if (isZeroSplat(g))
    return acc;
  auto ca = acc.getDefiningOp<ConcatenateOp>(), cg = g.getDefiningOp<ConcatenateOp>();
  auto type = cast<RankedTensorType>(acc.getType());
  if (!ca && !cg)
    return AddOp::create(b, loc, acc, g);
  int64_t dim = (ca ? ca : cg).getDimAttr().getInt();
  auto pa = partsAlong(acc, dim), pg = partsAlong(g, dim);
  // Every piece boundary of either side; zero pieces may be split at
  // any of them, others must not be.
  std::set<int64_t> cuts{type.getDimSize(dim)};
  for (auto *ps : {&pa, &pg})
    for (auto &[at, v] : *ps)
      cuts.insert(at);
  auto pieceAt = [&](const SmallVector<std::pair<int64_t, Value>> &ps, int64_t begin,
                     int64_t end) -> std::optional<Value> {
    for (auto &[at, v] : ps) {
      int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(dim);
      if (at <= begin && end <= at + size) {
        if (at == begin && end == at + size)
          return v;
        if (isZeroSplat(v))
          return Value();    // a zero piece, split
        return std::nullopt; // a computed piece would have to be sliced
      }
    }
    return std::nullopt;
  };
  SmallVector<Value> merged;
  bool anyComputed = false;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
    int64_t begin = *it, end = *std::next(it);
    std::optional<Value> x = pieceAt(pa, begin, end), y = pieceAt(pg, begin, end);
    if (!x || !y)
      return AddOp::create(b, loc, acc, g);
    Value xv = *x && !isZeroSplat(*x) ? *x : Value(), yv = *y && !isZeroSplat(*y) ? *y : Value();
    Value piece = xv && yv ? AddOp::create(b, loc, xv, yv).getResult() : xv ? xv : yv;
    if (!piece) {
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] = end - begin;
      piece = splatLike(b, loc, RankedTensorType::get(shape, type.getElementType()), 0.0);
    } else {
      anyComputed = true;
    }
    merged.push_back(piece);
  }
  Value sum = !anyComputed ? splatLike(b, loc, type, 0.0)
              : merged.size() == 1
                  ? merged[0]
                  : ConcatenateOp::create(b, loc, merged, b.getI64IntegerAttr(dim)).getResult();
  // The padded pieces are now unused: erase them and their zeros.
  for (ConcatenateOp c : {ca, cg})
    if (c && c->use_empty()) {
      SmallVector<Value> operands(c->getOperands());
      c->erase();
      for (Value v : operands)
        if (v.use_empty() && isZeroSplat(v))
          v.getDefiningOp()->erase();
    }
  return sum;
}

namespace {
/// Recomputes checkpointed forward values (shardc.checkpoint) in the
/// backward pass, the way jax.checkpoint does: when the reverse sweep first
/// reaches an op of a group, every op of that group its policy does not
/// save is cloned there, reading the group's inputs and saved values; the
/// gradient rules of the group then read the clones. The forward values
/// die in the forward pass, and only the group's inputs and saved values
/// are held until the backward one. Clones nobody reads are dropped with
/// the other unused ops.
class Recomputation {
public:
  explicit Recomputation(ArrayRef<Operation *> forward) : forward(forward) {}

  /// The op whose operands and results `op`'s gradient rule reads: `op`
  /// outside a group; its recomputed clone where the policy does not save
  /// it; else, where it reads recomputed values, a stand-in reading them
  /// (`release` replaces the stand-in's results by `op`'s saved ones).
  Operation *forRule(OpBuilder &b, Operation *op) {
    auto attr = op->getAttrOfType<DictionaryAttr>(ShardcDialect::kCheckpointAttrName);
    if (!attr)
      return op;
    IRMapping &map = recomputed(b, groupOf(attr));
    if (!saved(op, attr))
      return map.lookup(op->getResult(0)).getDefiningOp();
    if (llvm::none_of(op->getOperands(), [&](Value v) { return map.contains(v); }))
      return op;
    Operation *standIn = b.clone(*op); // not through `map`: its results stay op's
    for (OpOperand &operand : standIn->getOpOperands())
      operand.set(map.lookupOrDefault(operand.get()));
    return standIn;
  }

  /// Ends the rule of `op` that read `rule` (forRule's result).
  static void release(Operation *op, Operation *rule) {
    if (rule == op || rule->hasAttr(ShardcDialect::kRecomputedAttrName))
      return;
    rule->replaceAllUsesWith(op);
    rule->erase();
  }

private:
  /// The group's recomputation, emitted at `b` the first time.
  IRMapping &recomputed(OpBuilder &b, int64_t group) {
    auto [it, first] = groups.try_emplace(group);
    IRMapping &map = it->second;
    if (first)
      for (Operation *f : forward) {
        auto a = f->getAttrOfType<DictionaryAttr>(ShardcDialect::kCheckpointAttrName);
        if (!a || groupOf(a) != group || saved(f, a))
          continue;
        Operation *copy = b.clone(*f, map);
        copy->removeAttr(ShardcDialect::kCheckpointAttrName);
        copy->removeAttr(ShardcDialect::kCheckpointNameAttrName);
        copy->setAttr(ShardcDialect::kRecomputedAttrName, b.getUnitAttr());
      }
    return map;
  }

  static int64_t groupOf(DictionaryAttr attr) {
    return cast<IntegerAttr>(attr.get("group")).getInt();
  }
  /// Whether the policy keeps `op`'s results from the forward pass.
  /// Constants and shard_maps (whose adjoint recomputes their body
  /// anyway) are always kept.
  static bool saved(Operation *op, DictionaryAttr attr) {
    if (isa<ConstantOp, ShardMapOp>(op) || op->getNumResults() == 0)
      return true;
    StringRef policy = cast<StringAttr>(attr.get("policy")).getValue();
    if (policy == "dots")
      return isa<DotGeneralOp>(op);
    if (policy == "nothing")
      return false;
    Attribute name = op->getAttr(ShardcDialect::kCheckpointNameAttrName);
    bool named = name && llvm::is_contained(cast<ArrayAttr>(attr.get("names")), name);
    return policy == "names" ? named : !named; // or "all_but_names"
  }

  ArrayRef<Operation *> forward;
  llvm::DenseMap<int64_t, IRMapping> groups;
};
} // namespace

static LogicalResult reverseSweep(OpBuilder &b, ArrayRef<Operation *> forward, ArrayRef<Value> wrt,
                                  llvm::DenseMap<Value, Value> &adjoint,
                                  Recomputation *recompute = nullptr);

/// The backward shard_map `grad` recomputes `op`'s body (the ops
/// `forward`, cloned through `map`). Instead, the forward values its reverse
/// sweep reads (the residuals) become extra results of the forward
/// shard_map and extra inputs of the backward one, and the recomputation
/// goes. A residual is a per-device value: globally it is the devices'
/// values stacked along dimension 0, split over every mesh axis.
static void passResiduals(OpBuilder &b, ShardMapOp op, ShardMapOp grad,
                          ArrayRef<Operation *> forward, const IRMapping &map) {
  llvm::DenseSet<Operation *> cloned(forward.begin(), forward.end());
  SmallVector<Value> residuals; // in the backward body
  for (Operation *f : forward) {
    if (isa<ConstantOp, IotaOp>(f)) // cheaper to recompute than to pass
      continue;
    for (Value r : f->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !cloned.contains(u); }))
        residuals.push_back(r);
  }
  Block &oldBody = op.getBody().front();
  Block &body = grad.getBody().front();
  if (!residuals.empty()) {
    llvm::DenseMap<Value, Value> original; // backward clone -> forward body
    for (Operation &inner : oldBody.without_terminator())
      for (Value r : inner.getResults())
        original[map.lookup(r)] = r;
    MLIRContext *ctx = b.getContext();
    MeshOp mesh = lookupMesh(op, op.getMeshRef());
    SmallVector<StringAttr> allAxes;
    for (Attribute name : mesh.getAxisNames())
      allAxes.push_back(cast<StringAttr>(name));
    auto stackedType = [&](Value local) {
      auto type = cast<RankedTensorType>(local.getType());
      SmallVector<int64_t> shape(type.getShape());
      if (shape.empty())
        shape.push_back(1);
      SmallVector<int64_t> global = shape;
      global[0] *= mesh.getNumDevices();
      return std::make_pair(RankedTensorType::get(shape, type.getElementType()),
                            RankedTensorType::get(global, type.getElementType()));
    };
    auto stackedSharding = [&](int64_t rank) {
      SmallVector<DimShardingAttr> dims{DimShardingAttr::get(ctx, allAxes, false)};
      for (int64_t d = 1; d < rank; ++d)
        dims.push_back(DimShardingAttr::get(ctx, {}, false));
      return ShardingAttr::get(ctx, op.getMeshRef(), dims);
    };

    // The forward shard_map, returning the residuals too, replaces `op`.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    SmallVector<Type> types(op.getResultTypes());
    SmallVector<Attribute> outAttrs(op.getOutShardings().begin(), op.getOutShardings().end());
    for (Value r : residuals) {
      auto global = stackedType(r).second;
      types.push_back(global);
      outAttrs.push_back(stackedSharding(global.getRank()));
    }
    auto fwd = ShardMapOp::create(b, op.getLoc(), types, op.getInputs(), op.getInShardingsAttr(),
                                  b.getArrayAttr(outAttrs));
    SmallVector<Location> locs(oldBody.getNumArguments(), op.getLoc());
    Block *fwdBody = b.createBlock(&fwd.getBody(), {}, oldBody.getArgumentTypes(), locs);
    IRMapping fm;
    for (auto [from, to] : llvm::zip(oldBody.getArguments(), fwdBody->getArguments()))
      fm.map(from, to);
    for (Operation &inner : oldBody.without_terminator())
      b.clone(inner, fm);
    SmallVector<Value> returned;
    for (Value v : oldBody.getTerminator()->getOperands())
      returned.push_back(fm.lookupOrDefault(v));
    for (Value r : residuals) {
      Value v = fm.lookup(original.lookup(r));
      auto local = stackedType(r).first;
      if (v.getType() != local)
        v = ReshapeOp::create(b, op.getLoc(), local, v);
      returned.push_back(v);
    }
    shardc::ReturnOp::create(b, op.getLoc(), returned);
    for (unsigned i = 0; i < op.getNumResults(); ++i)
      op.getResult(i).replaceAllUsesWith(fwd.getResult(i));

    // The backward shard_map reads them as inputs.
    SmallVector<Attribute> inAttrs(grad.getInShardings().begin(), grad.getInShardings().end());
    b.setInsertionPointToStart(&body);
    for (auto [k, r] : llvm::enumerate(residuals)) {
      Value stacked = fwd.getResult(op.getNumResults() + k);
      grad->insertOperands(grad->getNumOperands(), stacked);
      inAttrs.push_back(outAttrs[op.getNumResults() + k]);
      Value arg = body.addArgument(stackedType(r).first, op.getLoc());
      if (arg.getType() != r.getType())
        arg = ReshapeOp::create(b, op.getLoc(), r.getType(), arg);
      r.replaceAllUsesWith(arg);
    }
    grad.setInShardingsAttr(b.getArrayAttr(inAttrs));
  }
  // Drop the recomputation nobody reads any more, and the adjoints of
  // inputs that need none.
  llvm::DenseSet<Operation *> recomputed(forward.begin(), forward.end());
  SmallVector<Operation *> ops;
  for (Operation &inner : body.without_terminator())
    ops.push_back(&inner);
  for (Operation *inner : llvm::reverse(ops))
    if (inner->use_empty() && (isPure(inner) || recomputed.contains(inner)))
      inner->erase();
}

/// The adjoint of a shard_map is a shard_map: its body recomputes the
/// forward body, then runs the reverse sweep on it. Each device's copy of a
/// value is its own variable: the adjoint of a result replicated over some
/// axes is split evenly among the copies, and the adjoint of an input
/// replicated over some axes is the sum over the copies (an all_reduce).
static FailureOr<SmallVector<Value>> shardMapGrads(OpBuilder &b, ShardMapOp op,
                                                   ArrayRef<Value> resultGrads,
                                                   const llvm::DenseSet<Value> &active) {
  Location loc = op.getLoc();
  MeshOp mesh = lookupMesh(op, op.getMeshRef());
  if (!mesh)
    return op.emitError("autodiff: the mesh of this shard_map is missing");
  auto shardings = [](ArrayAttr list) {
    SmallVector<ShardingAttr> out;
    for (Attribute a : list)
      out.push_back(cast<ShardingAttr>(a));
    return out;
  };
  SmallVector<ShardingAttr> inShardings = shardings(op.getInShardings()),
                            outShardings = shardings(op.getOutShardings());
  // Mesh axes a sharding leaves a value replicated over.
  auto replicatedAxes = [&](ShardingAttr s) {
    llvm::StringSet<> used;
    for (int64_t d = 0; d < s.getRank(); ++d)
      for (StringRef axis : s.getDimAxes(d))
        used.insert(axis);
    SmallVector<Attribute> axes;
    int64_t copies = 1;
    for (Attribute name : mesh.getAxisNames())
      if (!used.contains(cast<StringAttr>(name).getValue())) {
        axes.push_back(name);
        copies *= mesh.getAxisSize(cast<StringAttr>(name).getValue());
      }
    return std::make_pair(axes, copies);
  };

  Block &oldBody = op.getBody().front();
  SmallVector<unsigned> diffInputs, gradResults;
  for (auto [i, input] : llvm::enumerate(op.getInputs()))
    if (active.contains(input) && isFloatTensor(input.getType()))
      diffInputs.push_back(i);
  SmallVector<Value> operands(op.getInputs());
  SmallVector<Attribute> inAttrs(op.getInShardings().begin(), op.getInShardings().end());
  SmallVector<Type> argTypes(oldBody.getArgumentTypes());
  for (auto [r, g] : llvm::enumerate(resultGrads))
    if (g) {
      gradResults.push_back(r);
      operands.push_back(g);
      inAttrs.push_back(outShardings[r]);
      argTypes.push_back(oldBody.getTerminator()->getOperand(r).getType());
    }
  SmallVector<Attribute> outAttrs;
  SmallVector<Type> resultTypes;
  for (unsigned i : diffInputs) {
    outAttrs.push_back(inShardings[i]);
    resultTypes.push_back(op.getInputs()[i].getType());
  }
  auto grad = ShardMapOp::create(b, loc, resultTypes, operands, b.getArrayAttr(inAttrs),
                                 b.getArrayAttr(outAttrs));
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(argTypes.size(), loc);
  Block *body = b.createBlock(&grad.getBody(), {}, argTypes, locs);

  IRMapping map;
  for (auto [from, to] : llvm::zip(oldBody.getArguments(), body->getArguments()))
    map.map(from, to);
  SmallVector<Operation *> forward;
  for (Operation &inner : oldBody.without_terminator())
    forward.push_back(b.clone(inner, map));
  llvm::DenseMap<Value, Value> adjoint;
  for (auto [k, r] : llvm::enumerate(gradResults)) {
    Value ct = body->getArgument(oldBody.getNumArguments() + k);
    int64_t copies = replicatedAxes(outShardings[r]).second;
    if (copies > 1)
      ct = MulOp::create(b, loc, ct, splatLike(b, loc, ct.getType(), 1.0 / copies));
    Value &acc = adjoint[map.lookupOrDefault(oldBody.getTerminator()->getOperand(r))];
    acc = acc ? AddOp::create(b, loc, acc, ct).getResult() : ct;
  }
  SmallVector<Value> wrt;
  for (unsigned i : diffInputs)
    wrt.push_back(body->getArgument(i));
  if (failed(reverseSweep(b, forward, wrt, adjoint)))
    return failure();
  SmallVector<Value> returned;
  for (unsigned i : diffInputs) {
    Value arg = body->getArgument(i);
    Value g = adjoint.lookup(arg);
    if (!g)
      g = splatLike(b, loc, arg.getType(), 0.0);
    auto [axes, copies] = replicatedAxes(inShardings[i]);
    if (copies > 1)
      g = AllReduceOp::create(b, loc, g.getType(),
                              ReduceKindAttr::get(b.getContext(), ReduceKind::Sum), g,
                              op.getMeshRef(), b.getArrayAttr(axes));
    returned.push_back(g);
  }
  shardc::ReturnOp::create(b, loc, returned);
  passResiduals(b, op, grad, forward, map);

  SmallVector<Value> grads(op.getNumOperands(), Value());
  for (auto [k, i] : llvm::enumerate(diffInputs))
    grads[i] = grad.getResult(k);
  return grads;
}

/// Walks `forward` (ops in program order, already emitted) backwards from
/// the adjoints in `adjoint`, adding each operand's adjoint; only values
/// that depend on `wrt` get adjoints (ops reading none of them are skipped:
/// their rules may not even exist). With `recompute`, the rules of
/// checkpointed ops read recomputed values.
static LogicalResult reverseSweep(OpBuilder &b, ArrayRef<Operation *> forward, ArrayRef<Value> wrt,
                                  llvm::DenseMap<Value, Value> &adjoint, Recomputation *recompute) {
  llvm::DenseSet<Value> active(wrt.begin(), wrt.end());
  for (Operation *op : forward)
    if (!isa<StopGradientOp>(op) && // its result is a constant to autodiff
        llvm::any_of(op->getOperands(), [&](Value v) { return active.contains(v); }))
      for (Value r : op->getResults())
        active.insert(r);
  for (Operation *op : llvm::reverse(forward)) {
    if (llvm::none_of(op->getOperands(), [&](Value v) { return active.contains(v); }))
      continue;
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      resultGrads.push_back(adjoint.lookup(r));
      any |= (bool)resultGrads.back();
    }
    if (!any)
      continue;
    FailureOr<SmallVector<Value>> grads;
    if (isa<ShardMapOp>(op)) {
      grads = shardMapGrads(b, cast<ShardMapOp>(op), resultGrads, active);
    } else {
      Operation *rule = recompute ? recompute->forRule(b, op) : op;
      grads = buildGradients(b, rule, resultGrads);
      Recomputation::release(op, rule);
    }
    if (failed(grads))
      return failure();
    for (auto [operand, g] : llvm::zip(op->getOperands(), *grads)) {
      if (!g)
        continue;
      Value &acc = adjoint[operand];
      acc = acc ? accumulate(b, op->getLoc(), acc, g) : g;
    }
  }
  return success();
}

FailureOr<func::FuncOp> differentiate(func::FuncOp fn, ArrayRef<unsigned> wrtIn, StringRef nameIn) {
  if (fn.isExternal() || !llvm::hasSingleElement(fn.getBody()))
    return fn.emitError("autodiff needs a single-block function with a body");
  if (fn.getNumResults() != 1 || !isFloatTensor(fn.getResultTypes()[0]) ||
      cast<RankedTensorType>(fn.getResultTypes()[0]).getRank() != 0)
    return fn.emitError("autodiff differentiates a function returning one rank-0 float "
                        "tensor (a loss), got ")
           << fn.getFunctionType();
  SmallVector<unsigned> wrt(wrtIn.begin(), wrtIn.end());
  if (wrt.empty())
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (isFloatTensor(fn.getArgumentTypes()[i]))
        wrt.push_back(i);
  for (unsigned i : wrt) {
    if (i >= fn.getNumArguments())
      return fn.emitError() << "autodiff: argument #" << i << " does not exist";
    if (!isFloatTensor(fn.getArgumentTypes()[i]))
      return fn.emitError() << "autodiff: argument #" << i << " of type "
                            << fn.getArgumentTypes()[i] << " is not differentiable";
  }
  std::string name = nameIn.empty() ? (fn.getSymName() + "_grad").str() : nameIn.str();
  auto module = fn->getParentOfType<ModuleOp>();
  if (module && module.lookupSymbol(name))
    return fn.emitError() << "autodiff: @" << name << " already exists";

  // The new function: same arguments; the loss, then one gradient per wrt.
  SmallVector<Type> results{fn.getResultTypes()[0]};
  for (unsigned i : wrt)
    results.push_back(fn.getArgumentTypes()[i]);
  OpBuilder b(fn->getContext());
  b.setInsertionPointAfter(fn);
  auto grad = func::FuncOp::create(
      b, fn.getLoc(), name, FunctionType::get(fn.getContext(), fn.getArgumentTypes(), results));
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    for (NamedAttribute attr :
         fn.getArgAttrDict(i) ? fn.getArgAttrDict(i).getValue() : ArrayRef<NamedAttribute>())
      grad.setArgAttr(i, attr.getName(), attr.getValue());
  for (NamedAttribute attr :
       fn.getResultAttrDict(0) ? fn.getResultAttrDict(0).getValue() : ArrayRef<NamedAttribute>())
    grad.setResultAttr(0, attr.getName(), attr.getValue());
  for (auto [k, i] : llvm::enumerate(wrt))
    if (Attribute s = fn.getArgAttr(i, ShardcDialect::kShardingAttrName))
      grad.setResultAttr(k + 1, ShardcDialect::kShardingAttrName, s);

  Block *body = grad.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping map;
  Block &old = fn.getBody().front();
  for (auto [from, to] : llvm::zip(old.getArguments(), body->getArguments()))
    map.map(from, to);
  SmallVector<Operation *> forward;
  for (Operation &op : old.without_terminator()) {
    Operation *copy = b.clone(op, map);
    copy->removeAttr(ShardcDialect::kShardingsAttrName);
    forward.push_back(copy);
  }
  Value loss = map.lookup(old.getTerminator()->getOperand(0));

  // The reverse sweep.
  llvm::DenseMap<Value, Value> adjoint;
  auto lossType = cast<RankedTensorType>(loss.getType());
  adjoint[loss] = ConstantOp::create(
      b, fn.getLoc(),
      DenseElementsAttr::get(lossType, b.getFloatAttr(lossType.getElementType(), 1.0)));
  // The return holds the loss: the sweep may replace the op defining it.
  auto ret = func::ReturnOp::create(b, fn.getLoc(), ValueRange{loss});
  b.setInsertionPoint(ret);
  SmallVector<Value> wrtArgs;
  for (unsigned i : wrt)
    wrtArgs.push_back(body->getArgument(i));
  Recomputation recompute(forward);
  if (failed(reverseSweep(b, forward, wrtArgs, adjoint, &recompute))) {
    grad.erase();
    return failure();
  }

  SmallVector<Value> returned{ret.getOperand(0)};
  for (unsigned i : wrt) {
    Value g = adjoint.lookup(body->getArgument(i));
    if (!g) { // the loss does not depend on it
      auto type = cast<RankedTensorType>(body->getArgument(i).getType());
      g = ConstantOp::create(
          b, fn.getLoc(), DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0.0)));
    }
    returned.push_back(g);
  }
  ret->setOperands(returned);

  // Rules also build adjoints nobody asked for (of inputs that are not in
  // wrt), and a shard_map whose forward results moved to a new one (see
  // passResiduals) is unused: drop every such op, last first.
  SmallVector<Operation *> ops;
  for (Operation &op : body->without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && (isPure(op) || isa<ShardMapOp>(op)))
      op->erase();
  return grad;
}

namespace {
struct ShardcAutodiffPass : impl::ShardcAutodiffBase<ShardcAutodiffPass> {
  using ShardcAutodiffBase::ShardcAutodiffBase;
  void runOnOperation() override {
    if (function.empty()) {
      emitError(getOperation().getLoc(), "--shardc-autodiff needs function=NAME");
      return signalPassFailure();
    }
    auto fn = getOperation().lookupSymbol<func::FuncOp>(function);
    if (!fn) {
      emitError(getOperation().getLoc())
          << "--shardc-autodiff: no function @" << function << functionList(getOperation());
      return signalPassFailure();
    }
    SmallVector<unsigned> args(wrt.begin(), wrt.end());
    if (failed(differentiate(fn, args)))
      return signalPassFailure();
  }
};
} // namespace

} // namespace shardc
