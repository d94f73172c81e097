//===- CpuCollectives.cpp - collectives across the device threads ---------===//
//
// all_reduce is a ring: a reduce-scatter phase of n-1 steps in which each
// device adds its left neighbour's chunk into its own, then an all-gather
// phase of n-1 steps passing the finished chunks around. Every step ends at a
// barrier, so a device never reads a chunk its neighbour is still writing.
// Each chunk is combined in a fixed order, so results are the same run after
// run. The other collectives read the group's operands directly.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "shardc/Reference/Kernels.h"

#include <algorithm>
#include <cstring>

namespace shardc::cpu {

namespace {

template <typename T> T combine(int64_t kind, T a, T b) {
  switch (kind) {
  case 1: return a > b || a != a ? a : b; // max, NaN wins
  case 2: return a < b || a != a ? a : b; // min, NaN wins
  default: return a + b;                  // sum, mean
  }
}

template <typename T>
bool ringAllReduce(int64_t kind, const std::vector<int64_t> &members, int64_t rank,
                   int64_t count, DeviceGroup &group, T *out) {
  int64_t n = (int64_t)members.size();
  auto chunk = [&](int64_t c) {
    c = ((c % n) + n) % n;
    int64_t base = count / n, extra = count % n;
    int64_t begin = c * base + std::min(c, extra);
    return std::pair<int64_t, int64_t>(begin, begin + base + (c < extra ? 1 : 0));
  };
  const T *left = nullptr;
  if (!group.barrier.wait()) // every device's work buffer is published
    return false;
  left = static_cast<const T *>(group.work[members[(rank - 1 + n) % n]]);
  for (int64_t s = 0; s < n - 1; ++s) {
    auto [b, e] = chunk(rank - 1 - s);
    for (int64_t i = b; i < e; ++i)
      out[i] = combine<T>(kind, left[i], out[i]);
    if (!group.barrier.wait())
      return false;
  }
  for (int64_t s = 0; s < n - 1; ++s) {
    auto [b, e] = chunk(rank - s);
    std::memcpy(out + b, left + b, (e - b) * sizeof(T));
    if (!group.barrier.wait())
      return false;
  }
  if (kind == 3) // mean
    for (int64_t i = 0; i < count; ++i)
      out[i] = out[i] / (T)n;
  return true;
}

Array copyOf(const PlanValue &v, const void *p) {
  Array a(v.dtype, v.shape);
  if (a.sizeInBytes())
    std::memcpy(a.bytes(), p, a.sizeInBytes());
  return a;
}

} // namespace

bool runCollective(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                   DeviceGroup &group) {
  int64_t d = buffers.device;
  const PlanValue &in = plan.values[step.inputs[0]];
  const PlanValue &out = plan.values[step.outputs[0]];
  const uint8_t *src = buffers.ptr[step.inputs[0]];
  uint8_t *dst = buffers.ptr[step.outputs[0]];
  std::vector<int64_t> members = plan.mesh.group(step.axes, d);
  int64_t rank = plan.mesh.groupRank(step.axes, d);

  if (step.op == OpCode::AllReduce) {
    int64_t kind = step.ints[0], count = numElements(in.shape);
    if (dst != src) // in place when the plan says so
      std::memcpy(dst, src, in.bytes());
    group.work[d] = dst;
    switch (in.dtype) {
    case DType::F32: return ringAllReduce(kind, members, rank, count, group, (float *)dst);
    case DType::F64: return ringAllReduce(kind, members, rank, count, group, (double *)dst);
    case DType::I32: return ringAllReduce(kind, members, rank, count, group, (int32_t *)dst);
    case DType::I64: return ringAllReduce(kind, members, rank, count, group, (int64_t *)dst);
    default: break; // f16/bf16: through the reference below
    }
  }

  // Direct algorithms: publish the operand, read the group's, write ours.
  group.operands[d] = src;
  if (!group.barrier.wait())
    return false;
  std::vector<Array> operands;
  for (int64_t m : members)
    operands.push_back(copyOf(in, group.operands[m]));
  std::vector<const Array *> ptrs;
  for (const Array &a : operands)
    ptrs.push_back(&a);
  Array result;
  switch (step.op) {
  case OpCode::AllReduce:
    result = ref::allReduce((ref::Reduction)step.ints[0], ptrs);
    break;
  case OpCode::AllGather: result = ref::allGather(ptrs, step.ints[0]); break;
  case OpCode::ReduceScatter:
    result = ref::reduceScatter((ref::Reduction)step.ints[0], ptrs, step.ints[1])[rank];
    break;
  case OpCode::AllToAll:
    result = ref::allToAll(ptrs, step.ints[0], step.ints[1])[rank];
    break;
  case OpCode::AllSlice: result = ref::allSlice(ptrs, step.ints[0])[rank]; break;
  default: break;
  }
  // Nobody may overwrite an operand before every device has read it.
  if (!group.barrier.wait())
    return false;
  std::memcpy(dst, result.bytes(), out.bytes());
  return true;
}

} // namespace shardc::cpu
