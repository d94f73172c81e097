//===- SdyDialect.cpp - reading Shardy's meshes and shardings -------------===//
//
//   sdy.mesh @mesh = <["data"=2, "model"=4]>            (device_ids=[...] too)
//   #sdy.sharding<@mesh, [{"data", ?}p0, {}], replicated={"model"}>
//   #sdy.sharding_per_value<[<@mesh, [{}, {}]>, ...]>
//   %y = sdy.sharding_constraint %x <@mesh, [{"data"}, {}]> : tensor<8x8xf32>
//   %y = sdy.reshard %x <@mesh, [{}, {"model"}]> : tensor<8x8xf32>
//   %y = sdy.propagation_barrier %x allowed_direction=BACKWARD : tensor<8x8xf32>
//   sdy.sharding_group %x group_id=0 : tensor<8x8xf32>
//   %r = sdy.manual_computation(%a, %b) in_shardings=[<@mesh, ...>, ...]
//          out_shardings=[<@mesh, ...>] manual_axes={"data"}
//          (%la: tensor<4x8xf32>, %lb: tensor<8x8xf32>) { ... sdy.return %l : ... }
//          : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
//
// A sharding reads as shardc's own attribute: the dimension syntax is the
// same and is parsed by shardc's parser.
//
//===----------------------------------------------------------------------===//

#include "Parsing.h"
#include "shardc/Dialect/Shardc/IR/ShardingSyntax.h"
#include "shardc/Dialect/StableHLO/StableHLO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;

MLIR_DEFINE_EXPLICIT_TYPE_ID(shardc::SdyDialect)

namespace shardc {

namespace {

/// `{"a", "b"}`: a set of axes (replicated, unreduced, manual_axes).
ParseResult parseAxisSet(AsmParser &p, SmallVectorImpl<StringAttr> &axes) {
  FailureOr<DimShardingAttr> set = parseDimShardingBraces(p);
  if (failed(set))
    return failure();
  if (set->getIsOpen() || set->getPriority() >= 0)
    return p.emitError(p.getCurrentLocation(), "a set of axes has no '?' or priority");
  axes.append(set->getAxes().begin(), set->getAxes().end());
  return success();
}

/// `<@mesh, [dims], replicated={...}, unreduced={...}>`.
FailureOr<ShardingAttr> parseSharding(AsmParser &p) {
  SMLoc at = p.getCurrentLocation();
  if (p.parseLess())
    return failure();
  StringAttr meshName;
  if (failed(p.parseOptionalSymbolName(meshName))) {
    p.emitError(at, "expected '@mesh': a sharding names an sdy.mesh (an inline mesh is "
                    "not supported)");
    return failure();
  }
  FlatSymbolRefAttr mesh = FlatSymbolRefAttr::get(meshName);
  SmallVector<DimShardingAttr> dims;
  SmallVector<StringAttr> unreduced, replicated;
  if (p.parseComma() || p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        FailureOr<DimShardingAttr> dim = parseDimShardingBraces(p);
        if (failed(dim))
          return failure();
        dims.push_back(*dim);
        return success();
      }))
    return failure();
  while (succeeded(p.parseOptionalComma())) {
    StringRef key;
    SMLoc keyAt = p.getCurrentLocation();
    if (p.parseKeyword(&key) || p.parseEqual())
      return failure();
    if (key == "replicated") {
      if (parseAxisSet(p, replicated))
        return failure();
    } else if (key == "unreduced") {
      if (parseAxisSet(p, unreduced))
        return failure();
    } else {
      p.emitError(keyAt, "unknown field '") << key << "' in a sharding";
      return failure();
    }
  }
  if (p.parseGreater())
    return failure();
  return ShardingAttr::get(p.getContext(), mesh, dims, unreduced);
}

/// `[<@mesh, ...>, ...]`.
FailureOr<ArrayAttr> parseShardingList(AsmParser &p) {
  SmallVector<Attribute> list;
  if (p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        FailureOr<ShardingAttr> s = parseSharding(p);
        if (failed(s))
          return failure();
        list.push_back(*s);
        return success();
      }))
    return failure();
  return ArrayAttr::get(p.getContext(), list);
}

ParseResult parseMesh(OpAsmParser &p, OperationState &st) {
  Builder b(p.getContext());
  StringAttr name;
  SmallVector<Attribute> axisNames;
  SmallVector<int64_t> axisSizes, deviceIds;
  if (p.parseSymbolName(name) || p.parseEqual())
    return failure();
  if (p.parseLess() || p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        std::string axis;
        int64_t size;
        if (p.parseString(&axis) || p.parseEqual() || p.parseInteger(size))
          return failure();
        axisNames.push_back(b.getStringAttr(axis));
        axisSizes.push_back(size);
        return success();
      }))
    return failure();
  if (succeeded(p.parseOptionalComma())) {
    if (p.parseKeyword("device_ids") || p.parseEqual() ||
        p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
          int64_t id;
          if (p.parseInteger(id))
            return failure();
          deviceIds.push_back(id);
          return success();
        }))
      return failure();
    st.addAttribute("device_ids", b.getDenseI64ArrayAttr(deviceIds));
  }
  if (p.parseGreater() || p.parseOptionalAttrDict(st.attributes))
    return failure();
  st.addAttribute("sym_name", name);
  st.addAttribute("axis_names", b.getArrayAttr(axisNames));
  st.addAttribute("axis_sizes", b.getDenseI64ArrayAttr(axisSizes));
  return success();
}

