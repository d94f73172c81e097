//===- GradientRules.cpp - the gradient rule of every op ------------------===//
//
// One case per differentiable op: given g, the adjoint of the op's result,
// the adjoints of its operands (vector-Jacobian products), written with the
// dialect's own ops. y is the op's result, a and b its operands.
//
//===----------------------------------------------------------------------===//

#include "GradientRules.h"

#include "OpEmitter.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace shardc {

namespace {

bool isFloatValue(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

/// Position of `x` in `list`.
int64_t indexOf(ArrayRef<int64_t> list, int64_t x) {
  return std::find(list.begin(), list.end(), x) - list.begin();
}

SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batch,
                              ArrayRef<int64_t> contracting) {
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contracting, d))
      free.push_back(d);
  return free;
}

SmallVector<int64_t> range(int64_t begin, int64_t end) {
  SmallVector<int64_t> r;
  for (int64_t i = begin; i < end; ++i)
    r.push_back(i);
  return r;
}

/// The adjoints of a dot_general's operands: each is a dot_general of g with
/// the other operand, transposed into the operand's dimension order, at the
/// product's precision. Either operand order gives the same sums; the one
/// whose result is in the operand's order already is taken (a linear
/// layer's weight gradient is then g^T x, with no transpose after it).
SmallVector<Value> dotGeneralGrads(Emitter &e, DotGeneralOp op, Value g) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  ArrayRef<int64_t> lb = op.getLhsBatchingDims(), rb = op.getRhsBatchingDims(),
                    lc = op.getLhsContractingDims(), rc = op.getRhsContractingDims();
  int64_t nb = lb.size();
  SmallVector<int64_t> lf = freeDims(e.typeOf(lhs).getRank(), lb, lc),
                       rf = freeDims(e.typeOf(rhs).getRank(), rb, rc);
  int64_t nlf = lf.size(), nrf = rf.size();
  auto dot = [&](Value x, Value y, ArrayRef<int64_t> xb, ArrayRef<int64_t> yb, ArrayRef<int64_t> xc,
                 ArrayRef<int64_t> yc) -> Value {
    return DotGeneralOp::create(e.b, e.loc, x, y, e.b.getDenseI64ArrayAttr(xb),
                                e.b.getDenseI64ArrayAttr(yb), e.b.getDenseI64ArrayAttr(xc),
                                e.b.getDenseI64ArrayAttr(yc), op.getPrecisionAttr());
  };
  // The permutation that puts a result whose dims name these operand dims
  // into the operand's order.
  auto permutation = [](ArrayRef<int64_t> dimOf) {
    SmallVector<int64_t> perm(dimOf.size());
    for (size_t k = 0; k < dimOf.size(); ++k)
      perm[dimOf[k]] = k;
    return perm;
  };
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    for (size_t k = 0; k < perm.size(); ++k)
      if (perm[k] != (int64_t)k)
        return false;
    return true;
  };
  auto concat = [](ArrayRef<int64_t> a, ArrayRef<int64_t> b, ArrayRef<int64_t> c) {
    SmallVector<int64_t> out(a.begin(), a.end());
    out.append(b.begin(), b.end());
    out.append(c.begin(), c.end());
    return out;
  };
  SmallVector<int64_t> gb = range(0, nb), gl = range(nb, nb + nlf),
                       gr = range(nb + nlf, nb + nlf + nrf);
  // One operand's adjoint: g's dims `gc` contract with the other operand's
  // dims `oc`. The result's dims are batch, then those g names (`byG`) and
  // those the other operand names (`byOther`), in the order of the
  // product's operands, `gFirst` unless the other order is the operand's.
  auto adjoint = [&](Value other, ArrayRef<int64_t> ob, ArrayRef<int64_t> oc, ArrayRef<int64_t> gc,
                     ArrayRef<int64_t> batch, ArrayRef<int64_t> byG, ArrayRef<int64_t> byOther,
                     bool gFirst) {
    SmallVector<int64_t> perm = permutation(gFirst ? concat(batch, byG, byOther)
                                                   : concat(batch, byOther, byG)),
                         swapped = permutation(gFirst ? concat(batch, byOther, byG)
                                                      : concat(batch, byG, byOther));
    if (!isIdentity(perm) && isIdentity(swapped)) {
      gFirst = !gFirst;
      perm = swapped;
    }
    return e.transpose(gFirst ? dot(g, other, gb, ob, gc, oc) : dot(other, g, ob, gb, oc, gc),
                       perm);
  };
  // d lhs: g's rhs-free dims contract with rhs's free dims; rhs's remaining
  // (contracting) dims name lhs's contracting dims.
  SmallVector<int64_t> lhsOfRc;
  for (int64_t d : freeDims(e.typeOf(rhs).getRank(), rb, rf)) // rc, sorted
    lhsOfRc.push_back(lc[indexOf(rc, d)]);
  Value dlhs = adjoint(rhs, rb, rf, gr, lb, lf, lhsOfRc, /*gFirst=*/true);
  // d rhs: g's lhs-free dims contract with lhs's free dims.
  SmallVector<int64_t> rhsOfLc;
  for (int64_t d : freeDims(e.typeOf(lhs).getRank(), lb, lf)) // lc, sorted
    rhsOfLc.push_back(rc[indexOf(lc, d)]);
  Value drhs = adjoint(lhs, lb, lf, gl, rb, rf, rhsOfLc, /*gFirst=*/false);
  return {dlhs, drhs};
}

