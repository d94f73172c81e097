//===- ReshardSearch.cpp - the cheapest reshard, searched over layouts ----===//
//
// A shortest-path search whose states are layouts and whose edges are the
// steps of a reshard: a slice by a free axis, a gather of a dimension's
// minor axes, an all_to_all moving them to another dimension, a permute
// between layouts of the same block counts. An edge costs the bytes one
// device sends (the model of `shardc explain`).
//
// Meshes of many axes have many layouts, and each is priced against every
// step out of it, so the search runs over small integers: a layout is a
// short string of atom indices (a byte each, a separator after each
// dimension), short enough to live inside std::string without allocating,
// and a step out of it is a few byte edits.
//
//===----------------------------------------------------------------------===//

#include "Reshard.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>

using namespace mlir;

namespace shardc {

namespace {

/// Closes each dimension of a code.
constexpr char kEnd = '\xff';
/// Ends the code of a state whose last step was a permute (the plan merges
/// a run of permutes into one collective_permute).
constexpr char kPermuted = '\xfe';

/// Layouts over atom indices.
class Codec {
public:
  /// Indices follow the order of the names (each with a comma after it, so
  /// that "x" comes before "x:(2)2"): codes then compare as the layouts'
  /// names do, and ties between plans of one cost break as by name.
  Codec(MeshOp mesh, ArrayRef<StringRef> given) : atoms(given.begin(), given.end()) {
    llvm::sort(atoms, [](StringRef x, StringRef y) { return (x + ",").str() < (y + ",").str(); });
    atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
    for (auto [i, a] : llvm::enumerate(atoms)) {
      index[a] = (uint8_t)i;
      sizes.push_back(mesh.getAxisSize(a));
    }
  }

  /// Whether every atom of `layout` is one of the atoms (else the search
  /// does not apply) and there are few enough to index with a byte.
  bool covers(const Layout &layout) const {
    if (atoms.size() >= 250)
      return false;
    for (const auto &dim : layout)
      for (StringRef a : dim)
        if (!index.count(a))
          return false;
    return true;
  }

  std::string encode(const Layout &layout) const {
    std::string code;
    for (const auto &dim : layout) {
      for (StringRef a : dim)
        code += (char)index.lookup(a);
      code += kEnd;
    }
    return code;
  }

  Layout decode(StringRef code) const {
    Layout layout(1);
    for (char c : code) {
      if (c == kPermuted)
        break;
      if (c == kEnd)
        layout.emplace_back();
      else
        layout.back().push_back(atoms[(uint8_t)c]);
    }
    layout.pop_back();
    return layout;
  }

  Axes names(StringRef ids) const {
    Axes out;
    for (char c : ids)
      out.push_back(atoms[(uint8_t)c]);
    return out;
  }

