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
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDINGRULE_H
#define SHARDC_DIALECT_SHARDC_IR_SHARDINGRULE_H

#include <cstdint>
#include <string>
#include <vector>

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

enum class PartialKind { Sum, Max, Min };

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

/// No factor: the dimension is not shardable through this op (size-1
/// broadcast dimensions, the minor dimensions of a reshape group).
constexpr int64_t kNoFactor = -1;

struct ShardingRule {
  std::vector<Factor> factors;
  /// operandDims[i][d]: the factor dimension d of operand i indexes.
  std::vector<std::vector<int64_t>> operandDims;
  /// resultDims[i][d]: the factor dimension d of result i indexes.
  std::vector<std::vector<int64_t>> resultDims;
  /// How partial results over Reduction factors combine.
  PartialKind partial = PartialKind::Sum;
  /// Which operands a pending sum passes through, and how (see PartialFlow).
  PartialFlow partialFlow = PartialFlow::None;
  std::vector<unsigned> linearOperands;

  /// Marks the op linear in `operands` (see PartialFlow).
  ShardingRule &linearIn(PartialFlow flow, std::vector<unsigned> operands) {
    partialFlow = flow;
    linearOperands = std::move(operands);
    return *this;
  }

  int64_t addFactor(int64_t size, FactorKind kind) {
    factors.push_back({size, kind});
    return (int64_t)factors.size() - 1;
  }
  /// A rule where operand and result dim d share factor d (elementwise ops).
  static ShardingRule elementwise(const std::vector<int64_t> &shape,
                                  unsigned numOperands, unsigned numResults);
  /// Human-readable form, e.g. "([i, k], [k, j]) -> ([i, j]) {k: reduction}".
  std::string str() const;
};

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDINGRULE_H
