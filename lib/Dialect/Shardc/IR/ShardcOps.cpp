//===- ShardcOps.cpp - shardc operations ----------------------------------===//
//
// Verifiers, result type inference and custom syntax of the tensor ops (the
// mesh, sharding ops and collectives are in ShardingOps.cpp). Shape
// rules live in the `inferReturnTypes` of the ops whose result they determine,
// so that a wrong result type and a malformed attribute are both reported by
// one function, with the reason.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Common/MatmulPrecision.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace shardc;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Checks that every entry of `dims` is a dimension of a rank-`rank` tensor and
/// that none is repeated (also across the dims already in `seen`).
static LogicalResult checkDims(std::optional<Location> loc, const std::string &what,
                               ArrayRef<int64_t> dims, int64_t rank,
                               llvm::SmallSet<int64_t, 8> &seen) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, what, " has dimension ", d, ", out of range for rank ", rank);
    if (!seen.insert(d).second)
      return emitOptionalError(loc, what, " repeats dimension ", d);
  }
  return success();
}

static LogicalResult checkDims(std::optional<Location> loc, const std::string &what,
                               ArrayRef<int64_t> dims, int64_t rank) {
  llvm::SmallSet<int64_t, 8> seen;
  return checkDims(loc, what, dims, rank, seen);
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

Operation *ShardcDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult IotaOp::verify() {
  auto type = getType();
  if (type.getRank() == 0)
    return emitOpError("result must have rank at least 1");
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= type.getRank())
    return emitOpError("dim ") << dim << " is out of range for rank " << type.getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + CompareOp::getOperationName().str() + "' op ";
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  results.push_back(RankedTensorType::get(lhs.getShape(), IntegerType::get(ctx, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::verify() {
  StringAttr name = getPrecisionAttr();
  if (!name)
    return success();
  MatmulPrecision p;
  if (!parseMatmulPrecision(name.str(), p))
    return emitOpError("precision \"")
           << name.getValue() << "\" is none of \"f32\", \"bf16\", \"tf32\"";
  StringRef precision = name.getValue();
  for (Value operand : {getLhs(), getRhs()}) {
    Type element = cast<ShapedType>(operand.getType()).getElementType();
    if (p != MatmulPrecision::F32 && !element.isF32() &&
        !(p == MatmulPrecision::BF16 && element.isBF16()))
      return emitOpError("precision \"")
             << precision << "\" rounds f32 operands"
             << (p == MatmulPrecision::BF16 ? " (or reads bf16 ones)" : "") << ", not " << element;
  }
  return success();
}

LogicalResult DotGeneralOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + DotGeneralOp::getOperationName().str() + "' op ";
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  ArrayRef<int64_t> lb = adaptor.getLhsBatchingDims(), rb = adaptor.getRhsBatchingDims();
  ArrayRef<int64_t> lc = adaptor.getLhsContractingDims(), rc = adaptor.getRhsContractingDims();
  // A bf16 product reads f32 or bf16 operands and yields f32 (the verifier
  // checks the operands); any other, operands of one element type.
  bool bf16 = adaptor.getPrecision() == MatmulPrecision::BF16;
  if (!bf16 && lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, op, "operands have different element types ",
                             lhs.getElementType(), " and ", rhs.getElementType());
  if (lb.size() != rb.size())
    return emitOptionalError(loc, op, "has ", lb.size(), " lhs batching dims but ", rb.size(),
                             " rhs batching dims");
  if (lc.size() != rc.size())
    return emitOptionalError(loc, op, "has ", lc.size(), " lhs contracting dims but ", rc.size(),
                             " rhs contracting dims");
  llvm::SmallSet<int64_t, 8> lseen, rseen;
  if (failed(checkDims(loc, op + "lhs batching dims", lb, lhs.getRank(), lseen)) ||
      failed(checkDims(loc, op + "lhs contracting dims", lc, lhs.getRank(), lseen)) ||
      failed(checkDims(loc, op + "rhs batching dims", rb, rhs.getRank(), rseen)) ||
      failed(checkDims(loc, op + "rhs contracting dims", rc, rhs.getRank(), rseen)))
    return failure();
  for (auto [l, r] : llvm::zip(lb, rb))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(loc, op, "batching dims lhs[", l, "] = ", lhs.getDimSize(l),
                               " and rhs[", r, "] = ", rhs.getDimSize(r), " differ in size");
  for (auto [l, r] : llvm::zip(lc, rc))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(loc, op, "contracting dims lhs[", l, "] = ", lhs.getDimSize(l),
                               " and rhs[", r, "] = ", rhs.getDimSize(r), " differ in size");
  SmallVector<int64_t> shape;
  for (int64_t l : lb)
    shape.push_back(lhs.getDimSize(l));
  for (int64_t d = 0; d < lhs.getRank(); ++d)
    if (!lseen.contains(d))
      shape.push_back(lhs.getDimSize(d));
  for (int64_t d = 0; d < rhs.getRank(); ++d)
    if (!rseen.contains(d))
      shape.push_back(rhs.getDimSize(d));
  Type element = lhs.getElementType();
  if (bf16 && (element.isBF16() || rhs.getElementType().isBF16()))
    element = Float32Type::get(lhs.getContext());
  results.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + ReduceOp::getOperationName().str() + "' op ";
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  if (adaptor.getKind() == ReduceKind::Mean)
    return emitOptionalError(loc, op,
                             "kind 'mean' is for all_reduce; "
                             "reduce with 'sum' and divide");
  ArrayRef<int64_t> dims = adaptor.getDims();
  if (dims.empty())
    return emitOptionalError(loc, op, "must reduce at least one dimension");
  if (failed(checkDims(loc, op + "dims", dims, type.getRank())))
    return failure();
  for (int64_t d : dims)
    if (type.getDimSize(d) == 0)
      return emitOptionalError(loc, op, "reduces over dimension ", d, ", which is empty");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(type.getDimSize(d));
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + ArgMaxOp::getOperationName().str() + "' op ";
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= type.getRank())
    return emitOptionalError(loc, op, "dim ", dim, " is out of range for rank ", type.getRank());
  if (type.getDimSize(dim) == 0)
    return emitOptionalError(loc, op, "dim ", dim,
                             " is empty (the largest of nothing has no index)");
  if (type.getDimSize(dim) > INT32_MAX)
    return emitOptionalError(loc, op, "dim ", dim, " has more elements than an i32 index counts");
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  results.push_back(RankedTensorType::get(shape, IntegerType::get(context, 32)));
  return success();
}

/// An attention op's scale must be positive and finite; `op` starts the
/// message ("'shardc.attention' op ").
static LogicalResult checkAttentionScale(std::optional<Location> loc, const std::string &op,
                                         double scale) {
  if (!std::isfinite(scale) || scale <= 0)
    return emitOptionalError(loc, op, "scale must be positive and finite, not ", scale);
  return success();
}

/// The result shape [B, T, N, H] of attention over `qkv` [B, T, 3, N, H],
/// or an error naming `op`.
static FailureOr<SmallVector<int64_t>> attentionShape(std::optional<Location> loc, StringRef opName,
                                                      RankedTensorType qkv, double scale) {
  std::string op = "'" + opName.str() + "' op ";
  if (qkv.getRank() != 5 || qkv.getDimSize(2) != 3)
    return emitOptionalError(loc, op,
                             "qkv must be [B, T, 3, N, H] (queries, keys and values "
                             "along dimension 2), not ",
                             qkv);
  if (failed(checkAttentionScale(loc, op, scale)))
    return failure();
  return SmallVector<int64_t>{qkv.getDimSize(0), qkv.getDimSize(1), qkv.getDimSize(3),
                              qkv.getDimSize(4)};
}

/// {causal, the bits of scale as an f64}.
static std::vector<int64_t> attentionPlanAttrs(bool causal, double scale) {
  int64_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  return {causal ? 1 : 0, bits};
}

LogicalResult QkvAttentionOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                               Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto qkv = cast<RankedTensorType>(adaptor.getQkv().getType());
  FailureOr<SmallVector<int64_t>> shape = attentionShape(loc, QkvAttentionOp::getOperationName(),
                                                         qkv, adaptor.getScale().convertToDouble());
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, qkv.getElementType()));
  return success();
}

