//===- ShardcAttrs.cpp - sharding attributes ------------------------------===//
//
// Parsing, printing and verification of `#shardc.sharding`, and the helpers
// relating a sharding to its mesh and tensor type.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/IR/ShardingSyntax.h"
#include "shardc/Common/SubAxis.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace shardc;

#include "shardc/Dialect/Shardc/IR/ShardcEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/Shardc/IR/ShardcAttrs.cpp.inc"

void ShardcDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "shardc/Dialect/Shardc/IR/ShardcAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// DimShardingAttr:  {}  {"a"}  {"a", "b"}  {?}  {"a", ?}
//===----------------------------------------------------------------------===//

/// Parses the braces form, without the `#shardc.dim` prefix.
FailureOr<DimShardingAttr> shardc::parseDimShardingBraces(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  if (parser.parseLBrace())
    return failure();
  SmallVector<StringAttr> axes;
  bool open = false;
  // `p<N>` after the braces: the annotation's priority.
  auto withPriority = [&]() -> FailureOr<DimShardingAttr> {
    int64_t priority = -1;
    SMLoc at = parser.getCurrentLocation();
    StringRef word;
    if (succeeded(parser.parseOptionalKeyword(&word))) {
      if (!word.consume_front("p") || word.empty() || word.getAsInteger(10, priority) ||
          priority < 0 || priority > (1 << 20)) {
        parser.emitError(at, "expected a priority p0, p1, ... after a dimension's braces");
        return failure();
      }
    }
    return DimShardingAttr::get(ctx, axes, open, priority);
  };
  if (succeeded(parser.parseOptionalRBrace()))
    return withPriority();
  while (true) {
    if (succeeded(parser.parseOptionalQuestion())) {
      open = true;
      if (parser.parseRBrace())
        return failure();
      break;
    }
    std::string axis;
    if (parser.parseString(&axis))
      return failure();
    // A sub-axis: "a":(pre)size.
    if (succeeded(parser.parseOptionalColon())) {
      int64_t pre = 0, size = 0;
      SMLoc at = parser.getCurrentLocation();
      if (parser.parseLParen() || parser.parseInteger(pre) || parser.parseRParen() ||
          parser.parseInteger(size))
        return failure();
      if (pre < 1 || size < 2 || pre > (1 << 30) || size > (1 << 30)) {
        parser.emitError(at, "a sub-axis \"a\":(pre)size needs pre >= 1 and size >= 2, "
                             "both at most 2^30");
        return failure();
      }
      axis = subAxisName(axis, pre, size);
    }
    axes.push_back(StringAttr::get(ctx, axis));
    if (succeeded(parser.parseOptionalRBrace()))
      break;
    if (parser.parseComma())
      return failure();
  }
  return withPriority();
}

static void printDimBraces(AsmPrinter &printer, DimShardingAttr dim) {
  printer << "{";
  llvm::interleaveComma(dim.getAxes(), printer,
                        [&](StringAttr axis) { printer << axisSyntax(axis.getValue()); });
  if (dim.getIsOpen())
    printer << (dim.getAxes().empty() ? "?" : ", ?");
  printer << "}";
  if (dim.getPriority() >= 0)
    printer << "p" << dim.getPriority();
}

Attribute DimShardingAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  FailureOr<DimShardingAttr> dim = parseDimShardingBraces(parser);
  if (failed(dim) || parser.parseGreater())
    return {};
  return *dim;
}

void DimShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDimBraces(printer, *this);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ShardingAttr:  <@mesh, [dim, ...]>
//===----------------------------------------------------------------------===//

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  SymbolRefAttr mesh;
  if (parser.parseLess() || parser.parseAttribute(mesh) || parser.parseComma())
    return {};
  auto flat = dyn_cast<FlatSymbolRefAttr>(mesh);
  if (!flat) {
    parser.emitError(parser.getCurrentLocation(),
                     "expected a flat symbol reference to a shardc.mesh");
    return {};
  }
  SmallVector<DimShardingAttr> dims;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        FailureOr<DimShardingAttr> dim = parseDimShardingBraces(parser);
        if (failed(dim))
          return failure();
        dims.push_back(*dim);
        return success();
      }))
    return {};
  SmallVector<StringAttr> partial;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseKeyword("partial") || parser.parseEqual())
      return {};
    FailureOr<DimShardingAttr> axes = parseDimShardingBraces(parser);
    if (failed(axes))
      return {};
    if (axes->getIsOpen() || axes->getAxes().empty() || axes->getPriority() >= 0) {
      parser.emitError(at, "partial = {...} names one or more mesh axes, without '?' "
                           "or a priority");
      return {};
    }
    partial.assign(axes->getAxes().begin(), axes->getAxes().end());
  }
  if (parser.parseGreater())
    return {};
  return ShardingAttr::get(parser.getContext(), flat, dims, partial);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", [";
  llvm::interleaveComma(getDims(), printer,
                        [&](DimShardingAttr dim) { printDimBraces(printer, dim); });
  printer << "]";
  if (!getPartial().empty()) {
    printer << ", partial = ";
    printDimBraces(printer, DimShardingAttr::get(getContext(), getPartial(), false));
  }
  printer << ">";
}

SmallVector<StringRef> ShardingAttr::getPartialAxes() const {
  SmallVector<StringRef> axes;
  for (StringAttr axis : getPartial())
    axes.push_back(axis.getValue());
  return axes;
}

bool ShardingAttr::isClosed() const {
  return llvm::none_of(getDims(), [](DimShardingAttr d) { return d.getIsOpen(); });
}

bool ShardingAttr::isReplicated() const {
  return llvm::all_of(getDims(), [](DimShardingAttr d) { return d.isReplicated(); });
}

SmallVector<StringRef> ShardingAttr::getDimAxes(int64_t dim) const {
  SmallVector<StringRef> axes;
  for (StringAttr axis : getDims()[dim].getAxes())
    axes.push_back(axis.getValue());
  return axes;
}

ShardingAttr ShardingAttr::getReplicated(MLIRContext *ctx, FlatSymbolRefAttr mesh, int64_t rank) {
  SmallVector<DimShardingAttr> dims(rank, DimShardingAttr::get(ctx, {}, false));
  return ShardingAttr::get(ctx, mesh, dims);
}

ShardingAttr ShardingAttr::getOpen(MLIRContext *ctx, FlatSymbolRefAttr mesh, int64_t rank) {
  SmallVector<DimShardingAttr> dims(rank, DimShardingAttr::get(ctx, {}, true));
  return ShardingAttr::get(ctx, mesh, dims);
}

//===----------------------------------------------------------------------===//
// Helpers relating shardings, meshes and types
//===----------------------------------------------------------------------===//

std::string shardc::formatLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLocation(name.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

std::string shardc::formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

MeshOp shardc::lookupMesh(Operation *from, FlatSymbolRefAttr ref) {
  return dyn_cast_or_null<MeshOp>(SymbolTable::lookupNearestSymbolFrom(from, ref));
}

LogicalResult shardc::verifySharding(function_ref<InFlightDiagnostic()> emitError,
                                     ShardingAttr sharding, MeshOp mesh, Type type, bool localType,
                                     bool allowPadding) {
  if (!mesh)
    return emitError() << "sharding refers to unknown mesh " << sharding.getMesh();
  SmallVector<StringRef> seen;
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    for (StringAttr axis : dim.getAxes()) {
      if (mesh.getAxisIndex(axis.getValue()) < 0)
        return emitError() << "sharding uses axis " << axisSyntax(axis.getValue())
                           << " in dimension " << d << ", but mesh " << sharding.getMesh()
                           << (parseSubAxis(axis.getValue().str())
                                   ? " has no such axis, or the sub-axis does not divide it"
                                   : " has no such axis");
      if (overlapsAny(mesh, seen, axis.getValue()))
        return emitError() << "sharding uses axis " << axisSyntax(axis.getValue())
                           << " more than once"
                           << (llvm::is_contained(seen, axis.getValue())
                                   ? ""
                                   : " (it overlaps another axis or sub-axis)");
      seen.push_back(axis.getValue());
    }
  }
  for (StringAttr axis : sharding.getPartial()) {
    if (mesh.getAxisIndex(axis.getValue()) < 0)
      return emitError() << "sharding is partial over axis " << axisSyntax(axis.getValue())
                         << ", but mesh " << sharding.getMesh() << " has no such axis";
    if (overlapsAny(mesh, seen, axis.getValue()))
      return emitError() << "sharding is partial over axis " << axisSyntax(axis.getValue())
                         << ", which it also uses elsewhere (a dimension or partial)";
    seen.push_back(axis.getValue());
  }
  if (!type)
    return success();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << "sharding is attached to " << type << ", which is not a ranked tensor";
  if (tensor.getRank() != sharding.getRank())
    return emitError() << "sharding has " << sharding.getRank() << " dimensions but the tensor "
                       << type << " has rank " << tensor.getRank();
  if (localType || allowPadding)
    return success();
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    SmallVector<StringRef> axes = sharding.getDimAxes(d);
    int64_t split = getGroupSize(mesh, axes);
    int64_t size = tensor.getDimSize(d);
    if (split > 1 && size % split != 0)
      return emitError() << "dimension " << d << " of size " << size
                         << " cannot be split over axes [" << llvm::join(axes, ", ")
                         << "] of total size " << split << " (it does not divide)";
  }
  return success();
}