/// broadcast_in_dim: sum g over the dims the broadcast created or
/// expanded, then restore the operand's dimension order and size-1 dims.
Value broadcastGrad(Emitter &e, BroadcastInDimOp op, Value g) {
  auto in = e.typeOf(op.getOperand()), out = e.typeOf(op.getResult());
  ArrayRef<int64_t> dims = op.getDims();
  SmallVector<int64_t> summed, keptOperandDims;
  for (int64_t d = 0; d < out.getRank(); ++d) {
    int64_t i = indexOf(dims, d);
    if (i == (int64_t)dims.size() || (in.getDimSize(i) == 1 && out.getDimSize(d) != 1))
      summed.push_back(d);
  }
  // Remaining result dims in increasing order, and the operand dim of each.
  SmallVector<std::pair<int64_t, int64_t>> remaining; // (result dim, operand dim)
  for (int64_t d = 0; d < out.getRank(); ++d)
    if (!llvm::is_contained(summed, d))
      remaining.push_back({d, indexOf(dims, d)});
  Value s = e.reduceSum(g, summed);
  // Order them by operand dim.
  SmallVector<int64_t> order(remaining.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  llvm::sort(order,
             [&](int64_t x, int64_t y) { return remaining[x].second < remaining[y].second; });
  s = e.transpose(s, order);
  return e.reshape(s, in);
}

/// slice with unit strides: g padded with zeros back to the operand shape,
/// one dimension at a time.
FailureOr<Value> sliceGrad(Emitter &e, SliceOp op, Value g) {
  auto in = e.typeOf(op.getOperand());
  for (int64_t s : op.getStrides())
    if (s != 1)
      return op.emitError("the gradient of a strided slice is not supported");
  Value cur = g;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    auto curType = e.typeOf(cur);
    SmallVector<Value> parts;
    auto zeros = [&](int64_t size) {
      SmallVector<int64_t> shape(curType.getShape());
      shape[d] = size;
      return e.splat(RankedTensorType::get(shape, curType.getElementType()), 0.0);
    };
    int64_t before = op.getStart()[d], after = in.getDimSize(d) - op.getLimit()[d];
    if (before > 0)
      parts.push_back(zeros(before));
    parts.push_back(cur);
    if (after > 0)
      parts.push_back(zeros(after));
    if (parts.size() > 1)
      cur = ConcatenateOp::create(e.b, e.loc, parts, e.b.getI64IntegerAttr(d));
  }
  return cur;
}

