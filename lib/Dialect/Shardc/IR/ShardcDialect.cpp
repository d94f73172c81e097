//===- ShardcDialect.cpp - dialect registration and attribute checks ------===//
//
// Registers the dialect and verifies the discardable attributes it owns:
// `shardc.sharding` on function arguments and results, `shardc.shardings` on
// operations, and `shardc.name` on function arguments.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace shardc;

#include "shardc/Dialect/Shardc/IR/ShardcDialect.cpp.inc"

void ShardcDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "shardc/Dialect/Shardc/IR/ShardcOps.cpp.inc"
      >();
}

/// Verifies `attr` as the `shardc.sharding` of a value of type `type`. On a
/// partitioned function the type is per-device: the sharding must use the
/// function's mesh and match its rank, and sizes are not checked.
static LogicalResult verifyValueSharding(Operation *op, NamedAttribute attr, Type type,
                                         const Twine &what) {
  auto sharding = dyn_cast<ShardingAttr>(attr.getValue());
  if (!sharding)
    return op->emitError() << "'" << attr.getName().getValue() << "' on " << what
                           << " must be a #shardc.sharding, got " << attr.getValue();
  auto partitioned = op->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName);
  if (partitioned && sharding.getMesh() != partitioned)
    return op->emitError() << what << ": sharding uses mesh " << sharding.getMesh()
                           << " but the function is partitioned over " << partitioned;
  if (!sharding.getPartial().empty())
    return op->emitError() << what
                           << ": partial = {...} is allowed only on a sharding_constraint "
                              "(arguments, results and op results are whole values)";
  return verifyShardingAt(
      op, [&] { return op->emitError() << what << ": "; }, sharding, type,
      /*localType=*/partitioned != nullptr, /*allowPadding=*/true);
}

/// `shardc.global_shape` of a partitioned function's argument or result: the
/// global shape, one size per dimension of the local type, each at most the
/// local size times the number of blocks.
static LogicalResult verifyGlobalShape(Operation *op, NamedAttribute attr, Type type,
                                       const Twine &what) {
  auto shape = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!shape || !tensor || shape.size() != tensor.getRank() ||
      llvm::any_of(shape.asArrayRef(), [](int64_t s) { return s < 0; }))
    return op->emitError() << "'" << attr.getName().getValue() << "' on " << what
                           << " must be an array<i64: ...> of one size per dimension";
  if (!op->hasAttr(ShardcDialect::kPartitionedAttrName))
    return op->emitError() << "'" << attr.getName().getValue() << "' on " << what
                           << " is allowed on a partitioned function only";
  return success();
}

/// `shardc.checkpoint = {group = N : i64, policy = "nothing" | "dots" |
/// "names" | "all_but_names"[, names = ["a", ...]]}`; names is given with
/// the last two only.
static LogicalResult verifyCheckpoint(Operation *op, Attribute value) {
  auto fail = [&]() {
    return op->emitError() << "'" << ShardcDialect::kCheckpointAttrName << "' ";
  };
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (!dict)
    return fail() << "must be a dictionary {group = N : i64, policy = \"...\"}";
  if (op->getNumResults() == 0 || isa<FunctionOpInterface>(op))
    return fail() << "belongs on an op with results";
  for (NamedAttribute entry : dict)
    if (!llvm::is_contained({"group", "policy", "names"}, entry.getName().getValue()))
      return fail() << "has unknown key '" << entry.getName().getValue()
                    << "' (keys: group, policy, names)";
  auto group = dyn_cast_or_null<IntegerAttr>(dict.get("group"));
  if (!group || group.getInt() < 0)
    return fail() << "needs group = N, a non-negative integer";
  auto policy = dyn_cast_or_null<StringAttr>(dict.get("policy"));
  if (!policy ||
      !llvm::is_contained({"nothing", "dots", "names", "all_but_names"}, policy.getValue()))
    return fail() << "needs policy = \"nothing\", \"dots\", \"names\" or \"all_but_names\"";
  Attribute names = dict.get("names");
  bool readsNames = policy.getValue() == "names" || policy.getValue() == "all_but_names";
  if (!readsNames) {
    if (names)
      return fail() << "gives names with policy \"" << policy.getValue()
                    << "\" (they are read by policies \"names\" and \"all_but_names\" only)";
    return success();
  }
  auto list = dyn_cast_or_null<ArrayAttr>(names);
  if (!list || llvm::any_of(list, [](Attribute a) {
        auto s = dyn_cast<StringAttr>(a);
        return !s || s.getValue().empty();
      }))
    return fail() << "with policy \"" << policy.getValue()
                  << "\" needs names = [\"...\", ...], non-empty strings";
  return success();
}

