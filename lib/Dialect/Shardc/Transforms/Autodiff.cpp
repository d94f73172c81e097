//===- Autodiff.cpp - --shardc-autodiff -----------------------------------===//
//
// Reverse-mode differentiation: the new function first computes the forward
// program (a clone), then walks its ops backwards, asking each op's gradient
// rule (GradientRules.cpp) for its operands' adjoints and summing the
// adjoints of values used more than once.
//
//===----------------------------------------------------------------------===//

#include "GradientRules.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Autodiff.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCAUTODIFF
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

static bool isFloatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

FailureOr<func::FuncOp> differentiate(func::FuncOp fn, ArrayRef<unsigned> wrtIn,
                                      StringRef nameIn) {
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
    for (NamedAttribute attr : fn.getArgAttrDict(i) ? fn.getArgAttrDict(i).getValue()
                                                    : ArrayRef<NamedAttribute>())
      grad.setArgAttr(i, attr.getName(), attr.getValue());
  for (NamedAttribute attr : fn.getResultAttrDict(0) ? fn.getResultAttrDict(0).getValue()
                                                     : ArrayRef<NamedAttribute>())
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
  // Only values that depend on a wrt argument need adjoints: ops reading
  // none of them are skipped (their rules may not even exist).
  llvm::DenseSet<Value> active;
  for (unsigned i : wrt)
    active.insert(body->getArgument(i));
  for (Operation *op : forward)
    if (llvm::any_of(op->getOperands(), [&](Value v) { return active.contains(v); }))
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
    FailureOr<SmallVector<Value>> grads = buildGradients(b, op, resultGrads);
    if (failed(grads)) {
      grad.erase();
      return failure();
    }
    for (auto [operand, g] : llvm::zip(op->getOperands(), *grads)) {
      if (!g)
        continue;
      Value &acc = adjoint[operand];
      acc = acc ? AddOp::create(b, op->getLoc(), acc, g).getResult() : g;
    }
  }

  SmallVector<Value> returned{loss};
  for (unsigned i : wrt) {
    Value g = adjoint.lookup(body->getArgument(i));
    if (!g) { // the loss does not depend on it
      auto type = cast<RankedTensorType>(body->getArgument(i).getType());
      g = ConstantOp::create(
          b, fn.getLoc(),
          DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0.0)));
    }
    returned.push_back(g);
  }
  func::ReturnOp::create(b, fn.getLoc(), returned);

  // Rules also build adjoints nobody asked for (of inputs that are not in
  // wrt): drop every op whose results are unused, last first.
  SmallVector<Operation *> ops;
  for (Operation &op : body->without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op))
      op->erase();
  return grad;
}

namespace {
struct ShardcAutodiffPass : impl::ShardcAutodiffBase<ShardcAutodiffPass> {
  using ShardcAutodiffBase::ShardcAutodiffBase;
  void runOnOperation() override {
    if (function.empty()) {
      getOperation().emitError("--shardc-autodiff needs function=NAME");
      return signalPassFailure();
    }
    auto fn = getOperation().lookupSymbol<func::FuncOp>(function);
    if (!fn) {
      getOperation().emitError() << "--shardc-autodiff: no function @" << function;
      return signalPassFailure();
    }
    SmallVector<unsigned> args(wrt.begin(), wrt.end());
    if (failed(differentiate(fn, args)))
      return signalPassFailure();
  }
};
} // namespace

} // namespace shardc
