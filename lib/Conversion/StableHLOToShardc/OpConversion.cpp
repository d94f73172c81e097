//===- OpConversion.cpp - each StableHLO op as shardc ops -----------------===//
//
// The ops of a function body, in order, each replaced by the shardc ops
// that compute the same values; an op's own result sharding becomes a
// sharding_constraint on its result. shard_map bodies are converted with
// their mesh (Collectives.cpp), gathers and scatters in Indexing.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpConversion.h"
#include "Collectives.h"
#include "ImportUtil.h"
#include "Indexing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

namespace shardc::import {

namespace {

class Converter {
public:
  Converter(ModuleOp module, const MeshMap &meshes, GspmdMeshes &gspmd)
      : module(module), b(module.getContext()), meshes(meshes), gspmd(gspmd) {}

  LogicalResult convertBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (!isImportedDialect(dialectOf(&op))) {
        // func.return, func.call (left by recursion) and the like keep
        // their form; their regions may hold StableHLO.
        for (Region &r : op.getRegions())
          for (Block &inner : r)
            if (failed(convertBlock(inner)))
              return failure();
        continue;
      }
      b.setInsertionPoint(&op);
      FailureOr<SmallVector<Value>> results = convert(&op);
      if (failed(results))
        return failure();
      if (results->size() != op.getNumResults())
        return op.emitError("the importer made ")
               << results->size() << " results for " << op.getNumResults();
      SmallVector<Value> pinned(*results);
      b.setInsertionPoint(&op); // converting a body moved it
      if (failed(pinResultShardings(&op, pinned)))
        return failure();
      op.replaceAllUsesWith(pinned);
      op.erase();
    }
    return success();
  }

private:
  ModuleOp module;
  OpBuilder b;
  const MeshMap &meshes;
  GspmdMeshes &gspmd;
  std::optional<ManualMesh> manual; // inside a shard_map body: its mesh

  InFlightDiagnostic unsupported(Operation *op, const Twine &why = "") {
    InFlightDiagnostic d = op->emitError("'")
                           << op->getName().getStringRef()
                           << "' is not supported by shardc's StableHLO importer";
    if (!why.isTriviallyEmpty())
      d << ": " << why;
    return d;
  }

  Value make(StringRef name, Location loc, ValueRange operands, Type result,
             ArrayRef<NamedAttribute> attrs = {}) {
    return makeOp(b, loc, name, operands, result, attrs);
  }

  Value splat(Location loc, RankedTensorType type, double value) {
    return makeSplat(b, loc, type, value);
  }

