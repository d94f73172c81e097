//===- FuseElementwise.h - fusing elementwise chains in a plan --*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H
#define SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H

#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Replaces chains of f32 elementwise steps over one shape (with splat
/// constants and rank-1 bias broadcasts folded in as loads) by Fused steps,
/// so their intermediates are never written to memory. Values used only
/// inside a chain become kNotMaterialized. Runs before buffer assignment.
/// Fuses chains of elementwise steps (and the row reductions that end
/// them) into Fused steps; with `rowPrograms`, a chain may read its row
/// reductions back (FusedProgram::readsReductions), which only the CPU
/// backend runs.
void fuseElementwise(Plan &plan, bool rowPrograms = false);

/// Whether `a` is a non-empty f32 array of one value (bit for bit): a
/// constant that fusion folds into its kernel as an immediate.
bool isF32Splat(const Array &a);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H
