//===- Passes.h - shardc passes ---------------------------------*- C++ -*-===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_H
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_H

#include "shardc/Dialect/Shardc/IR/ShardcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace shardc {

/// " (functions: @a, @b)", for a pass option that names a missing one.
inline std::string functionList(mlir::ModuleOp module) {
  std::string names;
  for (auto fn : module.getOps<mlir::func::FuncOp>())
    names += (names.empty() ? "@" : ", @") + fn.getSymName().str();
  return " (functions: " + (names.empty() ? std::string("none") : names) + ")";
}

#define GEN_PASS_DECL
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_H
