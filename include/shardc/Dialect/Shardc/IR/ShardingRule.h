//===- ShardingRule.h - how an op's dimensions relate -----------*- C++ -*-===//
//
// The sharding rule of an op describes its iteration space as *factors*, and
// says which dimension of each operand and result each factor indexes. Both
// propagation and partitioning read only this, so one rule per op is all
// either needs to know about it.
//
// Example, a matmul (M, K) x (K, N) -> (M, N):
//   factors  m: 0 (pass-through), n: 1 (pass-through), k: 2 (reduction)
//   operands [[m, k], [k, n]], results [[m, n]]
// Sharding k over an axis leaves each device with a partial sum, which
// partitioning completes with an all_reduce over that axis.
//
// A dimension may index several factors, major to minor, when its size is
// their product: a reshape (8) -> (2, 4) has factors a: 2 and b: 4, the
// operand's dimension is [a, b] and the result's are [a], [b]. Such a
// dimension is split by a's axes, then b's; b may have axes only where a's
// split it into blocks of one (a's axes make a group of a's size), so that
// each device's block stays contiguous in both layouts.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDINGRULE_H
#define SHARDC_DIALECT_SHARDC_IR_SHARDINGRULE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardc/Common/Reduction.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace shardc {

enum class FactorKind {
  /// Indexes operands and results alike: a device computes its block of the
  /// result from the same block of the operands.
  PassThrough,
  /// Appears in operands only and is combined away (contracting and reduced
  /// dimensions): sharding it leaves partial results to combine.
  Reduction,
  /// Cannot be split: the op needs the whole dimension on every device
  /// (e.g. the dimension a concatenate joins along).
  NeedReplication,
};

/// How a partial value (a sum still pending over mesh axes) flows through the
/// op. Partitioning keeps such a value partial while every op it reaches is
/// linear in it, and reduces it once, where an op needs it whole.
enum class PartialFlow {
  /// Every operand must be whole: nonlinear ops, max and min.
  None,
  /// Linear in `linearOperands` jointly (add, sub, concatenate, the
  /// data-movement ops): they are all partial over the same axes, or none is.
  Additive,
  /// Linear in each of `linearOperands` separately (mul, dot_general): at
  /// most one of them is partial.
  Multiplicative,
};

struct Factor {
  int64_t size;    // e.g. 1024
  FactorKind kind; // e.g. PassThrough
};

/// The factors one dimension indexes, major to minor. Empty: none, the
/// dimension is not shardable through this op (size-1 broadcast
/// dimensions, a reshape group without a common factor).
using DimFactors = std::vector<int64_t>;

/// In the one-factor-per-dimension lists rules are built from: no factor.
constexpr int64_t kNoFactor = -1;

/// Where a factor appears in one value's dimensions.
struct FactorPosition {
  size_t dim;      // the dimension
  size_t position; // its place among the dimension's factors, major first
};

struct ShardingRule {
  std::vector<Factor> factors;
  /// operandDims[i][d]: the factors dimension d of operand i indexes.
  std::vector<std::vector<DimFactors>> operandDims;
  /// resultDims[i][d]: the factors dimension d of result i indexes.
  std::vector<std::vector<DimFactors>> resultDims;
  /// How partial results over Reduction factors combine.
  Reduction partial = Reduction::Sum; // Sum, Max or Min
  /// Which operands a pending sum passes through, and how (see PartialFlow).
  PartialFlow partialFlow = PartialFlow::None;
  std::vector<unsigned> linearOperands;
  /// An operand the op accumulates into (scatter_add's operand): with
  /// sharded Reduction factors it must be added once, after the partial
  /// results are combined, not on every device.
  std::optional<unsigned> accumulator;
  /// What its Reduction factors are called in explanations: "contracting"
  /// (dot_general), "reduced" (reduce), "index" (scatter_add).
  const char *reductionName = "reduced";

  /// Marks the op linear in `operands` (see PartialFlow).
  ShardingRule &linearIn(PartialFlow flow, std::vector<unsigned> operands) {
    partialFlow = flow;
    linearOperands = std::move(operands);
    return *this;
  }

  /// Sets the dimensions from one factor (or kNoFactor) per dimension.
  ShardingRule &setDims(const std::vector<std::vector<int64_t>> &operands,
                        const std::vector<std::vector<int64_t>> &results) {
    operandDims = single(operands);
    resultDims = single(results);
    return *this;
  }
  static std::vector<std::vector<DimFactors>>
  single(const std::vector<std::vector<int64_t>> &values) {
    std::vector<std::vector<DimFactors>> out;
    for (const std::vector<int64_t> &dims : values) {
      out.emplace_back();
      for (int64_t f : dims)
        out.back().push_back(f == kNoFactor ? DimFactors{} : DimFactors{f});
    }
    return out;
  }

  /// Where factor `f` appears among `dims` (one value's), if it does.
  static std::optional<FactorPosition> find(const std::vector<DimFactors> &dims, int64_t f) {
    for (size_t d = 0; d < dims.size(); ++d)
      for (size_t k = 0; k < dims[d].size(); ++k)
        if (dims[d][k] == f)
          return FactorPosition{d, k};
    return std::nullopt;
  }

  /// The sizes of the factors dimension `dims` indexes, major first.
  std::vector<int64_t> sizes(const DimFactors &dims) const {
    std::vector<int64_t> out;
    for (int64_t f : dims)
      out.push_back(factors[f].size);
    return out;
  }

  int64_t addFactor(int64_t size, FactorKind kind) {
    factors.push_back({size, kind});
    return (int64_t)factors.size() - 1;
  }
  /// A rule where operand and result dim d share factor d (elementwise ops).
  static ShardingRule elementwise(const std::vector<int64_t> &shape, unsigned numOperands,
                                  unsigned numResults);
  /// Human-readable form, as Shardy prints its rules, e.g.
  /// "([i, k], [k, j]) -> ([i, j]) {i=8, j=16, k=32} reduction={k}
  /// linear_each={0, 1}": a dimension of several factors is "i*j" (major
  /// first), one of none "_"; then each factor's size, the factors that are
  /// not pass-through, the operands a pending sum passes through (jointly:
  /// linear, or each alone: linear_each) and the accumulated operand.
  std::string str() const;
};

/// The rule of an elementwise op with a row in OpCodes.def (found by the
/// op's name): operand and result dim d share factor d, and a pending sum
/// passes through as the row's `partial` says. An op without a row gets the
/// plain elementwise rule (and no lowering: the catalogue test names it).
ShardingRule elementwiseShardingRule(mlir::Operation *op);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDINGRULE_H