SmallVector<Value> concatenateGrads(Emitter &e, ConcatenateOp op, Value g) {
  SmallVector<Value> grads;
  int64_t dim = op.getDimAttr().getInt(), offset = 0;
  auto gt = e.typeOf(g);
  for (Value input : op.getInputs()) {
    auto it = e.typeOf(input);
    SmallVector<int64_t> start(gt.getRank(), 0), limit(gt.getShape()), strides(gt.getRank(), 1);
    start[dim] = offset;
    limit[dim] = offset + it.getDimSize(dim);
    offset += it.getDimSize(dim);
    grads.push_back(SliceOp::create(e.b, e.loc, g, e.b.getDenseI64ArrayAttr(start),
                                    e.b.getDenseI64ArrayAttr(limit),
                                    e.b.getDenseI64ArrayAttr(strides)));
  }
  return grads;
}

/// attention: attention_grad gives dq, dk and dv one after another along
/// positions; the lengths (integers) have none.
SmallVector<Value> attentionGrads(Emitter &e, AttentionOp op, Value g) {
  Value all = AttentionGradOp::create(e.b, e.loc, op.getQ(), op.getK(), op.getV(), g,
                                      op.getKvLengths(), op.getCausalAttr(), op.getScaleAttr());
  auto at = e.typeOf(all);
  int64_t T = e.typeOf(op.getQ()).getDimSize(1), S = e.typeOf(op.getK()).getDimSize(1);
  auto slice = [&](int64_t from, int64_t to) -> Value {
    SmallVector<int64_t> start(4, 0), limit(at.getShape()), strides(4, 1);
    start[1] = from;
    limit[1] = to;
    return SliceOp::create(e.b, e.loc, all, e.b.getDenseI64ArrayAttr(start),
                           e.b.getDenseI64ArrayAttr(limit), e.b.getDenseI64ArrayAttr(strides));
  };
  SmallVector<Value> grads{slice(0, T), slice(T, T + S), slice(T + S, T + 2 * S)};
  if (op.getKvLengths())
    grads.push_back(Value());
  return grads;
}

/// reduce max/min: the gradient goes to the positions that attain the
/// extremum, shared equally among ties.
Value extremumGrad(Emitter &e, ReduceOp op, Value g) {
  Value x = op.getOperand();
  auto type = e.typeOf(x);
  ArrayRef<int64_t> dims = op.getDims();
  Value yb = e.unreduce(op.getResult(), type, dims);
  Value mask = e.convert(e.compare(CompareDirection::EQ, x, yb), type.getElementType());
  Value count = e.unreduce(e.reduceSum(mask, dims), type, dims);
  return e.div(e.mul(e.unreduce(g, type, dims), mask), count);
}

using Grads = SmallVector<Value>;
/// A group's gradients of an op: none where the op is not the group's.
using MaybeGrads = std::optional<FailureOr<Grads>>;

