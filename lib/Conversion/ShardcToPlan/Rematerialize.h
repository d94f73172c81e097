//===- Rematerialize.h - recomputing elementwise values late ----*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_SHARDCTOPLAN_REMATERIALIZE_H
#define SHARDC_LIB_CONVERSION_SHARDCTOPLAN_REMATERIALIZE_H

#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Recomputes elementwise values where they are read late instead of
/// keeping them from where they were made: the fusion-level
/// rematerialization of XLA's, for what a training step's backward pass
/// reads of the forward one (a tanh-approximated GELU saves eight
/// intermediates of its input's size, all recomputable from that input).
///
/// A value is a candidate when an f32 elementwise chain of a few steps
/// computes it from "leaves" (values of other steps, arguments, small
/// broadcast sources), and a step reads it across a step that cannot fuse
/// (so it would be stored until then). Candidates with the same leaves are
/// taken together when their bytes exceed those of the leaves that are not
/// live there anyway, and always when one is a compare: a fused kernel
/// cannot store its i1 value, so a compare read on both sides of a cut (a
/// loss's one-hot pick and its gradient's) would leave both sides unfused.
/// Each such reader then gets a copy of the chain just
/// before it (one per stretch of fusible steps, shared by its readers), which
/// the elementwise fusion then fuses with it. Elementwise ops are computed
/// the same way wherever they run (no fast math, no FMA contraction), so
/// the results are those of the plan without it, bit for bit. Runs before
/// fuseElementwise.
///
/// A value stored anyway for a product where it is made, and read after the
/// cut only by steps a copy cannot fuse with (a GELU's output, read again
/// by its weight gradient's product), is not a candidate: its copy would be
/// a pass over memory of its own (reading the leaves, writing the value
/// again) bought with the bytes it frees.
void rematerializeElementwise(Plan &plan);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_REMATERIALIZE_H
