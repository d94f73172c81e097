//===- Indexing.cpp - gather, scatter, reverse and pad --------------------===//
//
// The gathers and scatters JAX emits for `table[idx]`, `jnp.take` and their
// gradients select whole slices along one operand dimension `a`:
//
//   gather:  collapsed_slice_dims = start_index_map = [a], slice sizes 1 at
//            a and whole elsewhere, indices with a trailing index vector of
//            one (or none);
//   scatter: inserted_window_dims = scatter_dims_to_operand_dims = [a],
//            whole windows, and a body that adds.
//
// They become shardc.take and shardc.scatter_add along the first dimension,
// between transposes when `a` is another one. StableHLO clamps a gather's
// start index into the operand and skips a scatter's out-of-range updates;
// shardc's ops reject indices out of range, so the indices are clamped
// first, and out-of-range updates zeroed, which keeps StableHLO's results.
//
// reverse is a take of the indices n-1, ..., 0; pad without interior
// padding is a concatenation with broadcast padding values (a slice where
// an edge is negative).
//
//===----------------------------------------------------------------------===//

#include "Indexing.h"
#include "ImportUtil.h"

#include <numeric>

namespace shardc::import {

namespace {

struct Dims {
  DictionaryAttr dict;
  SmallVector<int64_t> get(StringRef key) const {
    std::optional<SmallVector<int64_t>> v = intsOf(dict ? dict.get(key) : Attribute());
    return v ? *v : SmallVector<int64_t>();
  }
  std::optional<int64_t> one(StringRef key) const {
    return intOf(dict ? dict.get(key) : Attribute());
  }
};

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[perm[i]] = (int64_t)i;
  return inv;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != (int64_t)i)
      return false;
  return true;
}

Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  if (isIdentity(perm))
    return v;
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return makeOp(b, loc, "transpose", v, RankedTensorType::get(shape, t.getElementType()),
                {b.getNamedAttr("permutation", b.getDenseI64ArrayAttr(perm))});
}

/// The indices without their index vector dimension (of size one), and that
/// dimension's position; failure when it is not of size one.
FailureOr<Value> indexBatch(OpBuilder &b, Location loc, Value indices, int64_t vectorDim) {
  auto t = cast<RankedTensorType>(indices.getType());
  if (vectorDim == t.getRank())
    return indices;
  if (vectorDim < 0 || vectorDim > t.getRank() || t.getDimSize(vectorDim) != 1)
    return failure();
  SmallVector<int64_t> shape(t.getShape());
  shape.erase(shape.begin() + vectorDim);
  return makeOp(b, loc, "reshape", indices, RankedTensorType::get(shape, t.getElementType()));
}

/// `a` first, then the other dimensions in order.
SmallVector<int64_t> frontFirst(int64_t rank, int64_t a) {
  SmallVector<int64_t> perm = {a};
  for (int64_t d = 0; d < rank; ++d)
    if (d != a)
      perm.push_back(d);
  return perm;
}

Value clampIndices(OpBuilder &b, Location loc, Value idx, int64_t rows) {
  auto t = cast<RankedTensorType>(idx.getType());
  Value lo = makeSplat(b, loc, t, 0), hi = makeSplat(b, loc, t, (double)(rows - 1));
  return makeOp(b, loc, "min", {makeOp(b, loc, "max", {idx, lo}, t), hi}, t);
}

} // namespace

FailureOr<Value> convertGather(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  auto reject = [&](const Twine &why) {
    return op->emitError("'stablehlo.gather' is not supported by shardc's StableHLO importer: ")
           << why;
  };
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return reject("it takes an operand and indices");
  auto operandType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!operandType || !resultType)
    return reject("ranked tensors only");
  Dims d{dyn_cast_or_null<DictionaryAttr>(attrOf(op, {"dimension_numbers"}))};
  std::optional<SmallVector<int64_t>> sizes = intsOf(attrOf(op, {"slice_sizes"}));
  std::optional<int64_t> vectorDim = d.one("index_vector_dim");
  SmallVector<int64_t> collapsed = d.get("collapsed_slice_dims"), map = d.get("start_index_map"),
                       offsets = d.get("offset_dims");
  if (!d.dict || !sizes || !vectorDim)
    return reject("it needs its dimension numbers and slice sizes");
  if (!d.get("operand_batching_dims").empty() || collapsed.size() != 1 || map != collapsed)
    return reject("only gathers of whole slices along one dimension (take) are");
  int64_t rank = operandType.getRank(), a = map[0];
  if (a < 0 || a >= rank || (int64_t)sizes->size() != rank)
    return reject("its dimensions are out of range");
  for (int64_t k = 0; k < rank; ++k)
    if ((*sizes)[k] != (k == a ? 1 : operandType.getDimSize(k)))
      return reject("only gathers of whole slices along one dimension (take) are");
  FailureOr<Value> idx = indexBatch(b, loc, op->getOperand(1), *vectorDim);
  if (failed(idx))
    return reject("the index vector must have one element");
  int64_t batch = cast<RankedTensorType>(idx->getType()).getRank();
  if ((int64_t)offsets.size() != rank - 1 || resultType.getRank() != batch + rank - 1)
    return reject("its result does not hold the batch and slice dimensions");
  Value table = transpose(b, loc, op->getOperand(0), frontFirst(rank, a));
  Value clamped = clampIndices(b, loc, *idx, operandType.getDimSize(a));
  // take gives the batch dimensions, then the slice's; the result puts the
  // slice's at offset_dims.
  SmallVector<int64_t> perm;
  for (int64_t p = 0, k = 0, j = 0; p < resultType.getRank(); ++p)
    perm.push_back(llvm::is_contained(offsets, p) ? batch + k++ : j++);
  SmallVector<int64_t> takeShape;
  for (int64_t p : inverse(perm))
    takeShape.push_back(resultType.getDimSize(p));
  Value taken = makeOp(b, loc, "take", {table, clamped},
                       RankedTensorType::get(takeShape, resultType.getElementType()));
  return transpose(b, loc, taken, perm);
}

