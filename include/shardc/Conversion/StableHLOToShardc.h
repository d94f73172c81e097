//===- StableHLOToShardc.h - import JAX's StableHLO modules -----*- C++ -*-===//
//
// Rewrites a module as `jax.jit(f).lower(...).as_text()` prints it
// (StableHLO, with Shardy or GSPMD shardings) into the shardc dialect, in
// place. Every StableHLO op with a shardc equivalent converts exactly; a
// few more are rewritten into shardc ops where the result is exact
// (logistic, sign, clamp, boolean and/or/not, a reduction whose initial
// value is not the identity); calls to private functions are inlined. Any
// other op is an error naming it, at its location. docs/stablehlo.md lists
// what is accepted.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_CONVERSION_STABLEHLOTOSHARDC_H
#define SHARDC_CONVERSION_STABLEHLOTOSHARDC_H

#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace mlir {
class Pass;
}

namespace shardc {

/// True when the module holds an op of the stablehlo, chlo or sdy dialects,
/// or a Shardy or GSPMD sharding.
bool isStableHLOModule(mlir::ModuleOp module);

/// Converts the module; on failure the errors are reported at the ops they
/// concern, and the module is left partly converted (discard it).
mlir::LogicalResult importStableHLO(mlir::ModuleOp module);

/// `--shardc-import-stablehlo`, for shardc-opt.
std::unique_ptr<mlir::Pass> createImportStableHLOPass();
void registerImportStableHLOPass();

} // namespace shardc

#endif // SHARDC_CONVERSION_STABLEHLOTOSHARDC_H
