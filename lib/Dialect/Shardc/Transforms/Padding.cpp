//===- Padding.cpp - partitioning of dimensions split unevenly -------------===//

#include "Padding.h"

#include "Reshard.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace shardc {

LogicalResult checkPadding(func::FuncOp fn, MeshOp mesh, bool padUneven) {
  bool anyArgument = false;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    anyArgument |= fn.getArgAttr(i, ShardcDialect::kPadUnevenAttrName) != nullptr;
  auto check = [&](ShardingAttr s, Type type, bool allowed, function_ref<InFlightDiagnostic()> emit,
                   bool argument) -> LogicalResult {
    auto global = dyn_cast<RankedTensorType>(type);
    if (!s || allowed || !global || global.getRank() != s.getRank())
      return success();
    for (int64_t d = 0; d < global.getRank(); ++d) {
      SmallVector<StringRef> axes = s.getDimAxes(d);
      int64_t n = getGroupSize(mesh, axes), size = global.getDimSize(d);
      if (size % n == 0)
        continue;
      std::string list;
      for (StringRef a : axes)
        list += (list.empty() ? "" : ", ") + axisSyntax(a);
      return emit() << "dimension " << d << " of size " << size << " does not divide over axes ["
                    << list << "] (" << n << " devices); to pad it to " << (size + n - 1) / n * n
                    << ", partition with --shardc-partition=\"pad-uneven\""
                    << (argument ? " or mark the argument shardc.pad_uneven"
                                 : " or mark the argument it comes from shardc.pad_uneven");
    }
    return success();
  };
  bool allowed = padUneven || anyArgument;
  // User annotations and what propagation carried from them first, the
  // arguments last: an argument's padding is reported where it reaches.
  for (Operation &op : fn.getBody().front()) {
    if (auto c = dyn_cast<ShardingConstraintOp>(op))
      if (failed(check(
              c.getSharding(), c.getType(), allowed, [&] { return c.emitOpError(); }, false)))
        return failure();
    if (auto m = dyn_cast<ShardMapOp>(op)) {
      auto checkAll = [&](ArrayAttr shardings, TypeRange types, const char *what) {
        for (auto [i, a] : llvm::enumerate(shardings))
          if (failed(check(
                  cast<ShardingAttr>(a), types[i], allowed,
                  [&, i = i] { return m.emitOpError() << what << " #" << i << ": "; }, false)))
            return failure();
        return success();
      };
      if (failed(checkAll(m.getInShardings(), m.getInputs().getTypes(), "input")) ||
          failed(checkAll(m.getOutShardings(), m.getResultTypes(), "result")))
        return failure();
    }
    if (auto list = op.getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName))
      for (auto [i, a] : llvm::enumerate(list))
        if (failed(check(
                dyn_cast<ShardingAttr>(a), op.getResult(i).getType(), allowed,
                [&, i = i] { return op.emitError() << "result #" << i << ": "; }, false)))
          return failure();
  }
  for (unsigned i = 0; i < fn.getNumResults(); ++i) {
    auto s = fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
    if (failed(check(
            s, fn.getResultTypes()[i], allowed,
            [&] { return fn.emitError() << "result #" << i << ": "; }, false)))
      return failure();
  }
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    bool allowed = padUneven || fn.getArgAttr(i, ShardcDialect::kPadUnevenAttrName);
    auto s = fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
    if (failed(check(
            s, fn.getArgumentTypes()[i], allowed,
            [&] { return fn.emitError() << "argument #" << i << ": "; }, true)))
      return failure();
  }
  return success();
}

Value PaddingMasks::mask(Location at, Value local, int64_t dim, int64_t size,
                         ArrayRef<StringRef> axes, Reduction kind) {
  Location loc = causeLoc(at, "the padding of a dimension split unevenly, masked "
                              "before a reduction over it");
  auto type = cast<RankedTensorType>(local.getType());
  Type i1 = b.getI1Type();
  int64_t n = getGroupSize(mesh, axes), block = type.getDimSize(dim);
  std::string key = std::to_string(size) + " " + layoutStr(Layout{Axes(axes.begin(), axes.end())});
  Value &mine = made[key]; // made once per function
  if (!mine) {
    SmallVector<bool> real(block * n, false);
    for (int64_t k = 0; k < size; ++k)
      real[k] = true;
    Value all = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({block * n}, i1), ArrayRef<bool>(real)));
    mine = AllSliceOp::create(b, loc, RankedTensorType::get({block}, i1), all,
                              FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                              b.getStrArrayAttr(axes), b.getI64IntegerAttr(0));
  }
  Value mask = BroadcastInDimOp::create(b, loc, type.clone(i1), mine, ArrayRef<int64_t>{dim});
  Attribute identity;
  Type element = type.getElementType();
  if (auto f = dyn_cast<FloatType>(element)) {
    APFloat v = kind == Reduction::Sum
                    ? APFloat::getZero(f.getFloatSemantics())
                    : APFloat::getInf(f.getFloatSemantics(), kind == Reduction::Max);
    identity = FloatAttr::get(f, v);
  } else {
    unsigned width = element.getIntOrFloatBitWidth();
    APInt v = kind == Reduction::Sum   ? APInt::getZero(width)
              : kind == Reduction::Max ? APInt::getSignedMinValue(width)
                                       : APInt::getSignedMaxValue(width);
    identity = IntegerAttr::get(element, v);
  }
  Value fill = ConstantOp::create(b, loc, DenseElementsAttr::get(type, identity));
  return SelectOp::create(b, loc, type, mask, local, fill);
}

} // namespace shardc