LogicalResult shardc::verifyShardingAt(Operation *op, function_ref<InFlightDiagnostic()> emitError,
                                       ShardingAttr sharding, Type type, bool localType,
                                       bool allowPadding) {
  return verifySharding(emitError, sharding, lookupMesh(op, sharding.getMesh()), type, localType,
                        allowPadding);
}

RankedTensorType shardc::getLocalType(RankedTensorType global, ShardingAttr sharding, MeshOp mesh) {
  SmallVector<int64_t> shape(global.getShape());
  for (int64_t d = 0; d < (int64_t)shape.size(); ++d) {
    int64_t n = getGroupSize(mesh, sharding.getDimAxes(d));
    shape[d] = (shape[d] + n - 1) / n; // padded where n does not divide
  }
  return RankedTensorType::get(shape, global.getElementType());
}

std::string shardc::axisSyntax(StringRef axis) {
  if (std::optional<SubAxis> sub = parseSubAxis(axis.str()))
    return "\"" + sub->axis + "\":(" + std::to_string(sub->pre) + ")" + std::to_string(sub->size);
  return "\"" + axis.str() + "\"";
}

bool shardc::overlapsAny(MeshOp mesh, ArrayRef<StringRef> axes, StringRef axis) {
  return llvm::any_of(axes, [&](StringRef a) { return mesh.axesOverlap(a, axis); });
}

StringRef shardc::subAxisOf(MeshOp mesh, StringRef axis, int64_t pre, int64_t size) {
  int64_t i = mesh.getAxisIndex(axis);
  StringRef base = cast<StringAttr>(mesh.getAxisNames()[i]).getValue();
  if (pre == 1 && size == mesh.getAxisSizes()[i])
    return base;
  return StringAttr::get(mesh.getContext(), subAxisName(base.str(), pre, size)).getValue();
}

SmallVector<StringRef, 2> shardc::mergeSubAxes(MeshOp mesh, ArrayRef<StringRef> axes) {
  SmallVector<StringRef, 2> out;
  for (StringRef a : axes) {
    if (!out.empty()) {
      StringRef last = out.back();
      int64_t i = mesh.getAxisIndex(last);
      int64_t lastPre = mesh.getAxisPreSize(last), lastSize = mesh.getAxisSize(last);
      if (i >= 0 && i == mesh.getAxisIndex(a) && mesh.getAxisPreSize(a) == lastPre * lastSize) {
        out.back() = subAxisOf(mesh, last, lastPre, lastSize * mesh.getAxisSize(a));
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

int64_t shardc::getGroupSize(MeshOp mesh, ArrayRef<StringRef> axes) {
  int64_t n = 1;
  for (StringRef axis : axes)
    n *= mesh.getAxisSize(axis);
  return n;
}

LogicalResult shardc::verifyMeshAxes(function_ref<InFlightDiagnostic()> emitError, MeshOp mesh,
                                     ArrayRef<StringRef> axes) {
  if (axes.empty())
    return emitError() << "must name at least one mesh axis";
  SmallVector<StringRef> seen;
  for (StringRef axis : axes) {
    if (mesh.getAxisIndex(axis) < 0)
      return emitError() << "mesh @" << mesh.getSymName() << " has no axis \"" << axis << "\"";
    if (overlapsAny(mesh, seen, axis))
      return emitError() << "axis \"" << axis << "\" is named more than once";
    seen.push_back(axis);
  }
  return success();
}
