//===- ShardingRules.cpp - the sharding rule of every op ------------------===//
//
// One function per op: which factor each operand and result dimension
// indexes, and of what kind (see ShardingRule.h). Propagation and
// partitioning know ops only through these rules.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "llvm/ADT/StringMap.h"

#include <numeric>

using namespace mlir;

namespace shardc {

#include "shardc/Dialect/Shardc/Interfaces/ShardingRuleOpInterface.cpp.inc"

ShardingRule ShardingRule::elementwise(const std::vector<int64_t> &shape, unsigned numOperands,
                                       unsigned numResults) {
  ShardingRule rule;
  std::vector<int64_t> dims;
  for (int64_t size : shape)
    dims.push_back(rule.addFactor(size, FactorKind::PassThrough));
  return rule.setDims(std::vector<std::vector<int64_t>>(numOperands, dims),
                      std::vector<std::vector<int64_t>>(numResults, dims));
}

std::string ShardingRule::str() const {
  auto name = [](int64_t f) {
    return std::string(1, char('i' + f % 18)) + (f >= 18 ? std::to_string(f / 18) : "");
  };
  auto dimName = [&](const DimFactors &dim) {
    std::string s;
    for (int64_t f : dim)
      s += (s.empty() ? "" : "*") + name(f);
    return s.empty() ? std::string("_") : s;
  };
  auto list = [&](const std::vector<std::vector<DimFactors>> &values) {
    std::string s = "(";
    for (size_t v = 0; v < values.size(); ++v) {
      s += v ? ", [" : "[";
      for (size_t d = 0; d < values[v].size(); ++d)
        s += (d ? ", " : "") + dimName(values[v][d]);
      s += "]";
    }
    return s + ")";
  };
  std::string s = list(operandDims) + " -> " + list(resultDims) + " {";
  for (size_t f = 0; f < factors.size(); ++f)
    s += (f ? ", " : "") + name(f) + "=" + std::to_string(factors[f].size);
  s += "}";
  for (FactorKind kind : {FactorKind::Reduction, FactorKind::NeedReplication}) {
    std::string of;
    for (size_t f = 0; f < factors.size(); ++f)
      if (factors[f].kind == kind)
        of += (of.empty() ? "" : ", ") + name(f);
    if (!of.empty())
      s += std::string(kind == FactorKind::Reduction ? " reduction" : " need_replication") + "={" +
           of + "}";
  }
  // Where a pending sum passes (PartialFlow), and the accumulated operand.
  if (partialFlow != PartialFlow::None) {
    s += partialFlow == PartialFlow::Additive ? " linear={" : " linear_each={";
    for (size_t k = 0; k < linearOperands.size(); ++k)
      s += (k ? ", " : "") + std::to_string(linearOperands[k]);
    s += "}";
  }
  if (accumulator)
    s += " accumulator=" + std::to_string(*accumulator);
  return s;
}

static std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return {t.getShape().begin(), t.getShape().end()};
}

static ShardingRule elementwiseRule(Operation *op) {
  return ShardingRule::elementwise(shapeOf(op->getResult(0)), op->getNumOperands(),
                                   op->getNumResults());
}

