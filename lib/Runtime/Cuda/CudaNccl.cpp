//===- CudaNccl.cpp - collectives of the CUDA backend ---------------------===//
//
// Each collective maps onto NCCL's, which work on contiguous buffers split
// along the outermost dimension. A collective along an inner dimension is
// repacked around the NCCL call with a strided copy in `scratch`:
//   all_gather(dim):       NCCL gathers [n][operand] -> interleave into dim
//   reduce_scatter(dim):   gather dim's n blocks outermost -> NCCL
//   all_to_all(split, cat): blocks of split outermost -> send/recv -> concat
//   all_slice(dim):        a local strided copy of this rank's block
//   collective_permute:    send to the rank that reads us, receive from our
//                          source (into scratch when in and out share a buffer)
// mean is NCCL's sum divided by the group size (as the reference: sum, then
// divide). Groups of one device copy.
//
//===----------------------------------------------------------------------===//

#include "CudaNccl.h"

#include "CudaKernels.h"

#include "shardc/Runtime/ProcessGroup.h"
#include "shardc/Runtime/Environment.h"

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

namespace shardc::cuda {

namespace {

Status ncclStatus(ncclResult_t r, const char *what) {
  if (r == ncclSuccess)
    return Status::success();
  return Status::error(std::string(what) + ": " + ncclGetErrorString(r));
}

Status cudaStatus(cudaError_t e, const char *what) {
  if (e == cudaSuccess)
    return Status::success();
  return Status::error(std::string(what) + ": " + cudaGetErrorString(e));
}

ncclDataType_t ncclType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return ncclFloat32;
  case DType::F64:
    return ncclFloat64;
  case DType::F16:
    return ncclFloat16;
  case DType::BF16:
    return ncclBfloat16;
  case DType::I32:
    return ncclInt32;
  case DType::I64:
    return ncclInt64;
  case DType::I1:
    return ncclUint8;
  }
  return ncclUint8;
}

ncclRedOp_t ncclOp(int64_t kind, DType dtype) {
  if (dtype == DType::I1) // i1 sums saturate at true: or
    return kind == (int64_t)Reduction::Min ? ncclMin : ncclMax;
  return kind == (int64_t)Reduction::Max   ? ncclMax
         : kind == (int64_t)Reduction::Min ? ncclMin
                                           : ncclSum;
}

/// Elements before, at and after `dim`.
struct Split {
  int64_t outer = 1, size = 1, inner = 1;
};
Split splitAt(const Shape &shape, int64_t dim) {
  Split s;
  for (int64_t d = 0; d < (int64_t)shape.size(); ++d)
    (d < dim ? s.outer : d == dim ? s.size : s.inner) *= shape[d];
  return s;
}

StridedView view3(int64_t a, int64_t b, int64_t c, std::array<int64_t, 3> in,
                  std::array<int64_t, 3> out, int64_t inOffset = 0) {
  StridedView v;
  v.rank = 3;
  v.shape[0] = a, v.shape[1] = b, v.shape[2] = c;
  for (int d = 0; d < 3; ++d)
    v.inStrides[d] = in[d], v.outStrides[d] = out[d];
  v.inOffset = inOffset;
  return v;
}

} // namespace

Communicators::~Communicators() {
  for (auto &[axes, list] : comms)
    for (ncclComm_t c : list)
      if (c)
        ncclCommDestroy(c);
}

ncclComm_t Communicators::get(const std::vector<std::string> &axes, int64_t d) const {
  auto it = comms.find(axes);
  return it == comms.end() ? nullptr : it->second[d];
}

StatusOr<ncclUniqueId> broadcastUniqueId(ProcessGroup &processes) {
  ncclUniqueId id{};
  if (processes.rank() == 0)
    if (Status s = ncclStatus(ncclGetUniqueId(&id), "ncclGetUniqueId"); !s.ok())
      return s; // the others wait in the broadcast: the caller's error ends the run
  if (Status s = processes.broadcast(id.internal, sizeof(id.internal), 0); !s.ok())
    return s;
  return id;
}