/// sharding_constraint and reshard: `%x <@mesh, [...]> : T`.
ParseResult parseConstraint(OpAsmParser &p, OperationState &st) {
  OpAsmParser::UnresolvedOperand x;
  Type type;
  if (p.parseOperand(x))
    return failure();
  FailureOr<ShardingAttr> sharding = parseSharding(p);
  if (failed(sharding) || p.parseOptionalAttrDict(st.attributes) || p.parseColon() ||
      p.parseType(type) || p.resolveOperand(x, type, st.operands))
    return failure();
  st.addAttribute("sharding", *sharding);
  st.addTypes(type);
  return success();
}

ParseResult parseManualComputation(OpAsmParser &p, OperationState &st) {
  Builder b(p.getContext());
  SMLoc at = p.getCurrentLocation();
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<StringAttr> manual;
  if (p.parseOperandList(operands, AsmParser::Delimiter::Paren) || p.parseKeyword("in_shardings") ||
      p.parseEqual())
    return failure();
  FailureOr<ArrayAttr> in = parseShardingList(p);
  if (failed(in) || p.parseKeyword("out_shardings") || p.parseEqual())
    return failure();
  FailureOr<ArrayAttr> out = parseShardingList(p);
  if (failed(out) || p.parseKeyword("manual_axes") || p.parseEqual() || parseAxisSet(p, manual))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  if (p.parseArgumentList(args, AsmParser::Delimiter::Paren, /*allowType=*/true))
    return failure();
  Region *body = st.addRegion();
  if (p.parseRegion(*body, args) || p.parseOptionalAttrDict(st.attributes) || p.parseColon())
    return failure();
  FunctionType type;
  if (p.parseType(type) || p.resolveOperands(operands, type.getInputs(), at, st.operands))
    return failure();
  st.addTypes(type.getResults());
  SmallVector<Attribute> axes(manual.begin(), manual.end());
  st.addAttribute("in_shardings", *in);
  st.addAttribute("out_shardings", *out);
  st.addAttribute("manual_axes", b.getArrayAttr(axes));
  return success();
}

/// propagation_barrier and data_flow_edge (a result) and sharding_group
/// (none): `%x key=value ... : T`; the values are integers, words or (a
/// data flow edge's) a sharding.
ParseResult parseHint(OpAsmParser &p, OperationState &st, bool hasResult) {
  Builder b(p.getContext());
  OpAsmParser::UnresolvedOperand x;
  Type type;
  if (p.parseOperand(x))
    return failure();
  StringRef key;
  while (succeeded(p.parseOptionalKeyword(&key))) {
    if (p.parseEqual())
      return failure();
    int64_t v = 0;
    StringRef word;
    if (key == "sharding") {
      FailureOr<ShardingAttr> sharding = parseSharding(p);
      if (failed(sharding))
        return failure();
      st.addAttribute(key, *sharding);
    } else if (OptionalParseResult r = p.parseOptionalInteger(v); r.has_value()) {
      if (failed(*r))
        return failure();
      st.addAttribute(key, b.getI64IntegerAttr(v));
    } else if (p.parseKeyword(&word)) {
      return failure();
    } else {
      st.addAttribute(key, b.getStringAttr(word));
    }
  }
  if (p.parseOptionalAttrDict(st.attributes) || p.parseColon() || p.parseType(type) ||
      p.resolveOperand(x, type, st.operands))
    return failure();
  if (hasResult)
    st.addTypes(type);
  return success();
}

ParseResult parseSdy(OpAsmParser &p, OperationState &st) {
  StringRef op = st.name.getStringRef();
  if (op == "sdy.mesh")
    return parseMesh(p, st);
  if (op == "sdy.sharding_constraint" || op == "sdy.reshard")
    return parseConstraint(p, st);
  if (op == "sdy.manual_computation")
    return parseManualComputation(p, st);
  if (op == "sdy.return")
    return parseTerminator(p, st);
  if (op == "sdy.propagation_barrier" || op == "sdy.data_flow_edge")
    return parseHint(p, st, /*hasResult=*/true);
  if (op == "sdy.sharding_group")
    return parseHint(p, st, /*hasResult=*/false);
  // The parser names the op: "custom op 'sdy.x' is not supported ...".
  return p.emitError(p.getCurrentLocation(), "is not supported by shardc's StableHLO importer");
}

} // namespace

SdyDialect::SdyDialect(MLIRContext *ctx)
    : ImportedDialect(getDialectNamespace(), ctx, TypeID::get<SdyDialect>()) {
  // Its shardings are shardc's attributes.
  ctx->getOrLoadDialect<ShardcDialect>();
}

std::optional<Dialect::ParseOpHook> SdyDialect::getParseOperationHook(StringRef) const {
  return ParseOpHook(parseSdy);
}

Attribute SdyDialect::parseAttribute(DialectAsmParser &p, Type) const {
  StringRef kind;
  SMLoc at = p.getCurrentLocation();
  if (p.parseKeyword(&kind))
    return {};
  if (kind == "sharding") {
    FailureOr<ShardingAttr> s = parseSharding(p);
    return succeeded(s) ? Attribute(*s) : Attribute();
  }
  if (kind == "sharding_per_value") {
    FailureOr<ArrayAttr> list;
    if (p.parseLess() || failed(list = parseShardingList(p)) || p.parseGreater())
      return {};
    return *list;
  }
  p.emitError(at, "'#sdy.") << kind << "' is not supported by shardc's StableHLO importer";
  return {};
}

void loadStableHLODialects(MLIRContext &ctx) {
  ctx.loadDialect<StableHLODialect, ChloDialect, SdyDialect, func::FuncDialect>();
}

} // namespace shardc
