//===- OpConversion.h - each StableHLO op as shardc ops ---------*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_OPCONVERSION_H
#define SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_OPCONVERSION_H

#include "ImportUtil.h"
#include "shardc/Conversion/GspmdSharding.h"

namespace shardc::import {

/// Replaces every op of the stablehlo, chlo and sdy dialects in `body`
/// (and in the regions of other ops) by shardc ops; errors are reported at
/// the op they concern.
LogicalResult convertOps(Block &body, ModuleOp module, const MeshMap &meshes, GspmdMeshes &gspmd);

} // namespace shardc::import

#endif // SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_OPCONVERSION_H