/// Elementwise ops, constants and sharding constraints: the gradients of
/// `op`'s operands from its result's gradient g.
MaybeGrads elementwiseGrads(Emitter &e, Operation *op, Value g) {
  OpBuilder &b = e.b;
  Value y = op->getResult(0);
  auto operand = [&](unsigned i) { return op->getOperand(i); };
  return llvm::TypeSwitch<Operation *, MaybeGrads>(op)
      // Elementwise, binary.
      .Case([&](AddOp) {
        return Grads{g, g};
      })
      .Case([&](SubOp) {
        return Grads{g, e.neg(g)};
      })
      .Case([&](MulOp) {
        return Grads{e.mul(g, operand(1)), e.mul(g, operand(0))};
      })
      .Case([&](DivOp) { // y = a / b: da = g / b, db = -g y / b
        return Grads{e.div(g, operand(1)), e.neg(e.div(e.mul(g, y), operand(1)))};
      })
      .Case([&](MaxOp) {
        Value first = e.compare(CompareDirection::GE, operand(0), operand(1));
        Value zero = e.zerosLike(g);
        return Grads{e.select(first, g, zero), e.select(first, zero, g)};
      })
      .Case([&](MinOp) {
        Value first = e.compare(CompareDirection::LE, operand(0), operand(1));
        Value zero = e.zerosLike(g);
        return Grads{e.select(first, g, zero), e.select(first, zero, g)};
      })
      .Case([&](RemOp) { // r = a - b q with q = trunc(a / b): da = g, db = -g q
        Value q = RoundEvenOp::create(b, e.loc, e.div(e.sub(operand(0), y), operand(1)));
        return Grads{g, e.neg(e.mul(g, q))};
      })
      .Case([&](Atan2Op) { // y = atan2(a, b): da = b / (a^2 + b^2), db = -a / (a^2 + b^2)
        Value r2 = e.add(e.mul(operand(0), operand(0)), e.mul(operand(1), operand(1)));
        Value gr = e.div(g, r2);
        return Grads{e.mul(gr, operand(1)), e.neg(e.mul(gr, operand(0)))};
      })
      .Case([&](PowOp) { // y = a^b: da = g b a^(b-1), db = g y log(a)
        Value bm1 = e.sub(operand(1), e.scalarLike(g, 1.0));
        Value pa = PowOp::create(b, e.loc, operand(0), bm1);
        // Where a = 0, y = 0 for every b > 0 and db is 0, not 0 * log(0) =
        // NaN: take log(1) there instead.
        Value zeroBase = e.compare(CompareDirection::EQ, operand(0), e.zerosLike(g));
        Value la = LogOp::create(b, e.loc, e.select(zeroBase, e.scalarLike(g, 1.0), operand(0)));
        return Grads{e.mul(g, e.mul(operand(1), pa)), e.mul(g, e.mul(y, la))};
      })
      // Elementwise, unary.
      .Case([&](NegOp) { return Grads{e.neg(g)}; })
      .Case([&](StopGradientOp) { return Grads{Value()}; })
      .Case([&](AbsOp) {
        Value positive = e.compare(CompareDirection::GE, operand(0), e.zerosLike(g));
        return Grads{e.select(positive, g, e.neg(g))};
      })
      .Case([&](ExpOp) { return Grads{e.mul(g, y)}; })
      .Case([&](LogOp) { return Grads{e.div(g, operand(0))}; })
      .Case([&](Log1pOp) { // 1 / (1 + x)
        return Grads{e.div(g, e.add(e.scalarLike(g, 1.0), operand(0)))};
      })
      .Case([&](Expm1Op) { // exp(x) = y + 1
        return Grads{e.mul(g, e.add(y, e.scalarLike(g, 1.0)))};
      })
      .Case([&](SinOp) { return Grads{e.mul(g, CosOp::create(b, e.loc, operand(0)))}; })
      .Case([&](CosOp) { return Grads{e.neg(e.mul(g, SinOp::create(b, e.loc, operand(0))))}; })
      // Steps: zero almost everywhere (as JAX and PyTorch define them).
      .Case([&](FloorOp) { return Grads{e.zerosLike(g)}; })
      .Case([&](CeilOp) { return Grads{e.zerosLike(g)}; })
      .Case([&](RoundEvenOp) { return Grads{e.zerosLike(g)}; })
      .Case([&](RoundAfzOp) { return Grads{e.zerosLike(g)}; })
      .Case([&](TanOp) { // 1 + y^2
        return Grads{e.mul(g, e.add(e.scalarLike(g, 1.0), e.mul(y, y)))};
      })
      .Case([&](CbrtOp) { // 1 / (3 y^2)
        return Grads{e.div(g, e.mul(e.scalarLike(g, 3.0), e.mul(y, y)))};
      })
      .Case([&](TanhOp) { // 1 - y^2
        return Grads{e.mul(g, e.sub(e.scalarLike(g, 1.0), e.mul(y, y)))};
      })
      .Case([&](SqrtOp) { return Grads{e.div(e.mul(g, e.scalarLike(g, 0.5)), y)}; })
      .Case([&](RsqrtOp) { // -y^3 / 2
        return Grads{e.mul(g, e.mul(e.scalarLike(g, -0.5), e.mul(y, e.mul(y, y))))};
      })
      .Case([&](ErfOp) { // 2/sqrt(pi) exp(-a^2)
        Value a2 = e.mul(operand(0), operand(0));
        Value ex = ExpOp::create(b, e.loc, e.neg(a2));
        return Grads{e.mul(g, e.mul(e.scalarLike(g, 2.0 / std::sqrt(M_PI)), ex))};
      })
      .Case([&](ConvertOp c) {
        if (!isFloatValue(c.getOperand()))
          return Grads{Value()};
        return Grads{e.convert(g, e.typeOf(c.getOperand()).getElementType())};
      })
      .Case([&](SelectOp) {
        Value zero = e.zerosLike(g);
        return Grads{Value(), e.select(operand(0), g, zero), e.select(operand(0), zero, g)};
      })
      .Case([&](CompareOp) {
        return Grads{Value(), Value()};
      })
      .Case([&](ConstantOp) { return Grads{}; })
      .Case([&](IotaOp) { return Grads{}; })
      // As JAX transposes with_sharding_constraint: the cotangent is laid
      // out as the value was, so that a layout asked for in the forward
      // pass (a parameter gathered before use) bounds the backward pass
      // too, and propagation does not carry the argument's own layout
      // through the gradient into the activations.
      .Case([&](ShardingConstraintOp c) {
        return Grads{ShardingConstraintOp::create(e.b, e.loc, g, c.getSharding()).getResult()};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Contractions, reductions and data movement.
MaybeGrads structuralGrads(Emitter &e, Operation *op, Value g) {
  OpBuilder &b = e.b;
  return llvm::TypeSwitch<Operation *, MaybeGrads>(op)
      // Contractions and reductions.
      .Case([&](DotGeneralOp d) -> FailureOr<Grads> { return dotGeneralGrads(e, d, g); })
      .Case([&](ReduceOp r) -> FailureOr<Grads> {
        auto type = e.typeOf(r.getOperand());
        if (r.getKind() == ReduceKind::Sum)
          return Grads{e.unreduce(g, type, r.getDims())};
        return Grads{extremumGrad(e, r, g)};
      })
      // Data movement.
      .Case([&](BroadcastInDimOp bc) -> FailureOr<Grads> { return Grads{broadcastGrad(e, bc, g)}; })
      .Case([&](ReshapeOp r) { return Grads{e.reshape(g, e.typeOf(r.getOperand()))}; })
      .Case([&](TransposeOp t) {
        ArrayRef<int64_t> perm = t.getPermutation();
        SmallVector<int64_t> inverse(perm.size());
        for (size_t i = 0; i < perm.size(); ++i)
          inverse[perm[i]] = i;
        return Grads{e.transpose(g, inverse)};
      })
      .Case([&](SliceOp s) -> FailureOr<Grads> {
        FailureOr<Value> grad = sliceGrad(e, s, g);
        if (failed(grad))
          return failure();
        return Grads{*grad};
      })
      .Case([&](ConcatenateOp c) -> FailureOr<Grads> { return concatenateGrads(e, c, g); })
      // The box's adjoint goes back into a zero operand at the same
      // (clamped) corner; the update's adjoint is g's box there, and the
      // operand's is g with that box zeroed. Indices have none.
      .Case([&](DynamicSliceOp d) {
        Grads grads{DynamicUpdateSliceOp::create(b, e.loc, e.zerosLike(d.getOperand()), g,
                                                 d.getStartIndices())
                        .getResult()};
        grads.append(d.getStartIndices().size(), Value());
        return grads;
      })
      .Case([&](DynamicUpdateSliceOp d) {
        Value operand = DynamicUpdateSliceOp::create(b, e.loc, g, e.zerosLike(d.getUpdate()),
                                                     d.getStartIndices());
        Value update =
            DynamicSliceOp::create(b, e.loc, d.getUpdate().getType(), g, d.getStartIndices());
        Grads grads{operand, update};
        grads.append(d.getStartIndices().size(), Value());
        return grads;
      })
      .Case([&](TakeOp t) {
        Value table = t.getTable();
        Value grad = ScatterAddOp::create(b, e.loc, e.zerosLike(table), t.getIndices(), g);
        return Grads{grad, Value()};
      })
      .Case([&](ScatterAddOp s) {
        Value updates = TakeOp::create(b, e.loc, g, s.getIndices());
        return Grads{g, Value(), updates};
      })
      .Case([&](QkvAttentionOp a) {
        return Grads{
            QkvAttentionGradOp::create(b, e.loc, a.getQkv(), g, a.getCausalAttr(), a.getScaleAttr())
                .getResult()};
      })
      .Case([&](AttentionOp a) { return attentionGrads(e, a, g); })
      .Default([](Operation *) { return std::nullopt; });
}

/// Collectives (in shard_map bodies).
MaybeGrads collectiveGrads(Emitter &e, Operation *op, Value g) {
  OpBuilder &b = e.b;
  return llvm::TypeSwitch<Operation *, MaybeGrads>(op)
      // Collectives (in shard_map bodies). Each device's copy of a value is
      // its own variable, so the adjoint of a collective is the collective
      // that sends each device's adjoint back where its inputs came from.
      .Case([&](AllReduceOp r) -> FailureOr<Grads> {
        if (r.getKind() != ReduceKind::Sum && r.getKind() != ReduceKind::Mean)
          return r.emitError("all_reduce max/min has no gradient rule");
        return Grads{AllReduceOp::create(b, e.loc, g.getType(), r.getKindAttr(), g, r.getMeshAttr(),
                                         r.getAxes())
                         .getResult()};
      })
      .Case([&](AllGatherOp a) {
        return Grads{ReduceScatterOp::create(b, e.loc, a.getOperand().getType(), ReduceKind::Sum, g,
                                             a.getMesh(), a.getAxes(), a.getDim())
                         .getResult()};
      })
      .Case([&](ReduceScatterOp r) -> FailureOr<Grads> {
        if (r.getKind() != ReduceKind::Sum)
          return r.emitError("reduce_scatter ")
                 << stringifyReduceKind(r.getKind()) << " has no gradient rule";
        return Grads{AllGatherOp::create(b, e.loc, r.getOperand().getType(), g, r.getMesh(),
                                         r.getAxes(), r.getDim())
                         .getResult()};
      })
      .Case([&](CollectivePermuteOp p) {
        // The adjoint sends each gradient back where its value came from.
        SmallVector<int64_t> inverse(p.getSources().size());
        for (auto [r, src] : llvm::enumerate(p.getSources()))
          inverse[src] = (int64_t)r;
        return Grads{CollectivePermuteOp::create(b, e.loc, g.getType(), g, p.getMesh(), p.getAxes(),
                                                 b.getDenseI64ArrayAttr(inverse))
                         .getResult()};
      })
      .Case([&](AllToAllOp a) {
        return Grads{AllToAllOp::create(b, e.loc, a.getOperand().getType(), g, a.getMesh(),
                                        a.getAxes(), a.getConcatDim(), a.getSplitDim())
                         .getResult()};
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

FailureOr<SmallVector<Value>> buildGradients(OpBuilder &b, Operation *op,
                                             ArrayRef<Value> resultGrads) {
  Emitter e{b, op->getLoc()};
  // Every rule below is for an op with one result. An op with several (a
  // shard_map) whose first result gets no gradient must still be rejected,
  // not skipped: that would drop the other results' gradients.
  if (op->getNumResults() > 1 && llvm::any_of(resultGrads, [](Value v) { return v; }))
    return op->emitError("has no gradient rule (differentiate the global program, "
                         "before partitioning)");
  Value g = resultGrads.empty() ? Value() : resultGrads[0];
  SmallVector<Value> none(op->getNumOperands(), Value());
  if (!g || op->getNumResults() != 1 || !isFloatValue(op->getResult(0)))
    return none;
  for (auto rules : {elementwiseGrads, structuralGrads, collectiveGrads})
    if (MaybeGrads grads = rules(e, op, g))
      return std::move(*grads);
  return op->emitError("has no gradient rule (differentiate the global program, "
                       "before partitioning)");
}

} // namespace shardc