// Elementwise ops and the identity-like sharding_constraint. A pending sum
// passes through operand 0 of neg, the identities, and the numerator of
// div; add and sub are linear in both operands together, mul in either one,
// select in its two choices (OpCodes.def says which for the elementwise
// ops).
namespace {
enum class Linearity { None, AdditiveLhs, AdditiveBoth, Multiplicative };
} // namespace
static ShardingRule withPartial(ShardingRule rule, Linearity linearity) {
  switch (linearity) {
  case Linearity::None:
    return rule;
  case Linearity::AdditiveLhs:
    return rule.linearIn(PartialFlow::Additive, {0});
  case Linearity::AdditiveBoth:
    return rule.linearIn(PartialFlow::Additive, {0, 1});
  case Linearity::Multiplicative:
    return rule.linearIn(PartialFlow::Multiplicative, {0, 1});
  }
  return rule;
}
ShardingRule elementwiseShardingRule(Operation *op) {
  static const llvm::StringMap<Linearity> linearity = {
#define SHARDC_ELEMENTWISE_ROW(Name, name, number, types, partial, ...)                            \
  {"shardc." #name, Linearity::partial},
#define SHARDC_UNARY SHARDC_ELEMENTWISE_ROW
#define SHARDC_BINARY SHARDC_ELEMENTWISE_ROW
#include "shardc/Common/OpCodes.def"
#undef SHARDC_ELEMENTWISE_ROW
  };
  auto row = linearity.find(op->getName().getStringRef());
  return withPartial(elementwiseRule(op), row == linearity.end() ? Linearity::None : row->second);
}

#define SHARDC_LINEAR_RULE(OP, FLOW, ...)                                                          \
  ShardingRule OP::getShardingRule() {                                                             \
    return elementwiseRule(*this).linearIn(PartialFlow::FLOW, {__VA_ARGS__});                      \
  }
ShardingRule CompareOp::getShardingRule() { return elementwiseRule(*this); }
SHARDC_LINEAR_RULE(StopGradientOp, Additive, 0)
SHARDC_LINEAR_RULE(ShardingConstraintOp, Additive, 0)
SHARDC_LINEAR_RULE(SelectOp, Additive, 1, 2)
#undef SHARDC_LINEAR_RULE

/// A splat constant splits like an elementwise op (each device makes its
/// block); any other is made whole, then split: its dimensions need
/// replication.
ShardingRule ConstantOp::getShardingRule() {
  ShardingRule rule = elementwiseRule(*this);
  if (!isa<SplatElementsAttr>(getValue()))
    for (Factor &f : rule.factors)
      f.kind = FactorKind::NeedReplication;
  return rule;
}

void ConstantOp::localizeAttributes(NamedAttrList &attributes, TypeRange,
                                    TypeRange localResultTypes) {
  if (auto splat = dyn_cast<SplatElementsAttr>(getValue()))
    attributes.set(getValueAttrName(), SplatElementsAttr::get(cast<ShapedType>(localResultTypes[0]),
                                                              splat.getSplatValue<Attribute>()));
}

/// A conversion between float types is linear (up to rounding); one to or
/// from an integer is not.
ShardingRule ConvertOp::getShardingRule() {
  ShardingRule rule = elementwiseRule(*this);
  if (isa<FloatType>(cast<ShapedType>(getOperand().getType()).getElementType()) &&
      isa<FloatType>(cast<ShapedType>(getResult().getType()).getElementType()))
    rule.linearIn(PartialFlow::Additive, {0});
  return rule;
}

/// iota counts along `dim`: a shard would need its offset, so `dim` stays
/// whole; the other dimensions split freely.
ShardingRule IotaOp::getShardingRule() {
  ShardingRule rule = elementwiseRule(*this);
  rule.factors[getDim()].kind = FactorKind::NeedReplication;
  return rule;
}

/// (batch..., lhs free..., rhs free...) from lhs and rhs; contracting
/// dimensions are reduction factors.
ShardingRule DotGeneralOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  std::vector<int64_t> l(lhs.size(), kNoFactor), r(rhs.size(), kNoFactor), out;
  for (auto [lb, rb] : llvm::zip(getLhsBatchingDims(), getRhsBatchingDims())) {
    int64_t f = rule.addFactor(lhs[lb], FactorKind::PassThrough);
    l[lb] = r[rb] = f;
    out.push_back(f);
  }
  for (auto [lc, rc] : llvm::zip(getLhsContractingDims(), getRhsContractingDims()))
    l[lc] = r[rc] = rule.addFactor(lhs[lc], FactorKind::Reduction);
  for (size_t d = 0; d < lhs.size(); ++d)
    if (l[d] == kNoFactor) {
      l[d] = rule.addFactor(lhs[d], FactorKind::PassThrough);
      out.push_back(l[d]);
    }
  for (size_t d = 0; d < rhs.size(); ++d)
    if (r[d] == kNoFactor) {
      r[d] = rule.addFactor(rhs[d], FactorKind::PassThrough);
      out.push_back(r[d]);
    }
  rule.setDims({l, r}, {out});
  rule.reductionName = "contracting";
  return rule.linearIn(PartialFlow::Multiplicative, {0, 1});
}

