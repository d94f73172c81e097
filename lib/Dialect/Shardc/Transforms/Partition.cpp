//===- Partition.cpp - --shardc-partition ---------------------------------===//
//
// Rewrites a propagated global function into the per-device program. The
// walk keeps, for every global value, its local value and the layout that
// local value is in. Each op with a sharding rule is computed on the layout
// its factors allow (operands resharded to it), its partial results are
// combined, and its result is resharded to the layout propagation chose.
//
//===----------------------------------------------------------------------===//

#include "Reshard.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace shardc {
#define GEN_PASS_DEF_SHARDCPARTITION
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

namespace {

struct Local {
  Value value;
  Layout layout;
};

std::string opName(Operation *op) {
  return op->getName().getStringRef().str() + " at " + formatLocation(op->getLoc());
}

class Partitioner {
public:
  Partitioner(func::FuncOp fn, MeshOp mesh)
      : fn(fn), mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())),
        b(fn.getContext()) {}

  LogicalResult run() {
    Block &old = fn.getBody().front();
    Block *body = new Block();
    fn.getBody().push_back(body);
    b.setInsertionPointToStart(body);

    SmallVector<Type> argTypes;
    for (BlockArgument arg : old.getArguments()) {
      auto global = cast<RankedTensorType>(arg.getType());
      auto s = fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(),
                                                 ShardcDialect::kShardingAttrName);
      Layout layout = s ? layoutOf(s) : replicatedLayout(global.getRank());
      RankedTensorType local = localType(global, layout, mesh);
      argTypes.push_back(local);
      map[arg] = {body->addArgument(local, arg.getLoc()), layout};
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
      Layout want = s ? layoutOf(s) : replicatedLayout(global.getRank());
      Local &have = map[v];
      results.push_back(reshard(b, ret->getLoc(),
                                "reshard result #" + std::to_string(i) + " of @" +
                                    fn.getSymName().str(),
                                mesh, have.value, global, have.layout, want));
      resultTypes.push_back(results.back().getType());
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
  llvm::DenseMap<Value, Local> map;
  /// Reshards already emitted: global value -> (layout, local value).
  llvm::DenseMap<Value, SmallVector<std::pair<Layout, Value>, 1>> resharded;

  RankedTensorType globalType(Value v) { return cast<RankedTensorType>(v.getType()); }

  /// The local value of `v` in layout `want`; a reshard made for an earlier
  /// user is reused.
  Value operandIn(Operation *user, unsigned i, const Layout &want) {
    Value v = user->getOperand(i);
    Local &have = map[v];
    if (have.layout == want)
      return have.value;
    for (auto &[layout, value] : resharded[v])
      if (layout == want)
        return value;
    Value value = reshard(b, user->getLoc(),
                          "reshard operand #" + std::to_string(i) + " of " + opName(user),
                          mesh, have.value, globalType(v), have.layout, want);
    resharded[v].emplace_back(want, value);
    return value;
  }

  FailureOr<SmallVector<Layout>> resultLayouts(Operation *op) {
    auto list = op->getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName);
    if (!list)
      return op->emitError("has no '")
             << ShardcDialect::kShardingsAttrName
             << "'; run --shardc-propagate before --shardc-partition";
    SmallVector<Layout> layouts;
    for (Attribute a : list)
      layouts.push_back(layoutOf(cast<ShardingAttr>(a)));
    return layouts;
  }

  LogicalResult partition(Operation *op) {
    if (auto c = dyn_cast<ShardingConstraintOp>(op)) {
      // Propagation may have filled the constraint's open dimensions.
      FailureOr<SmallVector<Layout>> filled = resultLayouts(op);
      Layout want = succeeded(filled) ? (*filled)[0] : layoutOf(c.getSharding());
      map[c.getResult()] = {operandIn(op, 0, want), want};
      return success();
    }
    if (auto m = dyn_cast<ShardMapOp>(op))
      return inlineShardMap(m);
    if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, AllSliceOp>(op))
      return op->emitError("a collective in a global function must be inside a "
                           "shard_map");
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
    if (!ruleOp)
      return op->emitError("cannot be partitioned: it has no sharding rule");
    return partitionWithRule(op, ruleOp.getShardingRule());
  }

  LogicalResult inlineShardMap(ShardMapOp m) {
    Block &body = m.getBody().front();
    IRMapping inner;
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      Layout want = layoutOf(cast<ShardingAttr>(m.getInShardings()[i]));
      inner.map(arg, operandIn(m, i, want));
    }
    for (Operation &op : body.without_terminator()) {
      Operation *copy = b.clone(op, inner);
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, AllSliceOp>(copy))
        copy->setLoc(causeLoc(op.getLoc(), "written in the shard_map at " +
                                               formatLocation(m.getLoc())));
    }
    for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands()))
      map[m.getResult(i)] = {inner.lookup(v),
                             layoutOf(cast<ShardingAttr>(m.getOutShardings()[i]))};
    return success();
  }

  /// Axes per factor: reduction factors take the axes their operands are
  /// sharded on; pass-through factors those of the result, less any axis a
  /// reduction factor already uses (the combine then scatters it); a factor
  /// keeps only axes that divide every dimension it indexes.
  SmallVector<SmallVector<StringRef, 2>> chooseFactorAxes(Operation *op,
                                                          const ShardingRule &rule,
                                                          ArrayRef<Layout> results) {
    size_t n = rule.factors.size();
    SmallVector<SmallVector<StringRef, 2>> axes(n);
    llvm::StringSet<> used;
    auto divides = [&](size_t f, ArrayRef<StringRef> candidate) {
      int64_t g = getGroupSize(mesh, candidate);
      for (auto [i, dims] : llvm::enumerate(rule.operandDims))
        for (auto [d, ff] : llvm::enumerate(dims))
          if (ff == (int64_t)f && globalType(op->getOperand(i)).getDimSize(d) % g != 0)
            return false;
      for (auto [i, dims] : llvm::enumerate(rule.resultDims))
        for (auto [d, ff] : llvm::enumerate(dims))
          if (ff == (int64_t)f && globalType(op->getResult(i)).getDimSize(d) % g != 0)
            return false;
      return true;
    };
    auto take = [&](size_t f, ArrayRef<StringRef> candidate) {
      SmallVector<StringRef, 2> chosen;
      for (StringRef a : candidate) {
        if (used.contains(a))
          break; // keep a prefix: blocks stay contiguous
        SmallVector<StringRef, 2> next = chosen;
        next.push_back(a);
        if (!divides(f, next))
          break;
        chosen = next;
      }
      for (StringRef a : chosen)
        used.insert(a);
      axes[f] = chosen;
    };
    // Reduction factors first, from the first operand sharded along them.
    for (size_t f = 0; f < n; ++f) {
      if (rule.factors[f].kind != FactorKind::Reduction)
        continue;
      for (auto [i, dims] : llvm::enumerate(rule.operandDims)) {
        auto it = llvm::find(dims, (int64_t)f);
        if (it == dims.end())
          continue;
        const Layout &have = map[op->getOperand(i)].layout;
        const auto &candidate = have[it - dims.begin()];
        if (!candidate.empty()) {
          take(f, candidate);
          break;
        }
      }
    }
    // Pass-through factors: from the result where they appear there, else
    // from the operands.
    for (size_t f = 0; f < n; ++f) {
      if (rule.factors[f].kind != FactorKind::PassThrough)
        continue;
      bool found = false;
      for (auto [i, dims] : llvm::enumerate(rule.resultDims)) {
        auto it = llvm::find(dims, (int64_t)f);
        if (it != dims.end()) {
          take(f, results[i][it - dims.begin()]);
          found = true;
          break;
        }
      }
      for (auto [i, dims] : llvm::enumerate(rule.operandDims)) {
        if (found)
          break;
        auto it = llvm::find(dims, (int64_t)f);
        if (it != dims.end()) {
          take(f, map[op->getOperand(i)].layout[it - dims.begin()]);
          found = true;
        }
      }
    }
    return axes;
  }

  static Layout layoutFor(ArrayRef<int64_t> dims,
                          ArrayRef<SmallVector<StringRef, 2>> factorAxes) {
    Layout layout;
    for (int64_t f : dims)
      layout.push_back(f == kNoFactor ? SmallVector<StringRef, 2>() : factorAxes[f]);
    return layout;
  }

  LogicalResult partitionWithRule(Operation *op, ShardingRule rule) {
    FailureOr<SmallVector<Layout>> wanted = resultLayouts(op);
    if (failed(wanted))
      return failure();
    // A non-splat constant is computed whole, then split.
    auto constant = dyn_cast<ConstantOp>(op);
    bool wholeConstant = constant && !isa<SplatElementsAttr>(constant.getValue());
    if (wholeConstant)
      for (Factor &f : rule.factors)
        f.kind = FactorKind::NeedReplication;

    auto factorAxes = chooseFactorAxes(op, rule, *wanted);

    // Operands in the layout the factors give them.
    SmallVector<Value> operands;
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      operands.push_back(operandIn(op, i, layoutFor(rule.operandDims[i], factorAxes)));

    SmallVector<StringRef, 4> partialAxes;
    for (size_t f = 0; f < rule.factors.size(); ++f)
      if (rule.factors[f].kind == FactorKind::Reduction)
        for (StringRef axis : factorAxes[f])
          if (mesh.getAxisSize(axis) > 1) // a group of one holds the whole sum
            partialAxes.push_back(axis);

    // scatter_add adds its operand once, after the partial sums are combined.
    Value addAfter;
    if (isa<ScatterAddOp>(op) && !partialAxes.empty()) {
      addAfter = operands[0];
      auto type = cast<RankedTensorType>(addAfter.getType());
      operands[0] = ConstantOp::create(b, op->getLoc(),
                                       cast<ElementsAttr>(b.getZeroAttr(type)));
    }

    // The local op.
    SmallVector<Layout> computed;
    SmallVector<Type> types;
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      computed.push_back(layoutFor(rule.resultDims[i], factorAxes));
      types.push_back(localType(globalType(result), computed.back(), mesh));
    }
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(types);
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != ShardcDialect::kShardingsAttrName)
        state.addAttribute(attr.getName(), attr.getValue());
    if (auto slice = dyn_cast<SliceOp>(op)) {
      // A dimension taken whole may be split: it is taken whole locally too.
      SmallVector<int64_t> limit(slice.getLimit());
      auto localIn = cast<RankedTensorType>(operands[0].getType());
      for (size_t d = 0; d < limit.size(); ++d)
        if (localIn.getDimSize(d) != globalType(slice.getOperand()).getDimSize(d))
          limit[d] = localIn.getDimSize(d);
      state.attributes.set(slice.getLimitAttrName(), b.getDenseI64ArrayAttr(limit));
    }
    if (constant && !wholeConstant) {
      auto splat = cast<SplatElementsAttr>(constant.getValue());
      state.attributes.set("value", SplatElementsAttr::get(cast<ShapedType>(types[0]),
                                                           splat.getSplatValue<Attribute>()));
    }
    Operation *local = b.create(state);

    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      Value value = local->getResult(i);
      Layout layout = computed[i];
      if (!partialAxes.empty())
        value = combinePartials(op, rule, factorAxes, value, globalType(result), layout,
                                (*wanted)[i], partialAxes);
      if (addAfter) {
        // The operand was laid out like the local result before the combine,
        // which may have scattered it further.
        addAfter = reshard(b, op->getLoc(), "reshard the operand of " + opName(op), mesh,
                           addAfter, globalType(op->getOperand(0)), computed[i], layout);
        value = AddOp::create(b, op->getLoc(), addAfter, value);
      }
      value = reshard(b, op->getLoc(), "reshard the result of " + opName(op), mesh, value,
                      globalType(result), layout, (*wanted)[i]);
      map[result] = {value, (*wanted)[i]};
    }
    return success();
  }

  /// Completes partial results over `axes`: a reduce_scatter when the wanted
  /// layout splits one dimension further by exactly those axes, otherwise an
  /// all_reduce. Updates `layout` to the layout of the returned value.
  Value combinePartials(Operation *op, const ShardingRule &rule,
                        ArrayRef<SmallVector<StringRef, 2>> factorAxes, Value value,
                        RankedTensorType global, Layout &layout, const Layout &want,
                        ArrayRef<StringRef> axes) {
    ReduceKind kind = rule.partial == PartialKind::Max   ? ReduceKind::Max
                      : rule.partial == PartialKind::Min ? ReduceKind::Min
                                                         : ReduceKind::Sum;
    // Name the sharded dimensions: "dim 1 of operand #0 over ["model"]".
    std::string dims;
    for (size_t f = 0; f < rule.factors.size(); ++f) {
      if (rule.factors[f].kind != FactorKind::Reduction || factorAxes[f].empty())
        continue;
      for (auto [i, operandDims] : llvm::enumerate(rule.operandDims)) {
        auto it = llvm::find(operandDims, (int64_t)f);
        if (it == operandDims.end())
          continue;
        dims += (dims.empty() ? "" : ", ") + std::string("dim ") +
                std::to_string(it - operandDims.begin()) + " of operand #" +
                std::to_string(i) + " over " + layoutStr(Layout{factorAxes[f]});
        break;
      }
    }
    std::string cause = "partial results of " + opName(op) + ", whose " +
                        (isa<DotGeneralOp>(op)   ? "contracting"
                         : isa<ReduceOp>(op)     ? "reduced"
                                                 : "index") +
                        " dimensions are sharded (" + dims + ")";
    Location loc = causeLoc(op->getLoc(), cause);
    auto axesAttr = b.getStrArrayAttr(axes);
    auto kindAttr = ReduceKindAttr::get(b.getContext(), kind);
    for (size_t d = 0; d < layout.size(); ++d) {
      SmallVector<StringRef, 2> next = layout[d];
      next.append(axes.begin(), axes.end());
      if (next != want[d] || global.getDimSize(d) % getGroupSize(mesh, next) != 0)
        continue;
      Layout scattered = layout;
      scattered[d] = next;
      layout = scattered;
      return ReduceScatterOp::create(b, loc, localType(global, layout, mesh), kindAttr,
                                     value, meshRef, axesAttr, b.getI64IntegerAttr(d));
    }
    return AllReduceOp::create(b, loc, kindAttr, value, meshRef, axesAttr);
  }
};

} // namespace

LogicalResult partitionFunction(func::FuncOp fn) {
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
  return Partitioner(fn, *mesh).run();
}

namespace {
struct ShardcPartitionPass : impl::ShardcPartitionBase<ShardcPartitionPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(partitionFunction(fn)))
        return signalPassFailure();
  }
};
} // namespace

} // namespace shardc
