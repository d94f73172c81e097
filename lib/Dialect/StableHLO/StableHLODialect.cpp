//===- StableHLODialect.cpp - reading StableHLO's printed ops -------------===//
//
// StableHLO prints most ops in a handful of shapes, so one reader serves
// them: operands and `name = value` items separated by commas, an optional
// attribute dictionary, then `:` and either a function type or one type
// shared by the operands and the result (`stablehlo.add %a, %b :
// tensor<4xf32>`). The items keep StableHLO's printed names (`dims`,
// `sizes`, `dim`, `lhs_contracting_dims` from `contracting_dims = [1] x
// [0]`); the generic form keeps the attribute names of StableHLO's ODS
// (`permutation`, `broadcast_dimensions`). The importer reads either.
// reduce, constant, custom_call, return and the ops with regions JAX
// prints in their own syntax are read on their own.
//
//===----------------------------------------------------------------------===//

#include "Parsing.h"
#include "shardc/Dialect/StableHLO/StableHLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

MLIR_DEFINE_EXPLICIT_TYPE_ID(shardc::StableHLODialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(shardc::ChloDialect)

namespace shardc {

namespace {

/// `[1, 2, 3]` (possibly empty).
ParseResult parseIntList(AsmParser &p, SmallVectorImpl<int64_t> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    int64_t v = 0;
    if (p.parseInteger(v))
      return failure();
    out.push_back(v);
    return success();
  });
}

/// After `:`, either `(T, ...) -> R` / `-> (R, ...)`, or a list of types:
/// one shared by every operand and the result, or (select) the predicate's
/// then the rest's, or (no operands) the results'.
ParseResult parseTypes(OpAsmParser &p, StringRef op, size_t numOperands,
                       SmallVectorImpl<Type> &operandTypes, SmallVectorImpl<Type> &resultTypes) {
  if (succeeded(p.parseOptionalLParen())) {
    if (failed(p.parseOptionalRParen()))
      if (p.parseTypeList(operandTypes) || p.parseRParen())
        return failure();
    if (p.parseArrow())
      return failure();
    if (succeeded(p.parseOptionalLParen())) {
      if (succeeded(p.parseOptionalRParen()))
        return success();
      return failure(p.parseTypeList(resultTypes) || p.parseRParen());
    }
    Type t;
    if (p.parseType(t))
      return failure();
    resultTypes.push_back(t);
    return success();
  }
  SmallVector<Type> list;
  SMLoc at = p.getCurrentLocation();
  if (p.parseTypeList(list))
    return failure();
  if (succeeded(p.parseOptionalArrow())) { // CHLO: `T, U -> R`
    operandTypes.assign(list);
    return p.parseTypeList(resultTypes);
  }
  if (numOperands == 0) {
    resultTypes.append(list);
  } else if (list.size() == 1) {
    operandTypes.assign(numOperands, list[0]);
    resultTypes.push_back(list[0]);
  } else if (list.size() == 2 && op.ends_with(".select") && numOperands == 3) {
    operandTypes.assign({list[0], list[1], list[1]});
    resultTypes.push_back(list[1]);
  } else if (list.size() == numOperands) { // results like the operands
    operandTypes.assign(list);
    resultTypes.assign(list);
  } else {
    return p.emitError(at, "expected one type, or a function type, after ':'");
  }
  return success();
}

ParseResult resolve(OpAsmParser &p, SMLoc at, ArrayRef<OpAsmParser::UnresolvedOperand> operands,
                    ArrayRef<Type> types, OperationState &st) {
  if (operands.size() != types.size())
    return p.emitError(at, "the op has ")
           << operands.size() << " operands but its type lists " << types.size();
  return p.resolveOperands(operands, types, at, st.operands);
}

/// `name = value` items, bare keywords and slice ranges, with the operands.
ParseResult parseItems(OpAsmParser &p, OperationState &st) {
  StringRef op = st.name.getStringRef();
  Builder b(p.getContext());
  SMLoc start = p.getCurrentLocation();
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  int bareKeywords = 0;
  auto item = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult isOperand = p.parseOptionalOperand(operand);
    if (isOperand.has_value()) {
      if (failed(*isOperand))
        return failure();
      operands.push_back(operand);
      // A slice's ranges follow its operand without a comma.
      if (succeeded(p.parseOptionalLSquare())) {
        SmallVector<int64_t> starts, limits, strides;
        auto range = [&]() -> ParseResult {
          int64_t lo, hi, step = 1;
          if (p.parseInteger(lo) || p.parseColon() || p.parseInteger(hi))
            return failure();
          if (succeeded(p.parseOptionalColon()) && p.parseInteger(step))
            return failure();
          starts.push_back(lo);
          limits.push_back(hi);
          strides.push_back(step);
          return success();
        };
        if (failed(p.parseOptionalRSquare())) {
          if (p.parseCommaSeparatedList(range) || p.parseRSquare())
            return failure();
        }
        st.addAttribute("start_indices", b.getDenseI64ArrayAttr(starts));
        st.addAttribute("limit_indices", b.getDenseI64ArrayAttr(limits));
        st.addAttribute("strides", b.getDenseI64ArrayAttr(strides));
      }
      return success();
    }
    StringRef key;
    SMLoc keyAt = p.getCurrentLocation();
    if (failed(p.parseOptionalKeyword(&key)))
      return p.emitError(keyAt, "expected an operand or 'name = value' in ") << op;
    if (failed(p.parseOptionalEqual())) {
      // compare's direction, then its type: `LT, %a, %b, FLOAT`.
      if (!op.ends_with(".compare") || bareKeywords > 1)
        return p.emitError(keyAt, "unexpected '") << key << "' in " << op;
      st.addAttribute(bareKeywords++ == 0 ? "comparison_direction" : "compare_type",
                      b.getStringAttr(key));
      return success();
    }
    std::string name = key.str();
    if (key == "batching_dims" || key == "contracting_dims") {
      SmallVector<int64_t> lhs, rhs;
      if (parseIntList(p, lhs) || p.parseKeyword("x") || parseIntList(p, rhs))
        return failure();
      st.addAttribute("lhs_" + name, b.getDenseI64ArrayAttr(lhs));
      st.addAttribute("rhs_" + name, b.getDenseI64ArrayAttr(rhs));
      return success();
    }
    if (key == "precision") { // [DEFAULT, HIGHEST]
      SmallVector<Attribute> names;
      if (p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            StringRef word;
            if (p.parseKeyword(&word))
              return failure();
            names.push_back(b.getStringAttr(word));
            return success();
          }))
        return failure();
      st.addAttribute("precision_config", b.getArrayAttr(names));
      return success();
    }
    // A list of integers, an integer, a word, or any attribute.
    SmallVector<int64_t> ints;
    int64_t v = 0;
    StringRef word;
    Attribute value;
    if (succeeded(p.parseOptionalLSquare())) {
      if (failed(p.parseOptionalRSquare())) {
        if (p.parseCommaSeparatedList([&] {
              if (p.parseInteger(v))
                return failure();
              ints.push_back(v);
              return success();
            }) ||
            p.parseRSquare())
          return failure();
      }
      value = b.getDenseI64ArrayAttr(ints);
    } else if (OptionalParseResult r = p.parseOptionalInteger(v); r.has_value()) {
      if (failed(*r))
        return failure();
      value = b.getI64IntegerAttr(v);
    } else if (succeeded(p.parseOptionalKeyword(&word))) {
      value = b.getStringAttr(word);
    } else if (p.parseAttribute(value)) {
      return failure();
    }
    st.addAttribute(name, value);
    return success();
  };
  // Items, unless the op goes straight to its type.
  if (failed(p.parseOptionalColon())) {
    if (p.parseCommaSeparatedList(item) || p.parseOptionalAttrDict(st.attributes) || p.parseColon())
      return failure();
  }
  SmallVector<Type> operandTypes, resultTypes;
  if (parseTypes(p, op, operands.size(), operandTypes, resultTypes) ||
      resolve(p, start, operands, operandTypes, st))
    return failure();
  st.addTypes(resultTypes);
  return success();
}

