//===- RuntimeTypes.cpp - the dialect's values as runtime types -----------===//

#include "shardc/Conversion/RuntimeTypes.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Runtime/Memory.h"

using namespace mlir;

namespace shardc {

std::optional<DType> toDType(Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF64())
    return DType::F64;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isInteger(1))
    return DType::I1;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(64))
    return DType::I64;
  return std::nullopt;
}

Mesh toRuntimeMesh(MeshOp mesh) {
  Mesh m;
  for (Attribute name : mesh.getAxisNames())
    m.axisNames.push_back(cast<StringAttr>(name).getValue().str());
  m.axisSizes.assign(mesh.getAxisSizes().begin(), mesh.getAxisSizes().end());
  return m;
}

NamedSharding toNamedSharding(ShardingAttr sharding, MeshOp mesh) {
  NamedSharding s{toRuntimeMesh(mesh), {}};
  for (int64_t d = 0; d < sharding.getRank(); ++d) {
    std::vector<std::string> axes;
    for (StringRef a : sharding.getDimAxes(d))
      axes.push_back(a.str());
    s.spec.push_back(axes);
  }
  return s;
}

LogicalResult checkResultFitsInMemory(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<DType> dtype = type ? toDType(type.getElementType()) : std::nullopt;
  if (!dtype)
    return success();
  std::string what;
  llvm::raw_string_ostream os(what);
  os << "its result " << type;
  Status fits = checkArrayFits(what, *dtype, Shape(type.getShape().begin(), type.getShape().end()));
  if (!fits.ok())
    return op->emitOpError(fits.message());
  return success();
}

std::optional<Array> elementsToArray(ElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  DType dtype = *toDType(type.getElementType());
  Array out(dtype, Shape(type.getShape().begin(), type.getShape().end()));
  int64_t i = 0;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat()) {
    // One element, converted once.
    Attribute one = dense.getSplatValue<Attribute>();
    if (auto f = dyn_cast<FloatAttr>(one)) {
      APFloat v = f.getValue();
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      double x = v.convertToDouble();
      for (; i < out.numElements(); ++i)
        out.setDouble(i, x);
      return out;
    }
    if (auto n = dyn_cast<IntegerAttr>(one)) {
      APInt v = n.getValue();
      int64_t x = dtype == DType::I1 ? !v.isZero() : v.getSExtValue();
      for (; i < out.numElements(); ++i)
        out.setInt(i, x);
      return out;
    }
  }
  if (isFloat(dtype)) {
    auto values = attr.tryGetValues<APFloat>();
    if (!values)
      return std::nullopt;
    for (APFloat v : *values) {
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      out.setDouble(i++, v.convertToDouble());
    }
  } else {
    auto values = attr.tryGetValues<APInt>();
    if (!values)
      return std::nullopt;
    for (APInt v : *values)
      out.setInt(i++, dtype == DType::I1 ? !v.isZero() : v.getSExtValue());
  }
  return out;
}

} // namespace shardc
