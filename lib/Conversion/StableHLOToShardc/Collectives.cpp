//===- Collectives.cpp - shard_map regions and their collectives ----------===//

#include "Collectives.h"
#include "ImportUtil.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

namespace shardc::import {

namespace {

using Groups = std::vector<std::vector<int64_t>>;

/// The groups of devices that differ only along the axes in `mask` (a bit
/// per mesh axis), each listed row-major over those axes, ordered by their
/// first device.
Groups groupsOf(const ManualMesh &mesh, unsigned mask) {
  size_t k = mesh.sizes.size();
  int64_t n = 1;
  for (int64_t s : mesh.sizes)
    n *= s;
  std::map<std::vector<int64_t>, std::vector<int64_t>> byRest;
  for (int64_t d = 0; d < n; ++d) {
    std::vector<int64_t> coord(k), rest;
    int64_t r = d;
    for (size_t i = k; i-- > 0;) {
      coord[i] = r % mesh.sizes[i];
      r /= mesh.sizes[i];
    }
    for (size_t i = 0; i < k; ++i)
      if (!(mask >> i & 1))
        rest.push_back(coord[i]);
    byRest[rest].push_back(d); // devices ascend, so row-major over the mask's axes
  }
  Groups groups;
  for (auto &[rest, g] : byRest)
    groups.push_back(g);
  std::sort(groups.begin(), groups.end());
  return groups;
}

/// The mesh axes (in mesh order) whose groups are `groups`; all of them
/// when `groups` is empty (one group of every device).
std::optional<SmallVector<StringRef>> axesOfGroups(const ManualMesh &mesh, Groups groups) {
  size_t k = mesh.sizes.size();
  if (k > 16)
    return std::nullopt;
  unsigned all = (1u << k) - 1;
  std::sort(groups.begin(), groups.end());
  for (unsigned mask = 1; mask <= all; ++mask)
    if (groups.empty() ? mask == all : groupsOf(mesh, mask) == groups) {
      SmallVector<StringRef> axes;
      for (size_t i = 0; i < k; ++i)
        if (mask >> i & 1)
          axes.push_back(mesh.axes[i]);
      return axes;
    }
  return std::nullopt;
}

std::optional<Groups> readGroups(Operation *op, StringRef name) {
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attrOf(op, {name}));
  if (!dense)
    return std::nullopt;
  auto type = cast<ShapedType>(dense.getType());
  if (type.getRank() != 2)
    return std::nullopt;
  Groups groups(type.getDimSize(0));
  int64_t i = 0;
  for (const APInt &v : dense) {
    int64_t d = v.getSExtValue();
    if (d >= 0) // -1 pads groups of different sizes
      groups[i / type.getDimSize(1)].push_back(d);
    ++i;
  }
  return groups;
}

ArrayAttr axesAttr(OpBuilder &b, ArrayRef<StringRef> axes) {
  SmallVector<Attribute> names;
  for (StringRef a : axes)
    names.push_back(b.getStringAttr(a));
  return b.getArrayAttr(names);
}

} // namespace

