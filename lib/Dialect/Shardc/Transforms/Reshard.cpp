//===- Reshard.cpp - moving a local value between layouts -----------------===//

#include "Reshard.h"

#include <map>
#include <set>

using namespace mlir;

namespace shardc {

Layout layoutOf(ShardingAttr sharding, MeshOp mesh) {
  Layout layout;
  for (int64_t d = 0; d < sharding.getRank(); ++d)
    layout.push_back(mergeSubAxes(mesh, sharding.getDimAxes(d)));
  return layout;
}

bool meshOrder(MeshOp mesh, StringRef x, StringRef y) {
  return std::make_pair(mesh.getAxisIndex(x), mesh.getAxisPreSize(x)) <
         std::make_pair(mesh.getAxisIndex(y), mesh.getAxisPreSize(y));
}

Layout replicatedLayout(int64_t rank) { return Layout(rank); }

std::string layoutStr(const Layout &layout) {
  std::string s = "[";
  for (size_t d = 0; d < layout.size(); ++d) {
    s += d ? ", {" : "{";
    for (size_t k = 0; k < layout[d].size(); ++k)
      s += (k ? ", " : "") + axisSyntax(layout[d][k]);
    s += "}";
  }
  return s + "]";
}

RankedTensorType localType(RankedTensorType global, const Layout &layout, MeshOp mesh) {
  SmallVector<int64_t> shape(global.getShape());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t n = getGroupSize(mesh, layout[d]);
    shape[d] = (shape[d] + n - 1) / n; // padded where n does not divide
  }
  return RankedTensorType::get(shape, global.getElementType());
}

