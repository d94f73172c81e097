//===- OpStrategy.cpp - the layout an op is computed at -------------------===//

#include "OpStrategy.h"

#include <numeric>
#include <tuple>

using namespace mlir;

namespace shardc {

static RankedTensorType globalType(Value v) { return cast<RankedTensorType>(v.getType()); }

Layout layoutFor(MeshOp mesh, ArrayRef<DimFactors> dims, ArrayRef<Axes> factorAxes) {
  Layout layout;
  for (const DimFactors &factors : dims) {
    Axes axes;
    for (int64_t f : factors)
      axes.append(factorAxes[f].begin(), factorAxes[f].end());
    layout.push_back(mergeSubAxes(mesh, axes));
  }
  return layout;
}

SmallVector<Axes> splitByFactors(MeshOp mesh, ArrayRef<StringRef> axes, ArrayRef<int64_t> sizes) {
  SmallVector<Axes> out(sizes.size());
  size_t k = 0;
  int64_t group = 1;
  for (StringRef a : axes) {
    // What is left of `a`: its factor [pre, pre * rest).
    int64_t pre = mesh.getAxisPreSize(a), rest = mesh.getAxisSize(a);
    if (rest == 1 && k < sizes.size())
      out[k].push_back(a); // an axis of size 1 splits nothing: it stays where it is
    while (rest > 1) {
      while (k < sizes.size() && group == sizes[k]) {
        ++k;
        group = 1;
      }
      if (k == sizes.size())
        return out;
      int64_t room = sizes[k] / group;
      // The major part of what is left that the factor has room for (a
      // sub-axis where that is not all of it, as Shardy splits "a" of 4
      // over factors 2 and 2 into "a":(1)2 and "a":(2)2).
      int64_t take = room % rest == 0 ? rest : std::gcd(room, rest);
      if (take == 1)
        return out;
      out[k].push_back(subAxisOf(mesh, a, pre, take));
      group *= take;
      pre *= take;
      rest /= take;
      if (rest > 1 && group != sizes[k])
        return out; // the factor is not filled: the rest cannot go minor to it
    }
  }
  return out;
}

bool isWholeFactor(const ShardingRule &rule, const DimFactors &factors, int64_t size) {
  return factors.size() == 1 && rule.factors[factors[0]].size == size;
}

SmallVector<Axes> axesByFactor(MeshOp mesh, const ShardingRule &rule, const DimFactors &factors,
                               int64_t size, ArrayRef<StringRef> axes) {
  if (isWholeFactor(rule, factors, size))
    return {Axes(axes.begin(), axes.end())};
  return splitByFactors(mesh, axes, rule.sizes(factors));
}

std::optional<Axes> factorAxesIn(MeshOp mesh, const ShardingRule &rule, ArrayRef<DimFactors> dims,
                                 ArrayRef<int64_t> shape, const Layout &layout, int64_t f) {
  std::optional<FactorPosition> at = ShardingRule::find(dims, f);
  if (!at)
    return std::nullopt;
  return axesByFactor(mesh, rule, dims[at->dim], shape[at->dim], layout[at->dim])[at->position];
}

void keepBlocksContiguous(MeshOp mesh, const ShardingRule &rule, FactorAxes &factorAxes) {
  auto fills = [&](int64_t f) { return getGroupSize(mesh, factorAxes[f]) == rule.factors[f].size; };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto *values : {&rule.operandDims, &rule.resultDims})
      for (const std::vector<DimFactors> &dims : *values)
        for (const DimFactors &dim : dims)
          for (size_t k = 1; k < dim.size(); ++k)
            if (!fills(dim[k - 1]))
              for (size_t m = k; m < dim.size(); ++m)
                if (!factorAxes[dim[m]].empty()) {
                  factorAxes[dim[m]].clear();
                  changed = true;
                }
  }
}

Axes reductionAxes(MeshOp mesh, const ShardingRule &rule, ArrayRef<Axes> factorAxes) {
  Axes axes;
  for (size_t f = 0; f < rule.factors.size(); ++f)
    if (rule.factors[f].kind == FactorKind::Reduction)
      for (StringRef axis : factorAxes[f])
        if (mesh.getAxisSize(axis) > 1)
          axes.push_back(axis);
  return axes;
}