/// Kept dimensions pass through; reduced ones are reduction factors whose
/// partial results combine with the op's own kind.
ShardingRule ReduceOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(getOperand()), operand, out;
  for (size_t d = 0; d < in.size(); ++d) {
    bool reduced = llvm::is_contained(getDims(), (int64_t)d);
    int64_t f = rule.addFactor(in[d], reduced ? FactorKind::Reduction : FactorKind::PassThrough);
    operand.push_back(f);
    if (!reduced)
      out.push_back(f);
  }
  rule.setDims({operand}, {out});
  rule.partial = getKind() == ReduceKind::Max   ? Reduction::Max
                 : getKind() == ReduceKind::Min ? Reduction::Min
                                                : Reduction::Sum;
  if (rule.partial == Reduction::Sum)
    rule.linearIn(PartialFlow::Additive, {0});
  return rule;
}

/// The dimensions argmax keeps pass through; the one it searches must be
/// whole (a device's best index in its block is not the global one, and
/// no reduction of the indices alone combines them).
ShardingRule ArgMaxOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(getOperand()), operand, out;
  for (size_t d = 0; d < in.size(); ++d) {
    bool searched = (int64_t)d == (int64_t)getDim();
    int64_t f =
        rule.addFactor(in[d], searched ? FactorKind::NeedReplication : FactorKind::PassThrough);
    operand.push_back(f);
    if (!searched)
      out.push_back(f);
  }
  rule.setDims({operand}, {out});
  return rule;
}

/// Batch items and heads pass through; positions, the q/k/v dimension and
/// the head width stay whole (every query reads every key of its head, and
/// a score sums over the whole width). The gradient has the same factors,
/// with dout laid out as the forward's result.
static ShardingRule attentionRule(Value qkv, bool grad) {
  ShardingRule rule;
  std::vector<int64_t> s = shapeOf(qkv);
  int64_t b = rule.addFactor(s[0], FactorKind::PassThrough);
  int64_t t = rule.addFactor(s[1], FactorKind::NeedReplication);
  int64_t three = rule.addFactor(s[2], FactorKind::NeedReplication);
  int64_t n = rule.addFactor(s[3], FactorKind::PassThrough);
  int64_t h = rule.addFactor(s[4], FactorKind::NeedReplication);
  std::vector<int64_t> packed{b, t, three, n, h}, rows{b, t, n, h};
  if (grad)
    rule.setDims({packed, rows}, {packed});
  else
    rule.setDims({packed}, {rows});
  return rule;
}

ShardingRule QkvAttentionOp::getShardingRule() { return attentionRule(getQkv(), false); }

ShardingRule QkvAttentionGradOp::getShardingRule() { return attentionRule(getQkv(), true); }

/// attention of q over k and v (and the lengths), and with `grad` (its
/// result, dq, dk and dv along positions) its gradient, with dout laid out
/// as q. Batch items and heads pass through, the lengths by batch item;
/// keys and the head width stay whole. Queries are independent unless
/// causal (whose mask counts positions from the first) or packed with the
/// keys in the gradient: they may then be split too.
static ShardingRule separateAttentionRule(Value q, Value k, Value lengths, bool causal,
                                          Value grad) {
  ShardingRule rule;
  std::vector<int64_t> qs = shapeOf(q), ks = shapeOf(k);
  int64_t b = rule.addFactor(qs[0], FactorKind::PassThrough);
  bool queriesWhole = causal || grad;
  int64_t t =
      rule.addFactor(qs[1], queriesWhole ? FactorKind::NeedReplication : FactorKind::PassThrough);
  int64_t s = rule.addFactor(ks[1], FactorKind::NeedReplication);
  int64_t n = rule.addFactor(qs[2], FactorKind::PassThrough);
  int64_t h = rule.addFactor(qs[3], FactorKind::NeedReplication);
  std::vector<std::vector<int64_t>> operands{{b, t, n, h}, {b, s, n, h}, {b, s, n, h}};
  std::vector<int64_t> result{b, t, n, h};
  if (grad) {
    operands.push_back({b, t, n, h}); // dout
    result[1] = rule.addFactor(shapeOf(grad)[1], FactorKind::NeedReplication);
  }
  if (lengths)
    operands.push_back({b});
  rule.setDims(operands, {result});
  return rule;
}

ShardingRule AttentionOp::getShardingRule() {
  return separateAttentionRule(getQ(), getK(), getKvLengths(), getCausal(), Value());
}

ShardingRule AttentionGradOp::getShardingRule() {
  return separateAttentionRule(getQ(), getK(), getKvLengths(), getCausal(), getResult());
}

