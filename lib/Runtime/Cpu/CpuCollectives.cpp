//===- CpuCollectives.cpp - collectives across the device threads ---------===//
//
// all_reduce is a ring: a reduce-scatter phase of n-1 steps in which each
// device adds its left neighbour's chunk into its own, then an all-gather
// phase of n-1 steps passing the finished chunks around. Every step ends at a
// barrier, so a device never reads a chunk its neighbour is still writing.
// Each chunk is combined in a fixed order, so results are the same run after
// run. all_gather, reduce_scatter and all_to_all read the group's operands
// where they are; all_slice needs no communication. The rest go through the
// reference kernels on copies of the operands.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "../Ring.h"

#include "shardc/Reference/Kernels.h"
#include "shardc/Runtime/ProcessGroup.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

namespace shardc::cpu {

namespace {

using ring::combine;

template <typename T>
bool ringAllReduce(Reduction kind, const std::vector<int64_t> &members, int64_t rank, int64_t count,
                   DeviceGroup &group, T *out) {
  int64_t n = (int64_t)members.size();
  auto chunk = [&](int64_t c) { return ring::chunk(c, n, count); };
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
  if (kind == Reduction::Mean)
    for (int64_t i = 0; i < count; ++i)
      out[i] = out[i] / (T)n;
  return true;
}

/// The ring of ringAllReduce over several buffers of one element type, seen
/// as one: chunks are ranges of their concatenation, so a bucket of k
/// reductions costs the barriers of one. Each device publishes its list of
/// buffers; all lists have the same sizes.
template <typename T>
bool segmentedRingAllReduce(Reduction kind, const std::vector<int64_t> &members, int64_t rank,
                            const std::vector<std::pair<T *, int64_t>> &mine, DeviceGroup &group,
                            int64_t device) {
  int64_t n = (int64_t)members.size(), count = 0;
  for (const auto &seg : mine)
    count += seg.second;
  auto chunk = [&](int64_t c) { return ring::chunk(c, n, count); };
  // Calls fn(ours, theirs, from, to) for the parts of [b, e) in each buffer.
  auto over = [&](int64_t b, int64_t e, const std::vector<std::pair<T *, int64_t>> &theirs,
                  auto &&fn) {
    int64_t at = 0;
    for (size_t k = 0; k < mine.size() && at < e; at += mine[k].second, ++k) {
      int64_t from = std::max(b, at) - at, to = std::min(e, at + mine[k].second) - at;
      if (from < to)
        fn(mine[k].first, theirs[k].first, from, to);
    }
  };
  group.work[device] = const_cast<void *>(static_cast<const void *>(&mine));
  if (!group.barrier.wait()) // every device's list is published
    return false;
  const auto &left = *static_cast<const std::vector<std::pair<T *, int64_t>> *>(
      group.work[members[(rank - 1 + n) % n]]);
  for (int64_t s = 0; s < n - 1; ++s) {
    auto [b, e] = chunk(rank - 1 - s);
    over(b, e, left, [&](T *out, T *in, int64_t from, int64_t to) {
      for (int64_t i = from; i < to; ++i)
        out[i] = combine<T>(kind, in[i], out[i]);
    });
    if (!group.barrier.wait())
      return false;
  }
  for (int64_t s = 0; s < n - 1; ++s) {
    auto [b, e] = chunk(rank - s);
    over(b, e, left, [&](T *out, T *in, int64_t from, int64_t to) {
      std::memcpy(out + from, in + from, (to - from) * sizeof(T));
    });
    if (!group.barrier.wait())
      return false;
  }
  if (kind == Reduction::Mean)
    for (const auto &seg : mine)
      for (int64_t i = 0; i < seg.second; ++i)
        seg.first[i] = seg.first[i] / (T)n;
  return true;
}

template <typename T>
bool mergedAllReduce(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                     const std::vector<int64_t> &members, int64_t rank, DeviceGroup &group) {
  std::vector<std::pair<T *, int64_t>> segments;
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const PlanValue &v = plan.values[step.inputs[i]];
    uint8_t *src = buffers.ptr[step.inputs[i]], *dst = buffers.ptr[step.outputs[i]];
    if (dst != src)
      std::memcpy(dst, src, v.bytes());
    segments.push_back({(T *)dst, numElements(v.shape)});
  }
  return segmentedRingAllReduce<T>((Reduction)step.attrs[0], members, rank, segments, group,
                                   buffers.device);
}

/// A dimension of a row-major array seen as [outer, dim, inner].
struct Split3 {
  int64_t outer = 1, dim, inner = 1;
};
Split3 splitAt(const Shape &shape, int64_t d) {
  Split3 s;
  s.dim = shape[d];
  for (int64_t i = 0; i < d; ++i)
    s.outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i)
    s.inner *= shape[i];
  return s;
}