std::optional<size_t> scatterDim(MeshOp mesh, RankedTensorType global, const Layout &layout,
                                 const Layout &want, ArrayRef<StringRef> axes) {
  for (size_t d = 0; d < layout.size(); ++d) {
    Axes next = layout[d];
    next.append(axes.begin(), axes.end());
    if (next == want[d] && global.getDimSize(d) % getGroupSize(mesh, next) == 0)
      return d;
  }
  return std::nullopt;
}

/// Whether `n` blocks divide factor `f` (and so every dimension it is the
/// major factor of).
static bool factorDivides(const OpLayouts &l, size_t f, int64_t n) {
  return l.rule.factors[f].size % n == 0;
}

/// Whether every dimension factor `f` indexes is the factor alone, of its
/// size: where a padded split of it is a padded split of each dimension.
static bool paddable(const OpLayouts &l, size_t f) {
  auto check = [&](const std::vector<std::vector<DimFactors>> &values, bool results) {
    for (auto [i, dims] : llvm::enumerate(values)) {
      Value v = results ? l.op->getResult(i) : l.op->getOperand(i);
      for (auto [d, factors] : llvm::enumerate(dims))
        if (llvm::is_contained(factors, (int64_t)f) &&
            !isWholeFactor(l.rule, factors, globalType(v).getDimSize(d)))
          return false;
    }
    return true;
  };
  return check(l.rule.operandDims, false) && check(l.rule.resultDims, true);
}

/// Axes per factor: reduction factors take the axes their operands are
/// sharded on; pass-through factors those of the result (or, with
/// `operandsFirst`, of the first operand sharded along them: computing at
/// the operands' layout), less any axis a reduction factor already uses
/// (the combine then scatters it); a factor keeps only axes that divide
/// every dimension it indexes. Operands are consulted from `first` on
/// (then from 0): computing at one operand's layout, resharding the others.
/// With `passThroughFirst`, pass-through factors choose before reduction
/// factors, which keep what is left of their operands' axes: a contraction
/// split by an axis the result wants elsewhere gathers that axis on the
/// (often smaller) operand instead of giving it up on the result.
static FactorAxes factorAxesFrom(const OpLayouts &l, bool operandsFirst, unsigned first = 0,
                                 bool passThroughFirst = false) {
  const ShardingRule &rule = l.rule;
  size_t n = rule.factors.size();
  FactorAxes axes(n);
  SmallVector<StringRef> used;
  auto take = [&](size_t f, ArrayRef<StringRef> candidate) {
    // A value split with padding along the factor is computed so: its
    // padding then never moves (reductions mask it).
    bool padded = !factorDivides(l, f, getGroupSize(l.mesh, candidate)) && paddable(l, f);
    Axes chosen;
    for (StringRef a : candidate) {
      if (overlapsAny(l.mesh, used, a)) {
        // Keep a prefix (blocks stay contiguous): at most the major part of
        // `a` that no used axis overlaps ("x":(1)2 of "x" beside "x":(2)2).
        MeshOp mesh = l.mesh;
        int64_t pre = mesh.getAxisPreSize(a), end = pre * mesh.getAxisSize(a), cut = end;
        for (StringRef u : used)
          if (mesh.axesOverlap(u, a))
            cut = std::min(cut, std::max(pre, mesh.getAxisPreSize(u)));
        if (cut > pre) {
          Axes next = chosen;
          next.push_back(subAxisOf(mesh, a, pre, cut / pre));
          if (padded || factorDivides(l, f, getGroupSize(l.mesh, next)))
            chosen = next;
        }
        break;
      }
      Axes next = chosen;
      next.push_back(a);
      if (!padded && !factorDivides(l, f, getGroupSize(l.mesh, next)))
        break;
      chosen = next;
    }
    used.append(chosen.begin(), chosen.end());
    axes[f] = chosen;
  };
  // The axes operand i (in the order from `first`) is split by along factor
  // f, if it indexes it.
  size_t numOperands = rule.operandDims.size();
  auto operandAxes = [&](size_t k, size_t f) {
    size_t i = (k + first) % numOperands;
    return factorAxesIn(l.mesh, rule, rule.operandDims[i],
                        globalType(l.op->getOperand(i)).getShape(), l.operands[i], f);
  };
  // Reduction factors first, from the first operand sharded along them.
  auto takeReductions = [&] {
    for (size_t f = 0; f < n; ++f) {
      if (rule.factors[f].kind != FactorKind::Reduction)
        continue;
      for (size_t i = 0; i < rule.operandDims.size(); ++i)
        if (std::optional<Axes> candidate = operandAxes(i, f); candidate && !candidate->empty()) {
          take(f, *candidate);
          break;
        }
    }
  };
  if (!passThroughFirst)
    takeReductions();
  // Pass-through factors: from the result where they appear there, else
  // from the operands (with `operandsFirst`, from a split operand first).
  // Those operand `first` indexes choose first: where two factors want one
  // axis, computing at that operand's layout gives it to its own.
  std::vector<size_t> order;
  if (first != 0)
    for (const DimFactors &dim : rule.operandDims[first])
      for (int64_t f : dim)
        if (!llvm::is_contained(order, (size_t)f))
          order.push_back(f);
  for (size_t f = 0; f < n; ++f)
    if (!llvm::is_contained(order, f))
      order.push_back(f);
  for (size_t f : order) {
    if (rule.factors[f].kind != FactorKind::PassThrough)
      continue;
    bool found = false;
    for (size_t i = 0; operandsFirst && !found && i < rule.operandDims.size(); ++i)
      if (std::optional<Axes> candidate = operandAxes(i, f); candidate && !candidate->empty()) {
        take(f, *candidate);
        found = true;
      }
    for (size_t i = 0; !found && i < rule.resultDims.size(); ++i)
      if (std::optional<Axes> candidate =
              factorAxesIn(l.mesh, rule, rule.resultDims[i],
                           globalType(l.op->getResult(i)).getShape(), l.wanted[i], f)) {
        take(f, *candidate);
        found = true;
      }
    for (size_t i = 0; !found && i < rule.operandDims.size(); ++i)
      if (std::optional<Axes> candidate = operandAxes(i, f)) {
        take(f, *candidate);
        found = true;
      }
  }
  if (passThroughFirst)
    takeReductions();
  keepBlocksContiguous(l.mesh, rule, axes);
  return axes;
}

