//===- FuseElementwise.h - fusing elementwise chains in a plan --*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H
#define SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Replaces chains of f32 elementwise steps over one shape (with splat
/// constants and rank-1 bias broadcasts folded in as loads) by Fused steps,
/// so their intermediates are never written to memory. Values used only
/// inside a chain become kNotMaterialized. Runs before buffer assignment.
/// Fuses chains of elementwise steps (and the row reductions that end
/// them) into Fused steps, with what `options` allows beyond them.
void fuseElementwise(Plan &plan, const FuseOptions &options = {});

/// Whether `a` is a non-empty f32 array of one value (bit for bit): a
/// constant that fusion folds into its kernel as an immediate.
bool isF32Splat(const Array &a);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H
