//===- OpStrategy.h - the layout an op is computed at -----------*- C++ -*-===//
//
// Partitioning computes each op at a layout given by axes per factor of its
// sharding rule. The candidates: the layout its results want (operands
// resharded before it), its operands' layout (results resharded after), and
// the split of a dimension it needs whole moved to another; each is priced
// in bytes per device and collectives with the reshard planner, and the
// cheapest over the planner's link wins.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPSTRATEGY_H
#define SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPSTRATEGY_H

#include "Reshard.h"

#include "shardc/Dialect/Shardc/IR/ShardingRule.h"

#include <optional>

namespace shardc {

/// Mesh axes per factor of a sharding rule.
using FactorAxes = llvm::SmallVector<Axes>;

/// What the choice of an op's layout depends on.
struct OpLayouts {
  mlir::Operation *op;
  const ShardingRule &rule;
  MeshOp mesh;
  /// The layouts the operands are in.
  llvm::ArrayRef<Layout> operands;
  /// The layouts propagation chose for the results.
  llvm::ArrayRef<Layout> wanted;
  /// Whether partial results could stay partial for their users (each has
  /// one use, linear in it) rather than be reduced at the op.
  bool resultsMayStayPartial;
  /// Prices the reshards of each candidate (the run's memo).
  ReshardPlanner &planner;
};

/// The cheapest of the candidate factor axes (ReshardPlanner::cheaper),
/// ties to the results' layout.
FactorAxes chooseOpStrategy(const OpLayouts &op);

/// The layout of a value whose dimensions index factors `dims`: each
/// dimension is split by its factors' axes, major first.
Layout layoutFor(MeshOp mesh, llvm::ArrayRef<DimFactors> dims, llvm::ArrayRef<Axes> factorAxes);

/// The axes of a dimension whose factors have `sizes` (major first), split
/// among the factors: each takes axes while their group divides its size,
/// and the next begins once the group is the factor's whole size. Axes past
/// a point where that fails belong to no factor.
llvm::SmallVector<Axes> splitByFactors(MeshOp mesh, llvm::ArrayRef<llvm::StringRef> axes,
                                       llvm::ArrayRef<int64_t> sizes);

/// Whether a dimension of `size` indexing `factors` is one factor alone, of
/// its size: its axes are then the factor's, even where they pad it.
bool isWholeFactor(const ShardingRule &rule, const DimFactors &factors, int64_t size);

/// The axes of a dimension of `size` indexing `factors`, split among them:
/// all of them where it is one factor alone (isWholeFactor), else
/// splitByFactors.
llvm::SmallVector<Axes> axesByFactor(MeshOp mesh, const ShardingRule &rule,
                                     const DimFactors &factors, int64_t size,
                                     llvm::ArrayRef<llvm::StringRef> axes);

/// The axes factor `f` has in a value of dimensions `dims` and global shape
/// `shape` laid out as `layout`, if the value indexes it: all of a
/// dimension's axes where the factor is the whole dimension (even where they
/// pad it), else its share of them (splitByFactors).
std::optional<Axes> factorAxesIn(MeshOp mesh, const ShardingRule &rule,
                                 llvm::ArrayRef<DimFactors> dims, llvm::ArrayRef<int64_t> shape,
                                 const Layout &layout, int64_t f);

/// Clears the axes of every factor that follows, in some dimension, a
/// factor its axes do not fill: a device's block of that dimension would
/// not be contiguous.
void keepBlocksContiguous(MeshOp mesh, const ShardingRule &rule, FactorAxes &factorAxes);

/// The axes the op's partial results are pending over: those of its
/// reduction factors (groups of one hold the whole sum).
Axes reductionAxes(MeshOp mesh, const ShardingRule &rule, llvm::ArrayRef<Axes> factorAxes);

/// The dimension `want` splits further than `layout` by exactly `axes`:
/// where reducing a value partial over them is a reduce_scatter.
std::optional<size_t> scatterDim(MeshOp mesh, mlir::RankedTensorType global, const Layout &layout,
                                 const Layout &want, llvm::ArrayRef<llvm::StringRef> axes);

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPSTRATEGY_H