FailureOr<Operation *> buildShardMap(Operation *op, OpBuilder &b, ModuleOp module,
                                     ManualMesh &mesh) {
  auto in = dyn_cast_or_null<ArrayAttr>(op->getAttr("in_shardings"));
  auto out = dyn_cast_or_null<ArrayAttr>(op->getAttr("out_shardings"));
  auto manual = dyn_cast_or_null<ArrayAttr>(op->getAttr("manual_axes"));
  if (!in || !out || !manual || op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return op->emitError("a manual_computation needs in and out shardings, manual axes and "
                         "a body");
  if (in.size() != op->getNumOperands() || out.size() != op->getNumResults())
    return op->emitError("a manual_computation needs one sharding per operand and result");
  llvm::StringSet<> manualAxes;
  for (Attribute a : manual)
    manualAxes.insert(cast<StringAttr>(a).getValue());
  // The body is local along the manual axes only.
  FlatSymbolRefAttr meshRef;
  auto restrict = [&](Attribute a) -> FailureOr<Attribute> {
    auto s = dyn_cast<ShardingAttr>(a);
    if (!s)
      return op->emitError("a manual_computation's sharding is not a sharding");
    if (meshRef && s.getMesh() != meshRef)
      return op->emitError("a manual_computation's shardings name two meshes");
    meshRef = s.getMesh();
    if (!s.getPartial().empty())
      return op->emitError("unreduced axes on a manual_computation's sharding are not "
                           "supported");
    SmallVector<DimShardingAttr> dims;
    for (DimShardingAttr d : s.getDims()) {
      SmallVector<StringAttr> axes;
      for (StringAttr axis : d.getAxes())
        if (manualAxes.contains(axis.getValue().split(':').first))
          axes.push_back(axis);
      dims.push_back(DimShardingAttr::get(b.getContext(), axes, false));
    }
    return Attribute(ShardingAttr::get(b.getContext(), s.getMesh(), dims));
  };
  SmallVector<Attribute> ins, outs;
  for (Attribute a : in) {
    FailureOr<Attribute> r = restrict(a);
    if (failed(r))
      return failure();
    ins.push_back(*r);
  }
  for (Attribute a : out) {
    FailureOr<Attribute> r = restrict(a);
    if (failed(r))
      return failure();
    outs.push_back(*r);
  }
  if (!meshRef)
    return op->emitError("a manual_computation without shardings names no mesh");
  auto meshOp = SymbolTable::lookupNearestSymbolFrom<MeshOp>(module, meshRef);
  if (!meshOp)
    return op->emitError("a manual_computation on @")
           << meshRef.getValue() << ", which is not a mesh with axes here";
  mesh.ref = meshRef;
  mesh.axes.clear();
  mesh.sizes.clear();
  for (auto [name, size] : llvm::zip(meshOp.getAxisNames(), meshOp.getAxisSizes())) {
    mesh.axes.push_back(cast<StringAttr>(name).getValue().str());
    mesh.sizes.push_back(size);
  }
  for (Attribute a : manual)
    if (meshOp.getAxisIndex(cast<StringAttr>(a).getValue()) < 0)
      return op->emitError("manual axis \"")
             << cast<StringAttr>(a).getValue() << "\" is not an axis of @" << meshRef.getValue();
  OperationState st(op->getLoc(), "shardc.shard_map");
  st.addOperands(op->getOperands());
  st.addTypes(op->getResultTypes());
  st.addAttribute("in_shardings", b.getArrayAttr(ins));
  st.addAttribute("out_shardings", b.getArrayAttr(outs));
  st.addRegion()->takeBody(op->getRegion(0));
  return b.create(st);
}

FailureOr<Value> convertCollective(Operation *op, OpBuilder &b, const ManualMesh &mesh,
                                   std::optional<ReduceKind> kind) {
  StringRef name = op->getName().getStringRef();
  Location loc = op->getLoc();
  if (op->getNumOperands() != 1 || op->getNumResults() != 1)
    return op->emitError("'") << name << "' of several operands at once is not supported";
  Value x = op->getOperand(0);
  Type type = op->getResult(0).getType();
  FlatSymbolRefAttr meshRef = mesh.ref;
  auto create = [&](StringRef shardcName, ArrayRef<NamedAttribute> attrs) -> Value {
    OperationState st(loc, "shardc." + shardcName.str());
    st.addOperands(x);
    st.addTypes(type);
    st.addAttribute("mesh", meshRef);
    st.addAttributes(attrs);
    return b.create(st)->getResult(0);
  };
  if (name == "stablehlo.collective_permute") {
    std::optional<Groups> pairs = readGroups(op, "source_target_pairs");
    if (!pairs)
      return op->emitError("collective_permute needs source_target_pairs");
    // The axes whose groups hold every pair, each group permuted alike.
    size_t k = mesh.sizes.size();
    for (unsigned mask = 1; mask < (1u << k); ++mask) {
      Groups groups = groupsOf(mesh, mask);
      std::map<int64_t, std::pair<size_t, int64_t>> where; // device -> group, position
      for (size_t g = 0; g < groups.size(); ++g)
        for (size_t p = 0; p < groups[g].size(); ++p)
          where[groups[g][p]] = {g, (int64_t)p};
      int64_t size = (int64_t)groups[0].size();
      std::vector<int64_t> sources(size, -1);
      bool fits = (int64_t)pairs->size() == (int64_t)groups.size() * size;
      for (const std::vector<int64_t> &pair : *pairs) {
        if (!fits || pair.size() != 2 || !where.count(pair[0]) || !where.count(pair[1]) ||
            where[pair[0]].first != where[pair[1]].first) {
          fits = false;
          break;
        }
        int64_t &src = sources[where[pair[1]].second];
        if (src >= 0 && src != where[pair[0]].second)
          fits = false;
        src = where[pair[0]].second;
      }
      if (fits && std::find(sources.begin(), sources.end(), -1) == sources.end()) {
        SmallVector<StringRef> axes;
        for (size_t i = 0; i < k; ++i)
          if (mask >> i & 1)
            axes.push_back(mesh.axes[i]);
        return create("collective_permute",
                      {b.getNamedAttr("axes", axesAttr(b, axes)),
                       b.getNamedAttr("sources", b.getDenseI64ArrayAttr(sources))});
      }
    }
    return op->emitError("collective_permute's pairs are not one permutation of the groups "
                         "of some mesh axes (a device that receives nothing is not "
                         "supported)");
  }
  std::optional<Groups> groups = readGroups(op, "replica_groups");
  if (!groups)
    return op->emitError("'") << name << "' needs replica_groups";
  std::optional<SmallVector<StringRef>> axes = axesOfGroups(mesh, *groups);
  if (!axes)
    return op->emitError("the replica groups of '")
           << name << "' are not the groups of any set of mesh axes of @" << mesh.ref.getValue();
  NamedAttribute axesNamed = b.getNamedAttr("axes", axesAttr(b, *axes));
  auto reduction = [&]() -> FailureOr<NamedAttribute> {
    if (!kind)
      return op->emitError("'") << name
                                << "' combines with something other than one add, "
                                   "maximum or minimum";
    return b.getNamedAttr("kind", ReduceKindAttr::get(b.getContext(), *kind));
  };
  if (name == "stablehlo.all_reduce") {
    FailureOr<NamedAttribute> k = reduction();
    if (failed(k))
      return failure();
    return create("all_reduce", {*k, axesNamed});
  }
  if (name == "stablehlo.reduce_scatter") {
    FailureOr<NamedAttribute> k = reduction();
    std::optional<int64_t> dim = intOf(attrOf(op, {"scatter_dimension"}));
    if (failed(k) || !dim)
      return op->emitError("reduce_scatter needs its scatter_dimension");
    return create("reduce_scatter",
                  {*k, axesNamed, b.getNamedAttr("dim", b.getI64IntegerAttr(*dim))});
  }
  if (name == "stablehlo.all_gather") {
    std::optional<int64_t> dim = intOf(attrOf(op, {"all_gather_dim"}));
    if (!dim)
      return op->emitError("all_gather needs its all_gather_dim");
    return create("all_gather", {axesNamed, b.getNamedAttr("dim", b.getI64IntegerAttr(*dim))});
  }
  if (name == "stablehlo.all_to_all") {
    std::optional<int64_t> split = intOf(attrOf(op, {"split_dimension"})),
                           concat = intOf(attrOf(op, {"concat_dimension"}));
    if (!split || !concat)
      return op->emitError("all_to_all needs its split and concat dimensions");
    return create("all_to_all",
                  {axesNamed, b.getNamedAttr("split_dim", b.getI64IntegerAttr(*split)),
                   b.getNamedAttr("concat_dim", b.getI64IntegerAttr(*concat))});
  }
  return op->emitError("'") << name << "' is not a collective the importer converts";
}

} // namespace shardc::import