/// `dense<...> : tensor<...>`, after an optional attribute dictionary.
ParseResult parseConstant(OpAsmParser &p, OperationState &st) {
  Attribute value;
  if (p.parseOptionalAttrDict(st.attributes) || p.parseAttribute(value))
    return failure();
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed)
    return p.emitError(p.getCurrentLocation(), "a constant needs a typed value");
  st.addAttribute("value", value);
  st.addTypes(typed.getType());
  return success();
}

/// `@target(%a, %b) {attrs} : (T, U) -> R`.
ParseResult parseCustomCall(OpAsmParser &p, OperationState &st) {
  StringAttr target;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SMLoc at = p.getCurrentLocation();
  if (p.parseSymbolName(target) || p.parseOperandList(operands, AsmParser::Delimiter::Paren) ||
      p.parseOptionalAttrDict(st.attributes) || p.parseColon())
    return failure();
  st.addAttribute("call_target_name", target);
  SmallVector<Type> operandTypes, resultTypes;
  if (parseTypes(p, st.name.getStringRef(), operands.size(), operandTypes, resultTypes) ||
      resolve(p, at, operands, operandTypes, st))
    return failure();
  st.addTypes(resultTypes);
  return success();
}

/// `(%x init: %c), (%y init: %d) applies stablehlo.add across dimensions =
/// [1] : F`, or the same without `applies` and with the body after the type:
/// `reducer(%a: T, %b: T) { ... }`.
ParseResult parseReduce(OpAsmParser &p, OperationState &st) {
  Builder b(p.getContext());
  SMLoc at = p.getCurrentLocation();
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits;
  do {
    OpAsmParser::UnresolvedOperand x, init;
    if (p.parseLParen() || p.parseOperand(x) || p.parseKeyword("init") || p.parseColon() ||
        p.parseOperand(init) || p.parseRParen())
      return failure();
    inputs.push_back(x);
    inits.push_back(init);
  } while (succeeded(p.parseOptionalComma()));
  StringRef applied;
  if (succeeded(p.parseOptionalKeyword("applies"))) {
    if (p.parseKeyword(&applied))
      return failure();
    st.addAttribute("applies", b.getStringAttr(applied));
  }
  SmallVector<int64_t> dims;
  if (p.parseKeyword("across") || p.parseKeyword("dimensions") || p.parseEqual() ||
      parseIntList(p, dims) || p.parseOptionalAttrDict(st.attributes) || p.parseColon())
    return failure();
  st.addAttribute("dimensions", b.getDenseI64ArrayAttr(dims));
  SmallVector<OpAsmParser::UnresolvedOperand> operands(inputs);
  operands.append(inits);
  SmallVector<Type> operandTypes, resultTypes;
  if (parseTypes(p, st.name.getStringRef(), operands.size(), operandTypes, resultTypes) ||
      resolve(p, at, operands, operandTypes, st))
    return failure();
  st.addTypes(resultTypes);
  Region *body = st.addRegion();
  if (!applied.empty())
    return success();
  // reducer(%a0: T, %b0: T) (%a1: U, %b1: U) ...: the block takes the
  // first of each pair, then the second.
  SmallVector<OpAsmParser::Argument> firsts, seconds;
  if (p.parseKeyword("reducer"))
    return failure();
  while (succeeded(p.parseOptionalLParen())) {
    OpAsmParser::Argument a, c;
    if (p.parseArgument(a, /*allowType=*/true) || p.parseComma() ||
        p.parseArgument(c, /*allowType=*/true) || p.parseRParen())
      return failure();
    firsts.push_back(a);
    seconds.push_back(c);
  }
  firsts.append(seconds);
  return p.parseRegion(*body, firsts);
}

