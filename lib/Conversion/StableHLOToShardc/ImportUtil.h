//===- ImportUtil.h - reading the attributes of imported ops ----*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_IMPORTUTIL_H
#define SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_IMPORTUTIL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace shardc::import {

using namespace mlir;

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

} // namespace shardc::import

#endif // SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_IMPORTUTIL_H
