//===- ShardingOps.cpp - meshes, sharding ops and collectives -------------===//
//
// The ops that place values on devices: the mesh, sharding_constraint,
// shard_map and the collectives, whose checks need the mesh they name (so
// they are verified as symbol uses).
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Common/SubAxis.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace shardc;

//===----------------------------------------------------------------------===//
// MeshOp:  shardc.mesh @name = <["a"=2, "b"=4]>
//===----------------------------------------------------------------------===//

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name), result.attributes) ||
      parser.parseEqual() || parser.parseLess())
    return failure();
  SmallVector<Attribute> names;
  SmallVector<int64_t> sizes;
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     [&] {
                                       std::string axis;
                                       int64_t size = 0;
                                       if (parser.parseString(&axis) || parser.parseEqual() ||
                                           parser.parseInteger(size))
                                         return failure();
                                       names.push_back(parser.getBuilder().getStringAttr(axis));
                                       sizes.push_back(size);
                                       return success();
                                     }) ||
      parser.parseGreater() || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute(getAxisNamesAttrName(result.name), b.getArrayAttr(names));
  result.addAttribute(getAxisSizesAttrName(result.name), b.getDenseI64ArrayAttr(sizes));
  return success();
}

void MeshOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printSymbolName(getSymName());
  p << " = <[";
  for (auto [i, name] : llvm::enumerate(getAxisNames())) {
    if (i)
      p << ", ";
    p << "\"" << cast<StringAttr>(name).getValue() << "\"=" << getAxisSizes()[i];
  }
  p << "]>";
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSymNameAttrName(), getAxisNamesAttrName(), getAxisSizesAttrName()});
}

LogicalResult MeshOp::verify() {
  if (getAxisNames().size() != getAxisSizes().size())
    return emitOpError("has ") << getAxisNames().size() << " axis names but "
                               << getAxisSizes().size() << " axis sizes";
  llvm::SmallSet<StringRef, 4> seen;
  for (auto [name, size] : llvm::zip(getAxisNames(), getAxisSizes())) {
    StringRef axis = cast<StringAttr>(name).getValue();
    if (axis.empty())
      return emitOpError("has an axis with an empty name");
    if (!seen.insert(axis).second)
      return emitOpError("declares axis \"") << axis << "\" more than once";
    if (size < 1)
      return emitOpError("axis \"") << axis << "\" must have a positive size, got " << size;
  }
  // Bounded so that device counts and group sizes never overflow.
  constexpr int64_t kMaxDevices = int64_t(1) << 20;
  int64_t devices = 1;
  for (int64_t size : getAxisSizes()) {
    if (size > kMaxDevices || devices * size > kMaxDevices)
      return emitOpError("has more than ") << kMaxDevices << " devices";
    devices *= size;
  }
  return success();
}

int64_t MeshOp::getNumDevices() {
  int64_t n = 1;
  for (int64_t size : getAxisSizes())
    n *= size;
  return n;
}

int64_t MeshOp::getAxisIndex(StringRef axis) {
  for (auto [i, name] : llvm::enumerate(getAxisNames()))
    if (cast<StringAttr>(name).getValue() == axis)
      return i;
  if (std::optional<SubAxis> sub = parseSubAxis(axis.str()))
    for (auto [i, name] : llvm::enumerate(getAxisNames()))
      if (cast<StringAttr>(name).getValue() == sub->axis) {
        // Each part at most the axis (no overflow from written sizes) and
        // together a factor of it.
        int64_t n = getAxisSizes()[i];
        return sub->pre <= n && sub->size > 1 && sub->size < n && n % (sub->pre * sub->size) == 0
                   ? (int64_t)i
                   : -1;
      }
  return -1;
}

int64_t MeshOp::getAxisSize(StringRef axis) {
  int64_t i = getAxisIndex(axis);
  assert(i >= 0 && "unknown mesh axis");
  if (cast<StringAttr>(getAxisNames()[i]).getValue() == axis)
    return getAxisSizes()[i];
  return parseSubAxis(axis.str())->size;
}

int64_t MeshOp::getAxisPreSize(StringRef axis) {
  int64_t i = getAxisIndex(axis);
  if (i < 0 || cast<StringAttr>(getAxisNames()[i]).getValue() == axis)
    return 1;
  return parseSubAxis(axis.str())->pre;
}