/// all_slice: this device's block of its own operand; no communication.
void localSlice(const PlanValue &in, int64_t dim, int64_t rank, int64_t n, const uint8_t *src,
                uint8_t *dst) {
  Split3 s = splitAt(in.shape, dim);
  size_t es = dtypeSize(in.dtype);
  int64_t block = s.dim / n;
  size_t rowBytes = block * s.inner * es;
  for (int64_t o = 0; o < s.outer; ++o)
    std::memcpy(dst + o * rowBytes, src + ((o * s.dim + rank * block) * s.inner) * es, rowBytes);
}

/// all_gather and reduce_scatter (sum, mean) on f32 over shared memory: each
/// device reads the group's operands where they are (no copies), combining
/// them in member order, so results do not depend on timing.
bool gatherOrScatter(const Plan &plan, const PlanStep &step, const std::vector<int64_t> &members,
                     int64_t rank, const uint8_t *src, uint8_t *dst, int64_t d,
                     DeviceGroup &group) {
  const PlanValue &in = plan.values[step.inputs[0]];
  int64_t n = (int64_t)members.size();
  group.operands[d] = src;
  if (!group.barrier.wait())
    return false;
  if (step.op == OpCode::AllGather) {
    Split3 s = splitAt(in.shape, step.attrs[0]);
    size_t es = dtypeSize(in.dtype), rowBytes = s.dim * s.inner * es;
    for (int64_t m = 0; m < n; ++m) {
      const uint8_t *from = static_cast<const uint8_t *>(group.operands[members[m]]);
      for (int64_t o = 0; o < s.outer; ++o)
        std::memcpy(dst + (o * n + m) * rowBytes, from + o * rowBytes, rowBytes);
    }
  } else { // ReduceScatter, f32 sum or mean
    Split3 s = splitAt(in.shape, step.attrs[1]);
    int64_t block = s.dim / n, len = block * s.inner;
    float *out = reinterpret_cast<float *>(dst);
    for (int64_t o = 0; o < s.outer; ++o) {
      int64_t at = (o * s.dim + rank * block) * s.inner;
      const float *first = static_cast<const float *>(group.operands[members[0]]) + at;
      std::memcpy(out + o * len, first, len * sizeof(float));
      for (int64_t m = 1; m < n; ++m) {
        const float *x = static_cast<const float *>(group.operands[members[m]]) + at;
        float *y = out + o * len;
        for (int64_t i = 0; i < len; ++i)
          y[i] += x[i];
      }
    }
    if (step.attrs[0] == 3)
      for (int64_t i = 0; i < s.outer * len; ++i)
        out[i] /= (float)n;
  }
  // Nobody may overwrite an operand before every device has read it.
  return group.barrier.wait();
}

/// all_to_all with block copies: device `rank` takes block `rank` along
/// splitDim of each member's operand, read where it is, and lays the
/// blocks side by side along concatDim in member order (ref::allToAll).
/// Each block is a box of the same shape in operand and result; its
/// innermost run that is contiguous in both is copied whole.
bool blockAllToAll(const Plan &plan, const PlanStep &step, const std::vector<int64_t> &members,
                   int64_t rank, const uint8_t *src, uint8_t *dst, int64_t d, DeviceGroup &group) {
  const PlanValue &in = plan.values[step.inputs[0]], &out = plan.values[step.outputs[0]];
  int64_t n = (int64_t)members.size(), split = step.attrs[0], concat = step.attrs[1];
  int64_t rankDims = (int64_t)in.shape.size();
  size_t es = dtypeSize(in.dtype);
  Shape box = in.shape;
  box[split] /= n;
  // The innermost run: dimensions the box spans whole in both shapes join
  // the one inside them.
  int64_t k = rankDims - 1, run = rankDims ? box[k] : 1;
  while (k > 0 && box[k] == in.shape[k] && box[k] == out.shape[k])
    run *= box[--k];
  auto strides = [&](const Shape &shape) {
    std::vector<int64_t> st(shape.size(), 1);
    for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
      st[i] = st[i + 1] * shape[i + 1];
    return st;
  };
  std::vector<int64_t> inStride = strides(in.shape), outStride = strides(out.shape);
  // A result written over its own operand is staged until every member
  // has read that operand.
  std::vector<uint8_t> staged;
  uint8_t *to = dst == src ? (staged.resize(out.bytes()), staged.data()) : dst;
  group.operands[d] = src;
  if (!group.barrier.wait())
    return false;
  for (int64_t m = 0; m < n; ++m) {
    const uint8_t *from = static_cast<const uint8_t *>(group.operands[members[m]]);
    int64_t inBase = rank * box[split] * inStride[split];
    int64_t outBase = m * box[concat] * outStride[concat];
    std::vector<int64_t> at(k, 0); // odometer over dimensions [0, k)
    while (true) {
      int64_t i = inBase, o = outBase;
      for (int64_t j = 0; j < k; ++j) {
        i += at[j] * inStride[j];
        o += at[j] * outStride[j];
      }
      std::memcpy(to + o * es, from + i * es, run * es);
      int64_t j = k - 1;
      while (j >= 0 && ++at[j] == box[j])
        at[j--] = 0;
      if (j < 0)
        break;
    }
  }
  // Nobody may overwrite an operand before every device has read it.
  if (!group.barrier.wait())
    return false;
  if (!staged.empty())
    std::memcpy(dst, staged.data(), staged.size());
  return true;
}

