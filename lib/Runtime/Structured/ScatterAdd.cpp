//===- ScatterAdd.cpp - scatter_add: the check and the reference kernel ---===//
//
// No attributes. inputs = {operand, indices, updates}, where updates has the
// shape take would give for the operand and indices: the result is the
// operand with updates[i...] added into row indices[i...]; repeated indices
// accumulate. Floats accumulate in double and round once per element;
// integers wrap, like add. An index outside [0, rows) is an error.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

namespace shardc::structured {

std::string checkScatterAdd(const StepSignature &step) { return checkRowsStep(step, true); }

StatusOr<Array> referenceScatterAdd(const std::vector<const Array *> &inputs,
                                    const std::vector<int64_t> &) {
  const Array &operand = *inputs[0], &indices = *inputs[1], &updates = *inputs[2];
  int64_t rows = operand.shape()[0];
  if (Status ok = checkRowIndices(indices, rows, "scatter_add"); !ok.ok())
    return ok;
  Array out = operand;
  int64_t rowSize = operand.numElements() / (rows ? rows : 1);
  if (isFloat(operand.dtype())) {
    std::vector<double> acc = operand.toDoubles();
    for (int64_t p = 0; p < indices.numElements(); ++p)
      for (int64_t j = 0; j < rowSize; ++j)
        acc[indices.getInt(p) * rowSize + j] += updates.getDouble(p * rowSize + j);
    for (int64_t i = 0; i < out.numElements(); ++i)
      out.setDouble(i, acc[i]);
  } else {
    for (int64_t p = 0; p < indices.numElements(); ++p)
      for (int64_t j = 0; j < rowSize; ++j) {
        int64_t o = indices.getInt(p) * rowSize + j;
        uint64_t sum = (uint64_t)out.getInt(o) + (uint64_t)updates.getInt(p * rowSize + j);
        out.setInt(o, (int64_t)sum); // wraps, like add
      }
  }
  return out;
}

} // namespace shardc::structured