/// Operand dimension i and result dimension dims[i] share a factor unless the
/// operand is broadcast there (size 1); other result dimensions are new.
ShardingRule BroadcastInDimOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(getOperand()), outShape = shapeOf(getResult());
  std::vector<int64_t> operand(in.size(), kNoFactor), out(outShape.size(), kNoFactor);
  for (auto [i, d] : llvm::enumerate(getDims()))
    if (in[i] == outShape[d] && in[i] != 1)
      operand[i] = out[d] = rule.addFactor(in[i], FactorKind::PassThrough);
  for (size_t d = 0; d < outShape.size(); ++d)
    if (out[d] == kNoFactor && outShape[d] != 1)
      out[d] = rule.addFactor(outShape[d], FactorKind::PassThrough);
  rule.setDims({operand}, {out});
  return rule.linearIn(PartialFlow::Additive, {0});
}

/// Dimensions are matched in groups of equal element count, and each group
/// is decomposed into factors that both sides share, major first: (8) ->
/// (2, 4) has factors 2 and 4, with the operand's dimension [2*4]. Where the
/// remaining sizes of two dimensions do not divide one another (6 -> 4 after
/// nothing), their greatest common divisor is the group's last factor and
/// the rest of the group has none (it stays whole).
ShardingRule ReshapeOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(getOperand()), outShape = shapeOf(getResult());
  std::vector<DimFactors> operand(in.size()), out(outShape.size());
  auto finish = [&] {
    rule.operandDims = {operand};
    rule.resultDims = {out};
    return rule.linearIn(PartialFlow::Additive, {0});
  };
  // An empty tensor has no blocks to keep apart: nothing passes through
  // (the operand is made whole, which moves no bytes).
  auto elements = [](const std::vector<int64_t> &shape) {
    return std::accumulate(shape.begin(), shape.end(), (int64_t)1, std::multiplies<>());
  };
  if (elements(in) == 0 || elements(outShape) == 0)
    return finish();
  size_t i = 0, j = 0;
  while (i < in.size() && j < outShape.size()) {
    if (in[i] == 1) {
      ++i;
      continue;
    }
    if (outShape[j] == 1) {
      ++j;
      continue;
    }
    size_t i0 = i, j0 = j;
    int64_t pi = in[i++], pj = outShape[j++];
    while (pi != pj) {
      if (pi < pj)
        pi *= in[i++];
      else
        pj *= outShape[j++];
    }
    // The group is in[i0, i) and outShape[j0, j); what is left of the
    // current dimension on each side is ra and rc.
    size_t a = i0, c = j0;
    int64_t ra = in[a], rc = outShape[c];
    while (a < i && c < j) {
      if (ra == 1) {
        if (++a < i)
          ra = in[a];
        continue;
      }
      if (rc == 1) {
        if (++c < j)
          rc = outShape[c];
        continue;
      }
      bool divides = ra % rc == 0 || rc % ra == 0;
      int64_t size = divides ? std::min(ra, rc) : std::gcd(ra, rc);
      if (size > 1) {
        int64_t f = rule.addFactor(size, FactorKind::PassThrough);
        operand[a].push_back(f);
        out[c].push_back(f);
      }
      if (!divides)
        break;
      ra /= size;
      rc /= size;
    }
  }
  return finish();
}

ShardingRule TransposeOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(getOperand());
  std::vector<int64_t> operand, out;
  for (int64_t size : in)
    operand.push_back(rule.addFactor(size, FactorKind::PassThrough));
  for (int64_t p : getPermutation())
    out.push_back(operand[p]);
  rule.setDims({operand}, {out});
  return rule.linearIn(PartialFlow::Additive, {0});
}

/// Dimensions taken whole (start 0, stride 1, full limit) pass through; the
/// others need the whole dimension.
ShardingRule SliceOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(getOperand()), outShape = shapeOf(getResult());
  std::vector<int64_t> dims;
  for (size_t d = 0; d < in.size(); ++d) {
    bool whole = getStart()[d] == 0 && getStrides()[d] == 1 && getLimit()[d] == in[d];
    dims.push_back(
        rule.addFactor(outShape[d], whole ? FactorKind::PassThrough : FactorKind::NeedReplication));
  }
  rule.setDims({dims}, {dims});
  return rule.linearIn(PartialFlow::Additive, {0});
}