Array copyOf(const PlanValue &v, const void *p) {
  Array a(v.dtype, v.shape);
  if (a.sizeInBytes())
    std::memcpy(a.bytes(), p, a.sizeInBytes());
  return a;
}

} // namespace

namespace {

/// A collective among this process's device threads (or, when the mesh
/// spans processes, over operands already gathered into group.operands).
bool runInProcess(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                  DeviceGroup &group) {
  int64_t d = buffers.device;
  const PlanValue &in = plan.values[step.inputs[0]];
  const PlanValue &out = plan.values[step.outputs[0]];
  const uint8_t *src = buffers.ptr[step.inputs[0]];
  uint8_t *dst = buffers.ptr[step.outputs[0]];
  std::vector<int64_t> members = plan.mesh.group(step.axes, d);
  int64_t rank = plan.mesh.groupRank(step.axes, d);

  if (step.op == OpCode::AllReduce && step.inputs.size() > 1) {
    switch (in.dtype) {
    case DType::F32:
      return mergedAllReduce<float>(plan, step, buffers, members, rank, group);
    case DType::F64:
      return mergedAllReduce<double>(plan, step, buffers, members, rank, group);
    case DType::I32:
      return mergedAllReduce<int32_t>(plan, step, buffers, members, rank, group);
    case DType::I64:
      return mergedAllReduce<int64_t>(plan, step, buffers, members, rank, group);
    default: // f16/bf16: one buffer at a time
      for (size_t i = 0; i < step.inputs.size(); ++i)
        if (!runCollective(plan, step.part(i), buffers, group))
          return false;
      return true;
    }
  }
  if (step.op == OpCode::AllReduce) {
    Reduction kind = (Reduction)step.attrs[0];
    int64_t count = numElements(in.shape);
    if (dst != src) // in place when the plan says so
      std::memcpy(dst, src, in.bytes());
    group.work[d] = dst;
    switch (in.dtype) {
    case DType::F32:
      return ringAllReduce(kind, members, rank, count, group, (float *)dst);
    case DType::F64:
      return ringAllReduce(kind, members, rank, count, group, (double *)dst);
    case DType::I32:
      return ringAllReduce(kind, members, rank, count, group, (int32_t *)dst);
    case DType::I64:
      return ringAllReduce(kind, members, rank, count, group, (int64_t *)dst);
    default:
      break; // f16/bf16: through the reference below
    }
  }

  if (step.op == OpCode::AllSlice) {
    localSlice(in, step.attrs[0], rank, (int64_t)members.size(), src, dst);
    return true;
  }
  if (step.op == OpCode::CollectivePermute) {
    // Read the source's operand where it is; a buffer shared by operand and
    // result is written only once every device has read it.
    group.operands[d] = src;
    if (!group.barrier.wait())
      return false;
    // Every read happens before the second barrier: after it, a device
    // whose result shares its operand's buffer overwrites it.
    const uint8_t *from = (const uint8_t *)group.operands[members[step.attrs[rank]]];
    std::vector<uint8_t> staged;
    if (dst == src && from != src)
      staged.assign(from, from + in.bytes());
    else if (from != dst)
      std::memcpy(dst, from, in.bytes());
    if (!group.barrier.wait())
      return false;
    if (!staged.empty())
      std::memcpy(dst, staged.data(), staged.size());
    return true;
  }
  if (step.op == OpCode::AllGather || (step.op == OpCode::ReduceScatter && in.dtype == DType::F32 &&
                                       (step.attrs[0] == 0 || step.attrs[0] == 3)))
    return gatherOrScatter(plan, step, members, rank, src, dst, d, group);

  if (step.op == OpCode::AllToAll && !in.shape.empty() && numElements(in.shape) > 0)
    return blockAllToAll(plan, step, members, rank, src, dst, d, group);

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
    result = ref::allReduce((Reduction)step.attrs[0], ptrs);
    break;
  case OpCode::AllGather:
    result = ref::allGather(ptrs, step.attrs[0]);
    break;
  case OpCode::ReduceScatter:
    result = ref::reduceScatter((Reduction)step.attrs[0], ptrs, step.attrs[1])[rank];
    break;
  case OpCode::AllToAll:
    result = ref::allToAll(ptrs, step.attrs[0], step.attrs[1])[rank];
    break;
  case OpCode::AllSlice:
    result = ref::allSlice(ptrs, step.attrs[0])[rank];
    break;
  default:
    break;
  }
  // Nobody may overwrite an operand before every device has read it.
  if (!group.barrier.wait())
    return false;
  std::memcpy(dst, result.bytes(), out.bytes());
  return true;
}

