//===- Parsing.h - what the imported dialects' readers share ----*- C++ -*-===//

#ifndef SHARDC_LIB_DIALECT_STABLEHLO_PARSING_H
#define SHARDC_LIB_DIALECT_STABLEHLO_PARSING_H

#include "mlir/IR/OpImplementation.h"

namespace shardc {

/// A region's terminator (stablehlo.return, sdy.return): `%a, %b : T, U`,
/// or nothing.
mlir::ParseResult parseTerminator(mlir::OpAsmParser &p, mlir::OperationState &st);

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_STABLEHLO_PARSING_H