FailureOr<Value> convertScatterAdd(Operation *op, OpBuilder &b, bool adds) {
  Location loc = op->getLoc();
  auto reject = [&](const Twine &why) {
    return op->emitError("'stablehlo.scatter' is not supported by shardc's StableHLO importer: ")
           << why;
  };
  if (op->getNumOperands() != 3 || op->getNumResults() != 1)
    return reject("only scatters of one operand are");
  if (!adds)
    return reject("only scatters that add (scatter-add, a gather's gradient) are");
  auto operandType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto updatesType = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
  if (!operandType || !updatesType)
    return reject("ranked tensors only");
  Dims d{dyn_cast_or_null<DictionaryAttr>(attrOf(op, {"scatter_dimension_numbers"}))};
  std::optional<int64_t> vectorDim = d.one("index_vector_dim");
  SmallVector<int64_t> inserted = d.get("inserted_window_dims"),
                       map = d.get("scatter_dims_to_operand_dims"),
                       windows = d.get("update_window_dims");
  if (!d.dict || !vectorDim)
    return reject("it needs its dimension numbers");
  if (!d.get("input_batching_dims").empty() || inserted.size() != 1 || map != inserted)
    return reject("only scatters of whole slices along one dimension are");
  int64_t rank = operandType.getRank(), a = map[0];
  if (a < 0 || a >= rank)
    return reject("its dimensions are out of range");
  FailureOr<Value> idx = indexBatch(b, loc, op->getOperand(1), *vectorDim);
  if (failed(idx))
    return reject("the index vector must have one element");
  auto idxType = cast<RankedTensorType>(idx->getType());
  int64_t batch = idxType.getRank();
  if ((int64_t)windows.size() != rank - 1 || updatesType.getRank() != batch + rank - 1)
    return reject("its updates do not hold the batch and window dimensions");
  // Updates in take's order (batch, then window), windows whole.
  SmallVector<int64_t> perm;
  for (int64_t p = 0, k = 0, j = 0; p < updatesType.getRank(); ++p)
    perm.push_back(llvm::is_contained(windows, p) ? batch + k++ : j++);
  Value updates = transpose(b, loc, op->getOperand(2), inverse(perm));
  SmallVector<int64_t> front = frontFirst(rank, a);
  auto u = cast<RankedTensorType>(updates.getType());
  for (int64_t k = 0; k < rank - 1; ++k)
    if (u.getDimSize(batch + k) != operandType.getDimSize(front[k + 1]))
      return reject("only whole windows are");
  // Out-of-range updates are skipped: zeroed, at a clamped row.
  int64_t rows = operandType.getDimSize(a);
  auto pred = RankedTensorType::get(idxType.getShape(), b.getI1Type());
  Value lo = makeSplat(b, loc, idxType, 0), hi = makeSplat(b, loc, idxType, (double)(rows - 1));
  Value inRange = makeOp(
      b, loc, "select",
      {makeOp(b, loc, "compare", {*idx, lo}, pred,
              {b.getNamedAttr("direction",
                              CompareDirectionAttr::get(b.getContext(), CompareDirection::GE))}),
       makeOp(b, loc, "compare", {*idx, hi}, pred,
              {b.getNamedAttr("direction",
                              CompareDirectionAttr::get(b.getContext(), CompareDirection::LE))}),
       makeSplat(b, loc, pred, 0)},
      pred);
  SmallVector<int64_t> batchDims(batch);
  std::iota(batchDims.begin(), batchDims.end(), 0);
  Value mask = makeOp(b, loc, "broadcast_in_dim", inRange,
                      RankedTensorType::get(u.getShape(), b.getI1Type()),
                      {b.getNamedAttr("dims", b.getDenseI64ArrayAttr(batchDims))});
  updates = makeOp(b, loc, "select", {mask, updates, makeSplat(b, loc, u, 0)}, u);
  Value clamped = clampIndices(b, loc, *idx, rows);
  Value table = transpose(b, loc, op->getOperand(0), front);
  Value sum = makeOp(b, loc, "scatter_add", {table, clamped, updates}, table.getType());
  return transpose(b, loc, sum, inverse(front));
}

