//===- ProcessGroup.cpp - ring collectives between processes --------------===//
//
// The ring all-reduce of the CPU backend, with the left neighbour's chunk
// received over the process group instead of read from shared memory. Step
// s of the reduce phase: member r sends its chunk r - s to the right and
// receives chunk r - 1 - s from the left, then combines (left, mine), as
// the shared-memory ring does; the gather phase passes finished chunks on.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/ProcessGroup.h"
#include "shardc/Runtime/Environment.h"

#include "../Ring.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace shardc {

ProcessGroup::~ProcessGroup() = default;

bool launchedByMpi() {
  for (Env v : {Env::OmpiCommWorldSize, Env::PmiSize, Env::PmixRank, Env::MpiLocalRanks})
    if (envValue(v))
      return true;
  return false;
}

namespace {

/// Where this process sits in the ring of `members`: its place r among n,
/// and the processes to its left and right.
struct RingPlace {
  int64_t n = 0, r = 0;
  int left = 0, right = 0;
};

StatusOr<RingPlace> placeIn(ProcessGroup &group, const std::vector<int> &members) {
  auto at = std::find(members.begin(), members.end(), group.rank());
  if (at == members.end())
    return Status::error("this process (rank " + std::to_string(group.rank()) +
                         ") is not a member of the ring");
  RingPlace p;
  p.n = (int64_t)members.size();
  p.r = at - members.begin();
  p.right = members[(p.r + 1) % p.n];
  p.left = members[(p.r - 1 + p.n) % p.n];
  return p;
}

/// The reduce phase's unit of transfer.
constexpr int64_t kPieceBytes = 256 << 10;

template <typename T>
Status ringOver(ProcessGroup &group, const std::vector<int> &members, Reduction kind, T *out,
                int64_t count) {
  StatusOr<RingPlace> place = placeIn(group, members);
  if (!place.ok())
    return place.status();
  int64_t n = place->n, r = place->r;
  int right = place->right, left = place->left;
  // Each step's chunk goes in pieces, each combined as it arrives, while
  // it is still in cache; the elements' order of combination is the
  // ring's either way.
  const int64_t piece = std::max<int64_t>(1, kPieceBytes / (int64_t)sizeof(T));
  // Every member sends as many pieces per step (the longest chunk's), so
  // each piece meets the receive posted for it.
  auto [b0, e0] = ring::chunk(0, n, count);
  int64_t longest = e0 - b0;
  std::vector<T> received((size_t)std::min(longest + 1, piece));
  for (int64_t s = 0; n > 1 && s < n - 1; ++s) {
    auto [sb, se] = ring::chunk(r - s, n, count);
    auto [rb, re] = ring::chunk(r - 1 - s, n, count);
    for (int64_t k = 0; k < std::max<int64_t>(longest, 1); k += piece) {
      int64_t sendLen = std::clamp<int64_t>(se - sb - k, 0, piece);
      int64_t recvLen = std::clamp<int64_t>(re - rb - k, 0, piece);
      if (Status st = group.sendRecv(out + sb + k, (size_t)sendLen * sizeof(T), right,
                                     received.data(), (size_t)recvLen * sizeof(T), left);
          !st.ok())
        return st;
      for (int64_t i = 0; i < recvLen; ++i)
        out[rb + k + i] = ring::combine<T>(kind, received[i], out[rb + k + i]);
    }
  }
  for (int64_t s = 0; n > 1 && s < n - 1; ++s) {
    auto [sb, se] = ring::chunk(r + 1 - s, n, count);
    auto [rb, re] = ring::chunk(r - s, n, count);
    if (Status st = group.sendRecv(out + sb, (size_t)(se - sb) * sizeof(T), right, out + rb,
                                   (size_t)(re - rb) * sizeof(T), left);
        !st.ok())
      return st;
  }
  if (kind == Reduction::Mean)
    for (int64_t i = 0; i < count; ++i)
      out[i] = out[i] / (T)n;
  return Status::success();
}

} // namespace