  char id(StringRef a) const { return (char)index.lookup(a); }
  int64_t size(char id) const { return sizes[(uint8_t)id]; }
  int64_t group(StringRef ids) const {
    int64_t n = 1;
    for (char c : ids)
      n *= size(c);
    return n;
  }
  size_t numAtoms() const { return atoms.size(); }

private:
  SmallVector<StringRef> atoms;
  SmallVector<int64_t> sizes;
  llvm::DenseMap<StringRef, uint8_t> index;
};

/// The dimensions of a code: [begin[d], end[d]) holds dimension d's atoms.
struct Dims {
  SmallVector<size_t, 6> begin, end;
  uint64_t used = 0; // a bit per atom index below 64; wider meshes use `has`
  explicit Dims(const std::string &code) {
    size_t at = 0;
    for (size_t i = 0; i < code.size() && code[i] != kPermuted; ++i)
      if (code[i] == kEnd) {
        begin.push_back(at);
        end.push_back(i);
        at = i + 1;
      } else if ((uint8_t)code[i] < 64) {
        used |= uint64_t(1) << (uint8_t)code[i];
      }
  }
  int64_t rank() const { return (int64_t)begin.size(); }
};

bool has(const std::string &code, const Dims &dims, char id) {
  if ((uint8_t)id < 64)
    return dims.used >> (uint8_t)id & 1;
  return code.find(id) != std::string::npos;
}

struct Cost {
  int64_t bytes = 0, collectives = 0;
  bool operator<(const Cost &o) const {
    return std::tie(bytes, collectives) < std::tie(o.bytes, o.collectives);
  }
};

/// How a state was reached: from `parent` by a step of `kind` moving
/// `moved` (atom indices).
struct Node {
  Cost cost;
  std::string parent;
  ReshardStep::Kind kind = ReshardStep::Slice;
  std::string moved;
  int64_t dim = -1, fromDim = -1;
};

/// The search itself: Dijkstra over layout codes, by bytes then
/// collectives, ties broken by code. `neighbours` lists the steps out of a
/// layout, `relax` prices one and keeps it where it is the cheapest way in
/// so far, `path` reads the plan back from the goal.
class LayoutSearch {
public:
  LayoutSearch(MeshOp mesh, RankedTensorType global, ArrayRef<StringRef> atoms, int64_t bound,
               ArrayRef<int64_t> wholeSizes)
      : codec(mesh, atoms), global(global), rank(global.getRank()),
        elementBytes(std::max<int64_t>(1, (global.getElementTypeBitWidth() + 7) / 8)), bound(bound),
        wholeSizes(wholeSizes) {
    for (StringRef a : atoms)
      if (codec.size(codec.id(a)) > 1)
        freeAxes += codec.id(a); // the atoms of more than one device, in the order given
  }

  std::vector<ReshardStep> run(const Layout &from, const Layout &to, int maxExpanded) {
    if (!codec.covers(from) || !codec.covers(to))
      return {};
    start = codec.encode(from);
    goal = codec.encode(to);
    goalDims.emplace(goal);
    goalBlocks = blocksOf(goal, *goalDims);
    goalBytes = wholeSizes.empty() ? localBytesOf(goalBlocks, goalBlocks) : 0;
    best[start] = Node{};
    queue.push({0, 0, start});
    int expanded = 0;
    while (!queue.empty()) {
      Cost popped{std::get<0>(queue.top()), std::get<1>(queue.top())};
      std::string at = std::get<2>(queue.top());
      queue.pop();
      const Node &atNode = best[at];
      if (atNode.cost < popped)
        continue; // a stale entry: the state was reached cheaper since
      std::string layout = !at.empty() && at.back() == kPermuted ? at.substr(0, at.size() - 1) : at;
      if (layout == goal)
        return path(at);
      if (++expanded > maxExpanded)
        return {};
      Dims dims(layout);
      State state{at, layout, dims, blocksOf(layout, dims), atNode.cost, 0};
      state.evenIn = wholeSizes.empty() ? localBytesOf(state.blocks, state.blocks) : 0;
      neighbours(state);
    }
    return {};
  }

private:
  /// The layout being expanded.
  struct State {
    const std::string &code;   // its key (with kPermuted after a permute)
    const std::string &layout; // its layout's code
    const Dims &dims;
    SmallVector<int64_t, 6> blocks;
    Cost cost;
    int64_t evenIn; // bytes per device of its block (unextended values)
  };

  /// Per dimension of `code`, its number of blocks.
  SmallVector<int64_t, 6> blocksOf(StringRef code, const Dims &dims) const {
    SmallVector<int64_t, 6> b;
    for (int64_t d = 0; d < rank; ++d)
      b.push_back(codec.group(code.slice(dims.begin[d], dims.end[d])));
    return b;
  }

  /// Bytes per device a step from layout `blocks` to `next` reads: a
  /// dimension whole on both sides at its whole size.
  int64_t localBytesOf(ArrayRef<int64_t> blocks, ArrayRef<int64_t> next) const {
    int64_t in = elementBytes;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = global.getDimSize(d);
      if (!wholeSizes.empty() && blocks[d] == 1 && next[d] == 1)
        size = wholeSizes[d];
      in *= (size + blocks[d] - 1) / blocks[d];
    }
    return in;
  }

