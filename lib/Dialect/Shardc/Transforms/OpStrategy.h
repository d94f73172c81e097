//===- OpStrategy.h - the layout an op is computed at -----------*- C++ -*-===//
//
// Partitioning computes each op at a layout given by axes per factor of its
// sharding rule. The candidates: the layout its results want (operands
// resharded before it), its operands' layout (results resharded after), and
// the split of a dimension it needs whole moved to another; each is priced
// in bytes per device with the reshard planner, and the cheapest wins.
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
};

/// The cheapest of the candidate factor axes by bytes per device, ties to
/// the results' layout.
FactorAxes chooseOpStrategy(const OpLayouts &op);

/// The layout of a value whose dimensions index factors `dims`.
Layout layoutFor(llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<Axes> factorAxes);

/// The axes the op's partial results are pending over: those of its
/// reduction factors (groups of one hold the whole sum).
Axes reductionAxes(MeshOp mesh, const ShardingRule &rule, llvm::ArrayRef<Axes> factorAxes);

/// The dimension `want` splits further than `layout` by exactly `axes`:
/// where reducing a value partial over them is a reduce_scatter.
std::optional<size_t> scatterDim(MeshOp mesh, mlir::RankedTensorType global,
                                 const Layout &layout, const Layout &want,
                                 llvm::ArrayRef<llvm::StringRef> axes);

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPSTRATEGY_H