StatusOr<ncclUniqueId> exchangeUniqueId(const std::string &path, int rank) {
  ncclUniqueId id;
  if (rank == 0) {
    Status s = ncclStatus(ncclGetUniqueId(&id), "ncclGetUniqueId");
    if (!s.ok())
      return s;
    std::string tmp = path + ".tmp" + std::to_string(rank);
    {
      std::ofstream f(tmp, std::ios::binary);
      f.write(id.internal, sizeof(id.internal));
      if (!f)
        return Status::error("cannot write the NCCL id to '" + tmp + "'");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      return Status::error("cannot rename '" + tmp + "' to '" + path + "'");
    return id;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream f(path, std::ios::binary);
    if (f && f.read(id.internal, sizeof(id.internal)))
      return id;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::error("rank " + std::to_string(rank) + " found no NCCL id in '" + path +
                       "' after 120 s (rank 0 writes it)");
}

Status Communicators::init(const Plan &plan, const std::vector<int> &gpus,
                           const CudaOptions &options, ncclComm_t &world) {
  std::set<std::vector<std::string>> axesSets;
  for (const PlanStep &step : plan.steps)
    if (isCollective(step.op) && step.op != OpCode::AllSlice && plan.mesh.groupSize(step.axes) > 1)
      axesSets.insert(step.axes);
  if (axesSets.empty())
    return Status::success();
  int64_t n = plan.numDevices();

  if (options.processRank >= 0) {
    // One GPU per process: a world communicator, split per group. Under an
    // MPI launcher the NCCL id goes from rank 0 to the others over MPI;
    // otherwise through a file all processes share.
    StatusOr<std::shared_ptr<ProcessGroup>> mpi = worldProcessGroup();
    if (!mpi.ok())
      return mpi.status();
    bool overMpi = *mpi && (*mpi)->size() > 1;
    const char *idFile = envValue(Env::NcclIdFile);
    if (!overMpi && !idFile)
      return Status::error("multi-process CUDA runs need mpirun, or SHARDC_NCCL_ID_FILE (a "
                           "path all processes share; rank 0 writes the NCCL id there)");
    if (options.processCount != n)
      return Status::error("the mesh has " + std::to_string(n) + " devices but " +
                           std::to_string(options.processCount) + " processes run");
    Status s = Status::success();
    if (!world) {
      StatusOr<ncclUniqueId> id =
          overMpi ? broadcastUniqueId(**mpi) : exchangeUniqueId(idFile, options.processRank);
      if (!id.ok())
        return id.status();
      s = ncclStatus(ncclCommInitRank(&world, (int)n, *id, options.processRank),
                     "ncclCommInitRank");
      if (!s.ok())
        return s;
    }
    int64_t d = options.processRank;
    for (const auto &axes : axesSets) {
      std::vector<ncclComm_t> list(n, nullptr);
      std::vector<int64_t> members = plan.mesh.group(axes, d);
      s = ncclStatus(ncclCommSplit(world, (int)members[0], (int)plan.mesh.groupRank(axes, d),
                                   &list[d], nullptr),
                     "ncclCommSplit");
      if (!s.ok())
        return s;
      comms[axes] = std::move(list);
    }
    return Status::success();
  }

  // One process, every GPU: ncclCommInitAll per group.
  for (const auto &axes : axesSets) {
    std::vector<ncclComm_t> list(n, nullptr);
    std::set<int64_t> done;
    for (int64_t d = 0; d < n; ++d) {
      std::vector<int64_t> members = plan.mesh.group(axes, d);
      if (!done.insert(members[0]).second)
        continue;
      std::vector<int> devs;
      for (int64_t m : members)
        devs.push_back(gpus[m]);
      std::vector<ncclComm_t> groupComms(members.size());
      Status s = ncclStatus(ncclCommInitAll(groupComms.data(), (int)members.size(), devs.data()),
                            "ncclCommInitAll");
      if (!s.ok())
        return s;
      for (size_t r = 0; r < members.size(); ++r)
        list[members[r]] = groupComms[r];
    }
    comms[axes] = std::move(list);
  }
  return Status::success();
}

Status runCollective(const Plan &plan, const PlanStep &step, const Communicators &comms,
                     const std::vector<CollectiveDevice> &devices) {
  const PlanValue &in = plan.values[step.inputs[0]];
  const PlanValue &out = plan.values[step.outputs[0]];
  size_t es = dtypeSize(in.dtype);
  int64_t n = plan.mesh.groupSize(step.axes);
  int64_t inCount = numElements(in.shape), outCount = numElements(out.shape);

  if (n == 1 || step.op == OpCode::AllSlice) {
    for (const CollectiveDevice &dev : devices) {
      Status s = cudaStatus(cudaSetDevice(dev.gpu), "cudaSetDevice");
      if (!s.ok())
        return s;
      if (n == 1) {
        if (out.bytes() && dev.out != dev.in)
          s = cudaStatus(
              cudaMemcpyAsync(dev.out, dev.in, out.bytes(), cudaMemcpyDeviceToDevice, dev.stream),
              "cudaMemcpyAsync");
        if (!s.ok())
          return s;
        continue;
      }
      // all_slice: this rank's block of dim.
      int64_t rank = plan.mesh.groupRank(step.axes, dev.device);
      Split sp = splitAt(in.shape, step.attrs[0]);
      int64_t blk = sp.size / n * sp.inner;
      StridedView v = view3(sp.outer, 1, blk, {sp.size * sp.inner, 0, 1}, {blk, 0, 1}, rank * blk);
      launchStridedCopy(es, dev.in, dev.out, v, dev.stream);
    }
    return cudaStatus(cudaGetLastError(), "a collective's copy");
  }

  // Phase 1: pack operands whose split dimension is not outermost.
  for (const CollectiveDevice &dev : devices) {
    cudaSetDevice(dev.gpu);
    if (step.op == OpCode::ReduceScatter) {
      Split sp = splitAt(in.shape, step.attrs[1]);
      int64_t blk = sp.size / n * sp.inner;
      if (sp.outer > 1)
        launchStridedCopy(es, dev.in, dev.scratch,
                          view3(n, sp.outer, blk, {blk, n * blk, 1}, {sp.outer * blk, blk, 1}),
                          dev.stream);
    } else if (step.op == OpCode::AllToAll) {
      Split sp = splitAt(in.shape, step.attrs[0]);
      int64_t blk = sp.size / n * sp.inner; // one block's run within an outer index
      launchStridedCopy(es, dev.in, dev.scratch,
                        view3(n, sp.outer, blk, {blk, n * blk, 1}, {sp.outer * blk, blk, 1}),
                        dev.stream);
    }
  }

  // Phase 2: NCCL, all devices of this process in one group.
  Status s = ncclStatus(ncclGroupStart(), "ncclGroupStart");
  if (!s.ok())
    return s;
  for (const CollectiveDevice &dev : devices) {
    ncclComm_t comm = comms.get(step.axes, dev.device);
    if (!comm) {
      ncclGroupEnd();
      return Status::error("no NCCL communicator for this collective's group");
    }
    ncclResult_t r = ncclSuccess;
    switch (step.op) {
    case OpCode::AllReduce:
      r = ncclAllReduce(dev.in, dev.out, inCount, ncclType(in.dtype),
                        ncclOp(step.attrs[0], in.dtype), comm, dev.stream);
      break;
    case OpCode::AllGather: {
      Split sp = splitAt(in.shape, step.attrs[0]);
      r = ncclAllGather(dev.in, sp.outer > 1 ? dev.scratch : dev.out, inCount * es, ncclInt8, comm,
                        dev.stream);
      break;
    }
    case OpCode::ReduceScatter: {
      Split sp = splitAt(in.shape, step.attrs[1]);
      r = ncclReduceScatter(sp.outer > 1 ? dev.scratch : dev.in, dev.out, outCount,
                            ncclType(in.dtype), ncclOp(step.attrs[0], in.dtype), comm, dev.stream);
      break;
    }
    case OpCode::CollectivePermute: {
      int64_t rank = plan.mesh.groupRank(step.axes, dev.device), reader = rank;
      for (int64_t p = 0; p < n; ++p)
        if (step.attrs[p] == rank)
          reader = p;
      void *recv = dev.out == dev.in ? dev.scratch : dev.out;
      if (reader != rank)
        r = ncclSend(dev.in, in.bytes(), ncclInt8, (int)reader, comm, dev.stream);
      if (r == ncclSuccess && step.attrs[rank] != rank)
        r = ncclRecv(recv, in.bytes(), ncclInt8, (int)step.attrs[rank], comm, dev.stream);
      break;
    }
    case OpCode::AllToAll: {
      size_t blockBytes = inCount / n * es;
      uint8_t *send = (uint8_t *)dev.scratch, *recv = send + inCount * es;
      for (int64_t peer = 0; peer < n && r == ncclSuccess; ++peer) {
        r = ncclSend(send + peer * blockBytes, blockBytes, ncclInt8, (int)peer, comm, dev.stream);
        if (r == ncclSuccess)
          r = ncclRecv(recv + peer * blockBytes, blockBytes, ncclInt8, (int)peer, comm, dev.stream);
      }
      break;
    }
    default:
      break;
    }
    if (r != ncclSuccess) {
      ncclGroupEnd();
      return ncclStatus(r, opCodeName(step.op));
    }
  }
  s = ncclStatus(ncclGroupEnd(), "ncclGroupEnd");
  if (!s.ok())
    return s;

  // Phase 3: unpack, and divide for mean.
  for (const CollectiveDevice &dev : devices) {
    cudaSetDevice(dev.gpu);
    if (step.op == OpCode::AllGather) {
      Split sp = splitAt(in.shape, step.attrs[0]);
      int64_t blk = sp.size * sp.inner;
      if (sp.outer > 1)
        launchStridedCopy(es, dev.scratch, dev.out,
                          view3(sp.outer, n, blk, {blk, sp.outer * blk, 1}, {n * blk, blk, 1}),
                          dev.stream);
    } else if (step.op == OpCode::AllToAll) {
      // recv holds n blocks [n][block]; block i goes to position i along
      // the concat dimension.
      Shape block = in.shape;
      block[step.attrs[0]] /= n;
      Split sp = splitAt(block, step.attrs[1]);
      int64_t bc = sp.size * sp.inner, blockCount = inCount / n;
      const uint8_t *recv = (const uint8_t *)dev.scratch + inCount * es;
      launchStridedCopy(es, recv, dev.out,
                        view3(n, sp.outer, bc, {blockCount, bc, 1}, {bc, n * bc, 1}), dev.stream);
    }
    if (step.op == OpCode::CollectivePermute) {
      int64_t rank = plan.mesh.groupRank(step.axes, dev.device);
      const void *from = step.attrs[rank] == rank ? dev.in
                         : dev.out == dev.in      ? dev.scratch
                                                  : nullptr;
      if (from && from != dev.out && in.bytes())
        cudaMemcpyAsync(dev.out, from, in.bytes(), cudaMemcpyDeviceToDevice, dev.stream);
    }
    bool mean = (step.op == OpCode::AllReduce && step.attrs[0] == 3) ||
                (step.op == OpCode::ReduceScatter && step.attrs[0] == 3);
    if (mean)
      launchDivideByCount(in.dtype, dev.out, outCount, n, dev.stream);
  }
  return cudaStatus(cudaGetLastError(), opCodeName(step.op));
}

} // namespace shardc::cuda
