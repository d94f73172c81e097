//===- ArgMax.cpp - argmax: the check of a step and the reference kernel --===//
//
// attrs = {dim}. The result is the operand without `dim`, of i32: at each
// position, the index along `dim` of the largest element, the first of
// equal ones; NaN counts above every number (the first NaN wins), as in
// NumPy and PyTorch.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/StructuredOps.h"

#include <climits>
#include <cmath>

namespace shardc::structured {

std::string checkArgMax(const StepSignature &step) {
  if (step.inputs.size() != 1 || step.outputs.size() != 1)
    return "takes 1 input and 1 output";
  if (step.attrs.size() != 1)
    return "has " + std::to_string(step.attrs.size()) + " attribute numbers, expected 1 (dim)";
  const TensorSignature &x = step.inputs[0], &y = step.outputs[0];
  int64_t rank = (int64_t)x.shape.size(), dim = step.attrs[0];
  if (!isFloat(x.dtype))
    return "takes floating-point values, not " + std::string(dtypeName(x.dtype));
  if (dim < 0 || dim >= rank)
    return "dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank);
  if (x.shape[dim] == 0)
    return "dim " + std::to_string(dim) + " is empty (the largest of nothing has no index)";
  if (x.shape[dim] > INT32_MAX)
    return "dim " + std::to_string(dim) + " has more elements than an i32 index counts";
  Shape want = x.shape;
  want.erase(want.begin() + dim);
  if (y.dtype != DType::I32 || y.shape != want) {
    std::string dims;
    for (int64_t d : want)
      dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    return "the output must be i32 of shape [" + dims + "]";
  }
  return "";
}

StatusOr<Array> referenceArgMax(const std::vector<const Array *> &inputs,
                                const std::vector<int64_t> &attrs) {
  const Array &x = *inputs[0];
  int64_t dim = attrs[0], size = x.shape()[dim];
  int64_t inner = 1, outer = 1;
  for (int64_t d = dim + 1; d < (int64_t)x.shape().size(); ++d)
    inner *= x.shape()[d];
  for (int64_t d = 0; d < dim; ++d)
    outer *= x.shape()[d];
  Shape shape = x.shape();
  shape.erase(shape.begin() + dim);
  Array y(DType::I32, shape);
  int32_t *out = y.data<int32_t>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * size * inner + i, best = 0;
      double top = x.getDouble(base);
      for (int64_t k = 1; k < size && !std::isnan(top); ++k) {
        double v = x.getDouble(base + k * inner);
        if (std::isnan(v) || v > top) {
          top = v;
          best = k;
        }
      }
      out[o * inner + i] = (int32_t)best;
    }
  return y;
}

} // namespace shardc::structured
