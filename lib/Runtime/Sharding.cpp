//===- Sharding.cpp - meshes and partition specs at run time --------------===//

#include "shardc/Runtime/Sharding.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <map>
#include <set>

namespace shardc {

int64_t Mesh::numDevices() const {
  int64_t n = 1;
  for (int64_t s : axisSizes)
    n *= s;
  return n;
}

int Mesh::axisIndex(const std::string &axis) const {
  for (size_t i = 0; i < axisNames.size(); ++i)
    if (axisNames[i] == axis)
      return (int)i;
  if (std::optional<SubAxis> sub = parseSubAxis(axis))
    for (size_t i = 0; i < axisNames.size(); ++i)
      if (axisNames[i] == sub->axis)
        // Each part at most the axis (no overflow from crafted names) and
        // together a factor of it.
        return sub->pre <= axisSizes[i] && sub->size > 1 && sub->size < axisSizes[i] &&
                       axisSizes[i] % (sub->pre * sub->size) == 0
                   ? (int)i
                   : -1;
  return -1;
}

/// The axis index, pre-size and size of an axis or sub-axis.
static void resolve(const Mesh &m, const std::string &axis, int &index, int64_t &pre,
                    int64_t &size) {
  index = m.axisIndex(axis);
  std::optional<SubAxis> sub =
      index >= 0 && m.axisNames[index] != axis ? parseSubAxis(axis) : std::nullopt;
  pre = sub ? sub->pre : 1;
  size = sub ? sub->size : (index >= 0 ? m.axisSizes[index] : 1);
}

int64_t Mesh::axisSize(const std::string &axis) const {
  int index;
  int64_t pre, size;
  resolve(*this, axis, index, pre, size);
  return size;
}

bool Mesh::overlap(const std::string &a, const std::string &b) const {
  int ia, ib;
  int64_t pa, sa, pb, sb;
  resolve(*this, a, ia, pa, sa);
  resolve(*this, b, ib, pb, sb);
  // The factors [pre, pre * size) of one axis, compared as intervals of
  // place values.
  return ia >= 0 && ia == ib && std::max(pa, pb) < std::min(pa * sa, pb * sb);
}

std::vector<int64_t> Mesh::coords(int64_t device) const {
  std::vector<int64_t> c(axisSizes.size());
  for (int64_t i = (int64_t)axisSizes.size() - 1; i >= 0; --i) {
    c[i] = device % axisSizes[i];
    device /= axisSizes[i];
  }
  return c;
}

int64_t Mesh::deviceAt(const std::vector<int64_t> &c) const {
  int64_t d = 0;
  for (size_t i = 0; i < axisSizes.size(); ++i)
    d = d * axisSizes[i] + c[i];
  return d;
}

int64_t Mesh::groupSize(const std::vector<std::string> &axes) const {
  int64_t n = 1;
  for (const std::string &a : axes)
    n *= axisSize(a);
  return n;
}

int64_t Mesh::groupRank(const std::vector<std::string> &axes, int64_t device) const {
  std::vector<int64_t> c = coords(device);
  int64_t r = 0;
  for (const std::string &a : axes) {
    int i;
    int64_t pre, size;
    resolve(*this, a, i, pre, size);
    int64_t post = axisSizes[i] / (pre * size);
    r = r * size + (c[i] / post) % size;
  }
  return r;
}

std::vector<int64_t> Mesh::group(const std::vector<std::string> &axes, int64_t device) const {
  int64_t n = groupSize(axes);
  std::vector<int64_t> members(n);
  std::vector<int64_t> base = coords(device);
  for (int64_t r = 0; r < n; ++r) {
    std::vector<int64_t> c = base;
    int64_t rest = r;
    for (int64_t k = (int64_t)axes.size() - 1; k >= 0; --k) {
      int i;
      int64_t pre, size;
      resolve(*this, axes[k], i, pre, size);
      int64_t post = axisSizes[i] / (pre * size);
      int64_t digit = (c[i] / post) % size;
      c[i] += (rest % size - digit) * post;
      rest /= size;
    }
    members[r] = deviceAt(c);
  }
  return members;
}

Shape NamedSharding::localShape(const Shape &global) const {
  Shape local = global;
  for (size_t d = 0; d < spec.size() && d < local.size(); ++d) {
    int64_t n = mesh.groupSize(spec[d]);
    local[d] = (local[d] + n - 1) / n;
  }
  return local;
}

bool NamedSharding::padded(const Shape &global) const {
  for (size_t d = 0; d < spec.size() && d < global.size(); ++d)
    if (global[d] % mesh.groupSize(spec[d]) != 0)
      return true;
  return false;
}

Status NamedSharding::validate(const Shape &global, bool allowPadding) const {
  if (spec.size() != global.size())
    return Status::error("partition spec has " + std::to_string(spec.size()) +
                         " dimensions but the array has rank " + std::to_string(global.size()));
  std::vector<std::string> seen;
  for (size_t d = 0; d < spec.size(); ++d) {
    for (const std::string &a : spec[d]) {
      if (mesh.axisIndex(a) < 0)
        return Status::error("unknown mesh axis \"" + a + "\"");
      for (const std::string &s : seen)
        if (mesh.overlap(s, a))
          return Status::error("mesh axis \"" + a + "\" used more than once" +
                               (s == a ? "" : " (it overlaps \"" + s + "\")"));
      seen.push_back(a);
    }
    int64_t n = mesh.groupSize(spec[d]);
    if (!allowPadding && global[d] % n != 0)
      return Status::error("dimension " + std::to_string(d) + " of size " +
                           std::to_string(global[d]) + " does not divide over " +
                           std::to_string(n) + " devices");
  }
  return Status::success();
}

/// Copies the box of `global` at `offset` with the shape of `local` into
/// `local` (toGlobal=false), or `local` into that box (toGlobal=true), one
/// contiguous row of the innermost dimension at a time. The part of the box
/// past the end of `global` (a padded shard's padding) is not copied.
static void copyBox(Array &global, Array &local, const std::vector<int64_t> &offset,
                    bool toGlobal) {
  const Shape &ls = local.shape(), &gs = global.shape();
  size_t es = dtypeSize(local.dtype());
  Shape box(ls.size());
  for (size_t d = 0; d < ls.size(); ++d)
    box[d] = std::clamp<int64_t>(gs[d] - offset[d], 0, ls[d]);
  if (numElements(box) == 0)
    return; // also: an empty array may have no buffer (memcpy of null is undefined)
  if (ls.empty() || (ls == gs && box == ls)) {
    if (toGlobal)
      std::memcpy(global.bytes(), local.bytes(), local.sizeInBytes());
    else
      std::memcpy(local.bytes(), global.bytes(), local.sizeInBytes());
    return;
  }
  int64_t row = box.back();
  int64_t rows = numElements(box) / row;
  std::vector<int64_t> gstrides = stridesOf(gs), lstrides = stridesOf(ls);
  std::vector<int64_t> idx(ls.size() - 1, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t g = offset.back(), l = 0;
    for (size_t d = 0; d + 1 < ls.size(); ++d) {
      g += (idx[d] + offset[d]) * gstrides[d];
      l += idx[d] * lstrides[d];
    }
    uint8_t *gp = global.bytes() + g * es, *lp = local.bytes() + l * es;
    if (toGlobal)
      std::memcpy(gp, lp, row * es);
    else
      std::memcpy(lp, gp, row * es);
    for (int64_t d = (int64_t)idx.size() - 1; d >= 0; --d) {
      if (++idx[d] < box[d])
        break;
      idx[d] = 0;
    }
  }
}

static std::vector<int64_t> blockOffset(const NamedSharding &s, const Shape &local,
                                        int64_t device) {
  std::vector<int64_t> offset(local.size(), 0);
  for (size_t d = 0; d < local.size(); ++d)
    offset[d] = s.mesh.groupRank(s.spec[d], device) * local[d];
  return offset;
}

Array NamedSharding::shard(const Array &global, int64_t device) const {
  Array local(global.dtype(), localShape(global.shape()));
  copyBox(const_cast<Array &>(global), local, blockOffset(*this, local.shape(), device), false);
  return local;
}

Array NamedSharding::assemble(const std::vector<Array> &shards) const {
  assert(!shards.empty());
  Shape global = shards[0].shape();
  for (size_t d = 0; d < global.size(); ++d)
    global[d] *= mesh.groupSize(spec[d]);
  return assemble(shards, global);
}

Array NamedSharding::assemble(const std::vector<Array> &shards, const Shape &global) const {
  return assemble(shards, global, 0, (int64_t)shards.size());
}

bool NamedSharding::holdsEveryBlock(const Shape &local, int64_t first, int64_t count) const {
  std::set<std::vector<int64_t>> all, held;
  for (int64_t dev = 0; dev < mesh.numDevices(); ++dev) {
    all.insert(blockOffset(*this, local, dev));
    if (dev >= first && dev < first + count)
      held.insert(blockOffset(*this, local, dev));
  }
  return held.size() == all.size();
}

Array NamedSharding::assemble(const std::vector<Array> &shards, const Shape &global, int64_t first,
                              int64_t count) const {
  assert(!shards.empty() && first >= 0 && first + count <= (int64_t)shards.size());
  Array out(shards[first].dtype(), global);
  // Later devices holding the same block would write the same place; keep the
  // first device's copy.
  std::map<std::vector<int64_t>, bool> written;
  for (int64_t dev = first; dev < first + count; ++dev) {
    std::vector<int64_t> offset = blockOffset(*this, shards[dev].shape(), dev);
    if (written[offset])
      continue;
    written[offset] = true;
    copyBox(out, const_cast<Array &>(shards[dev]), offset, true);
  }
  return out;
}

std::string NamedSharding::visualize(const Shape &global) const {
  // Rows are blocks of dim 0, columns blocks of dim 1 (rank 1: one row).
  int64_t rows = global.size() >= 1 ? mesh.groupSize(spec[0]) : 1;
  int64_t cols = global.size() >= 2 ? mesh.groupSize(spec[1]) : 1;
  if (global.size() == 1) {
    cols = rows;
    rows = 1;
  }
  std::vector<std::vector<std::string>> labels(rows, std::vector<std::string>(cols));
  for (int64_t dev = 0; dev < mesh.numDevices(); ++dev) {
    int64_t r = 0, c = 0;
    if (global.size() == 1)
      c = mesh.groupRank(spec[0], dev);
    else if (global.size() >= 2) {
      r = mesh.groupRank(spec[0], dev);
      c = mesh.groupRank(spec[1], dev);
    }
    std::string &l = labels[r][c];
    l += (l.empty() ? "" : ",") + std::to_string(dev);
  }
  size_t width = 0;
  for (auto &row : labels)
    for (auto &l : row)
      width = std::max(width, l.size());
  width += 8; // "dev " and some air
  std::string out;
  std::string rule = "+";
  for (int64_t c = 0; c < cols; ++c)
    rule += std::string(width, '-') + "+";
  rule += "\n";
  out += rule;
  for (auto &row : labels) {
    out += "|";
    for (auto &l : row) {
      std::string cell = "dev " + l;
      cell = std::string((width - std::min(width, cell.size())) / 2, ' ') + cell;
      cell.resize(width, ' ');
      out += cell + "|";
    }
    out += "\n" + rule;
  }
  return out;
}

} // namespace shardc