bool ringReduces(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I32 || dtype == DType::I64;
}

/// Whether every group of `step` that has a device of this process has
/// all its members here (then the collective runs in shared memory only).
/// Every thread of the process decides alike.
bool withinThisProcess(const Plan &plan, const PlanStep &step, const DeviceGroup &group) {
  int me = group.processes->rank();
  for (int64_t l = me * group.localDevices; l < (me + 1) * group.localDevices; ++l)
    for (int64_t m : plan.mesh.group(step.axes, l))
      if (group.owner(m) != me)
        return false;
  return true;
}

/// Whether the members of a group are each on a process of their own.
bool onePerProcess(const std::vector<int64_t> &members, const DeviceGroup &group) {
  std::vector<int> owners;
  for (int64_t m : members)
    owners.push_back(group.owner(m));
  std::sort(owners.begin(), owners.end());
  return std::adjacent_find(owners.begin(), owners.end()) == owners.end();
}

/// The part of a collective between processes, done by one thread of each
/// process for all its devices, so that messages between two processes
/// always go in one order (the groups' order, then the members'). Each
/// group that spans processes either runs the ring all-reduce over them
/// in place (`ring`: its members are on processes of their own), or has
/// every remote member's operand (`bytes` bytes) received into `staged`.
Status moveOperands(const Plan &plan, const PlanStep &step, DeviceGroup &group, size_t bytes,
                    bool ring, DType dtype) {
  ProcessGroup &processes = *group.processes;
  int me = processes.rank();
  std::map<int64_t, std::vector<int64_t>> groups; // by first member
  for (int64_t l = me * group.localDevices; l < (me + 1) * group.localDevices; ++l) {
    std::vector<int64_t> members = plan.mesh.group(step.axes, l);
    groups.emplace(members.front(), members);
  }
  std::vector<ProcessGroup::Transfer> sends, recvs;
  std::vector<std::vector<int64_t>> rings;
  for (auto &[first, members] : groups) {
    if (ring && onePerProcess(members, group)) {
      if (members.size() > 1)
        rings.push_back(members);
      continue;
    }
    std::vector<int> remote; // the group's other processes, in member order
    for (int64_t m : members)
      if (int q = group.owner(m);
          q != me && std::find(remote.begin(), remote.end(), q) == remote.end())
        remote.push_back(q);
    for (int64_t m : members) {
      if (group.owner(m) == me) {
        for (int q : remote)
          sends.push_back({q, const_cast<void *>(group.operands[m]), bytes});
      } else {
        group.staged[m].resize(bytes);
        group.operands[m] = group.staged[m].data();
        recvs.push_back({group.owner(m), group.staged[m].data(), bytes});
      }
    }
  }
  if (!sends.empty() || !recvs.empty())
    if (Status s = processes.exchange(sends, recvs); !s.ok())
      return s;
  for (const std::vector<int64_t> &members : rings) {
    std::vector<int> ranks;
    int64_t local = -1;
    for (int64_t m : members) {
      ranks.push_back(group.owner(m));
      if (group.owner(m) == me)
        local = m;
    }
    if (Status s = ringAllReduce(processes, ranks, (Reduction)step.attrs[0], dtype,
                                 group.staged[local].data(), (int64_t)(bytes / dtypeSize(dtype)));
        !s.ok())
      return s;
  }
  return Status::success();
}