bool MeshOp::axesOverlap(StringRef a, StringRef b) {
  int64_t ia = getAxisIndex(a), ib = getAxisIndex(b);
  if (ia < 0 || ia != ib)
    return false;
  int64_t pa = getAxisPreSize(a), pb = getAxisPreSize(b);
  return std::max(pa, pb) < std::min(pa * getAxisSize(a), pb * getAxisSize(b));
}

//===----------------------------------------------------------------------===//
// Sharding
//===----------------------------------------------------------------------===//

LogicalResult ShardingConstraintOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(*this, getSharding().getMesh());
  return verifySharding([&] { return emitOpError(); }, getSharding(), mesh, getType(),
                        /*localType=*/false, /*allowPadding=*/true);
}

FlatSymbolRefAttr ShardMapOp::getMeshRef() {
  for (ArrayAttr list : {getInShardings(), getOutShardings()})
    if (!list.empty())
      return cast<ShardingAttr>(list[0]).getMesh();
  return {};
}

LogicalResult ShardMapOp::verifyRegions() {
  if ((*this)->getParentOfType<ShardMapOp>())
    return emitOpError("cannot be nested in another shard_map: its body is already "
                       "per-device");
  Block &body = getBody().front();
  if (getInShardings().size() != getInputs().size())
    return emitOpError("has ") << getInputs().size() << " inputs but " << getInShardings().size()
                               << " in_shardings";
  if (getOutShardings().size() != getNumResults())
    return emitOpError("has ") << getNumResults() << " results but " << getOutShardings().size()
                               << " out_shardings";
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ") << body.getNumArguments() << " arguments but the op has "
                                    << getInputs().size() << " inputs";
  auto ret = cast<ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() != getNumResults())
    return ret.emitOpError("returns ") << ret.getNumOperands() << " values but the shard_map has "
                                       << getNumResults() << " results";
  return success();
}

LogicalResult ShardMapOp::verifySymbolUses(SymbolTableCollection &tables) {
  FlatSymbolRefAttr meshRef = getMeshRef();
  if (!meshRef)
    return success(); // No inputs and no results: nothing to shard.
  auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(*this, meshRef);
  if (!mesh)
    return emitOpError("refers to unknown mesh ") << meshRef;
  Block &body = getBody().front();
  auto ret = cast<ReturnOp>(body.getTerminator());
  auto check = [&](ShardingAttr sharding, Type global, Type local,
                   const Twine &what) -> LogicalResult {
    auto emit = [&] { return emitOpError() << what << ": "; };
    if (sharding.getMesh() != meshRef)
      return emit() << "all shardings must use mesh " << meshRef << ", got " << sharding.getMesh();
    if (!sharding.isClosed())
      return emit() << "shard_map shardings must be closed (no '?')";
    if (!sharding.getPartial().empty())
      return emit() << "shard_map shardings are whole values (no partial = {...})";
    // A dimension that does not divide is padded, as where the function
    // opts into padding; partitioning checks that it does (checkPadding).
    if (failed(verifySharding(emit, sharding, mesh, global, /*localType=*/false,
                              /*allowPadding=*/true)))
      return failure();
    auto expected = getLocalType(cast<RankedTensorType>(global), sharding, mesh);
    if (local != expected)
      return emit() << "local type must be " << expected << " (the global type " << global
                    << " split by the sharding), got " << local;
    return success();
  };
  for (auto [i, input] : llvm::enumerate(getInputs()))
    if (failed(check(cast<ShardingAttr>(getInShardings()[i]), input.getType(),
                     body.getArgument(i).getType(), "input #" + Twine(i))))
      return failure();
  for (auto [i, result] : llvm::enumerate(getResults()))
    if (failed(check(cast<ShardingAttr>(getOutShardings()[i]), result.getType(),
                     ret.getOperand(i).getType(), "result #" + Twine(i))))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Resolves the mesh of a collective and checks its axes; a collective inside
/// a shard_map must use the shard_map's mesh.
static FailureOr<MeshOp> verifyCollective(Operation *op, SymbolTableCollection &tables,
                                          FlatSymbolRefAttr meshRef, ArrayAttr axes) {
  auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(op, meshRef);
  if (!mesh)
    return op->emitOpError("refers to unknown mesh ") << meshRef;
  if (auto shardMap = op->getParentOfType<ShardMapOp>())
    if (shardMap.getMeshRef() && shardMap.getMeshRef() != meshRef)
      return op->emitOpError("uses mesh ")
             << meshRef << " inside a shard_map over " << shardMap.getMeshRef();
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  if (failed(verifyMeshAxes([&] { return op->emitOpError(); }, mesh, names)))
    return failure();
  return mesh;
}

static SmallVector<StringRef> axisNames(ArrayAttr axes) {
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  return names;
}

/// Checks `result` = `operand` with dimension `mulDim` multiplied and `divDim`
/// divided by `group` (either may be -1).
static LogicalResult checkCollectiveShape(Operation *op, RankedTensorType operand,
                                          RankedTensorType result, int64_t group, int64_t mulDim,
                                          int64_t divDim) {
  SmallVector<int64_t> shape(operand.getShape());
  if (divDim >= 0) {
    if (shape[divDim] % group != 0)
      return op->emitOpError("dimension ")
             << divDim << " of size " << shape[divDim] << " does not divide into the group of "
             << group << " devices";
    shape[divDim] /= group;
  }
  if (mulDim >= 0)
    shape[mulDim] *= group;
  if (result.getShape() != ArrayRef<int64_t>(shape))
    return op->emitOpError("result shape must be ")
           << formatShape(shape) << " for a group of " << group << " devices, got "
           << formatShape(result.getShape());
  return success();
}

static LogicalResult checkDimAttr(Operation *op, StringRef name, int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError() << name << " " << dim << " is out of range for rank " << rank;
  return success();
}

#define SHARDC_GROUP_SIZE(OP)                                                                      \
  int64_t OP::getGroupSize() {                                                                     \
    return shardc::getGroupSize(lookupMesh(*this, getMeshAttr()), axisNames(getAxes()));           \
  }
SHARDC_GROUP_SIZE(AllReduceOp)
SHARDC_GROUP_SIZE(AllGatherOp)
SHARDC_GROUP_SIZE(ReduceScatterOp)
SHARDC_GROUP_SIZE(AllToAllOp)
SHARDC_GROUP_SIZE(AllSliceOp)
SHARDC_GROUP_SIZE(CollectivePermuteOp)
#undef SHARDC_GROUP_SIZE

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyCollective(*this, tables, getMeshAttr(), getAxes());
}

