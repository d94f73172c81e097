//===- Rows.cpp - what take and scatter_add share -------------------------===//

#include "Rows.h"

namespace shardc::structured {

static bool isIndexType(DType t) { return t == DType::I32 || t == DType::I64; }

std::string checkRowsStep(const StepSignature &step, bool updates) {
  size_t inputs = updates ? 3 : 2;
  if (step.inputs.size() != inputs || step.outputs.size() != 1)
    return "takes " + std::to_string(inputs) + " inputs and 1 output";
  if (!step.attrs.empty())
    return "has " + std::to_string(step.attrs.size()) + " attribute numbers, expected none";
  const TensorSignature &table = step.inputs[0], &indices = step.inputs[1], &out = step.outputs[0];
  if (table.shape.empty() || !isIndexType(indices.dtype))
    return "needs a table of rank >= 1 and integer indices";
  if (out.dtype != table.dtype)
    return "the output's element type differs from the table's";
  Shape rows = indices.shape;
  rows.insert(rows.end(), table.shape.begin() + 1, table.shape.end());
  const TensorSignature &shaped = updates ? step.inputs[2] : out;
  if (shaped.shape != rows || shaped.dtype != table.dtype)
    return std::string(updates ? "the updates" : "the output") + " must be " +
           signatureString({table.dtype, rows}) + ", not " + signatureString(shaped);
  if (updates && out.shape != table.shape)
    return "the output must have the table's type " + signatureString(table) + ", not " +
           signatureString(out);
  return "";
}

Status checkRowIndices(const Array &indices, int64_t rows, const char *op) {
  for (int64_t p = 0; p < indices.numElements(); ++p) {
    int64_t r = indices.getInt(p);
    if (r < 0 || r >= rows)
      return Status::error(std::string(op) + " index " + std::to_string(r) + " at position " +
                           std::to_string(p) + " is out of range [0, " + std::to_string(rows) +
                           ")");
  }
  return Status::success();
}

} // namespace shardc::structured
