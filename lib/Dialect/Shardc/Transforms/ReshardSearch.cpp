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

} // namespace

std::vector<ReshardStep> searchReshard(MeshOp mesh, RankedTensorType global,
                                       const Layout &from, const Layout &to,
                                       ArrayRef<StringRef> atoms, int64_t bound,
                                       int maxExpanded, ArrayRef<int64_t> wholeSizes) {
  Codec codec(mesh, atoms);
  if (!codec.covers(from) || !codec.covers(to))
    return {};
  int64_t rank = global.getRank();
  int64_t elementBytes = std::max<int64_t>(1, (global.getElementTypeBitWidth() + 7) / 8);
  std::string freeAxes; // the atoms of more than one device, in the order given
  for (StringRef a : atoms)
    if (codec.size(codec.id(a)) > 1)
      freeAxes += codec.id(a);

  // Per dimension of `code`, its number of blocks.
  auto blocksOf = [&](const std::string &code, const Dims &dims) {
    SmallVector<int64_t, 6> b;
    for (int64_t d = 0; d < rank; ++d)
      b.push_back(codec.group(StringRef(code).slice(dims.begin[d], dims.end[d])));
    return b;
  };
  auto divides = [&](const std::string &code) {
    Dims dims(code);
    for (int64_t d = 0; d < rank; ++d)
      if (global.getDimSize(d) % codec.group(StringRef(code).slice(dims.begin[d], dims.end[d])))
        return false;
    return true;
  };
  // Bytes per device a step from layout `blocks` to `next` reads: a
  // dimension whole on both sides at its whole size.
  auto localBytesOf = [&](ArrayRef<int64_t> blocks, ArrayRef<int64_t> next) {
    int64_t in = elementBytes;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = global.getDimSize(d);
      if (!wholeSizes.empty() && blocks[d] == 1 && next[d] == 1)
        size = wholeSizes[d];
      in *= (size + blocks[d] - 1) / blocks[d];
    }
    return in;
  };

  std::string start = codec.encode(from), goal = codec.encode(to), reached;
  // A lower bound of the bytes from a layout to the goal: no step sends
  // less than it grows the block (a gather sends what it adds, a slice
  // nothing, the others something), so at least the goal's block less this
  // one's (where every step is priced on the same sizes). A layout from
  // which no plan can beat `bound` is not explored: the search expands the
  // same layouts in the same order otherwise, and finds the same plan.
  SmallVector<int64_t, 6> goalBlocks = blocksOf(goal, Dims(goal));
  int64_t goalBytes = wholeSizes.empty() ? localBytesOf(goalBlocks, goalBlocks) : 0;
  auto lowerBound = [&](ArrayRef<int64_t> blocks) -> int64_t {
    if (!wholeSizes.empty())
      return 0;
    return std::max<int64_t>(0, goalBytes - localBytesOf(blocks, blocks));
  };
  std::unordered_map<std::string, Node> best;
  using Entry = std::tuple<int64_t, int64_t, std::string>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
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
    std::string layoutCode = !at.empty() && at.back() == kPermuted ? at.substr(0, at.size() - 1) : at;
    if (layoutCode == goal) {
      reached = at;
      break;
    }
    if (++expanded > maxExpanded)
      return {};
    Cost base = atNode.cost;
    Dims dims(layoutCode);
    SmallVector<int64_t, 6> blocks = blocksOf(layoutCode, dims);
    int64_t evenIn = wholeSizes.empty() ? localBytesOf(blocks, blocks) : 0;

    auto relax = [&](std::string next, ReshardStep::Kind kind, std::string moved,
                     int64_t dim, int64_t fromDim) {
      if (!divides(next))
        return;
      bool permute = kind == ReshardStep::Permute;
      Cost cost = base;
      int64_t in = wholeSizes.empty() ? evenIn : localBytesOf(blocks, blocksOf(next, Dims(next)));
      cost.bytes += stepBytes(kind, in, codec.group(moved));
      cost.collectives += kind == ReshardStep::Slice ? 0 : 1;
      // Only a plan that sends less than `bound` (the greedy plan's) is of use.
      int64_t ahead = lowerBound(blocksOf(next, Dims(next)));
      if (cost.bytes + ahead >= bound)
        return;
      if (permute)
        next += kPermuted;
      auto [it, inserted] = best.try_emplace(next);
      if (!inserted && !(cost < it->second.cost))
        return;
      it->second = Node{cost, at, kind, std::move(moved), dim, fromDim};
      queue.push({cost.bytes, cost.collectives, std::move(next)});
    };

    for (int64_t d = 0; d < rank; ++d) {
      // Slice by one free axis.
      for (char a : freeAxes)
        if (!has(layoutCode, dims, a)) {
          std::string next = layoutCode;
          next.insert(dims.end[d], 1, a);
          relax(std::move(next), ReshardStep::Slice, std::string(1, a), d, -1);
        }
      size_t depth = dims.end[d] - dims.begin[d];
      for (size_t k = 1; k <= depth; ++k) {
        std::string suffix = layoutCode.substr(dims.end[d] - k, k);
        // Gather the minor axes.
        std::string gathered = layoutCode;
        gathered.erase(dims.end[d] - k, k);
        relax(gathered, ReshardStep::Gather, suffix, d, -1);
        // Move them to another dimension.
        for (int64_t j = 0; j < rank; ++j) {
          if (j == d)
            continue;
          std::string next = gathered;
          size_t endJ = dims.end[j] > dims.end[d] ? dims.end[j] - k : dims.end[j];
          next.insert(endJ, suffix);
          relax(std::move(next), ReshardStep::AllToAll, suffix, j, d);
        }
      }
    }

    // Permutes: towards the target dimension by dimension where the block
    // counts agree (whole target dimension or a prefix of it), the same with
    // the dimensions left over filled from the axes left to their block
    // counts (several swaps in one collective_permute), a swap of two axes
    // of the same size (a rename where one is free), an adjacent reorder
    // within a dimension.
    Layout cur = codec.decode(layoutCode);
    std::vector<std::string> targets;
    {
      Dims goalDims(goal);
      auto goalDim = [&](int64_t d) {
        return StringRef(goal).slice(goalDims.begin[d], goalDims.end[d]);
      };
      std::string aligned, filledCode;
      SmallVector<std::string, 6> filled(rank);
      SmallVector<bool, 6> done(rank, false);
      std::string taken;
      for (int64_t d = 0; d < rank; ++d) {
        StringRef mine = StringRef(layoutCode).slice(dims.begin[d], dims.end[d]);
        StringRef chosen = mine;
        for (size_t len = goalDim(d).size(); len >= 1; --len) {
          StringRef prefix = goalDim(d).take_front(len);
          if (codec.group(prefix) == blocks[d]) {
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
      for (char c : layoutCode)
        if (c != kEnd && taken.find(c) == std::string::npos)
          left += c;
      bool ok = true;
      for (int64_t d = 0; d < rank && ok; ++d) {
        if (done[d])
          continue;
        for (size_t i = 0; i < left.size() && codec.group(filled[d]) < blocks[d];) {
          if (blocks[d] % (codec.group(filled[d]) * codec.size(left[i])) == 0) {
            filled[d] += left[i];
            left.erase(i, 1);
          } else {
            ++i;
          }
        }
        ok = codec.group(filled[d]) == blocks[d];
      }
      if (ok) {
        for (const std::string &dim : filled)
          (filledCode += dim) += kEnd;
        targets.push_back(filledCode);
      }
    }
    for (char a : freeAxes)
      for (char other : freeAxes) {
        if (a == other || codec.size(a) != codec.size(other) || !has(layoutCode, dims, a))
          continue;
        std::string next = layoutCode;
        for (char &c : next)
          c = c == a ? other : c == other ? a : c;
        targets.push_back(std::move(next));
      }
    for (int64_t d = 0; d < rank; ++d)
      for (size_t k = dims.begin[d]; k + 1 < dims.end[d]; ++k) {
        std::string next = layoutCode;
        std::swap(next[k], next[k + 1]);
        targets.push_back(std::move(next));
      }
    for (std::string &next : targets) {
      // A valid layout (no axis twice) with the same block counts.
      if (next == layoutCode)
        continue;
      Dims nextDims(next);
      if (blocksOf(next, nextDims) != blocks)
        continue;
      bool valid = true;
      for (size_t i = 0; i < next.size() && valid; ++i)
        valid = next[i] == kEnd || next.find(next[i], i + 1) == std::string::npos;
      if (valid)
        relax(std::move(next), ReshardStep::Permute, "", -1, -1);
    }
  }
  if (reached.empty())
    return {};
  std::vector<ReshardStep> path;
  for (std::string at = reached; at != start;) {
    const Node &node = best[at];
    path.push_back(ReshardStep{node.kind, codec.names(node.moved), node.dim, node.fromDim,
                               codec.decode(node.parent), codec.decode(at), {}});
    at = node.parent;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

} // namespace shardc
