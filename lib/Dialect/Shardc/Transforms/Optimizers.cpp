//===- Optimizers.cpp - training steps built from the dialect's ops -------===//

#include "shardc/Dialect/Shardc/Transforms/Optimizers.h"

#include "OpEmitter.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Autodiff.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <cstdio>

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCTRAINSTEP
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

/// For each parameter in `wrt`: the sharding its state and update get when
/// config.shardStateOver splits them further along dimension 0, or null.
static FailureOr<SmallVector<ShardingAttr>> stateShardings(func::FuncOp fn, ArrayRef<unsigned> wrt,
                                                           const OptimizerConfig &config) {
  SmallVector<ShardingAttr> out(wrt.size());
  if (config.shardStateOver.empty())
    return out;
  FailureOr<MeshOp> mesh = findFunctionMesh(fn);
  if (failed(mesh))
    return failure();
  StringRef axis = config.shardStateOver;
  if (!*mesh || (*mesh).getAxisIndex(axis) < 0)
    return fn.emitError() << "shard-state-over: the function's mesh has no axis '" << axis << "'";
  MLIRContext *ctx = fn.getContext();
  int64_t axisSize = (*mesh).getAxisSize(axis);
  for (auto [k, i] : llvm::enumerate(wrt)) {
    auto type = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
    auto own = fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
    ShardingAttr base =
        own ? own
            : ShardingAttr::getReplicated(ctx, FlatSymbolRefAttr::get((*mesh).getSymNameAttr()),
                                          type.getRank());
    if (type.getRank() == 0 || !base.isClosed())
      continue;
    bool used = false;
    int64_t dim0 = 1;
    for (int64_t d = 0; d < base.getRank(); ++d)
      for (StringRef a : base.getDimAxes(d)) {
        used |= a == axis;
        if (d == 0)
          dim0 *= (*mesh).getAxisSize(a);
      }
    if (used || type.getDimSize(0) % (dim0 * axisSize) != 0)
      continue;
    SmallVector<DimShardingAttr> dims(base.getDims());
    SmallVector<StringAttr> axes(dims[0].getAxes());
    axes.push_back(StringAttr::get(ctx, axis));
    dims[0] = DimShardingAttr::get(ctx, axes, false);
    out[k] = ShardingAttr::get(ctx, base.getMesh(), dims);
  }
  return out;
}

/// Scales `grads` in place like torch.nn.utils.clip_grad_norm_: with
/// total = sqrt(sum_k sum(g_k^2)), in f32, every g_k becomes
/// g_k * min(1, maxNorm / (total + 1e-6)). A gradient split over mesh axes
/// gives partial sums of squares, which the partitioner all-reduces as one
/// scalar each; the gradients themselves stay as they are laid out.
static void clipByGlobalNorm(Emitter &m, MutableArrayRef<Value> grads, double maxNorm) {
  auto f32 = Float32Type::get(m.b.getContext());
  Value total; // tensor<f32>
  for (Value g : grads) {
    Value g32 = m.typeOf(g).getElementType() == f32 ? g : m.convert(g, f32);
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, m.typeOf(g).getRank()));
    Value squares = m.reduceSum(m.mul(g32, g32), dims);
    total = total ? m.add(total, squares) : squares;
  }
  if (!total)
    return;
  Value norm = SqrtOp::create(m.b, m.loc, total);
  Value ratio = m.div(m.scalarLike(norm, maxNorm), m.add(norm, m.scalarLike(norm, 1e-6)));
  Value scale = MinOp::create(m.b, m.loc, m.scalarLike(norm, 1.0), ratio);
  for (Value &g : grads)
    g = m.mul(g, m.spread(scale, g));
}

std::string OptimizerConfig::key() const {
  char numbers[256];
  std::snprintf(numbers, sizeof(numbers),
                " momentum=%.17g beta1=%.17g beta2=%.17g epsilon=%.17g weight-decay=%.17g"
                " clip-norm=%.17g",
                momentum, beta1, beta2, epsilon, weightDecay, clipNorm);
  return "kind=" + kind + numbers + " shard-state-over=" + shardStateOver;
}

