//===- StructuredOps.cpp - the structured-op table ------------------------===//

#include "shardc/Runtime/StructuredOps.h"

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

} // namespace shardc
