//===- PlaceReaders.h - fused readers next to their products ----*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_SHARDCTOPLAN_PLACEREADERS_H
#define SHARDC_LIB_CONVERSION_SHARDCTOPLAN_PLACEREADERS_H

#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Moves a Fused step that reads a product's result over as many elements
/// to right after that product, where its other inputs exist already and
/// it is the result's first reader or frees by moving as many bytes as it
/// holds longer (a GELU's derivative times the product of its output
/// gradient, which the weight gradient's product would otherwise separate
/// from it). The CPU
/// backend runs such a pair block by block, each block of the product read
/// back from cache (cpu::runProductAndReader). Runs after fusion, before
/// buffer assignment.
void placeReadersAfterProducts(Plan &plan);

} // namespace shardc

#endif // SHARDC_LIB_CONVERSION_SHARDCTOPLAN_PLACEREADERS_H