  /// A lower bound of the bytes from a layout of `blocks` to the goal: no
  /// step sends less than it grows the block (a gather sends what it adds,
  /// a slice nothing, the others something), so at least the goal's block
  /// less this one's (where every step is priced on the same sizes). A
  /// layout from which no plan can beat `bound` is not explored: the search
  /// expands the same layouts in the same order otherwise, and finds the
  /// same plan.
  int64_t lowerBound(ArrayRef<int64_t> blocks) const {
    if (!wholeSizes.empty())
      return 0;
    return std::max<int64_t>(0, goalBytes - localBytesOf(blocks, blocks));
  }

  /// The steps out of `s`, in a fixed order (the first of equal cost wins).
  void neighbours(const State &s) {
    for (int64_t d = 0; d < rank; ++d) {
      // Slice by one free axis.
      for (char a : freeAxes)
        if (!has(s.layout, s.dims, a)) {
          std::string next = s.layout;
          next.insert(s.dims.end[d], 1, a);
          relax(s, std::move(next), ReshardStep::Slice, std::string(1, a), d, -1);
        }
      size_t depth = s.dims.end[d] - s.dims.begin[d];
      for (size_t k = 1; k <= depth; ++k) {
        std::string suffix = s.layout.substr(s.dims.end[d] - k, k);
        // Gather the minor axes.
        std::string gathered = s.layout;
        gathered.erase(s.dims.end[d] - k, k);
        relax(s, gathered, ReshardStep::Gather, suffix, d, -1);
        // Move them to another dimension.
        for (int64_t j = 0; j < rank; ++j) {
          if (j == d)
            continue;
          std::string next = gathered;
          size_t endJ = s.dims.end[j] > s.dims.end[d] ? s.dims.end[j] - k : s.dims.end[j];
          next.insert(endJ, suffix);
          relax(s, std::move(next), ReshardStep::AllToAll, suffix, j, d);
        }
      }
    }
    for (std::string &next : permuteTargets(s)) {
      // A valid layout (no axis twice) with the same block counts.
      if (next == s.layout)
        continue;
      Dims nextDims(next);
      if (blocksOf(next, nextDims) != s.blocks)
        continue;
      bool valid = true;
      for (size_t i = 0; i < next.size() && valid; ++i)
        valid = next[i] == kEnd || next.find(next[i], i + 1) == std::string::npos;
      if (valid)
        relax(s, std::move(next), ReshardStep::Permute, "", -1, -1);
    }
  }

  /// Layouts one collective_permute reaches from `s` (some may repeat it or
  /// change its block counts: neighbours drops those): towards the target
  /// dimension by dimension where the block counts agree (whole target
  /// dimension or a prefix of it), the same with the dimensions left over
  /// filled from the axes left to their block counts (several swaps in one
  /// collective_permute), a swap of two axes of the same size (a rename
  /// where one is free), an adjacent reorder within a dimension.
  std::vector<std::string> permuteTargets(const State &s) const {
    std::vector<std::string> targets;
    auto goalDim = [&](int64_t d) {
      return StringRef(goal).slice(goalDims->begin[d], goalDims->end[d]);
    };
    std::string aligned, filledCode, taken;
    SmallVector<std::string, 6> filled(rank);
    SmallVector<bool, 6> done(rank, false);
    for (int64_t d = 0; d < rank; ++d) {
      StringRef chosen = StringRef(s.layout).slice(s.dims.begin[d], s.dims.end[d]);
      for (size_t len = goalDim(d).size(); len >= 1; --len) {
        StringRef prefix = goalDim(d).take_front(len);
        if (codec.group(prefix) == s.blocks[d]) {
          chosen = prefix;
          filled[d] = prefix.str();
          done[d] = true;
          taken += prefix;
          break;
        }
      }
      aligned += chosen;
      aligned += kEnd;
    }
    targets.push_back(aligned);
    std::string left;
    for (char c : s.layout)
      if (c != kEnd && taken.find(c) == std::string::npos)
        left += c;
    bool ok = true;
    for (int64_t d = 0; d < rank && ok; ++d) {
      if (done[d])
        continue;
      for (size_t i = 0; i < left.size() && codec.group(filled[d]) < s.blocks[d];) {
        if (s.blocks[d] % (codec.group(filled[d]) * codec.size(left[i])) == 0) {
          filled[d] += left[i];
          left.erase(i, 1);
        } else {
          ++i;
        }
      }
      ok = codec.group(filled[d]) == s.blocks[d];
    }
    if (ok) {
      for (const std::string &dim : filled)
        (filledCode += dim) += kEnd;
      targets.push_back(filledCode);
    }
    for (char a : freeAxes)
      for (char other : freeAxes) {
        if (a == other || codec.size(a) != codec.size(other) || !has(s.layout, s.dims, a))
          continue;
        std::string next = s.layout;
        for (char &c : next)
          c = c == a ? other : c == other ? a : c;
        targets.push_back(std::move(next));
      }
    for (int64_t d = 0; d < rank; ++d)
      for (size_t k = s.dims.begin[d]; k + 1 < s.dims.end[d]; ++k) {
        std::string next = s.layout;
        std::swap(next[k], next[k + 1]);
        targets.push_back(std::move(next));
      }
    return targets;
  }

