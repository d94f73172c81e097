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

/// The sources of a collective_permute over `group` (mesh order) taking
/// layout `from` to `to`, where every dimension keeps its number of blocks:
/// position r needs, per dimension, the block its coordinates give under
/// `to`; it reads it from the position holding that block under `from`
/// whose coordinates along the axes `from` leaves unused match r's along
/// the axes `to` leaves unused, which makes the sources a permutation.
static SmallVector<int64_t> permuteSources(MeshOp mesh, ArrayRef<StringRef> group,
                                           const Layout &from, const Layout &to) {
  int64_t n = getGroupSize(mesh, group);
  auto coords = [&](int64_t r) {
    llvm::StringMap<int64_t> c;
    for (int64_t k = (int64_t)group.size() - 1; k >= 0; --k) {
      int64_t size = mesh.getAxisSize(group[k]);
      c[group[k]] = r % size;
      r /= size;
    }
    return c;
  };
  auto rankOver = [&](const llvm::StringMap<int64_t> &c, ArrayRef<StringRef> axes) {
    int64_t r = 0;
    for (StringRef a : axes)
      r = r * mesh.getAxisSize(a) + c.lookup(a);
    return r;
  };
  // Per position: its block of each dimension, then the rest of its
  // coordinates, under one layout.
  auto key = [&](int64_t r, const Layout &layout) {
    llvm::StringMap<int64_t> c = coords(r);
    SmallVector<int64_t> k;
    SmallVector<StringRef> rest;
    for (const auto &dim : layout)
      k.push_back(rankOver(c, dim));
    for (StringRef a : group)
      if (llvm::none_of(layout, [&](const auto &dim) { return llvm::is_contained(dim, a); }))
        rest.push_back(a);
    k.push_back(rankOver(c, rest));
    return k;
  };
  SmallVector<SmallVector<int64_t>> held;
  for (int64_t r = 0; r < n; ++r)
    held.push_back(key(r, from));
  SmallVector<int64_t> sources;
  for (int64_t r = 0; r < n; ++r)
    sources.push_back(llvm::find(held, key(r, to)) - held.begin());
  return sources;
}

std::vector<ReshardStep> planReshard(MeshOp mesh, RankedTensorType global,
                                     const Layout &from, const Layout &to) {
  std::vector<ReshardStep> steps;
  Layout cur = from;
  int64_t rank = global.getRank();
  auto used = [&](StringRef axis) {
    return llvm::any_of(cur, [&](const auto &dim) { return llvm::is_contained(dim, axis); });
  };
  auto add = [&](ReshardStep::Kind kind, ArrayRef<StringRef> axes, int64_t dim,
                 int64_t fromDim, Layout next) {
    ReshardStep step{kind, Axes(axes.begin(), axes.end()), dim, fromDim, cur, next, {}};
    cur = std::move(next);
    steps.push_back(std::move(step));
  };
  while (cur != to) {
    bool progressed = false;
    // 0. Split dimensions by axes no dimension holds yet: local, and what
    // moves after is smaller (slice before gather).
    for (int64_t i = 0; i < rank; ++i) {
      if (cur[i].size() >= to[i].size() || !isPrefix(cur[i], to[i]))
        continue;
      SmallVector<StringRef> axes(to[i].begin() + cur[i].size(), to[i].end());
      if (llvm::any_of(axes, used))
        continue;
      Layout next = cur;
      next[i] = to[i];
      add(ReshardStep::Slice, axes, i, -1, next);
    }
    if (cur == to)
      break;
    // 1. Dimensions that change axes but not their number of blocks: one
    // collective_permute, each device sending its value once.
    bool sameBlocks = true;
    SmallVector<StringRef> group;
    for (int64_t i = 0; i < rank; ++i) {
      if (cur[i] == to[i])
        continue;
      sameBlocks &= getGroupSize(mesh, cur[i]) == getGroupSize(mesh, to[i]);
      for (StringRef a : llvm::concat<const StringRef>(cur[i], to[i]))
        if (!llvm::is_contained(group, a))
          group.push_back(a);
    }
    if (sameBlocks) {
      llvm::sort(group, [&](StringRef x, StringRef y) {
        return mesh.getAxisIndex(x) < mesh.getAxisIndex(y);
      });
      SmallVector<int64_t> sources = permuteSources(mesh, group, cur, to);
      add(ReshardStep::Permute, group, -1, -1, to);
      steps.back().sources = std::move(sources);
      break;
    }
    // 2. Move the minor axes of one dimension to another with one
    // all_to_all, as many at once as the target takes next.
    for (int64_t i = 0; i < rank && !progressed; ++i) {
      if (cur[i].empty() || isPrefix(cur[i], to[i]))
        continue;
      for (size_t len = cur[i].size(); len >= 1 && !progressed; --len) {
        SmallVector<StringRef> moved(ArrayRef<StringRef>(cur[i]).take_back(len));
        for (int64_t j = 0; j < rank && !progressed; ++j) {
          if (j == i || !isPrefix(cur[j], to[j]) || cur[j].size() + len > to[j].size() ||
              ArrayRef<StringRef>(to[j]).slice(cur[j].size(), len) != ArrayRef(moved))
            continue;
          Layout next = cur;
          next[i].resize(cur[i].size() - len);
          next[j].append(moved.begin(), moved.end());
          if (global.getDimSize(j) % getGroupSize(mesh, next[j]) != 0)
            continue;
          add(ReshardStep::AllToAll, moved, j, i, next);
          progressed = true;
        }
      }
    }
    if (progressed)
      continue;
    // 3. Gather the axes a dimension has beyond what it keeps.
    for (int64_t i = 0; i < rank && !progressed; ++i) {
      if (isPrefix(cur[i], to[i]))
        continue;
      size_t keep = 0;
      while (keep < cur[i].size() && keep < to[i].size() && cur[i][keep] == to[i][keep])
        ++keep;
      SmallVector<StringRef> axes(cur[i].begin() + keep, cur[i].end());
      Layout next = cur;
      next[i].resize(keep);
      add(ReshardStep::Gather, axes, i, -1, next);
      progressed = true;
    }
    if (progressed)
      continue;
    // 4. Split dimensions that need more axes: local, no communication.
    for (int64_t i = 0; i < rank; ++i) {
      if (cur[i].size() == to[i].size())
        continue;
      SmallVector<StringRef> axes(to[i].begin() + cur[i].size(), to[i].end());
      Layout next = cur;
      next[i] = to[i];
      add(ReshardStep::Slice, axes, i, -1, next);
    }
  }
  return steps;
}