/// Ops whose printed form has a syntax of its own, not read here.
ParseResult parseUnsupported(OpAsmParser &p, OperationState &st) {
  // The parser names the op: "custom op 'stablehlo.while' is not ...".
  return p.emitError(p.getCurrentLocation(),
                     "is not supported by shardc's StableHLO importer (control flow and "
                     "tokens are not)");
}

ParseResult parseStableHLO(OpAsmParser &p, OperationState &st) {
  StringRef op = st.name.getStringRef();
  StringRef bare = op.substr(op.find('.') + 1);
  if (bare == "return")
    return parseTerminator(p, st);
  if (bare == "constant")
    return parseConstant(p, st);
  if (bare == "custom_call")
    return parseCustomCall(p, st);
  if (bare == "reduce")
    return parseReduce(p, st);
  static const llvm::StringSet<> unsupported = {"while",
                                                "if",
                                                "case",
                                                "sort",
                                                "reduce_window",
                                                "select_and_scatter",
                                                "map",
                                                "composite",
                                                "get_tuple_element",
                                                "tuple",
                                                "after_all",
                                                "create_token",
                                                "infeed",
                                                "outfeed",
                                                "send",
                                                "recv"};
  if (unsupported.contains(bare))
    return parseUnsupported(p, st);
  return parseItems(p, st);
}

