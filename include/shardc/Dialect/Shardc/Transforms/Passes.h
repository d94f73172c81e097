//===- Passes.h - shardc passes ---------------------------------*- C++ -*-===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_H
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_H

#include "shardc/Dialect/Shardc/IR/ShardcDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Dialect/Shardc/Transforms/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_H