/// A dynamic box: dimensions the box covers whole (the index is then
/// clamped to 0) pass through, the others need the whole dimension, since
/// the offset is known only at run time. The scalar indices have no
/// dimensions. `boxOperand` is the operand of the box's shape (the update
/// of dynamic_update_slice), or -1 when the box is the result.
static ShardingRule dynamicBoxRule(Operation *op, Value operand, Value box, int boxOperand) {
  ShardingRule rule;
  std::vector<int64_t> in = shapeOf(operand), boxShape = shapeOf(box), dims;
  for (size_t d = 0; d < in.size(); ++d)
    dims.push_back(rule.addFactor(in[d], boxShape[d] == in[d] ? FactorKind::PassThrough
                                                              : FactorKind::NeedReplication));
  std::vector<int64_t> boxDims = dims;
  for (size_t d = 0; d < in.size(); ++d)
    if (boxShape[d] != in[d]) // a factor of another size: a new one, never split
      boxDims[d] = rule.addFactor(boxShape[d], FactorKind::NeedReplication);
  std::vector<std::vector<int64_t>> operands;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    operands.push_back(i == 0 ? dims : (int)i == boxOperand ? boxDims : std::vector<int64_t>{});
  rule.setDims(operands, {boxOperand < 0 ? boxDims : dims});
  // Linear in the operand and the update together; the indices stay whole.
  std::vector<unsigned> linear = {0};
  if (boxOperand > 0)
    linear.push_back(boxOperand);
  return rule.linearIn(PartialFlow::Additive, linear);
}

/// A dimension taken whole may be split: it is taken whole locally too.
void SliceOp::localizeAttributes(NamedAttrList &attributes, TypeRange localOperandTypes,
                                 TypeRange) {
  SmallVector<int64_t> limit(getLimit());
  auto localIn = cast<RankedTensorType>(localOperandTypes[0]);
  for (size_t d = 0; d < limit.size(); ++d)
    if (localIn.getDimSize(d) != getOperand().getType().getDimSize(d))
      limit[d] = localIn.getDimSize(d);
  attributes.set(getLimitAttrName(), DenseI64ArrayAttr::get(getContext(), limit));
}

ShardingRule DynamicSliceOp::getShardingRule() {
  return dynamicBoxRule(*this, getOperand(), getResult(), -1);
}

ShardingRule DynamicUpdateSliceOp::getShardingRule() {
  return dynamicBoxRule(*this, getOperand(), getUpdate(), 1);
}

ShardingRule ConcatenateOp::getShardingRule() {
  ShardingRule rule = elementwiseRule(*this);
  rule.factors[getDim()].kind = FactorKind::NeedReplication;
  std::vector<unsigned> all(getNumOperands());
  std::iota(all.begin(), all.end(), 0u);
  return rule.linearIn(PartialFlow::Additive, all);
}

/// result[i..., j...] = table[indices[i...], j...]: the row dimension must be
/// whole; index and row-element dimensions pass through.
ShardingRule TakeOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> table = shapeOf(getTable()), indices = shapeOf(getIndices());
  std::vector<int64_t> t, idx, out;
  t.push_back(rule.addFactor(table[0], FactorKind::NeedReplication));
  for (int64_t size : indices) {
    idx.push_back(rule.addFactor(size, FactorKind::PassThrough));
    out.push_back(idx.back());
  }
  for (size_t d = 1; d < table.size(); ++d) {
    t.push_back(rule.addFactor(table[d], FactorKind::PassThrough));
    out.push_back(t.back());
  }
  rule.setDims({t, idx}, {out});
  return rule.linearIn(PartialFlow::Additive, {0});
}

/// The adjoint of take: index dimensions are summed over (a reduction), the
/// row dimension must be whole, row-element dimensions pass through.
ShardingRule ScatterAddOp::getShardingRule() {
  ShardingRule rule;
  std::vector<int64_t> operand = shapeOf(getOperand()), indices = shapeOf(getIndices());
  std::vector<int64_t> o, idx, upd;
  o.push_back(rule.addFactor(operand[0], FactorKind::NeedReplication));
  for (int64_t size : indices) {
    idx.push_back(rule.addFactor(size, FactorKind::Reduction));
    upd.push_back(idx.back());
  }
  for (size_t d = 1; d < operand.size(); ++d) {
    o.push_back(rule.addFactor(operand[d], FactorKind::PassThrough));
    upd.push_back(o.back());
  }
  rule.setDims({o, idx, upd}, {o});
  rule.accumulator = 0;
  rule.reductionName = "index";
  return rule.linearIn(PartialFlow::Additive, {0, 2});
}

} // namespace shardc