/// The parameters a train step updates: `wrtIn` sorted, each once, or every
/// float argument where it is empty, as far as `grad` has gradients.
static SmallVector<unsigned> updatedParameters(func::FuncOp fn, ArrayRef<unsigned> sorted,
                                               func::FuncOp grad) {
  SmallVector<unsigned> wrt;
  for (unsigned i = 0, k = 0; i < fn.getNumArguments() && k + 1 < grad.getNumResults(); ++i)
    if (sorted.empty()
            ? isa<FloatType>(cast<RankedTensorType>(fn.getArgumentTypes()[i]).getElementType())
            : llvm::is_contained(sorted, i)) {
      wrt.push_back(i);
      ++k;
    }
  return wrt;
}

/// Declares @<fn>_train_step after `grad`: fn's arguments, the optimizer
/// state (per parameter its velocity, or its m and v and then the step
/// count) and the learning rate; the loss, the new parameters and the new
/// state. Arguments keep their names and shardings; state follows its
/// parameter, or takes `split` where the state is split further. Null
/// (after an error) where stateShardings fails.
static func::FuncOp declareTrainStep(func::FuncOp fn, func::FuncOp grad, const std::string &name,
                                     ArrayRef<unsigned> wrt, ArrayRef<ShardingAttr> split,
                                     bool adam) {
  MLIRContext *ctx = fn.getContext();
  auto scalarF32 = RankedTensorType::get({}, Float32Type::get(ctx));
  SmallVector<Type> args(fn.getArgumentTypes());
  SmallVector<Type> stateTypes;
  for (unsigned i : wrt) {
    stateTypes.push_back(fn.getArgumentTypes()[i]);
    if (adam)
      stateTypes.push_back(fn.getArgumentTypes()[i]);
  }
  if (adam)
    stateTypes.push_back(scalarF32); // step count
  args.append(stateTypes.begin(), stateTypes.end());
  args.push_back(scalarF32); // learning rate
  SmallVector<Type> results{fn.getResultTypes()[0]};
  for (unsigned i : wrt)
    results.push_back(fn.getArgumentTypes()[i]);
  results.append(stateTypes.begin(), stateTypes.end());

  OpBuilder b(ctx);
  b.setInsertionPointAfter(grad);
  auto step = func::FuncOp::create(b, fn.getLoc(), name, FunctionType::get(ctx, args, results));
  auto copyAttrs = [&](unsigned from, unsigned toArg) {
    if (DictionaryAttr d = fn.getArgAttrDict(from))
      for (NamedAttribute a : d.getValue())
        if (a.getName() != ShardcDialect::kArgNameAttrName || toArg == from)
          step.setArgAttr(toArg, a.getName(), a.getValue());
  };
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    copyAttrs(i, i);
  unsigned next = fn.getNumArguments();
  SmallVector<unsigned> stateOf; // parameter index for each state argument
  auto nameArg = [&](unsigned arg, const std::string &n) {
    step.setArgAttr(arg, ShardcDialect::kArgNameAttrName, b.getStringAttr(n));
  };
  for (unsigned i : wrt) {
    auto param = fn.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName);
    std::string base = param ? param.getValue().str() : "arg" + std::to_string(i);
    for (const char *suffix :
         adam ? std::vector<const char *>{".m", ".v"} : std::vector<const char *>{".velocity"}) {
      copyAttrs(i, next);
      nameArg(next++, base + suffix);
      stateOf.push_back(i);
    }
  }
  if (adam)
    nameArg(next++, "step");
  nameArg(next, "lr");
  Attribute sharding = nullptr;
  for (unsigned r = 0; r < wrt.size(); ++r)
    if ((sharding = fn.getArgAttr(wrt[r], ShardcDialect::kShardingAttrName)))
      step.setResultAttr(1 + r, ShardcDialect::kShardingAttrName, sharding);
  // Where state and updates are split further, state arguments and results
  // carry that sharding instead.
  for (unsigned s = 0; s < stateOf.size(); ++s) {
    unsigned k = llvm::find(wrt, stateOf[s]) - wrt.begin();
    Attribute own = split[k] ? Attribute(split[k])
                             : fn.getArgAttr(stateOf[s], ShardcDialect::kShardingAttrName);
    if (own) {
      step.setArgAttr(fn.getNumArguments() + s, ShardcDialect::kShardingAttrName, own);
      step.setResultAttr(1 + wrt.size() + s, ShardcDialect::kShardingAttrName, own);
    }
  }
  return step;
}

