//===- StructuredOps.h - the structured-op table ----------------*- C++ -*-===//
//
// What the runtime knows of each op of the SHARDC_STRUCTURED rows of
// OpCodes.def: the check of a step's types and attributes, and the
// reference kernel, which the CPU backend and the interpreter run. Each
// row's two functions live in lib/Runtime/Structured/Name.cpp; this table
// is generated from the rows, so that a row without them does not link.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_STRUCTUREDOPS_H
#define SHARDC_RUNTIME_STRUCTUREDOPS_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Status.h"

#include <string>
#include <vector>

namespace shardc {

/// A value's element type and shape.
struct TensorSignature {
  DType dtype;
  Shape shape;
};

/// One step of a structured op as its check sees it.
struct StepSignature {
  std::vector<TensorSignature> inputs, outputs;
  std::vector<int64_t> attrs;
};

struct StructuredOpEntry {
  OpCode op;
  /// "" where the step is well formed, else what is wrong with it ("dim 3
  /// is out of range for rank 2").
  std::string (*check)(const StepSignature &step);
  /// The one result, from the inputs (of a well-formed step).
  StatusOr<Array> (*reference)(const std::vector<const Array *> &inputs,
                               const std::vector<int64_t> &attrs);
};

/// The entry of `op`, or null for an op outside the table.
const StructuredOpEntry *structuredOp(OpCode op);

/// "2x4x8 f32": a value's shape and element type, as checks name them.
std::string signatureString(const TensorSignature &t);

/// The scale of an attention step (attention, qkv_attention and its
/// gradient): its attributes are {causal, the bits of scale as an f64}.
double attentionScale(const std::vector<int64_t> &attrs);

namespace structured {
#define SHARDC_STRUCTURED(Name, ...)                                                               \
  std::string check##Name(const StepSignature &step);                                              \
  StatusOr<Array> reference##Name(const std::vector<const Array *> &inputs,                        \
                                  const std::vector<int64_t> &attrs);
#include "shardc/Common/OpCodes.def"
} // namespace structured

} // namespace shardc

#endif // SHARDC_RUNTIME_STRUCTUREDOPS_H