std::vector<int64_t> QkvAttentionOp::getPlanAttrs() {
  return attentionPlanAttrs(getCausal(), getScale().convertToDouble());
}

LogicalResult QkvAttentionGradOp::inferReturnTypes(MLIRContext *context,
                                                   std::optional<Location> loc, Adaptor adaptor,
                                                   SmallVectorImpl<Type> &results) {
  auto qkv = cast<RankedTensorType>(adaptor.getQkv().getType());
  auto dout = cast<RankedTensorType>(adaptor.getDout().getType());
  FailureOr<SmallVector<int64_t>> shape = attentionShape(
      loc, QkvAttentionGradOp::getOperationName(), qkv, adaptor.getScale().convertToDouble());
  if (failed(shape))
    return failure();
  auto want = RankedTensorType::get(*shape, qkv.getElementType());
  if (dout != want)
    return emitOptionalError(loc, "'", QkvAttentionGradOp::getOperationName(),
                             "' op dout must have the attention result's type ", want, ", not ",
                             dout);
  results.push_back(qkv);
  return success();
}

std::vector<int64_t> QkvAttentionGradOp::getPlanAttrs() {
  return attentionPlanAttrs(getCausal(), getScale().convertToDouble());
}

/// Checks attention's operands q [B, T, N, H], k and v [B, S, N, H] and
/// kv_lengths [B] (where given) and its scale; `op` starts the message.
static LogicalResult checkAttentionOperands(std::optional<Location> loc, const std::string &op,
                                            RankedTensorType q, RankedTensorType k,
                                            RankedTensorType v, Value lengths, double scale) {
  if (q.getRank() != 4)
    return emitOptionalError(loc, op, "q must be [B, T, N, H], not ", q);
  if (k.getRank() != 4 || k.getDimSize(0) != q.getDimSize(0) ||
      k.getDimSize(2) != q.getDimSize(2) || k.getDimSize(3) != q.getDimSize(3) ||
      k.getElementType() != q.getElementType())
    return emitOptionalError(loc, op, "k must be [B, S, N, H] with q's B, N, H and type, not ", k,
                             " for q ", q);
  if (v != k)
    return emitOptionalError(loc, op, "v must have k's type ", k, ", not ", v);
  if (lengths) {
    auto t = cast<RankedTensorType>(lengths.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != q.getDimSize(0))
      return emitOptionalError(loc, op, "kv_lengths must be [B] (one length per batch item), not ",
                               t);
  }
  return checkAttentionScale(loc, op, scale);
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto q = cast<RankedTensorType>(adaptor.getQ().getType());
  if (failed(checkAttentionOperands(loc, "'" + AttentionOp::getOperationName().str() + "' op ", q,
                                    cast<RankedTensorType>(adaptor.getK().getType()),
                                    cast<RankedTensorType>(adaptor.getV().getType()),
                                    adaptor.getKvLengths(), adaptor.getScale().convertToDouble())))
    return failure();
  results.push_back(q);
  return success();
}

