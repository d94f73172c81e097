//===- MatmulPrecision.h - how f32 products are computed ---------*- C++ -*-===//
//
// Mixed precision as a compile option: the precision every f32 product of a
// module uses, set as the `precision` of its dot_generals, so it shows in
// the IR, in the plan and in the compile cache's key.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_MATMULPRECISION_H
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_MATMULPRECISION_H

#include "shardc/Common/MatmulPrecision.h"

#include <memory>

namespace mlir {
class ModuleOp;
class Operation;
class Pass;
} // namespace mlir

namespace shardc {

/// Sets `precision` on every dot_general of f32 operands in `module` that
/// has none (F32 changes nothing). Returns how many it set.
int64_t setMatmulPrecision(mlir::ModuleOp module, MatmulPrecision precision);

/// --shardc-matmul-precision for a compile that has its precision as the
/// enum already (the text option is for shardc-opt's command line).
std::unique_ptr<mlir::Pass> createMatmulPrecisionPass(MatmulPrecision precision);

/// Rounds each value that only bf16 products read (directly or through
/// reshape, transpose and slice) to bf16 once, where it is made
/// (--shardc-bf16-operands). Returns how many values it rounded.
int64_t storeBf16Operands(mlir::Operation *root);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_MATMULPRECISION_H
