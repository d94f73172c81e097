//===- Autodiff.h - reverse-mode differentiation ----------------*- C++ -*-===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_AUTODIFF_H
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_AUTODIFF_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

/// Adds `@<fn>_grad` (or `name`) beside `fn`: the same arguments, returning
/// fn's rank-0 float result and its gradients with respect to the arguments
/// `wrt` (all float arguments when empty). See --shardc-autodiff.
mlir::FailureOr<mlir::func::FuncOp>
differentiate(mlir::func::FuncOp fn, llvm::ArrayRef<unsigned> wrt, llvm::StringRef name = "");

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_AUTODIFF_H
