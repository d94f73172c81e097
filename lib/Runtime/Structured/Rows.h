//===- Rows.h - what take and scatter_add share -----------------*- C++ -*-===//
//
// take reads rows of a table by index and scatter_add, its adjoint, adds
// into them: both check a step's table and indices alike, and both fail on
// an index outside [0, rows).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_STRUCTURED_ROWS_H
#define SHARDC_LIB_RUNTIME_STRUCTURED_ROWS_H

#include "shardc/Runtime/StructuredOps.h"

namespace shardc::structured {

/// Checks the inputs and output of a take (updates = false) or scatter_add
/// step: "" where they are well formed.
std::string checkRowsStep(const StepSignature &step, bool updates);

/// The first index of `indices` outside [0, rows), as an error naming `op`
/// and its position; success where there is none.
Status checkRowIndices(const Array &indices, int64_t rows, const char *op);

} // namespace shardc::structured

#endif // SHARDC_LIB_RUNTIME_STRUCTURED_ROWS_H