std::vector<int64_t> AttentionOp::getPlanAttrs() {
  return attentionPlanAttrs(getCausal(), getScale().convertToDouble());
}

LogicalResult AttentionGradOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + AttentionGradOp::getOperationName().str() + "' op ";
  auto q = cast<RankedTensorType>(adaptor.getQ().getType());
  auto k = cast<RankedTensorType>(adaptor.getK().getType());
  auto dout = cast<RankedTensorType>(adaptor.getDout().getType());
  if (failed(checkAttentionOperands(loc, op, q, k, cast<RankedTensorType>(adaptor.getV().getType()),
                                    adaptor.getKvLengths(), adaptor.getScale().convertToDouble())))
    return failure();
  if (dout != q)
    return emitOptionalError(loc, op, "dout must have the attention result's type ", q, ", not ",
                             dout);
  // dq, dk and dv one after another along positions.
  results.push_back(RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1) + 2 * k.getDimSize(1), q.getDimSize(2), q.getDimSize(3)},
      q.getElementType()));
  return success();
}

std::vector<int64_t> AttentionGradOp::getPlanAttrs() {
  return attentionPlanAttrs(getCausal(), getScale().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto in = getOperand().getType();
  auto out = getType();
  ArrayRef<int64_t> dims = getDims();
  if ((int64_t)dims.size() != in.getRank())
    return emitOpError("dims has ")
           << dims.size() << " entries but the operand has rank " << in.getRank();
  if (failed(checkDims(getLoc(), "'shardc.broadcast_in_dim' op dims", dims, out.getRank())))
    return failure();
  for (auto [i, d] : llvm::enumerate(dims))
    if (in.getDimSize(i) != 1 && in.getDimSize(i) != out.getDimSize(d))
      return emitOpError("operand dimension ")
             << i << " of size " << in.getDimSize(i) << " cannot broadcast to result "
             << "dimension " << d << " of size " << out.getDimSize(d);
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getOperand().getType().getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << getOperand().getType() << " (" << getOperand().getType().getNumElements()
           << " elements) into " << getType() << " (" << getType().getNumElements() << " elements)";
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + TransposeOp::getOperationName().str() + "' op ";
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if ((int64_t)perm.size() != type.getRank())
    return emitOptionalError(loc, op, "permutation has ", perm.size(),
                             " entries but the operand has rank ", type.getRank());
  if (failed(checkDims(loc, op + "permutation", perm, type.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  std::string op = "'" + SliceOp::getOperationName().str() + "' op ";
  auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit(),
                    strides = adaptor.getStrides();
  int64_t rank = type.getRank();
  if ((int64_t)start.size() != rank || (int64_t)limit.size() != rank ||
      (int64_t)strides.size() != rank)
    return emitOptionalError(loc, op, "start, limit and strides need ", rank,
                             " entries each (the operand rank), got ", start.size(), ", ",
                             limit.size(), " and ", strides.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (strides[d] < 1)
      return emitOptionalError(loc, op, "stride in dimension ", d, " must be positive, got ",
                               strides[d]);
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > type.getDimSize(d))
      return emitOptionalError(loc, op, "dimension ", d, ": need 0 <= start (", start[d],
                               ") <= limit (", limit[d], ") <= size (", type.getDimSize(d), ")");
    int64_t extent = limit[d] - start[d];
    shape.push_back(extent == 0 ? 0 : (extent - 1) / strides[d] + 1);
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

/// The start indices of a dynamic slice or update: one scalar per dimension
/// of `operand`, all of one type; `box` fits inside `operand` dimension by
/// dimension with the same element type.
static LogicalResult verifyDynamicBox(Operation *op, RankedTensorType operand, RankedTensorType box,
                                      ValueRange indices, StringRef boxName) {
  if ((int64_t)indices.size() != operand.getRank())
    return op->emitOpError() << "needs " << operand.getRank()
                             << " start indices (the operand rank), got " << indices.size();
  for (auto [i, index] : llvm::enumerate(indices))
    if (index.getType() != indices.front().getType())
      return op->emitOpError() << "start index #" << i << " has type " << index.getType()
                               << " but start index #0 has type " << indices.front().getType();
  if (box.getElementType() != operand.getElementType() || box.getRank() != operand.getRank())
    return op->emitOpError() << "the " << boxName << " " << box
                             << " must have the operand's element type and rank (" << operand
                             << ")";
  for (int64_t d = 0; d < operand.getRank(); ++d)
    if (box.getDimSize(d) > operand.getDimSize(d))
      return op->emitOpError() << "the " << boxName << " has size " << box.getDimSize(d)
                               << " in dimension " << d << ", more than the operand's "
                               << operand.getDimSize(d);
  return success();
}

LogicalResult DynamicSliceOp::verify() {
  return verifyDynamicBox(*this, cast<RankedTensorType>(getOperand().getType()),
                          cast<RankedTensorType>(getResult().getType()), getStartIndices(),
                          "result");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  return verifyDynamicBox(*this, cast<RankedTensorType>(getOperand().getType()),
                          cast<RankedTensorType>(getUpdate().getType()), getStartIndices(),
                          "update");
}

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + ConcatenateOp::getOperationName().str() + "' op ";
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, op, "needs at least one input");
  auto first = cast<RankedTensorType>(adaptor.getInputs().front().getType());
  int64_t dim = adaptor.getDimAttr().getInt();
  if (dim < 0 || dim >= first.getRank())
    return emitOptionalError(loc, op, "dim ", dim, " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, value] : llvm::enumerate(adaptor.getInputs().drop_front())) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() != first.getElementType() || type.getRank() != first.getRank())
      return emitOptionalError(loc, op, "input #", i + 1, " of type ", type,
                               " does not match input #0 of type ", first);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != dim && type.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(loc, op, "input #", i + 1, " has size ", type.getDimSize(d),
                                 " in dimension ", d, " but input #0 has ", first.getDimSize(d));
    shape[dim] += type.getDimSize(dim);
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

/// Shape of `take(table, indices)`: indices' shape, then the table's row shape.
static SmallVector<int64_t> gatherShape(RankedTensorType table, RankedTensorType indices) {
  SmallVector<int64_t> shape(indices.getShape());
  llvm::append_range(shape, table.getShape().drop_front());
  return shape;
}

LogicalResult TakeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  std::string op = "'" + TakeOp::getOperationName().str() + "' op ";
  auto table = cast<RankedTensorType>(adaptor.getTable().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (table.getRank() < 1)
    return emitOptionalError(loc, op, "table must have rank at least 1");
  results.push_back(RankedTensorType::get(gatherShape(table, indices), table.getElementType()));
  return success();
}

LogicalResult ScatterAddOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  std::string op = "'" + ScatterAddOp::getOperationName().str() + "' op ";
  auto operand = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto updates = cast<RankedTensorType>(adaptor.getUpdates().getType());
  if (operand.getRank() < 1)
    return emitOptionalError(loc, op, "operand must have rank at least 1");
  if (updates.getElementType() != operand.getElementType())
    return emitOptionalError(loc, op, "updates element type ", updates.getElementType(),
                             " differs from operand element type ", operand.getElementType());
  SmallVector<int64_t> expected = gatherShape(operand, indices);
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return emitOptionalError(loc, op, "updates must have shape ", formatShape(expected),
                             " (indices shape, then operand shape without its first "
                             "dimension), got ",
                             formatShape(updates.getShape()));
  results.push_back(operand);
  return success();
}

//===----------------------------------------------------------------------===//
// Custom syntax used by the generated parsers and printers
//===----------------------------------------------------------------------===//

/// `[<@mesh, [...]>, ...]`: a list of shardings without their prefix.
static ParseResult parseShardingList(OpAsmParser &parser, ArrayAttr &list) {
  SmallVector<Attribute> shardings;
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&] {
        Attribute sharding = ShardingAttr::parse(parser, Type());
        if (!sharding)
          return failure();
        shardings.push_back(sharding);
        return success();
      }))
    return failure();
  list = parser.getBuilder().getArrayAttr(shardings);
  return success();
}

static void printShardingList(OpAsmPrinter &p, Operation *, ArrayAttr list) {
  p << "[";
  llvm::interleaveComma(list, p, [&](Attribute a) { cast<ShardingAttr>(a).print(p); });
  p << "]";
}

#define GET_OP_CLASSES
#include "shardc/Dialect/Shardc/IR/ShardcOps.cpp.inc"