namespace {
/// What the update of one parameter reads: the optimizer, the learning
/// rate and, for Adam, the new step's bias corrections.
struct UpdateRule {
  const OptimizerConfig &config;
  Value lr, bc1, bc2;
  bool adam() const { return config.kind != "sgd"; }
};
} // namespace

/// The new value of parameter p with gradient g, and its new state (after
/// `state`, its old state: the velocity, or m and v), appended.
static Value updateParameter(Emitter &m, const UpdateRule &rule, Value p, Value g,
                             ArrayRef<Value> state, SmallVectorImpl<Value> &newState) {
  const OptimizerConfig &config = rule.config;
  Value lrP = m.spread(rule.lr, p);
  if (!rule.adam()) {
    Value v2 = m.add(m.scale(state[0], config.momentum), g);
    newState.push_back(v2);
    return m.sub(p, m.mul(lrP, v2));
  }
  Value m2 = m.add(m.scale(state[0], config.beta1), m.scale(g, 1.0 - config.beta1));
  Value v2 = m.add(m.scale(state[1], config.beta2), m.scale(m.mul(g, g), 1.0 - config.beta2));
  Value mHat = m.div(m2, m.spread(rule.bc1, p));
  Value vHat = m.div(v2, m.spread(rule.bc2, p));
  Value update =
      m.div(mHat, m.add(SqrtOp::create(m.b, m.loc, vHat), m.scalarLike(p, config.epsilon)));
  Value p2 = m.sub(p, m.mul(lrP, update));
  if (config.kind == "adamw" && config.weightDecay != 0.0)
    p2 = m.sub(p2, m.mul(lrP, m.scale(p, config.weightDecay)));
  newState.push_back(m2);
  newState.push_back(v2);
  return p2;
}

