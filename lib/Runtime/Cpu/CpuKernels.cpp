//===- CpuKernels.cpp - the CPU backend's kernels -------------------------===//
//
// Reference fallback for every op. Fast paths for the hot cases come here,
// each checked against the reference by the backend conformance test.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "shardc/Reference/Kernels.h"
#include "shardc/Runtime/StructuredOps.h"

#include <cstring>

namespace shardc::cpu {

namespace {

/// A copy of value `id` as an Array.
Array load(const Plan &plan, const DeviceBuffers &b, int32_t id) {
  const PlanValue &v = plan.values[id];
  Array a(v.dtype, v.shape);
  if (a.sizeInBytes())
    std::memcpy(a.bytes(), b.ptr[id], a.sizeInBytes());
  return a;
}

void store(const Plan &plan, DeviceBuffers &b, int32_t id, const Array &a) {
  if (a.sizeInBytes())
    std::memcpy(b.ptr[id], a.bytes(), a.sizeInBytes());
}

/// Copies of the step's inputs from `first` on.
std::vector<Array> loadInputs(const Plan &plan, const DeviceBuffers &b, const PlanStep &s,
                              size_t first = 0) {
  std::vector<Array> arrays;
  for (size_t i = first; i < s.inputs.size(); ++i)
    arrays.push_back(load(plan, b, s.inputs[i]));
  return arrays;
}

/// Pointers to `arrays`, as the reference kernels of several inputs take them.
std::vector<const Array *> pointersTo(const std::vector<Array> &arrays) {
  std::vector<const Array *> ptrs;
  for (const Array &a : arrays)
    ptrs.push_back(&a);
  return ptrs;
}

ref::Dims range(const std::vector<int64_t> &v, size_t from, size_t n) {
  return ref::Dims(v.begin() + from, v.begin() + from + n);
}

StatusOr<Array> reference(const Plan &plan, const PlanStep &s, const DeviceBuffers &b) {
  auto in = [&](size_t i) { return load(plan, b, s.inputs[i]); };
  const PlanValue &out = plan.values[s.outputs[0]];
  if (isUnary(s.op))
    return ref::unary(s.op, in(0));
  if (isBinary(s.op))
    return ref::binary(s.op, in(0), in(1));
  if (const StructuredOpEntry *entry = structuredOp(s.op)) {
    std::vector<Array> inputs = loadInputs(plan, b, s);
    return entry->reference(pointersTo(inputs), s.attrs);
  }
  switch (s.op) {
  case OpCode::Constant:
    return s.constant;
  case OpCode::Iota:
    return ref::iota(out.dtype, out.shape, s.attrs[0]);
  case OpCode::Compare:
    return ref::compare((ref::CompareFn)s.attrs[0], in(0), in(1));
  case OpCode::Select:
    return ref::select(in(0), in(1), in(2));
  case OpCode::Convert:
    return ref::convert(in(0), out.dtype);
  case OpCode::DotGeneral: {
    Array lhs = in(0), rhs = in(1);
    DotGeneralDims d = DotGeneralDims::decode(s.attrs, lhs.shape(), rhs.shape());
    ref::DotDims dims{d.lhsBatching, d.rhsBatching, d.lhsContracting, d.rhsContracting};
    dims.precision = d.precision;
    return ref::dotGeneral(lhs, rhs, dims);
  }
  case OpCode::Reduce:
    return ref::reduce((Reduction)s.attrs[0], in(0), range(s.attrs, 1, s.attrs.size() - 1));
  case OpCode::BroadcastInDim:
    return ref::broadcastInDim(in(0), out.shape, s.attrs);
  case OpCode::Reshape:
    return ref::reshape(in(0), out.shape);
  case OpCode::Transpose:
    return ref::transpose(in(0), s.attrs);
  case OpCode::Slice: {
    size_t r = s.attrs.size() / 3;
    return ref::slice(in(0), range(s.attrs, 0, r), range(s.attrs, r, r), range(s.attrs, 2 * r, r));
  }
  case OpCode::Concatenate: {
    std::vector<Array> arrays = loadInputs(plan, b, s);
    return ref::concatenate(pointersTo(arrays), s.attrs[0]);
  }
  case OpCode::DynamicSlice:
  case OpCode::DynamicUpdateSlice: {
    bool update = s.op == OpCode::DynamicUpdateSlice;
    std::vector<Array> indices = loadInputs(plan, b, s, update ? 2 : 1);
    std::vector<const Array *> ptrs = pointersTo(indices);
    Array x = in(0);
    if (!update)
      return ref::dynamicSlice(x, ref::clampedCorner(x.shape(), out.shape, ptrs), out.shape);
    Array u = in(1);
    return ref::dynamicUpdateSlice(x, u, ref::clampedCorner(x.shape(), u.shape(), ptrs));
  }
  default:
    return Status::error(std::string("not a kernel: ") + opCodeName(s.op));
  }
}

} // namespace

Status runKernel(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers) {
  if (step.op == OpCode::Fused)
    return runFused(plan, step, buffers);
  if (runFastKernel(plan, step, buffers))
    return Status::success();
  StatusOr<Array> result = reference(plan, step, buffers);
  if (!result.ok())
    return result.status();
  store(plan, buffers, step.outputs[0], *result);
  return Status::success();
}

} // namespace shardc::cpu