  /// A scalar (rank 0) value broadcast to `type`; other values as they are.
  Value broadcastTo(Location loc, Value v, RankedTensorType type) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() == type.getRank())
      return v;
    return make("broadcast_in_dim", loc, v, type,
                {b.getNamedAttr("dims", b.getDenseI64ArrayAttr({}))});
  }

  /// A sharding the importer keeps, on the mesh it went to (none for one
  /// device).
  ShardingAttr kept(ShardingAttr s) { return meshes.map(s); }

  /// An op's own result sharding (`sdy.sharding` per value, or a GSPMD
  /// `mhlo.sharding`) pins its results where it is.
  LogicalResult pinResultShardings(Operation *op, SmallVector<Value> &results) {
    // Inside a shard_map body values are per device: a sharding there
    // names the free axes, along which the body is computed whole.
    if (manual)
      return success();
    SmallVector<ShardingAttr> shardings(results.size());
    if (auto list = dyn_cast_or_null<ArrayAttr>(op->getAttr("sdy.sharding"))) {
      if (list.size() != results.size())
        return op->emitError("sdy.sharding has ")
               << list.size() << " shardings for " << results.size() << " results";
      for (size_t i = 0; i < results.size(); ++i)
        shardings[i] = kept(dyn_cast<ShardingAttr>(list[i]));
    } else if (auto text = dyn_cast_or_null<StringAttr>(op->getAttr("mhlo.sharding"));
               text && op->getName().getStringRef() != "stablehlo.custom_call") {
      if (results.size() != 1)
        return op->emitError("a GSPMD sharding on an op with several results (a tuple "
                             "sharding) is not supported");
      FailureOr<ShardingAttr> s = gspmdSharding(op, text.getValue(), results[0].getType());
      if (failed(s))
        return failure();
      shardings[0] = *s;
    }
    for (size_t i = 0; i < results.size(); ++i)
      if (shardings[i])
        results[i] = make("sharding_constraint", op->getLoc(), results[i], results[i].getType(),
                          {b.getNamedAttr("sharding", shardings[i])});
    return success();
  }

  FailureOr<ShardingAttr> gspmdSharding(Operation *op, StringRef text, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return op->emitError("a GSPMD sharding on a value that is not a ranked tensor");
    std::string error;
    FailureOr<ShardingAttr> s = gspmd.shardingFor(text, tensor.getRank(), error);
    if (failed(s))
      return op->emitError("GSPMD sharding \"") << text << "\": " << error;
    return *s;
  }

  FailureOr<SmallVector<Value>> one(Value v) { return SmallVector<Value>{v}; }

  /// An op being converted, as each group of conversions below sees it.
  struct Source {
    Operation *op;
    StringRef name;
    Location loc;
    ValueRange in;
    /// The one ranked result's type, or null.
    RankedTensorType type;

    explicit Source(Operation *op)
        : op(op), name(op->getName().getStringRef()), loc(op->getLoc()), in(op->getOperands()) {
      if (op->getNumResults() == 1)
        type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    }
    /// Success where the op has `n` operands and one ranked result.
    LogicalResult arity(size_t n) const {
      if (in.size() != n || op->getNumResults() != 1 || !type)
        return op->emitError("'") << name << "' takes " << n
                                  << " operands and gives one ranked tensor";
      return success();
    }
  };
  using Converted = FailureOr<SmallVector<Value>>;

  /// The shardc values of `op`'s results: each group of conversions either
  /// takes the op or leaves it to the next.
  Converted convert(Operation *op) {
    Source src(op);
    for (auto group : {&Converter::elementwise, &Converter::derivedElementwise,
                       &Converter::structural, &Converter::shardy})
      if (std::optional<Converted> results = (this->*group)(src))
        return std::move(*results);
    return unsupported(op);
  }

  /// Elementwise ops with a shardc twin (integer remainder and boolean
  /// addition in a few ops).
  std::optional<Converted> elementwise(const Source &src) {
    auto [op, name, loc, in, type] = std::tie(src.op, src.name, src.loc, src.in, src.type);
    StringRef twin = llvm::StringSwitch<StringRef>(name)
                         .Case("stablehlo.abs", "abs")
                         .Case("stablehlo.negate", "neg")
                         .Case("stablehlo.exponential", "exp")
                         .Case("stablehlo.log", "log")
                         .Case("stablehlo.tanh", "tanh")
                         .Case("stablehlo.sqrt", "sqrt")
                         .Case("stablehlo.rsqrt", "rsqrt")
                         .Case("stablehlo.log_plus_one", "log1p")
                         .Case("chlo.erf", "erf")
                         .Case("stablehlo.exponential_minus_one", "expm1")
                         .Case("stablehlo.sine", "sin")
                         .Case("stablehlo.cosine", "cos")
                         .Case("stablehlo.floor", "floor")
                         .Case("stablehlo.ceil", "ceil")
                         .Case("stablehlo.round_nearest_even", "round_even")
                         .Case("stablehlo.round_nearest_afz", "round_afz")
                         .Case("chlo.tan", "tan")
                         .Case("stablehlo.tan", "tan")
                         .Case("stablehlo.cbrt", "cbrt")
                         .Case("stablehlo.convert", "convert")
                         .Case("stablehlo.reshape", "reshape")
                         .Default("");
    if (!twin.empty()) {
      if (failed(src.arity(1)))
        return failure();
      return one(make(twin, loc, in, type));
    }
    twin = llvm::StringSwitch<StringRef>(name)
               .Case("stablehlo.add", "add")
               .Case("stablehlo.subtract", "sub")
               .Case("stablehlo.multiply", "mul")
               .Case("stablehlo.divide", "div")
               .Case("stablehlo.maximum", "max")
               .Case("stablehlo.minimum", "min")
               .Case("stablehlo.power", "pow")
               .Case("stablehlo.atan2", "atan2")
               .Case("stablehlo.remainder", "rem")
               .Default("");
    if (!twin.empty()) {
      if (failed(src.arity(2)))
        return failure();
      if (type.getElementType().isInteger(1) && name == "stablehlo.add")
        return one(booleanOr(loc, in[0], in[1], type)); // xla's pred add
      // Integer remainder: x - y (x / y), the division rounding toward zero
      // as StableHLO's does (a zero divisor is a run-time error).
      if (twin == "rem" && type.getElementType().isSignlessInteger() &&
          !type.getElementType().isInteger(1)) {
        Value q = make("div", loc, in, type);
        return one(make("sub", loc, {in[0], make("mul", loc, {in[1], q}, type)}, type));
      }
      if ((twin == "rem" || twin == "atan2") && !isa<FloatType>(type.getElementType()))
        return unsupported(op, "only on floats");
      return one(make(twin, loc, in, type));
    }

    return std::nullopt;
  }

  /// Elementwise ops written with several shardc ops (compare, select,
  /// clamp, logistic, is_finite, sign, the boolean ops), and the
  /// generators (constant, iota).
  std::optional<Converted> derivedElementwise(const Source &src) {
    auto [op, name, loc, in, type] = std::tie(src.op, src.name, src.loc, src.in, src.type);
    if (name == "stablehlo.constant") {
      auto value = dyn_cast_or_null<ElementsAttr>(op->getAttr("value"));
      if (!value || op->getNumResults() != 1)
        return op->emitError("a constant needs a dense value");
      return one(make("constant", loc, {}, value.getType(), {b.getNamedAttr("value", value)}));
    }
    if (name == "stablehlo.iota") {
      std::optional<int64_t> dim = intOf(attrOf(op, {"dim", "iota_dimension"}));
      if (!dim || failed(src.arity(0)))
        return op->emitError("iota needs its dimension and a ranked result");
      return one(make("iota", loc, {}, type, {b.getNamedAttr("dim", b.getI64IntegerAttr(*dim))}));
    }
    if (name == "stablehlo.compare")
      return compare(op, type);
    if (name == "stablehlo.select") {
      if (failed(src.arity(3)))
        return failure();
      // A scalar predicate picks whole operands.
      return one(
          make("select", loc,
               {broadcastTo(loc, in[0], RankedTensorType::get(type.getShape(), b.getI1Type())),
                in[1], in[2]},
               type));
    }
    if (name == "stablehlo.clamp") { // min(max(x, lo), hi), NaN as maximum and minimum
      if (failed(src.arity(3)))
        return failure();
      Value lo = broadcastTo(loc, in[0], type), hi = broadcastTo(loc, in[2], type);
      Value low = make("max", loc, {in[1], lo}, type);
      return one(make("min", loc, {low, hi}, type));
    }
    if (name == "stablehlo.logistic") { // 1 / (1 + exp(-x))
      if (failed(src.arity(1)))
        return failure();
      Value e = make("exp", loc, make("neg", loc, in[0], type), type);
      Value one_ = splat(loc, type, 1.0);
      return one(make("div", loc, {one_, make("add", loc, {one_, e}, type)}, type));
    }
    if (name == "stablehlo.is_finite") { // x - x is 0 unless x is infinite or NaN
      if (in.size() != 1 || !type)
        return op->emitError("is_finite takes one operand");
      Value diff = make("sub", loc, {in[0], in[0]}, in[0].getType());
      return one(make("compare", loc,
                      {diff, splat(loc, cast<RankedTensorType>(in[0].getType()), 0.0)}, type,
                      {direction(CompareDirection::EQ)}));
    }
    if (name == "stablehlo.sign") { // x > 0 ? 1 : (x < 0 ? -1 : x); keeps 0, -0 and NaN
      if (failed(src.arity(1)))
        return failure();
      auto pred = RankedTensorType::get(type.getShape(), b.getI1Type());
      Value zero = splat(loc, type, 0.0);
      Value pos = make("compare", loc, {in[0], zero}, pred, {direction(CompareDirection::GT)});
      Value neg = make("compare", loc, {in[0], zero}, pred, {direction(CompareDirection::LT)});
      Value inner = make("select", loc, {neg, splat(loc, type, -1.0), in[0]}, type);
      return one(make("select", loc, {pos, splat(loc, type, 1.0), inner}, type));
    }
    if (name == "stablehlo.and" || name == "stablehlo.or" || name == "stablehlo.not") {
      if (failed(src.arity(name == "stablehlo.not" ? 1 : 2)))
        return failure();
      if (!type.getElementType().isInteger(1))
        return unsupported(op, "only on booleans (i1); bitwise integer ops are not");
      if (name == "stablehlo.not")
        return one(make("select", loc, {in[0], splat(loc, type, 0), splat(loc, type, 1)}, type));
      if (name == "stablehlo.or")
        return one(booleanOr(loc, in[0], in[1], type));
      return one(make("select", loc, {in[0], in[1], splat(loc, type, 0)}, type));
    }
    return std::nullopt;
  }

  /// Contractions, reductions and data movement.
  std::optional<Converted> structural(const Source &src) {
    auto [op, name, loc, in, type] = std::tie(src.op, src.name, src.loc, src.in, src.type);
    if (name == "stablehlo.dot_general" || name == "stablehlo.dot")
      return dot(op, type);
    if (name == "stablehlo.reduce")
      return reduce(op);
    if (name == "stablehlo.broadcast_in_dim") {
      std::optional<SmallVector<int64_t>> dims =
          intsOf(attrOf(op, {"dims", "broadcast_dimensions"}));
      if (!dims || failed(src.arity(1)))
        return op->emitError("broadcast_in_dim needs its dimensions");
      return one(make("broadcast_in_dim", loc, in, type,
                      {b.getNamedAttr("dims", b.getDenseI64ArrayAttr(*dims))}));
    }
    if (name == "stablehlo.transpose") {
      std::optional<SmallVector<int64_t>> perm = intsOf(attrOf(op, {"dims", "permutation"}));
      if (!perm || failed(src.arity(1)))
        return op->emitError("transpose needs its permutation");
      return one(make("transpose", loc, in, type,
                      {b.getNamedAttr("permutation", b.getDenseI64ArrayAttr(*perm))}));
    }
    if (name == "stablehlo.slice") {
      std::optional<SmallVector<int64_t>> start = intsOf(attrOf(op, {"start_indices"})),
                                          limit = intsOf(attrOf(op, {"limit_indices"})),
                                          strides = intsOf(attrOf(op, {"strides"}));
      if (!start || !limit || failed(src.arity(1)))
        return op->emitError("slice needs its start and limit indices");
      if (!strides)
        strides = SmallVector<int64_t>(start->size(), 1);
      return one(make("slice", loc, in, type,
                      {b.getNamedAttr("start", b.getDenseI64ArrayAttr(*start)),
                       b.getNamedAttr("limit", b.getDenseI64ArrayAttr(*limit)),
                       b.getNamedAttr("strides", b.getDenseI64ArrayAttr(*strides))}));
    }
    if (name == "stablehlo.concatenate") {
      std::optional<int64_t> dim = intOf(attrOf(op, {"dim", "dimension"}));
      if (!dim || !type)
        return op->emitError("concatenate needs its dimension");
      return one(
          make("concatenate", loc, in, type, {b.getNamedAttr("dim", b.getI64IntegerAttr(*dim))}));
    }
    if (name == "stablehlo.dynamic_slice") {
      if (in.empty() || !type)
        return op->emitError("dynamic_slice needs an operand");
      std::optional<SmallVector<int64_t>> sizes = intsOf(attrOf(op, {"sizes", "slice_sizes"}));
      if (sizes && ArrayRef<int64_t>(*sizes) != type.getShape())
        return op->emitError("dynamic_slice's sizes do not match its result's shape");
      return one(make("dynamic_slice", loc, in, type));
    }
    if (name == "stablehlo.dynamic_update_slice") {
      if (in.size() < 2 || !type)
        return op->emitError("dynamic_update_slice needs an operand and an update");
      return one(make("dynamic_update_slice", loc, in, type));
    }
    if (name == "stablehlo.custom_call")
      return customCall(op, type);
    if (name == "stablehlo.reverse" || name == "stablehlo.pad") {
      FailureOr<Value> v = name == "stablehlo.reverse" ? convertReverse(op, b) : convertPad(op, b);
      if (failed(v))
        return failure();
      return one(*v);
    }
    if (name == "stablehlo.gather" || name == "stablehlo.scatter") {
      FailureOr<Value> v = name == "stablehlo.gather"
                               ? convertGather(op, b)
                               : convertScatterAdd(op, b, reduceKind(op) == ReduceKind::Sum);
      if (failed(v))
        return failure();
      return one(*v);
    }
    return std::nullopt;
  }

  /// Shardy's ops (constraints, hints, shard_map bodies and their
  /// collectives) and the barriers that change no value.
  std::optional<Converted> shardy(const Source &src) {
    auto [op, name, loc, in, type] = std::tie(src.op, src.name, src.loc, src.in, src.type);
    if (name == "sdy.sharding_constraint" || name == "sdy.reshard") {
      if (failed(src.arity(1)))
        return failure();
      ShardingAttr s = kept(dyn_cast_or_null<ShardingAttr>(op->getAttr("sharding")));
      if (!s || manual) // see pinResultShardings
        return one(in[0]);
      return one(make("sharding_constraint", loc, in, type, {b.getNamedAttr("sharding", s)}));
    }
    // Propagation hints: they change no value.
    if (name == "sdy.propagation_barrier" || name == "sdy.data_flow_edge") {
      if (failed(src.arity(1)))
        return failure();
      return one(in[0]);
    }
    if (name == "sdy.sharding_group")
      return SmallVector<Value>();
    if (name == "stablehlo.optimization_barrier") {
      SmallVector<Value> same(in.begin(), in.end());
      return same;
    }
    if (name == "sdy.manual_computation")
      return shardMap(op);
    if (name == "sdy.return" || name == "stablehlo.return") {
      if (!manual)
        return op->emitError("'") << name << "' outside a body the importer converts";
      OperationState st(loc, "shardc.return");
      st.addOperands(in);
      b.create(st);
      return SmallVector<Value>();
    }
    if (name == "stablehlo.all_reduce" || name == "stablehlo.all_gather" ||
        name == "stablehlo.reduce_scatter" || name == "stablehlo.all_to_all" ||
        name == "stablehlo.collective_permute") {
      if (!manual)
        return unsupported(op, "collectives are supported inside shard_map "
                               "(sdy.manual_computation) bodies");
      FailureOr<Value> v = convertCollective(op, b, *manual, reduceKind(op));
      if (failed(v))
        return failure();
      return one(*v);
    }
    return std::nullopt;
  }

  NamedAttribute direction(CompareDirection d) {
    return b.getNamedAttr("direction", CompareDirectionAttr::get(b.getContext(), d));
  }

  Value booleanOr(Location loc, Value x, Value y, RankedTensorType type) {
    return make("select", loc, {x, splat(loc, type, 1), y}, type);
  }

  FailureOr<SmallVector<Value>> compare(Operation *op, RankedTensorType type) {
    std::optional<StringRef> dir = stringOf(attrOf(op, {"comparison_direction"}));
    std::optional<CompareDirection> d;
    if (dir)
      d = llvm::StringSwitch<std::optional<CompareDirection>>(*dir)
              .Case("EQ", CompareDirection::EQ)
              .Case("NE", CompareDirection::NE)
              .Case("LT", CompareDirection::LT)
              .Case("LE", CompareDirection::LE)
              .Case("GT", CompareDirection::GT)
              .Case("GE", CompareDirection::GE)
              .Default(std::nullopt);
    if (!d || op->getNumOperands() != 2 || !type)
      return op->emitError("compare needs a direction (EQ, NE, LT, LE, GT, GE) and two operands");
    if (std::optional<StringRef> kind = stringOf(attrOf(op, {"compare_type"}));
        kind && *kind != "FLOAT" && *kind != "SIGNED")
      return unsupported(op, "compare type " + *kind + " (FLOAT and SIGNED are)");
    return one(make("compare", op->getLoc(), op->getOperands(), type, {direction(*d)}));
  }

  FailureOr<SmallVector<Value>> dot(Operation *op, RankedTensorType type) {
    Location loc = op->getLoc();
    if (op->getNumOperands() != 2 || !type)
      return op->emitError("a product takes two operands and gives one ranked tensor");
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    auto lt = dyn_cast<RankedTensorType>(lhs.getType());
    auto rt = dyn_cast<RankedTensorType>(rhs.getType());
    if (!lt || !rt)
      return op->emitError("a product's operands must be ranked tensors");
    SmallVector<int64_t> lb, rb, lc, rc;
    if (op->getName().getStringRef() == "stablehlo.dot") {
      // Vector and matrix products: the last dimension of lhs with the first of rhs.
      if (lt.getRank() < 1 || lt.getRank() > 2 || rt.getRank() < 1 || rt.getRank() > 2)
        return op->emitError("stablehlo.dot takes vectors and matrices");
      lc = {lt.getRank() - 1};
      rc = {0};
    } else {
      auto dims = dyn_cast_or_null<DictionaryAttr>(attrOf(op, {"dot_dimension_numbers"}));
      auto field = [&](StringRef printed, StringRef generic) -> SmallVector<int64_t> {
        std::optional<SmallVector<int64_t>> v =
            intsOf(dims ? dims.get(generic) : attrOf(op, {printed}));
        return v ? *v : SmallVector<int64_t>();
      };
      lb = field("lhs_batching_dims", "lhs_batching_dimensions");
      rb = field("rhs_batching_dims", "rhs_batching_dimensions");
      lc = field("lhs_contracting_dims", "lhs_contracting_dimensions");
      rc = field("rhs_contracting_dims", "rhs_contracting_dimensions");
    }
    // A preferred result type (bf16 x bf16 -> f32): the operands are
    // converted first, which is exact.
    Type elt = type.getElementType();
    auto as = [&](Value v, RankedTensorType t) {
      return t.getElementType() == elt
                 ? v
                 : make("convert", loc, v, RankedTensorType::get(t.getShape(), elt));
    };
    lhs = as(lhs, lt);
    rhs = as(rhs, rt);
    return one(make("dot_general", loc, {lhs, rhs}, type,
                    {b.getNamedAttr("lhs_batching_dims", b.getDenseI64ArrayAttr(lb)),
                     b.getNamedAttr("rhs_batching_dims", b.getDenseI64ArrayAttr(rb)),
                     b.getNamedAttr("lhs_contracting_dims", b.getDenseI64ArrayAttr(lc)),
                     b.getNamedAttr("rhs_contracting_dims", b.getDenseI64ArrayAttr(rc))}));
  }

  /// The body of a reduction of `n` operands at once: `applies
  /// stablehlo.add` (each pair alike), or a region whose result `i` is one
  /// op combining its arguments `i` and `n + i`: one op name per result.
  std::optional<SmallVector<StringRef>> reducers(Operation *op, unsigned n) {
    if (std::optional<StringRef> applied = stringOf(op->getAttr("applies")))
      return SmallVector<StringRef>(n, *applied);
    if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
      return std::nullopt;
    Block &body = op->getRegion(0).front();
    Operation *ret = body.getTerminator();
    if (body.getNumArguments() != 2 * n || body.getOperations().size() != n + 1 ||
        ret->getNumOperands() != n)
      return std::nullopt;
    SmallVector<StringRef> names;
    for (unsigned i = 0; i < n; ++i) {
      Operation *combine = ret->getOperand(i).getDefiningOp();
      if (!combine || combine->getNumOperands() != 2 || combine->getNumResults() != 1)
        return std::nullopt;
      Value a = body.getArgument(i), c = body.getArgument(n + i);
      if (!((combine->getOperand(0) == a && combine->getOperand(1) == c) ||
            (combine->getOperand(0) == c && combine->getOperand(1) == a)))
        return std::nullopt;
      names.push_back(combine->getName().getStringRef());
    }
    return names;
  }

  static std::optional<ReduceKind> kindOf(StringRef combine) {
    return llvm::StringSwitch<std::optional<ReduceKind>>(combine)
        .Case("stablehlo.add", ReduceKind::Sum)
        .Case("stablehlo.maximum", ReduceKind::Max)
        .Case("stablehlo.minimum", ReduceKind::Min)
        .Default(std::nullopt);
  }

  FailureOr<SmallVector<Value>> shardMap(Operation *op) {
    for (StringRef key : {"in_shardings", "out_shardings"})
      if (auto list = dyn_cast_or_null<ArrayAttr>(op->getAttr(key))) {
        SmallVector<Attribute> mapped;
        for (Attribute a : list) {
          ShardingAttr s = kept(dyn_cast<ShardingAttr>(a));
          if (!s)
            return op->emitError("a manual_computation on a mesh without axes");
          mapped.push_back(s);
        }
        op->setAttr(key, b.getArrayAttr(mapped));
      }
    ManualMesh mesh;
    FailureOr<Operation *> map = buildShardMap(op, b, module, mesh);
    if (failed(map))
      return failure();
    std::optional<ManualMesh> outer = manual;
    manual = mesh;
    LogicalResult body = convertBlock((*map)->getRegion(0).front());
    manual = outer;
    if (failed(body))
      return failure();
    return SmallVector<Value>((*map)->getResults());
  }

  /// The kind of a one-operand reduction, collective or scatter.
  std::optional<ReduceKind> reduceKind(Operation *op) {
    std::optional<SmallVector<StringRef>> body = reducers(op, 1);
    return body ? kindOf((*body)[0]) : std::nullopt;
  }

  /// A reduction of n operands whose results are independent (each
  /// operand's pair combined alone) is n reductions.
  FailureOr<SmallVector<Value>> reduce(Operation *op) {
    Location loc = op->getLoc();
    unsigned n = op->getNumResults();
    if (n == 0 || op->getNumOperands() != 2 * n)
      return op->emitError("reduce needs one initial value per operand");
    std::optional<SmallVector<StringRef>> body = reducers(op, n);
    if (!body)
      return unsupported(op, "a reduction whose results depend on each other (argmax, "
                             "sort keys), or whose body is not one op per result");
    std::optional<SmallVector<int64_t>> dims = intsOf(attrOf(op, {"dimensions"}));
    if (!dims)
      return op->emitError("reduce needs its dimensions");
    SmallVector<Value> results;
    for (unsigned i = 0; i < n; ++i) {
      if (auto t = dyn_cast<RankedTensorType>(op->getResult(i).getType());
          t && t.getElementType().isInteger(1)) {
        FailureOr<Value> r =
            reduceBooleans(op, (*body)[i], op->getOperand(i), op->getOperand(n + i), *dims, t);
        if (failed(r))
          return failure();
        results.push_back(*r);
        continue;
      }
      std::optional<ReduceKind> kind = kindOf((*body)[i]);
      if (!kind)
        return unsupported(op, "a reduction other than a sum, max or min ("
                               "its body must be one stablehlo.add, maximum or minimum)");
      auto type = dyn_cast<RankedTensorType>(op->getResult(i).getType());
      if (!type)
        return op->emitError("reduce needs ranked results");
      Value x = op->getOperand(i), init = op->getOperand(n + i);
      Value r = dims->empty() // nothing reduced: only the initial value combines
                    ? x
                    : make("reduce", loc, x, type,
                           {b.getNamedAttr("kind", ReduceKindAttr::get(b.getContext(), *kind)),
                            b.getNamedAttr("dims", b.getDenseI64ArrayAttr(*dims))});
      // The initial value joins the result unless it is the identity.
      if (!isIdentity(init, *kind)) {
        StringRef combine = *kind == ReduceKind::Sum   ? "add"
                            : *kind == ReduceKind::Max ? "max"
                                                       : "min";
        r = make(combine, loc, {r, broadcastTo(loc, init, type)}, type);
      }
      results.push_back(r);
    }
    return results;
  }

  /// jnp.all and jnp.any: booleans reduced by and (min) or or (max, also
  /// XLA's add of booleans), through i32 and back.
  FailureOr<Value> reduceBooleans(Operation *op, StringRef combine, Value x, Value init,
                                  ArrayRef<int64_t> dims, RankedTensorType type) {
    Location loc = op->getLoc();
    std::optional<ReduceKind> kind =
        llvm::StringSwitch<std::optional<ReduceKind>>(combine)
            .Cases({"stablehlo.and", "stablehlo.minimum"}, ReduceKind::Min)
            .Cases({"stablehlo.or", "stablehlo.add", "stablehlo.maximum"}, ReduceKind::Max)
            .Default(std::nullopt);
    if (!kind)
      return unsupported(op, "a reduction of booleans other than and, or or add");
    Type i32 = b.getI32Type();
    auto wide = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return make("convert", loc, v, RankedTensorType::get(t.getShape(), i32));
    };
    auto resultI32 = RankedTensorType::get(type.getShape(), i32);
    Value r = dims.empty()
                  ? wide(x)
                  : make("reduce", loc, wide(x), resultI32,
                         {b.getNamedAttr("kind", ReduceKindAttr::get(b.getContext(), *kind)),
                          b.getNamedAttr("dims", b.getDenseI64ArrayAttr(dims))});
    r = make(*kind == ReduceKind::Min ? "min" : "max", loc,
             {r, broadcastTo(loc, wide(init), resultI32)}, resultI32);
    return make("compare", loc, {r, splat(loc, resultI32, 0)}, type,
                {direction(CompareDirection::NE)});
  }

  static bool isIdentity(Value init, ReduceKind kind) {
    Operation *def = init.getDefiningOp();
    if (!def || def->getName().getStringRef() != "shardc.constant")
      return false;
    auto value = dyn_cast<DenseElementsAttr>(def->getAttr("value"));
    if (!value || !value.isSplat())
      return false;
    if (auto f = dyn_cast<FloatType>(value.getElementType())) {
      (void)f;
      double v = value.getSplatValue<APFloat>().convertToDouble();
      return kind == ReduceKind::Sum   ? v == 0.0
             : kind == ReduceKind::Max ? std::isinf(v) && v < 0
                                       : std::isinf(v) && v > 0;
    }
    APInt v = value.getSplatValue<APInt>();
    unsigned w = v.getBitWidth();
    return kind == ReduceKind::Sum   ? v.isZero()
           : kind == ReduceKind::Max ? v == APInt::getSignedMinValue(w)
                                     : v == APInt::getSignedMaxValue(w);
  }

  FailureOr<SmallVector<Value>> customCall(Operation *op, RankedTensorType type) {
    std::optional<StringRef> target = stringOf(op->getAttr("call_target_name"));
    if (target && *target == "Sharding") {
      if (op->getNumOperands() != 1 || !type)
        return op->emitError("custom_call @Sharding takes one value");
      auto text = dyn_cast_or_null<StringAttr>(op->getAttr("mhlo.sharding"));
      if (!text)
        return op->emitError("custom_call @Sharding needs an mhlo.sharding string");
      FailureOr<ShardingAttr> s = gspmdSharding(op, text.getValue(), type);
      if (failed(s))
        return failure();
      if (!*s)
        return one(op->getOperand(0));
      return one(make("sharding_constraint", op->getLoc(), op->getOperand(0), type,
                      {b.getNamedAttr("sharding", *s)}));
    }
    return unsupported(op, "custom_call @" + (target ? *target : StringRef("?")) +
                               " (only @Sharding is)");
  }
};

} // namespace

LogicalResult convertOps(Block &body, ModuleOp module, const MeshMap &meshes, GspmdMeshes &gspmd) {
  Converter converter(module, meshes, gspmd);
  return converter.convertBlock(body);
}

} // namespace shardc::import