int64_t localBytes(MeshOp mesh, RankedTensorType global, const Layout &layout) {
  return localType(global, layout, mesh).getNumElements() *
         std::max<int64_t>(1, (global.getElementTypeBitWidth() + 7) / 8);
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

/// The greedy plan: slices by free axes first, then one permute if the
/// block counts allow, else all_to_all moves, gathers and slices.
static std::vector<ReshardStep> greedyReshard(MeshOp mesh, RankedTensorType global,
                                              const Layout &from, const Layout &to) {
  std::vector<ReshardStep> steps;
  Layout cur = from;
  int64_t rank = global.getRank();
  auto used = [&](StringRef axis) {
    return llvm::any_of(cur, [&](const auto &dim) { return llvm::is_contained(dim, axis); });
  };
  auto add = [&](ReshardStep::Kind kind, ArrayRef<StringRef> axes, int64_t dim, int64_t fromDim,
                 Layout next) {
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
      llvm::sort(group, [&](StringRef x, StringRef y) { return meshOrder(mesh, x, y); });
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

int64_t stepBytes(ReshardStep::Kind kind, int64_t in, int64_t n) {
  switch (kind) {
  case ReshardStep::Slice:
    return collectiveBytesSent(OpCode::AllSlice, in, n);
  case ReshardStep::Permute:
    return collectiveBytesSent(OpCode::CollectivePermute, in, n);
  case ReshardStep::AllToAll:
    return collectiveBytesSent(OpCode::AllToAll, in, n);
  case ReshardStep::Gather:
    return collectiveBytesSent(OpCode::AllGather, in, n);
  }
  return 0;
}

static int64_t stepBytes(MeshOp mesh, RankedTensorType global, const ReshardStep &step) {
  int64_t in = localBytes(mesh, global, step.from);
  int64_t n = getGroupSize(mesh, step.axes);
  if (step.kind == ReshardStep::AllToAll && step.padded) {
    // Its buffer has the split dimension padded to a multiple of the group.
    int64_t size = global.getDimSize(step.dim), whole = (size + n - 1) / n * n;
    in = size ? in / size * whole : 0;
  }
  return stepBytes(step.kind, in, n);
}

static int64_t planBytes(MeshOp mesh, RankedTensorType global,
                         const std::vector<ReshardStep> &steps) {
  int64_t bytes = 0;
  for (const ReshardStep &step : steps)
    bytes += stepBytes(mesh, global, step);
  return bytes;
}

/// How many layouts a search expands before it gives up (the best plan so
/// far stands then).
constexpr int kMaxExpanded = 20000;

/// The cheapest plan by bytes per device (then by collectives), searched
/// over layouts (searchReshard), its consecutive slices of one dimension
/// and consecutive permutes made one step each. Empty if the search gives
/// up or finds nothing under `bound`.
static std::vector<ReshardStep> searchedReshard(MeshOp mesh, RankedTensorType global,
                                                const Layout &from, const Layout &to,
                                                ArrayRef<StringRef> atoms, int64_t bound,
                                                ArrayRef<int64_t> wholeSizes) {
  int64_t rank = global.getRank();
  std::vector<ReshardStep> path =
      searchReshard(mesh, global, from, to, atoms, bound, kMaxExpanded, wholeSizes);
  // One slice per dimension run, one permute per run of permutes.
  std::vector<ReshardStep> merged;
  for (ReshardStep &step : path) {
    if (!merged.empty() && merged.back().kind == step.kind &&
        ((step.kind == ReshardStep::Slice && merged.back().dim == step.dim) ||
         step.kind == ReshardStep::Permute)) {
      merged.back().axes.append(step.axes.begin(), step.axes.end());
      merged.back().to = step.to;
      if (step.kind == ReshardStep::Permute && merged.back().from == merged.back().to)
        merged.pop_back();
      continue;
    }
    merged.push_back(std::move(step));
  }
  for (ReshardStep &step : merged) {
    if (step.kind != ReshardStep::Permute)
      continue;
    // The group: the axes of the dimensions that change, in mesh order.
    step.axes.clear();
    for (int64_t d = 0; d < rank; ++d)
      if (step.from[d] != step.to[d])
        for (StringRef a : llvm::concat<const StringRef>(step.from[d], step.to[d]))
          if (!llvm::is_contained(step.axes, a))
            step.axes.push_back(a);
    llvm::sort(step.axes, [&](StringRef x, StringRef y) { return meshOrder(mesh, x, y); });
    step.sources = permuteSources(mesh, step.axes, step.from, step.to);
  }
  return merged;
}

bool padsDim(MeshOp mesh, RankedTensorType global, const Layout &layout, int64_t d) {
  return global.getDimSize(d) % getGroupSize(mesh, layout[d]) != 0;
}

bool pads(MeshOp mesh, RankedTensorType global, const Layout &layout) {
  for (int64_t d = 0; d < global.getRank(); ++d)
    if (padsDim(mesh, global, layout, d))
      return true;
  return false;
}

/// A reshard where `from` or `to` pads a dimension: the padded dimensions
/// that change are gathered whole (and the padding sliced off), the greedy
/// plan moves the others (it never touches a dimension that is already as
/// wanted, so a padded one that stays is left alone), and the dimensions
/// `to` pads are padded and split last.
static std::vector<ReshardStep> paddedReshard(MeshOp mesh, RankedTensorType global,
                                              const Layout &from, const Layout &to) {
  std::vector<ReshardStep> steps;
  Layout cur = from;
  int64_t rank = global.getRank();
  // A dimension's axes that move whole to a dimension whole in `cur`: one
  // all_to_all, the target padded with zeros before it and the source's
  // padding sliced off after.
  for (int64_t i = 0; i < rank; ++i) {
    if (cur[i].empty() || !to[i].empty())
      continue;
    for (int64_t j = 0; j < rank; ++j) {
      if (j == i || !cur[j].empty() || to[j] != cur[i] ||
          !(padsDim(mesh, global, cur, i) || padsDim(mesh, global, to, j)))
        continue;
      Layout next = cur;
      next[j] = cur[i];
      next[i].clear();
      steps.push_back({ReshardStep::AllToAll, cur[i], j, i, cur, next, {}, /*padded=*/true});
      cur = next;
      break;
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (cur[d] == to[d] || !padsDim(mesh, global, cur, d))
      continue;
    Layout next = cur;
    next[d].clear();
    steps.push_back({ReshardStep::Gather, cur[d], d, -1, cur, next, {}, /*padded=*/true});
    cur = next;
  }
  Layout mid = to;
  for (int64_t d = 0; d < global.getRank(); ++d)
    if (cur[d] != to[d] && padsDim(mesh, global, to, d))
      mid[d].clear();
  for (ReshardStep &step : greedyReshard(mesh, global, cur, mid))
    steps.push_back(std::move(step));
  cur = mid;
  for (int64_t d = 0; d < global.getRank(); ++d) {
    if (cur[d] == to[d])
      continue;
    Layout next = cur;
    next[d] = to[d];
    steps.push_back({ReshardStep::Slice, to[d], d, -1, cur, next, {}, /*padded=*/true});
    cur = next;
  }
  return steps;
}

/// `from` and `to` over the finest factors of each axis that either names:
/// beside "a:(1)2", "a" becomes "a:(1)2", "a:(2)2", so that the planners
/// compare names alone. With `primes`, every axis is also cut into factors
/// of prime size, so that a search may move or swap a part of an axis
/// (Shardy's sub-axes). `atoms` gets every mesh axis so split.
static void refineToAtoms(MeshOp mesh, Layout &from, Layout &to, SmallVectorImpl<StringRef> &atoms,
                          bool primes = false) {
  std::map<int64_t, std::set<int64_t>> cuts; // per axis: factor boundaries
  for (auto [i, size] : llvm::enumerate(mesh.getAxisSizes())) {
    cuts[i] = {1, size};
    for (int64_t rest = size, at = 1, p = 2; primes && rest > 1;) {
      if (rest % p) {
        ++p;
        continue;
      }
      at *= p;
      rest /= p;
      cuts[i].insert(at);
    }
  }
  for (const Layout *l : {&from, &to})
    for (const auto &dim : *l)
      for (StringRef a : dim) {
        int64_t pre = mesh.getAxisPreSize(a);
        cuts[mesh.getAxisIndex(a)].insert({pre, pre * mesh.getAxisSize(a)});
      }
  auto atomsOf = [&](StringRef a, SmallVectorImpl<StringRef> &out) {
    int64_t pre = mesh.getAxisPreSize(a), end = pre * mesh.getAxisSize(a);
    const std::set<int64_t> &c = cuts[mesh.getAxisIndex(a)];
    for (auto it = c.find(pre); *it != end; ++it)
      out.push_back(subAxisOf(mesh, a, *it, *std::next(it) / *it));
  };
  for (Layout *l : {&from, &to})
    for (auto &dim : *l) {
      Axes refined;
      for (StringRef a : dim)
        atomsOf(a, refined);
      dim = refined;
    }
  for (Attribute a : mesh.getAxisNames())
    atomsOf(cast<StringAttr>(a).getValue(), atoms);
}

/// The global type a step over `over`, an extension of a value of sizes
/// `whole`, moves: an extended dimension at its extended size only where
/// the step splits it on either side (see ReshardPlan).
static RankedTensorType stepType(MeshOp mesh, RankedTensorType over, ArrayRef<int64_t> whole,
                                 const ReshardStep &step) {
  SmallVector<int64_t> shape(over.getShape());
  for (int64_t d = 0; d < over.getRank(); ++d)
    if (getGroupSize(mesh, step.from[d]) == 1 && getGroupSize(mesh, step.to[d]) == 1)
      shape[d] = whole[d];
  return RankedTensorType::get(shape, over.getElementType());
}

/// The cheapest plan between two layouts that both divide `over`, an
/// extension of a value of sizes `whole`: the greedy plan, or a search over
/// the axes as named, or over factors of prime size, where a swap or a
/// move of part of an axis can beat moving all of it; a search replaces the
/// greedy plan only where it sends fewer bytes.
static std::vector<ReshardStep> evenReshard(MeshOp mesh, RankedTensorType over,
                                            ArrayRef<int64_t> whole, const Layout &fromLayout,
                                            const Layout &toLayout) {
  Layout from = fromLayout, to = toLayout;
  SmallVector<StringRef> atoms;
  refineToAtoms(mesh, from, to, atoms);
  auto bytesOf = [&](const std::vector<ReshardStep> &plan) {
    int64_t bytes = 0;
    for (const ReshardStep &step : plan)
      bytes += stepBytes(mesh, stepType(mesh, over, whole, step), step);
    return bytes;
  };
  bool extended = !llvm::equal(over.getShape(), whole);
  ArrayRef<int64_t> wholeSizes = extended ? whole : ArrayRef<int64_t>();
  std::vector<ReshardStep> greedy = greedyReshard(mesh, over, from, to);
  int64_t bestBytes = bytesOf(greedy);
  // No plan sends less than its gathers grow the block: a gather costs
  // what it adds, a slice nothing, other steps more than nothing. Where
  // the greedy plan sends just that, there is nothing to search for (on
  // extended values steps are priced on other sizes: those always search).
  auto blockBytes = [&](const Layout &layout) {
    int64_t n =
        over.getNumElements() * std::max<int64_t>(1, (over.getElementTypeBitWidth() + 7) / 8);
    for (const auto &dim : layout)
      n /= getGroupSize(mesh, dim);
    return n;
  };
  if (!extended && bestBytes <= std::max<int64_t>(0, blockBytes(to) - blockBytes(from)))
    return greedy;
  std::vector<ReshardStep> best = greedy;
  auto consider = [&](std::vector<ReshardStep> plan) {
    if (plan.empty())
      return;
    int64_t bytes = bytesOf(plan);
    if (bytes < bestBytes) {
      best = std::move(plan);
      bestBytes = bytes;
    }
  };
  consider(searchedReshard(mesh, over, from, to, atoms, bestBytes, wholeSizes));
  Layout primeFrom = fromLayout, primeTo = toLayout;
  SmallVector<StringRef> primeAtoms;
  refineToAtoms(mesh, primeFrom, primeTo, primeAtoms, /*primes=*/true);
  if (primeAtoms.size() > atoms.size())
    consider(searchedReshard(mesh, over, primeFrom, primeTo, primeAtoms, bestBytes, wholeSizes));
  return best;
}

RankedTensorType ReshardPlan::typeOf(MeshOp mesh, const ReshardStep &step) const {
  return stepType(mesh, over, global.getShape(), step);
}

int64_t ReshardPlan::bytes(MeshOp mesh) const {
  int64_t bytes = planBytes(mesh, global, before);
  for (const ReshardStep &step : steps)
    bytes += stepBytes(mesh, typeOf(mesh, step), step);
  return bytes;
}

/// A reshard where `from` or `to` pads a dimension, as an even one over the
/// type with every padded dimension extended to a size both sides split
/// evenly. A dimension's block under n devices is its padded size n *
/// ceil(size / n) split evenly, so the extension is the padded size of the
/// side that splits it (of both, where they split it the same way): a
/// dimension whole on one side is extended with zeros or sliced back
/// locally. Where both sides split a dimension into blocks of different
/// padded sizes, no extension serves both: it is gathered first.
static ReshardPlan paddedPlan(MeshOp mesh, RankedTensorType global, const Layout &from,
                              const Layout &to) {
  ReshardPlan plan;
  plan.global = global;
  Layout cur = from;
  SmallVector<int64_t> shape(global.getShape());
  auto paddedSize = [&](const Axes &axes, int64_t size) {
    int64_t n = getGroupSize(mesh, axes);
    return (size + n - 1) / n * n;
  };
  for (int64_t d = 0; d < global.getRank(); ++d) {
    int64_t size = global.getDimSize(d);
    int64_t pf = paddedSize(cur[d], size), pt = paddedSize(to[d], size);
    if (!cur[d].empty() && !to[d].empty() && pf != pt) {
      Layout next = cur;
      next[d].clear();
      plan.before.push_back({ReshardStep::Gather,
                             cur[d],
                             d,
                             -1,
                             cur,
                             next,
                             {},
                             /*padded=*/padsDim(mesh, global, cur, d)});
      cur = next;
      pf = size;
    }
    shape[d] = std::max(pf, pt);
  }
  plan.over = RankedTensorType::get(shape, global.getElementType());
  plan.steps = evenReshard(mesh, plan.over, global.getShape(), cur, to);
  return plan;
}

/// The reshard's former rule for padded layouts, kept as a candidate: the
/// padded dimensions that change are gathered whole (or moved whole to a
/// whole dimension by one all_to_all) and split last.
static ReshardPlan gatheringPlan(MeshOp mesh, RankedTensorType global, const Layout &fromLayout,
                                 const Layout &toLayout) {
  Layout from = fromLayout, to = toLayout;
  SmallVector<StringRef> atoms;
  refineToAtoms(mesh, from, to, atoms);
  ReshardPlan plan;
  plan.global = plan.over = global;
  plan.before = paddedReshard(mesh, global, from, to);
  return plan;
}

ReshardPlan planReshard(MeshOp mesh, RankedTensorType global, const Layout &from,
                        const Layout &to) {
  if (!pads(mesh, global, from) && !pads(mesh, global, to)) {
    ReshardPlan plan;
    plan.global = plan.over = global;
    plan.steps = evenReshard(mesh, global, global.getShape(), from, to);
    return plan;
  }
  ReshardPlan extended = paddedPlan(mesh, global, from, to);
  ReshardPlan gathering = gatheringPlan(mesh, global, from, to);
  return gathering.bytes(mesh) < extended.bytes(mesh) ? gathering : extended;
}

CommCost ReshardPlanner::cost(MeshOp mesh, RankedTensorType global, const Layout &from,
                              const Layout &to) {
  if (from == to)
    return {};
  std::string key;
  llvm::raw_string_ostream os(key);
  for (auto [name, size] : llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes()))
    os << cast<StringAttr>(name).getValue() << "=" << size << ",";
  os << global << layoutStr(from) << layoutStr(to);
  if (auto it = known.find(key); it != known.end())
    return it->second;
  ReshardPlan plan = planReshard(mesh, global, from, to);
  CommCost cost;
  cost.bytes = plan.bytes(mesh);
  for (const auto *steps : {&plan.before, &plan.steps})
    for (const ReshardStep &step : *steps)
      cost.collectives += step.kind == ReshardStep::Slice ? 0 : 1;
  return known[key] = cost;
}

Value sliceDim(OpBuilder &b, Location loc, Value value, int64_t dim, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()), strides(type.getRank(), 1);
  limit[dim] = size;
  return SliceOp::create(b, loc, value, b.getDenseI64ArrayAttr(start),
                         b.getDenseI64ArrayAttr(limit), b.getDenseI64ArrayAttr(strides));
}

Value padWithZeros(OpBuilder &b, Location loc, Value value, int64_t dim, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getDimSize(dim) == size)
    return value;
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size - type.getDimSize(dim);
  auto zerosType = type.clone(shape);
  Value zeros = ConstantOp::create(b, loc, cast<ElementsAttr>(b.getZeroAttr(zerosType)));
  return ConcatenateOp::create(b, loc, ValueRange{value, zeros}, b.getI64IntegerAttr(dim));
}

/// Emits `steps`, over global type `global`.
static Value emitSteps(OpBuilder &b, Location loc, MeshOp mesh, Value value,
                       RankedTensorType global, const std::vector<ReshardStep> &steps) {
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  for (const ReshardStep &step : steps) {
    RankedTensorType type = localType(global, step.to, mesh);
    // The planner's finest factors, merged back where they make whole axes.
    auto axes = axesAttr(b, mergeSubAxes(mesh, step.axes));
    switch (step.kind) {
    case ReshardStep::Slice:
      if (step.padded)
        value = padWithZeros(b, loc, value, step.dim,
                             type.getDimSize(step.dim) * getGroupSize(mesh, step.axes));
      value = AllSliceOp::create(b, loc, type, value, meshRef, axes, b.getI64IntegerAttr(step.dim));
      break;
    case ReshardStep::Permute:
      value = CollectivePermuteOp::create(b, loc, type, value, meshRef, axes,
                                          b.getDenseI64ArrayAttr(step.sources));
      break;
    case ReshardStep::AllToAll:
      if (step.padded) {
        // The split dimension padded to a multiple of the group, the
        // concatenated one sliced to its size after.
        int64_t n = getGroupSize(mesh, step.axes);
        value = padWithZeros(b, loc, value, step.dim, type.getDimSize(step.dim) * n);
        auto in = cast<RankedTensorType>(value.getType());
        SmallVector<int64_t> shape(in.getShape());
        shape[step.dim] /= n;
        shape[step.fromDim] *= n;
        value =
            AllToAllOp::create(b, loc, in.clone(shape), value, meshRef, axes,
                               b.getI64IntegerAttr(step.dim), b.getI64IntegerAttr(step.fromDim));
        value = sliceDim(b, loc, value, step.fromDim, type.getDimSize(step.fromDim));
        break;
      }
      value = AllToAllOp::create(b, loc, type, value, meshRef, axes, b.getI64IntegerAttr(step.dim),
                                 b.getI64IntegerAttr(step.fromDim));
      break;
    case ReshardStep::Gather:
      if (step.padded) {
        // Gathered, the dimension is its padded size; the padding goes.
        auto in = cast<RankedTensorType>(value.getType());
        SmallVector<int64_t> shape(in.getShape());
        shape[step.dim] *= getGroupSize(mesh, step.axes);
        value = AllGatherOp::create(b, loc, in.clone(shape), value, meshRef, axes,
                                    b.getI64IntegerAttr(step.dim));
        value = sliceDim(b, loc, value, step.dim, type.getDimSize(step.dim));
        break;
      }
      value =
          AllGatherOp::create(b, loc, type, value, meshRef, axes, b.getI64IntegerAttr(step.dim));
      break;
    }
  }
  return value;
}

Value reshard(OpBuilder &b, Location at, const std::string &cause, MeshOp mesh, Value value,
              RankedTensorType global, const Layout &from, const Layout &to) {
  Location loc = causeLoc(at, cause + ": " + layoutStr(from) + " -> " + layoutStr(to));
  ReshardPlan plan = planReshard(mesh, global, from, to);
  value = emitSteps(b, loc, mesh, value, global, plan.before);
  // An extended dimension is extended with zeros where a step starts to
  // split it and sliced back where one makes it whole: while whole, it
  // moves without its padding.
  for (const ReshardStep &step : plan.steps) {
    auto split = [&](const Layout &layout, int64_t d) { return getGroupSize(mesh, layout[d]) > 1; };
    for (int64_t d = 0; d < global.getRank(); ++d)
      if (plan.over.getDimSize(d) != global.getDimSize(d) && !split(step.from, d) &&
          split(step.to, d))
        value = padWithZeros(b, loc, value, d, plan.over.getDimSize(d));
    value = emitSteps(b, loc, mesh, value, plan.typeOf(mesh, step), {step});
    for (int64_t d = 0; d < global.getRank(); ++d)
      if (plan.over.getDimSize(d) != global.getDimSize(d) && split(step.from, d) &&
          !split(step.to, d))
        value = sliceDim(b, loc, value, d, global.getDimSize(d));
  }
  return value;
}

} // namespace shardc