/// all_gather (grows `dim` by the group size), reduce_scatter and all_slice
/// (shrink it): mesh, axes, dim and result shape.
template <typename OpTy>
static LogicalResult verifyOneDimCollective(OpTy op, SymbolTableCollection &tables, bool grows) {
  FailureOr<MeshOp> mesh = verifyCollective(op, tables, op.getMeshAttr(), op.getAxes());
  if (failed(mesh))
    return failure();
  auto in = op.getOperand().getType(), out = op.getType();
  int64_t dim = op.getDimAttr().getInt();
  if (failed(checkDimAttr(op, "dim", dim, in.getRank())))
    return failure();
  int64_t group = shardc::getGroupSize(*mesh, axisNames(op.getAxes()));
  return checkCollectiveShape(op, in, out, group, grows ? dim : -1, grows ? -1 : dim);
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyOneDimCollective(*this, tables, /*grows=*/true);
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyOneDimCollective(*this, tables, /*grows=*/false);
}

LogicalResult AllSliceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyOneDimCollective(*this, tables, /*grows=*/false);
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<MeshOp> mesh = verifyCollective(*this, tables, getMeshAttr(), getAxes());
  if (failed(mesh))
    return failure();
  auto in = getOperand().getType(), out = getType();
  if (failed(checkDimAttr(*this, "split_dim", getSplitDimAttr().getInt(), in.getRank())) ||
      failed(checkDimAttr(*this, "concat_dim", getConcatDimAttr().getInt(), in.getRank())))
    return failure();
  return checkCollectiveShape(*this, in, out, shardc::getGroupSize(*mesh, axisNames(getAxes())),
                              getConcatDim(), getSplitDim());
}

LogicalResult CollectivePermuteOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<MeshOp> mesh = verifyCollective(*this, tables, getMeshAttr(), getAxes());
  if (failed(mesh))
    return failure();
  int64_t group = shardc::getGroupSize(*mesh, axisNames(getAxes()));
  ArrayRef<int64_t> sources = getSources();
  if ((int64_t)sources.size() != group)
    return emitOpError("sources must name one position per device of the group of ")
           << group << ", got " << sources.size();
  SmallVector<bool> seen(group, false);
  for (auto [r, s] : llvm::enumerate(sources)) {
    if (s < 0 || s >= group)
      return emitOpError("source ")
             << s << " of position " << r << " is outside the group of " << group << " devices";
    if (seen[s])
      return emitOpError("source ") << s << " is named twice: sources must be a permutation";
    seen[s] = true;
  }
  return success();
}
