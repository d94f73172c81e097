//===- Collectives.cpp - reference collectives over one device group ------===//
//
// Each function sees the operands of every member of one group at once
// (ordered by group rank) and returns what the members receive. Values are
// combined in group-rank order, so results are deterministic.
//
//===----------------------------------------------------------------------===//

#include "shardc/Reference/Kernels.h"

#include <algorithm>
#include <cmath>

namespace shardc::ref {

Array allReduce(Reduction kind, const std::vector<const Array *> &group) {
  const Array &first = *group[0];
  Array out(first.dtype(), first.shape());
  int64_t n = (int64_t)group.size();
  for (int64_t i = 0; i < first.numElements(); ++i) {
    if (isFloat(first.dtype())) {
      double acc = first.getDouble(i);
      for (int64_t g = 1; g < n; ++g) {
        double v = group[g]->getDouble(i);
        if (kind == Reduction::Sum || kind == Reduction::Mean)
          acc += v;
        else if (std::isnan(v) || std::isnan(acc))
          acc = NAN;
        else
          acc = kind == Reduction::Max ? std::max(acc, v) : std::min(acc, v);
      }
      out.setDouble(i, kind == Reduction::Mean ? acc / n : acc);
    } else {
      int64_t acc = first.getInt(i);
      for (int64_t g = 1; g < n; ++g) {
        int64_t v = group[g]->getInt(i);
        if (kind == Reduction::Sum || kind == Reduction::Mean)
          acc = (int64_t)((uint64_t)acc + (uint64_t)v); // wraps
        else
          acc = kind == Reduction::Max ? std::max(acc, v) : std::min(acc, v);
      }
      out.setInt(i, kind == Reduction::Mean ? acc / n : acc);
    }
  }
  return out;
}

Array allGather(const std::vector<const Array *> &group, int64_t dim) {
  return concatenate(group, dim);
}

/// Block `j` of `n` equal blocks of `x` along `dim`.
static Array block(const Array &x, int64_t dim, int64_t j, int64_t n) {
  Dims start(x.rank(), 0), limit(x.shape()), strides(x.rank(), 1);
  int64_t size = x.shape()[dim] / n;
  start[dim] = j * size;
  limit[dim] = (j + 1) * size;
  return slice(x, start, limit, strides);
}

std::vector<Array> reduceScatter(Reduction kind, const std::vector<const Array *> &group,
                                 int64_t dim) {
  Array all = allReduce(kind, group);
  int64_t n = (int64_t)group.size();
  std::vector<Array> out;
  for (int64_t j = 0; j < n; ++j)
    out.push_back(block(all, dim, j, n));
  return out;
}

std::vector<Array> allSlice(const std::vector<const Array *> &group, int64_t dim) {
  int64_t n = (int64_t)group.size();
  std::vector<Array> out;
  for (int64_t j = 0; j < n; ++j)
    out.push_back(block(*group[j], dim, j, n));
  return out;
}

std::vector<Array> allToAll(const std::vector<const Array *> &group, int64_t splitDim,
                            int64_t concatDim) {
  int64_t n = (int64_t)group.size();
  std::vector<Array> out;
  for (int64_t j = 0; j < n; ++j) {
    std::vector<Array> received;
    for (int64_t i = 0; i < n; ++i)
      received.push_back(block(*group[i], splitDim, j, n));
    std::vector<const Array *> parts;
    for (const Array &a : received)
      parts.push_back(&a);
    out.push_back(concatenate(parts, concatDim));
  }
  return out;
}

std::vector<Array> collectivePermute(const std::vector<const Array *> &group,
                                     const std::vector<int64_t> &sources) {
  std::vector<Array> out;
  for (int64_t s : sources)
    out.push_back(*group[s]);
  return out;
}

} // namespace shardc::ref