FailureOr<Value> convertReverse(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  std::optional<SmallVector<int64_t>> dims = intsOf(attrOf(op, {"dims", "dimensions"}));
  if (op->getNumOperands() != 1 || op->getNumResults() != 1 || !dims)
    return op->emitError("reverse takes one operand and its dimensions");
  Value v = op->getOperand(0);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return op->emitError("reverse takes a ranked tensor");
  for (int64_t d : *dims) {
    if (d < 0 || d >= type.getRank())
      return op->emitError("reverse's dimension ") << d << " is out of range";
    int64_t n = type.getDimSize(d);
    SmallVector<int32_t> order;
    for (int64_t i = n - 1; i >= 0; --i)
      order.push_back((int32_t)i);
    auto idxType = RankedTensorType::get({n}, b.getI32Type());
    Value idx = makeOp(b, loc, "constant", {}, idxType,
                       {b.getNamedAttr("value", DenseElementsAttr::get(idxType, ArrayRef(order)))});
    SmallVector<int64_t> front = frontFirst(type.getRank(), d);
    Value t = transpose(b, loc, v, front);
    Value taken = makeOp(b, loc, "take", {t, idx}, t.getType());
    v = transpose(b, loc, taken, inverse(front));
  }
  return v;
}

FailureOr<Value> convertPad(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  std::optional<SmallVector<int64_t>> low = intsOf(attrOf(op, {"low", "edge_padding_low"})),
                                      high = intsOf(attrOf(op, {"high", "edge_padding_high"})),
                                      interior =
                                          intsOf(attrOf(op, {"interior", "interior_padding"}));
  if (op->getNumOperands() != 2 || op->getNumResults() != 1 || !low || !high)
    return op->emitError("pad takes an operand, a padding value and its edges");
  Value v = op->getOperand(0), pad = op->getOperand(1);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || (int64_t)low->size() != type.getRank() || (int64_t)high->size() != type.getRank())
    return op->emitError("pad's edges do not match its operand's rank");
  if (interior && llvm::any_of(*interior, [](int64_t i) { return i != 0; }))
    return op->emitError("'stablehlo.pad' is not supported by shardc's StableHLO importer: "
                         "interior padding is not");
  for (int64_t d = 0; d < type.getRank(); ++d) {
    auto t = cast<RankedTensorType>(v.getType());
    // Negative edges cut.
    if ((*low)[d] < 0 || (*high)[d] < 0) {
      SmallVector<int64_t> start(t.getRank(), 0), limit(t.getShape()), strides(t.getRank(), 1),
          shape(t.getShape());
      start[d] = std::max<int64_t>(0, -(*low)[d]);
      limit[d] = t.getDimSize(d) - std::max<int64_t>(0, -(*high)[d]);
      if (limit[d] < start[d])
        return op->emitError("pad cuts more than its operand holds");
      shape[d] = limit[d] - start[d];
      t = RankedTensorType::get(shape, t.getElementType());
      v = makeOp(b, loc, "slice", v, t,
                 {b.getNamedAttr("start", b.getDenseI64ArrayAttr(start)),
                  b.getNamedAttr("limit", b.getDenseI64ArrayAttr(limit)),
                  b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides))});
    }
    SmallVector<Value> parts;
    auto edge = [&](int64_t size) {
      SmallVector<int64_t> shape(t.getShape());
      shape[d] = size;
      parts.push_back(makeOp(b, loc, "broadcast_in_dim", pad,
                             RankedTensorType::get(shape, t.getElementType()),
                             {b.getNamedAttr("dims", b.getDenseI64ArrayAttr({}))}));
    };
    if ((*low)[d] > 0)
      edge((*low)[d]);
    parts.push_back(v);
    if ((*high)[d] > 0)
      edge((*high)[d]);
    if (parts.size() > 1) {
      SmallVector<int64_t> shape(t.getShape());
      shape[d] += std::max<int64_t>(0, (*low)[d]) + std::max<int64_t>(0, (*high)[d]);
      v = makeOp(b, loc, "concatenate", parts, RankedTensorType::get(shape, t.getElementType()),
                 {b.getNamedAttr("dim", b.getI64IntegerAttr(d))});
    }
  }
  return v;
}

} // namespace shardc::import