template <typename T>
void reduceStaged(Reduction kind, const std::vector<int64_t> &members, const DeviceGroup &group,
                  uint8_t *out, size_t bytes) {
  std::vector<const T *> x;
  for (int64_t m : members)
    x.push_back(static_cast<const T *>(group.operands[m]));
  ring::reduceInRingOrder<T>(kind, x, reinterpret_cast<T *>(out), (int64_t)(bytes / sizeof(T)));
}

/// A collective some of whose groups span processes. Each device publishes
/// its operand (an all_reduce's inputs joined, as the merged ring chunks
/// them); one thread per process moves operands between processes
/// (moveOperands); then each device computes its result as in one process:
/// an all_reduce in the ring's order (run by the ring itself where members
/// are on processes of their own), the rest by the shared-memory code over
/// the received operands. The bits are those of the same mesh in one
/// process.
bool runAcrossProcesses(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                        DeviceGroup &group) {
  ProcessGroup &processes = *group.processes;
  int64_t d = buffers.device;
  const PlanValue &in = plan.values[step.inputs[0]];
  if (step.op == OpCode::AllSlice || withinThisProcess(plan, step, group))
    return runInProcess(plan, step, buffers, group); // all_slice: its own operand only
  bool reduce = step.op == OpCode::AllReduce && ringReduces(in.dtype);
  if (step.op == OpCode::AllReduce && !reduce && step.inputs.size() > 1) { // f16/bf16, merged
    for (size_t i = 0; i < step.inputs.size(); ++i)
      if (!runAcrossProcesses(plan, step.part(i), buffers, group))
        return false;
    return true;
  }
  size_t bytes = in.bytes();
  if (reduce) { // a copy, which the ring may reduce in place
    std::vector<uint8_t> &mine = group.staged[d];
    mine.clear();
    for (int32_t id : step.inputs)
      mine.insert(mine.end(), buffers.ptr[id], buffers.ptr[id] + plan.values[id].bytes());
    bytes = mine.size();
    group.operands[d] = mine.data();
  } else {
    group.operands[d] = buffers.ptr[step.inputs[0]];
  }
  if (!group.barrier.wait()) // every device's operand is published
    return false;
  if (d == processes.rank() * group.localDevices)
    if (Status s = moveOperands(plan, step, group, bytes, reduce, in.dtype); !s.ok()) {
      std::fprintf(stderr, "error: %s: %s (process %d)\n", step.location.c_str(),
                   s.message().c_str(), processes.rank());
      processes.abort(1);
    }
  if (!group.barrier.wait()) // every remote operand has arrived
    return false;
  if (!reduce)
    return runInProcess(plan, step, buffers, group);

  std::vector<int64_t> members = plan.mesh.group(step.axes, d);
  // The ring leaves the result in this device's staged copy; a fold writes
  // it apart, as the staged copies are the others' operands.
  std::vector<uint8_t> folded;
  const uint8_t *result = group.staged[d].data();
  if (!onePerProcess(members, group)) {
    folded.resize(bytes);
    result = folded.data();
    Reduction kind = (Reduction)step.attrs[0];
    switch (in.dtype) {
    case DType::F32:
      reduceStaged<float>(kind, members, group, folded.data(), bytes);
      break;
    case DType::F64:
      reduceStaged<double>(kind, members, group, folded.data(), bytes);
      break;
    case DType::I32:
      reduceStaged<int32_t>(kind, members, group, folded.data(), bytes);
      break;
    default:
      reduceStaged<int64_t>(kind, members, group, folded.data(), bytes);
      break;
    }
  }
  size_t at = 0;
  for (int32_t id : step.outputs) {
    std::memcpy(buffers.ptr[id], result + at, plan.values[id].bytes());
    at += plan.values[id].bytes();
  }
  // Nobody may overwrite a staged operand before every device has read it.
  return group.barrier.wait();
}

} // namespace

bool runCollective(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                   DeviceGroup &group) {
  return group.processes ? runAcrossProcesses(plan, step, buffers, group)
                         : runInProcess(plan, step, buffers, group);
}

} // namespace shardc::cpu