FailureOr<func::FuncOp> buildTrainStep(func::FuncOp fn, ArrayRef<unsigned> wrtIn,
                                       const OptimizerConfig &config) {
  if (config.kind != "sgd" && config.kind != "adam" && config.kind != "adamw")
    return fn.emitError() << "unknown optimizer '" << config.kind
                          << "' (expected sgd, adam or adamw)";
  if (!(config.clipNorm >= 0.0) || std::isinf(config.clipNorm))
    return fn.emitError() << "clip-norm must be a finite number >= 0 (0: no clipping), got "
                          << config.clipNorm;
  std::string name = (fn.getSymName() + "_train_step").str();
  auto module = fn->getParentOfType<ModuleOp>();
  if (module && module.lookupSymbol(name))
    return fn.emitError() << "@" << name << " already exists";
  // Parameters, and so their gradients and state, in argument order, each
  // once, whatever order `wrtIn` lists them in.
  SmallVector<unsigned> sorted(wrtIn.begin(), wrtIn.end());
  llvm::sort(sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  // The gradients, as a helper function inlined below and then erased.
  FailureOr<func::FuncOp> grad =
      differentiate(fn, sorted, (fn.getSymName() + "_train_step_grads").str());
  if (failed(grad))
    return failure();
  SmallVector<unsigned> wrt = updatedParameters(fn, sorted, *grad);
  bool adam = config.kind != "sgd";
  FailureOr<SmallVector<ShardingAttr>> split = stateShardings(fn, wrt, config);
  if (failed(split)) {
    grad->erase();
    return failure();
  }
  func::FuncOp step = declareTrainStep(fn, *grad, name, wrt, *split, adam);

  // The body: the gradients' computation, then each parameter's update.
  OpBuilder b(fn.getContext());
  Block *body = step.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping map;
  Block &gradBody = grad->getBody().front();
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    map.map(gradBody.getArgument(i), body->getArgument(i));
  for (Operation &op : gradBody.without_terminator())
    b.clone(op, map);
  Operation *gradRet = gradBody.getTerminator();
  Value loss = map.lookup(gradRet->getOperand(0));
  Emitter m{b, fn.getLoc()};
  UpdateRule rule{config, body->getArgument(body->getNumArguments() - 1), {}, {}};
  unsigned stateArg = fn.getNumArguments();
  Value t;
  if (adam) {
    // t' = t + 1; bias corrections 1 - beta^t' (computed in f32 with pow).
    Value tOld = body->getArgument(stateArg + 2 * wrt.size());
    t = m.add(tOld, m.scalarLike(tOld, 1.0));
    auto pw = [&](double base) {
      return m.sub(m.scalarLike(t, 1.0), PowOp::create(b, m.loc, m.scalarLike(t, base), t));
    };
    rule.bc1 = pw(config.beta1);
    rule.bc2 = pw(config.beta2);
  }
  // A split update reads its block of the parameter and the gradient.
  auto constrain = [&](size_t k, Value v) -> Value {
    return (*split)[k] ? ShardingConstraintOp::create(b, m.loc, v, (*split)[k]).getResult() : v;
  };
  // A gradient takes its parameter's layout (or the state's split) before
  // clipping, so that a parameter split over the batch's axis (FSDP) gets
  // its gradient reduce-scattered and the global norm summed over the
  // blocks, instead of the whole gradient all-reduced for the norm.
  SmallVector<Value> grads;
  for (auto [k, i] : llvm::enumerate(wrt)) {
    Value g = map.lookup(gradRet->getOperand(1 + k));
    ShardingAttr layout =
        (*split)[k] ? (*split)[k]
                    : fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
    grads.push_back(layout ? ShardingConstraintOp::create(b, m.loc, g, layout).getResult() : g);
  }
  if (config.clipNorm > 0.0)
    clipByGlobalNorm(m, grads, config.clipNorm);
  SmallVector<Value> newParams, newState;
  unsigned perParameter = adam ? 2 : 1;
  for (auto [k, i] : llvm::enumerate(wrt)) {
    SmallVector<Value> state;
    for (unsigned j = 0; j < perParameter; ++j)
      state.push_back(body->getArgument(stateArg + perParameter * k + j));
    Value p = constrain(k, body->getArgument(i));
    newParams.push_back(constrain(k, updateParameter(m, rule, p, grads[k], state, newState)));
  }
  if (adam)
    newState.push_back(t);
  SmallVector<Value> returned{loss};
  returned.append(newParams.begin(), newParams.end());
  returned.append(newState.begin(), newState.end());
  func::ReturnOp::create(b, fn.getLoc(), returned);
  grad->erase();
  return step;
}

namespace {
struct ShardcTrainStepPass : impl::ShardcTrainStepBase<ShardcTrainStepPass> {
  using ShardcTrainStepBase::ShardcTrainStepBase;
  void runOnOperation() override {
    auto fn = getOperation().lookupSymbol<func::FuncOp>(function);
    if (function.empty() || !fn) {
      emitError(getOperation().getLoc())
          << "--shardc-train-step: no function @" << function << functionList(getOperation());
      return signalPassFailure();
    }
    OptimizerConfig config;
    config.kind = optimizer;
    config.momentum = momentum;
    config.beta1 = beta1;
    config.beta2 = beta2;
    config.epsilon = epsilon;
    config.weightDecay = weightDecay;
    config.clipNorm = clipNorm;
    config.shardStateOver = shardStateOver;
    SmallVector<unsigned> args(wrt.begin(), wrt.end());
    if (failed(buildTrainStep(fn, args, config)))
      return signalPassFailure();
  }
};
} // namespace

} // namespace shardc
