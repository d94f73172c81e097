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

/// Moves a Fused step that reads a product's result over as many elements
/// to right after that product, where its other inputs exist already and
/// it is the result's first reader or frees by moving as many bytes as it
/// holds longer (a
/// GELU's derivative times the product of its output gradient, which the
/// weight gradient's product would otherwise separate from it). The CPU
/// backend runs such a pair block by block, each block of the product read
/// back from cache (cpu::runProductAndReader). Runs after fusion, before
/// buffer assignment.
void placeReadersAfterProducts(Plan &plan);

/// Whether `a` is a non-empty f32 array of one value (bit for bit): a
/// constant that fusion folds into its kernel as an immediate.
bool isF32Splat(const Array &a);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_FUSEELEMENTWISE_H
