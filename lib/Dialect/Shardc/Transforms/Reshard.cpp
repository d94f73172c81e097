//===- Reshard.cpp - moving a local value between layouts -----------------===//

#include "Reshard.h"

using namespace mlir;

namespace shardc {

Layout layoutOf(ShardingAttr sharding) {
  Layout layout;
  for (int64_t d = 0; d < sharding.getRank(); ++d) {
    SmallVector<StringRef> axes = sharding.getDimAxes(d);
    layout.emplace_back(axes.begin(), axes.end());
  }
  return layout;
}

Layout replicatedLayout(int64_t rank) { return Layout(rank); }

std::string layoutStr(const Layout &layout) {
  std::string s = "[";
  for (size_t d = 0; d < layout.size(); ++d) {
    s += d ? ", {" : "{";
    for (size_t k = 0; k < layout[d].size(); ++k)
      s += (k ? ", \"" : "\"") + layout[d][k].str() + "\"";
    s += "}";
  }
  return s + "]";
}

RankedTensorType localType(RankedTensorType global, const Layout &layout, MeshOp mesh) {
  SmallVector<int64_t> shape(global.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] /= getGroupSize(mesh, layout[d]);
  return RankedTensorType::get(shape, global.getElementType());
}

Location causeLoc(Location at, const std::string &cause) {
  return NameLoc::get(StringAttr::get(at.getContext(), cause), at);
}

static ArrayAttr axesAttr(OpBuilder &b, ArrayRef<StringRef> axes) {
  return b.getStrArrayAttr(axes);
}

static bool isPrefix(ArrayRef<StringRef> a, ArrayRef<StringRef> b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

Value reshard(OpBuilder &b, Location at, const std::string &cause, MeshOp mesh,
              Value value, RankedTensorType global, const Layout &from,
              const Layout &to) {
  Layout cur = from;
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  std::string why = cause + ": " + layoutStr(from) + " -> " + layoutStr(to);
  Location loc = causeLoc(at, why);
  int64_t rank = global.getRank();
  while (cur != to) {
    bool progressed = false;
    // 1. Move an axis between dimensions with one all_to_all.
    for (int64_t i = 0; i < rank && !progressed; ++i) {
      if (cur[i].empty() || isPrefix(cur[i], to[i]))
        continue;
      StringRef axis = cur[i].back();
      for (int64_t j = 0; j < rank && !progressed; ++j) {
        if (j == i || !isPrefix(cur[j], to[j]) || cur[j].size() == to[j].size() ||
            to[j][cur[j].size()] != axis)
          continue;
        Layout next = cur;
        next[i].pop_back();
        next[j].push_back(axis);
        if (global.getDimSize(j) % getGroupSize(mesh, next[j]) != 0)
          continue;
        value = AllToAllOp::create(b, loc, localType(global, next, mesh), value, meshRef,
                                   axesAttr(b, {axis}), b.getI64IntegerAttr(j),
                                   b.getI64IntegerAttr(i));
        cur = next;
        progressed = true;
      }
    }
    if (progressed)
      continue;
    // 2. Gather the axes a dimension has beyond what it keeps.
    for (int64_t i = 0; i < rank && !progressed; ++i) {
      if (isPrefix(cur[i], to[i]))
        continue;
      size_t keep = 0;
      while (keep < cur[i].size() && keep < to[i].size() && cur[i][keep] == to[i][keep])
        ++keep;
      SmallVector<StringRef> axes(cur[i].begin() + keep, cur[i].end());
      Layout next = cur;
      next[i].resize(keep);
      value = AllGatherOp::create(b, loc, localType(global, next, mesh), value, meshRef,
                                  axesAttr(b, axes), b.getI64IntegerAttr(i));
      cur = next;
      progressed = true;
    }
    if (progressed)
      continue;
    // 3. Split dimensions that need more axes: local, no communication.
    for (int64_t i = 0; i < rank; ++i) {
      if (cur[i].size() == to[i].size())
        continue;
      SmallVector<StringRef> axes(to[i].begin() + cur[i].size(), to[i].end());
      Layout next = cur;
      next[i] = to[i];
      value = AllSliceOp::create(b, loc, localType(global, next, mesh), value, meshRef,
                                 axesAttr(b, axes), b.getI64IntegerAttr(i));
      cur = next;
    }
  }
  return value;
}

} // namespace shardc