/// `#stablehlo<comparison_direction LT>` (a string) and
/// `#stablehlo.dot<lhs_batching_dimensions = [0], ...>` (a dictionary).
Attribute parseHloAttribute(DialectAsmParser &p) {
  Builder b(p.getContext());
  bool angled = succeeded(p.parseOptionalLess());
  StringRef kind;
  SMLoc at = p.getCurrentLocation();
  if (p.parseKeyword(&kind))
    return {};
  if (succeeded(p.parseOptionalLess())) {
    NamedAttrList fields;
    if (failed(p.parseOptionalGreater())) {
      if (p.parseCommaSeparatedList([&]() -> ParseResult {
            StringRef key;
            if (p.parseKeyword(&key) || p.parseEqual())
              return failure();
            SmallVector<int64_t> ints;
            int64_t v = 0;
            if (OptionalParseResult r = p.parseOptionalInteger(v); r.has_value()) {
              if (failed(*r))
                return failure();
              fields.append(key, b.getI64IntegerAttr(v));
              return success();
            }
            if (parseIntList(p, ints))
              return failure();
            fields.append(key, b.getDenseI64ArrayAttr(ints));
            return success();
          }) ||
          p.parseGreater())
        return {};
    }
    fields.append("kind", b.getStringAttr(kind));
    return fields.getDictionary(p.getContext());
  }
  StringRef word;
  if (p.parseKeyword(&word)) {
    p.emitError(at, "expected '") << kind << " VALUE'";
    return {};
  }
  if (angled && p.parseGreater())
    return {};
  return b.getStringAttr(word);
}

} // namespace

ParseResult parseTerminator(OpAsmParser &p, OperationState &st) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> types;
  SMLoc at = p.getCurrentLocation();
  if (p.parseOperandList(operands) || p.parseOptionalAttrDict(st.attributes))
    return failure();
  if (!operands.empty() && (p.parseColon() || p.parseTypeList(types)))
    return failure();
  return resolve(p, at, operands, types, st);
}

StableHLODialect::StableHLODialect(MLIRContext *ctx)
    : ImportedDialect(getDialectNamespace(), ctx, TypeID::get<StableHLODialect>()) {}

std::optional<Dialect::ParseOpHook> StableHLODialect::getParseOperationHook(StringRef) const {
  return ParseOpHook(parseStableHLO);
}

Attribute StableHLODialect::parseAttribute(DialectAsmParser &parser, Type) const {
  return parseHloAttribute(parser);
}

ChloDialect::ChloDialect(MLIRContext *ctx)
    : ImportedDialect(getDialectNamespace(), ctx, TypeID::get<ChloDialect>()) {}

std::optional<Dialect::ParseOpHook> ChloDialect::getParseOperationHook(StringRef) const {
  return ParseOpHook(parseItems);
}

Attribute ChloDialect::parseAttribute(DialectAsmParser &parser, Type) const {
  return parseHloAttribute(parser);
}

} // namespace shardc
