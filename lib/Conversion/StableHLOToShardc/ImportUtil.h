//===- ImportUtil.h - reading the attributes of imported ops ----*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_IMPORTUTIL_H
#define SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_IMPORTUTIL_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace shardc::import {

using namespace mlir;

inline bool isImportedDialect(StringRef ns) {
  return ns == "stablehlo" || ns == "chlo" || ns == "sdy";
}

/// The dialect namespace of an op's name ("stablehlo" of "stablehlo.add").
inline StringRef dialectOf(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name.substr(0, name.find('.'));
}

/// An attribute of an op read in its printed form or its generic one, where
/// StableHLO's ODS names differ from the printed names (`permutation` and
/// `dims`) or hold it in properties.
inline mlir::Attribute attrOf(Operation *op, ArrayRef<StringRef> names) {
  for (StringRef name : names) {
    if (Attribute a = op->getAttr(name))
      return a;
    if (auto props = dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
      if (Attribute a = props.get(name))
        return a;
  }
  return {};
}

/// An integer list: `array<i64: ...>`, `dense<[...]> : tensor<Nxi64>` or
/// `[1, 2]` of integers.
inline std::optional<llvm::SmallVector<int64_t>> intsOf(Attribute a) {
  SmallVector<int64_t> out;
  if (auto arr = dyn_cast_or_null<DenseI64ArrayAttr>(a))
    return SmallVector<int64_t>(arr.asArrayRef());
  if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(a)) {
    for (const APInt &v : dense)
      out.push_back(v.getSExtValue());
    return out;
  }
  if (auto list = dyn_cast_or_null<ArrayAttr>(a)) {
    for (Attribute e : list) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i)
        return std::nullopt;
      out.push_back(i.getInt());
    }
    return out;
  }
  return std::nullopt;
}

inline std::optional<int64_t> intOf(Attribute a) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getInt();
  return std::nullopt;
}

inline std::optional<llvm::StringRef> stringOf(Attribute a) {
  if (auto s = dyn_cast_or_null<StringAttr>(a))
    return s.getValue();
  return std::nullopt;
}

/// Where each sdy.mesh went: meshes with the same axes are one (Shardy's
/// tests declare twins), and a mesh without axes (one device) is none.
struct MeshMap {
  llvm::StringMap<std::string> to; // "" for none
  /// The sharding on the mesh it went to; null on none.
  ShardingAttr map(ShardingAttr s) const {
    if (!s)
      return s;
    auto it = to.find(s.getMesh().getValue());
    if (it == to.end())
      return s;
    if (it->second.empty())
      return ShardingAttr();
    return ShardingAttr::get(s.getContext(), FlatSymbolRefAttr::get(s.getContext(), it->second),
                             s.getDims(), s.getPartial());
  }
};

/// A shardc op of one result, by name ("add" makes shardc.add).
inline Value makeOp(OpBuilder &b, Location loc, StringRef name, ValueRange operands, Type result,
                    ArrayRef<NamedAttribute> attrs = {}) {
  OperationState st(loc, "shardc." + name.str());
  st.addOperands(operands);
  st.addTypes(result);
  st.addAttributes(attrs);
  return b.create(st)->getResult(0);
}

/// A constant of `type` with every element `value`.
inline Value makeSplat(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  Type elt = type.getElementType();
  TypedAttr scalar = isa<FloatType>(elt) ? TypedAttr(b.getFloatAttr(elt, value))
                                         : TypedAttr(b.getIntegerAttr(elt, (int64_t)value));
  return makeOp(b, loc, "constant", {}, type,
                {b.getNamedAttr("value", DenseElementsAttr::get(type, scalar))});
}

} // namespace shardc::import

#endif // SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_IMPORTUTIL_H