int64_t reshardBytes(MeshOp mesh, RankedTensorType global, const Layout &from,
                     const Layout &to) {
  int64_t bytes = 0;
  int64_t elementBytes = std::max<int64_t>(1, (global.getElementTypeBitWidth() + 7) / 8);
  for (const ReshardStep &step : planReshard(mesh, global, from, to)) {
    int64_t in = localType(global, step.from, mesh).getNumElements() * elementBytes;
    int64_t n = getGroupSize(mesh, step.axes);
    switch (step.kind) {
    case ReshardStep::Slice: break;
    case ReshardStep::Permute: bytes += in; break;
    case ReshardStep::AllToAll: bytes += (n - 1) * in / n; break;
    case ReshardStep::Gather: bytes += (n - 1) * in; break;
    }
  }
  return bytes;
}

Value reshard(OpBuilder &b, Location at, const std::string &cause, MeshOp mesh,
              Value value, RankedTensorType global, const Layout &from,
              const Layout &to) {
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  Location loc = causeLoc(at, cause + ": " + layoutStr(from) + " -> " + layoutStr(to));
  for (const ReshardStep &step : planReshard(mesh, global, from, to)) {
    RankedTensorType type = localType(global, step.to, mesh);
    auto axes = axesAttr(b, step.axes);
    switch (step.kind) {
    case ReshardStep::Slice:
      value = AllSliceOp::create(b, loc, type, value, meshRef, axes,
                                 b.getI64IntegerAttr(step.dim));
      break;
    case ReshardStep::Permute:
      value = CollectivePermuteOp::create(b, loc, type, value, meshRef, axes,
                                          b.getDenseI64ArrayAttr(step.sources));
      break;
    case ReshardStep::AllToAll:
      value = AllToAllOp::create(b, loc, type, value, meshRef, axes,
                                 b.getI64IntegerAttr(step.dim),
                                 b.getI64IntegerAttr(step.fromDim));
      break;
    case ReshardStep::Gather:
      value = AllGatherOp::create(b, loc, type, value, meshRef, axes,
                                  b.getI64IntegerAttr(step.dim));
      break;
    }
  }
  return value;
}

} // namespace shardc
