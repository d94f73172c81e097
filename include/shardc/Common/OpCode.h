//===- OpCode.h - one opcode per op, and what the catalogue says -*- C++ -*-===//
//
// The opcodes of the plan, numbered as in artifacts, with what OpCodes.def
// says of each: its name, whether it is elementwise of one or two operands,
// whether it accepts integers. Header-only and MLIR-free: the dialect, the
// lowering and the runtime all read it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMMON_OPCODE_H
#define SHARDC_COMMON_OPCODE_H

#include <cstdint>
#include <vector>

namespace shardc {

/// One opcode per op of the dialect, numbered as in artifacts (see
/// OpCodes.def, the catalogue every backend is generated from). Attributes
/// live in PlanStep::attrs, as documented per opcode there.
enum class OpCode : uint16_t {
#define SHARDC_OP(Name, name, number) Name = number,
#include "shardc/Common/OpCodes.def"
};

/// The op's name in the dialect without "shardc." ("dot_general").
inline const char *opCodeName(OpCode op) {
  switch (op) {
#define SHARDC_OP(Name, name, number)                                                              \
  case OpCode::Name:                                                                               \
    return #name;
#include "shardc/Common/OpCodes.def"
  }
  return "unknown";
}

/// Whether `number` is an opcode of this shardc (artifacts are untrusted).
inline bool isOpCode(uint64_t number) {
  switch (number) {
#define SHARDC_OP(Name, name, number) case number:
#include "shardc/Common/OpCodes.def"
    return true;
  }
  return false;
}

/// Elementwise ops of one operand, and of two (the rows SHARDC_UNARY and
/// SHARDC_BINARY of OpCodes.def).
inline bool isUnary(OpCode op) {
  switch (op) {
#define SHARDC_UNARY(Name, ...) case OpCode::Name:
#include "shardc/Common/OpCodes.def"
    return true;
  default:
    return false;
  }
}
inline bool isBinary(OpCode op) {
  switch (op) {
#define SHARDC_BINARY(Name, ...) case OpCode::Name:
#include "shardc/Common/OpCodes.def"
    return true;
  default:
    return false;
  }
}

/// Ops declared by the structured-op table (the SHARDC_STRUCTURED rows of
/// OpCodes.def; see shardc/Runtime/StructuredOps.h).
inline bool isStructured(OpCode op) {
  switch (op) {
#define SHARDC_STRUCTURED(Name, ...) case OpCode::Name:
#include "shardc/Common/OpCodes.def"
    return true;
  default:
    return false;
  }
}

/// Elementwise ops that accept integer operands too.
inline bool acceptsIntegers(OpCode op) {
  enum class Types { Floats, Numbers }; // the `types` column of OpCodes.def
  switch (op) {
#define SHARDC_ELEMENTWISE(Name, name, number, types, ...)                                         \
  case OpCode::Name:                                                                               \
    return Types::types == Types::Numbers;
#define SHARDC_UNARY SHARDC_ELEMENTWISE
#define SHARDC_BINARY SHARDC_ELEMENTWISE
#include "shardc/Common/OpCodes.def"
#undef SHARDC_ELEMENTWISE
  default:
    return false;
  }
}

/// Every opcode, in the catalogue's order (for tests that walk it).
inline const std::vector<OpCode> &allOpCodes() {
  static const std::vector<OpCode> all = {
#define SHARDC_OP(Name, name, number) OpCode::Name,
#include "shardc/Common/OpCodes.def"
  };
  return all;
}

/// The collectives: all_reduce, all_gather, reduce_scatter, all_to_all,
/// all_slice and collective_permute.
inline bool isCollective(OpCode op) {
  switch (op) {
  case OpCode::AllReduce:
  case OpCode::AllGather:
  case OpCode::ReduceScatter:
  case OpCode::AllToAll:
  case OpCode::AllSlice:
  case OpCode::CollectivePermute:
    return true;
  default:
    return false;
  }
}

} // namespace shardc

#endif // SHARDC_COMMON_OPCODE_H
