//===- Take.cpp - take: the check of a step and the reference kernel ------===//
//
// No attributes. inputs = {table, indices}: the result is the indices'
// shape followed by the table's without its first dimension, each index
// choosing a row of the table (an embedding lookup). An index outside
// [0, rows) is an error.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include <cstring>

namespace shardc::structured {

std::string checkTake(const StepSignature &step) { return checkRowsStep(step, false); }

StatusOr<Array> referenceTake(const std::vector<const Array *> &inputs,
                              const std::vector<int64_t> &) {
  const Array &table = *inputs[0], &indices = *inputs[1];
  int64_t rows = table.shape()[0];
  if (Status ok = checkRowIndices(indices, rows, "take"); !ok.ok())
    return ok;
  Shape shape = indices.shape();
  shape.insert(shape.end(), table.shape().begin() + 1, table.shape().end());
  Array out(table.dtype(), shape);
  size_t rowBytes = table.sizeInBytes() / (rows ? rows : 1);
  for (int64_t p = 0; p < indices.numElements(); ++p)
    std::memcpy(out.bytes() + p * rowBytes, table.bytes() + indices.getInt(p) * rowBytes, rowBytes);
  return out;
}

} // namespace shardc::structured
