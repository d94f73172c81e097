//===- PlanFields.h - every field of a plan, in one list --------*- C++ -*-===//
//
// The fields of a Plan in the order an artifact stores them, each marked
// with whether the processes of a run must agree on it (planShapeHash
// hashes it: shapes, steps and layout, not names, locations or constants'
// contents). serializePlan, deserializePlan and planShapeHash all walk
// this one list, so a field added to Plan is listed here once.
//
// A visitor has one method per kind of field, each taking the field (const
// for the writer and the hasher, not for the reader) and whether it is
// hashed: text, texts, ints, ids, i64, i32, dtype, shape, shapes, mesh,
// shardings, flags, opcode, constant, and list for a vector of records;
// textSince(version, ...) for a field that artifacts of older versions
// do not have.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_PLANFIELDS_H
#define SHARDC_LIB_RUNTIME_PLANFIELDS_H

#include "shardc/Runtime/Plan.h"

namespace shardc {

/// Whether the processes of a run must agree on a field.
constexpr bool kHashed = true, kNotHashed = false;

/// Walks `plan` (a Plan, or a const one) field by field with `v`.
template <class P, class Visitor> void visitPlanFields(P &plan, Visitor &v) {
  v.text(plan.entry, kHashed);
  v.mesh(plan.mesh, kHashed);
  // At least 24 bytes each: a dtype, a shape's count, an offset.
  v.list(plan.values, 24, kHashed, [&](auto &value, size_t) {
    v.dtype(value.dtype, kHashed);
    v.shape(value.shape, kHashed);
    v.i64(value.offset, kHashed);
    v.i32(value.inArgument, kHashed);
  });
  v.ids(plan.args, kHashed);
  v.flags(plan.donated, kNotHashed);
  v.ids(plan.results, kHashed);
  v.texts(plan.argNames, kNotHashed);
  v.shardings(plan.argShardings, plan.mesh, kNotHashed);
  v.shardings(plan.resultShardings, plan.mesh, kNotHashed);
  v.shapes(plan.argGlobalShapes, kNotHashed);
  v.shapes(plan.resultGlobalShapes, kNotHashed);
  // At least 48 bytes each: an opcode and five counts.
  v.list(plan.steps, 48, kHashed, [&](auto &step, size_t index) {
    v.opcode(step.op, index, kHashed);
    v.ids(step.inputs, kHashed);
    v.ids(step.outputs, kHashed);
    v.ints(step.attrs, kHashed);
    v.texts(step.axes, kHashed);
    // Its type is hashed, its contents are not.
    v.constant(step.constant, step.op == OpCode::Constant, kHashed);
    v.text(step.location, kNotHashed);
  });
  v.i64(plan.arenaBytes, kNotHashed);
  v.i64(plan.unsharedBytes, kNotHashed);
  // Since artifact version 4. Processes compiled alike agree on it.
  v.textSince(4, plan.compileOptions, kHashed);
}

} // namespace shardc

#endif // SHARDC_LIB_RUNTIME_PLANFIELDS_H
