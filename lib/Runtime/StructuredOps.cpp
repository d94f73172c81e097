//===- StructuredOps.cpp - the structured-op table ------------------------===//

#include "shardc/Runtime/StructuredOps.h"

#include <cstring>

namespace shardc {

const StructuredOpEntry *structuredOp(OpCode op) {
  static const StructuredOpEntry entries[] = {
#define SHARDC_STRUCTURED(Name, ...)                                                               \
  {OpCode::Name, &structured::check##Name, &structured::reference##Name},
#include "shardc/Common/OpCodes.def"
  };
  for (const StructuredOpEntry &e : entries)
    if (e.op == op)
      return &e;
  return nullptr;
}

std::string signatureString(const TensorSignature &t) {
  return shapeString(t.shape) + " " + dtypeName(t.dtype);
}

double attentionScale(const std::vector<int64_t> &attrs) {
  double scale;
  std::memcpy(&scale, &attrs[1], sizeof scale);
  return scale;
}

} // namespace shardc