/// `factorAxes` with the axes an operand is split by along a factor the op
/// needs whole given to the largest pass-through factor that has none and
/// that they divide.
static FactorAxes relocateWholeFactorAxes(const OpLayouts &l, FactorAxes factorAxes) {
  const ShardingRule &rule = l.rule;
  auto usedAxis = [&](StringRef a) {
    return llvm::any_of(factorAxes, [&](const Axes &axes) { return overlapsAny(l.mesh, axes, a); });
  };
  for (size_t f = 0; f < rule.factors.size(); ++f) {
    if (rule.factors[f].kind != FactorKind::NeedReplication)
      continue;
    for (auto [i, dims] : llvm::enumerate(rule.operandDims)) {
      std::optional<Axes> found = factorAxesIn(
          l.mesh, rule, dims, globalType(l.op->getOperand(i)).getShape(), l.operands[i], f);
      if (!found)
        continue;
      const Axes &axes = *found;
      if (axes.empty() || llvm::any_of(axes, usedAxis))
        continue;
      int64_t n = getGroupSize(l.mesh, axes);
      std::optional<size_t> best;
      for (size_t g = 0; g < rule.factors.size(); ++g)
        if (rule.factors[g].kind == FactorKind::PassThrough && factorAxes[g].empty() &&
            factorDivides(l, g, n) && (!best || rule.factors[g].size > rule.factors[*best].size))
          best = g;
      if (best)
        factorAxes[*best] = axes;
      break;
    }
  }
  keepBlocksContiguous(l.mesh, rule, factorAxes);
  return factorAxes;
}

static void addReshard(CommCost &cost, const OpLayouts &l, RankedTensorType global,
                       const Layout &from, const Layout &to) {
  cost += l.planner.cost(l.mesh, global, from, to);
}