LogicalResult ShardcDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kPartitionedAttrName) {
    auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || !ref)
      return op->emitError() << "'" << kPartitionedAttrName
                             << "' must be a mesh reference on a function";
    if (!lookupMesh(op, ref))
      return op->emitError() << "'" << kPartitionedAttrName << "' refers to unknown mesh " << ref;
    return success();
  }
  if (attr.getName() == kShardingRuleAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kShardingRuleAttrName << "' must be a string";
    return success();
  }
  if (attr.getName() == kCheckpointAttrName)
    return verifyCheckpoint(op, attr.getValue());
  if (attr.getName() == kCheckpointNameAttrName) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError() << "'" << kCheckpointNameAttrName << "' must be a non-empty string";
    return success();
  }
  if (attr.getName() == kRecomputedAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << kRecomputedAttrName << "' takes no value";
    return success();
  }
  if (attr.getName() != kShardingsAttrName)
    return op->emitError() << "unknown shardc attribute '" << attr.getName().getValue()
                           << "' on an operation";
  auto array = dyn_cast<ArrayAttr>(attr.getValue());
  if (!array)
    return op->emitError() << "'" << kShardingsAttrName << "' must be an array of #shardc.sharding";
  if (array.size() != op->getNumResults())
    return op->emitError() << "'" << kShardingsAttrName << "' has " << array.size()
                           << " shardings but the operation has " << op->getNumResults()
                           << " results";
  for (auto [i, element] : llvm::enumerate(array)) {
    NamedAttribute one(attr.getName(), element);
    if (failed(verifyValueSharding(op, one, op->getResult(i).getType(), "result #" + Twine(i))))
      return failure();
  }
  return success();
}

LogicalResult ShardcDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned argIndex,
                                                      NamedAttribute attr) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is only allowed on function arguments";
  if (attr.getName() == kArgNameAttrName) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError() << "'" << kArgNameAttrName << "' on argument #" << argIndex
                             << " must be a non-empty string";
    for (unsigned i = 0; i < argIndex; ++i)
      if (fn.getArgAttr(i, kArgNameAttrName) == name)
        return op->emitError() << "arguments #" << i << " and #" << argIndex << " are both named '"
                               << name.getValue() << "'";
    return success();
  }
  if (attr.getName() == kDonatedAttrName || attr.getName() == kPadUnevenAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue() << "' on argument #" << argIndex
                             << " takes no value";
    return success();
  }
  if (attr.getName() == kGlobalShapeAttrName)
    return verifyGlobalShape(op, attr, fn.getArgumentTypes()[argIndex],
                             "argument #" + Twine(argIndex));
  if (attr.getName() != kShardingAttrName)
    return op->emitError() << "unknown shardc attribute '" << attr.getName().getValue()
                           << "' on argument #" << argIndex;
  return verifyValueSharding(op, attr, fn.getArgumentTypes()[argIndex],
                             "argument #" + Twine(argIndex));
}

LogicalResult ShardcDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                         unsigned resultIndex,
                                                         NamedAttribute attr) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is only allowed on function results";
  if (attr.getName() == kGlobalShapeAttrName)
    return verifyGlobalShape(op, attr, fn.getResultTypes()[resultIndex],
                             "result #" + Twine(resultIndex));
  if (attr.getName() != kShardingAttrName)
    return op->emitError() << "unknown shardc attribute '" << attr.getName().getValue()
                           << "' on result #" << resultIndex;
  return verifyValueSharding(op, attr, fn.getResultTypes()[resultIndex],
                             "result #" + Twine(resultIndex));
}