  /// Prices the step from `s` to layout `next` and keeps it where it is the
  /// cheapest way there so far and can still beat `bound`.
  void relax(const State &s, std::string next, ReshardStep::Kind kind, std::string moved,
             int64_t dim, int64_t fromDim) {
    Dims nextDims(next);
    SmallVector<int64_t, 6> nextBlocks = blocksOf(next, nextDims);
    for (int64_t d = 0; d < rank; ++d)
      if (global.getDimSize(d) % nextBlocks[d])
        return; // it would pad
    Cost cost = s.cost;
    int64_t in = wholeSizes.empty() ? s.evenIn : localBytesOf(s.blocks, nextBlocks);
    cost.bytes += stepBytes(kind, in, codec.group(moved));
    cost.collectives += kind == ReshardStep::Slice ? 0 : 1;
    // Only a plan that sends less than `bound` (the greedy plan's) is of use.
    if (cost.bytes + lowerBound(nextBlocks) >= bound)
      return;
    if (kind == ReshardStep::Permute)
      next += kPermuted;
    auto [it, inserted] = best.try_emplace(next);
    if (!inserted && !(cost < it->second.cost))
      return;
    it->second = Node{cost, s.code, kind, std::move(moved), dim, fromDim};
    queue.push({cost.bytes, cost.collectives, std::move(next)});
  }

  /// The steps from the start to `reached`, read back through the parents.
  std::vector<ReshardStep> path(const std::string &reached) const {
    std::vector<ReshardStep> steps;
    for (std::string at = reached; at != start;) {
      const Node &node = best.at(at);
      steps.push_back(ReshardStep{node.kind,
                                  codec.names(node.moved),
                                  node.dim,
                                  node.fromDim,
                                  codec.decode(node.parent),
                                  codec.decode(at),
                                  {}});
      at = node.parent;
    }
    std::reverse(steps.begin(), steps.end());
    return steps;
  }

  Codec codec;
  RankedTensorType global;
  int64_t rank, elementBytes, bound;
  ArrayRef<int64_t> wholeSizes;
  std::string freeAxes, start, goal;
  std::optional<Dims> goalDims;
  SmallVector<int64_t, 6> goalBlocks;
  int64_t goalBytes = 0;
  std::unordered_map<std::string, Node> best;
  using Entry = std::tuple<int64_t, int64_t, std::string>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
};

} // namespace

std::vector<ReshardStep> searchReshard(MeshOp mesh, RankedTensorType global, const Layout &from,
                                       const Layout &to, ArrayRef<StringRef> atoms, int64_t bound,
                                       int maxExpanded, ArrayRef<int64_t> wholeSizes) {
  return LayoutSearch(mesh, global, atoms, bound, wholeSizes).run(from, to, maxExpanded);
}

} // namespace shardc