/// What computing the op with `factorAxes` costs: its operands' reshards,
/// the combine of its partial results (a reduce_scatter where the wanted
/// layout splits a dimension by exactly those axes, else an all_reduce)
/// and its results' reshards.
static CommCost strategyCost(const OpLayouts &l, ArrayRef<Axes> factorAxes) {
  CommCost cost;
  for (unsigned i = 0; i < l.op->getNumOperands(); ++i)
    addReshard(cost, l, globalType(l.op->getOperand(i)), l.operands[i],
               layoutFor(l.mesh, l.rule.operandDims[i], factorAxes));
  Axes partial = reductionAxes(l.mesh, l.rule, factorAxes);
  for (auto [i, result] : llvm::enumerate(l.op->getResults())) {
    RankedTensorType global = globalType(result);
    Layout layout = layoutFor(l.mesh, l.rule.resultDims[i], factorAxes);
    if (!partial.empty()) {
      int64_t n = getGroupSize(l.mesh, partial);
      int64_t local = localBytes(l.mesh, global, layout);
      std::optional<size_t> d = scatterDim(l.mesh, global, layout, l.wanted[i], partial);
      if (d)
        layout[*d].append(partial.begin(), partial.end());
      cost.bytes += collectiveBytesSent(d ? OpCode::ReduceScatter : OpCode::AllReduce, local, n);
      ++cost.collectives;
    }
    addReshard(cost, l, global, layout, l.wanted[i]);
  }
  return cost;
}

FactorAxes chooseOpStrategy(const OpLayouts &l) {
  FactorAxes best = factorAxesFrom(l, /*operandsFirst=*/false);
  CommCost bestCost = strategyCost(l, best);
  auto consider = [&](FactorAxes candidate) {
    if (candidate == best)
      return;
    CommCost cost = strategyCost(l, candidate);
    if (l.planner.cheaper(cost, bestCost)) {
      best = std::move(candidate);
      bestCost = cost;
    }
  };
  // Computing at the operands' layout and resharding the result can send
  // less (a slice of a split operand: gather the small result, not the
  // operand); so can computing at another operand's layout, resharding the
  // first.
  // Every one of these also with the pass-through factors choosing first.
  for (bool passThroughFirst : {false, true})
    for (unsigned i = 0; i < std::max(1u, l.op->getNumOperands()); ++i)
      for (bool operandsFirst : {false, true})
        consider(factorAxesFrom(l, operandsFirst, i, passThroughFirst));
  // A contraction over a split dimension whose partial results would be
  // reduced here, and whose result is wanted split over those axes along
  // another dimension: moving the split there before the contraction (the
  // contracted dimension gathered, or moved by an all_to_all) keeps every
  // device's share of the work and can send less than the reduce_scatter.
  // Not where the partial results can stay partial (their reduction then
  // comes later, often once for several terms), nor where the result would
  // then be gathered (a data-parallel gradient stays an all_reduce).
  if (!l.resultsMayStayPartial) {
    FactorAxes base = best;
    Axes moved;
    for (size_t f = 0; f < l.rule.factors.size(); ++f)
      if (l.rule.factors[f].kind == FactorKind::Reduction && !base[f].empty()) {
        moved.append(base[f].begin(), base[f].end());
        base[f].clear();
      }
    int64_t n = getGroupSize(l.mesh, moved);
    // Whether the results are wanted split over `moved` along factor g.
    auto wantedAlong = [&](size_t g) {
      for (auto [i, dims] : llvm::enumerate(l.rule.resultDims))
        if (std::optional<Axes> axes = factorAxesIn(
                l.mesh, l.rule, dims, globalType(l.op->getResult(i)).getShape(), l.wanted[i], g);
            axes && llvm::all_of(moved, [&](StringRef a) { return llvm::is_contained(*axes, a); }))
          return true;
      return false;
    };
    for (size_t g = 0; n > 1 && g < l.rule.factors.size(); ++g)
      if (l.rule.factors[g].kind == FactorKind::PassThrough && base[g].empty() &&
          factorDivides(l, g, n) && wantedAlong(g)) {
        FactorAxes candidate = base;
        candidate[g] = moved;
        keepBlocksContiguous(l.mesh, l.rule, candidate);
        consider(candidate);
      }
  }
  // A dimension the op needs whole (a concatenate's) whose operands are
  // split: moving the axes to another dimension (all_to_all) and back can
  // send less than gathering.
  consider(relocateWholeFactorAxes(l, best));
  return best;
}

} // namespace shardc
