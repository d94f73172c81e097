//===- GradientRules.h - the gradient rule of every op ----------*- C++ -*-===//

#ifndef SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_GRADIENTRULES_H
#define SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_GRADIENTRULES_H

#include "mlir/IR/Builders.h"

namespace shardc {

/// Emits, at `b`'s insertion point, the adjoints of `op`'s operands given
/// the adjoints of its results (`resultGrads[i]` null: no gradient reaches
/// result i). Returns one value per operand, null where no gradient flows
/// (integer operands, predicates, indices). Fails, with a diagnostic at
/// `op`, for an op without a rule.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildGradients(mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<mlir::Value> resultGrads);

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_GRADIENTRULES_H