Status ringAllReduce(ProcessGroup &group, const std::vector<int> &members, Reduction kind,
                     DType dtype, void *data, int64_t count) {
  switch (dtype) {
  case DType::F32:
    return ringOver(group, members, kind, (float *)data, count);
  case DType::F64:
    return ringOver(group, members, kind, (double *)data, count);
  case DType::I32:
    return ringOver(group, members, kind, (int32_t *)data, count);
  case DType::I64:
    return ringOver(group, members, kind, (int64_t *)data, count);
  default:
    return Status::error(std::string("all_reduce between processes of ") + dtypeName(dtype) +
                         " is not supported yet");
  }
}

Status ringAllGather(ProcessGroup &group, const std::vector<int> &members, const void *mine,
                     size_t bytes, std::vector<std::vector<uint8_t>> &all) {
  StatusOr<RingPlace> place = placeIn(group, members);
  if (!place.ok())
    return place.status();
  int64_t n = place->n, r = place->r;
  int right = place->right, left = place->left;
  all.assign(n, std::vector<uint8_t>(bytes));
  if (bytes)
    std::memcpy(all[r].data(), mine, bytes);
  // Step s: pass on member r - s's block, receive member r - 1 - s's.
  for (int64_t s = 0; s < n - 1; ++s) {
    int64_t send = ((r - s) % n + n) % n, recv = ((r - 1 - s) % n + n) % n;
    if (Status st = group.sendRecv(all[send].data(), bytes, right, all[recv].data(), bytes, left);
        !st.ok())
      return st;
  }
  return Status::success();
}

int endRun(int code) {
  if (code == 0 || !launchedByMpi())
    return code;
  StatusOr<std::shared_ptr<ProcessGroup>> world = worldProcessGroup();
  if (world.ok() && *world && (*world)->size() > 1) {
    std::fflush(stdout);
    std::fflush(stderr);
    (*world)->abort(code);
  }
  return code;
}

void exitRun(int code) { std::exit(endRun(code)); }

DeviceRange localDevices(const ProcessGroup *processes, int64_t numDevices) {
  if (!processes || processes->size() <= 1)
    return {0, numDevices};
  int64_t perProcess = numDevices / processes->size();
  return {processes->rank() * perProcess, perProcess};
}

bool eachProcessHoldsEveryBlock(const ProcessGroup &processes, const NamedSharding &sharding,
                                const Shape &localShape) {
  int64_t n = sharding.mesh.numDevices(), perProcess = n / processes.size();
  for (int p = 0; p < processes.size(); ++p)
    if (!sharding.holdsEveryBlock(localShape, p * perProcess, perProcess))
      return false;
  return true;
}

Status gatherShards(ProcessGroup &processes, std::vector<Array> &shards) {
  DeviceRange mine = localDevices(&processes, (int64_t)shards.size());
  const Array &like = shards[mine.first];
  std::vector<ProcessGroup::Transfer> sends, recvs;
  for (int64_t d = 0; d < (int64_t)shards.size(); ++d) {
    if (mine.contains(d)) {
      for (int q = 0; q < processes.size(); ++q)
        if (q != processes.rank())
          sends.push_back({q, shards[d].bytes(), shards[d].sizeInBytes()});
      continue;
    }
    shards[d] = Array::uninitialized(like.dtype(), like.shape());
    recvs.push_back({(int)(d / mine.count), shards[d].bytes(), shards[d].sizeInBytes()});
  }
  return processes.exchange(sends, recvs);
}

StatusOr<Array> fetchGlobal(ProcessGroup *processes, const NamedSharding &sharding,
                            std::vector<Array> shards, const Shape &global) {
  if (!processes || processes->size() <= 1)
    return sharding.assemble(shards, global);
  DeviceRange mine = localDevices(processes, (int64_t)shards.size());
  if (eachProcessHoldsEveryBlock(*processes, sharding, shards[mine.first].shape()))
    return sharding.assemble(shards, global, mine.first, mine.count);
  if (Status s = gatherShards(*processes, shards); !s.ok())
    return s;
  return sharding.assemble(shards, global);
}

#ifndef SHARDC_HAVE_MPI
bool mpiBuilt() { return false; }

StatusOr<std::shared_ptr<ProcessGroup>> worldProcessGroup() {
  if (launchedByMpi())
    return Status::error("started by an MPI launcher, but this shardc was built without MPI "
                         "(install libopenmpi-dev and reconfigure)");
  return std::shared_ptr<ProcessGroup>();
}
#endif

} // namespace shardc
