//===- ProcessGroup.h - the processes of a run that spans several -*- C++ -*-===//
//
// A run launched by mpirun or srun is several processes, each owning some
// of the mesh's devices. A ProcessGroup is what they exchange data through:
// point-to-point transfers for the ring collectives, and a broadcast and a
// barrier for the rest. The implementation is MPI (Debian's OpenMPI), when
// the build found it: shardc rides on the cluster's transport rather than
// one of its own.
//
// The ring collectives here compute in the same order as the CPU backend's
// shared-memory rings, so a mesh spread over processes gives the same bits
// as the same mesh in one process.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_PROCESSGROUP_H
#define SHARDC_RUNTIME_PROCESSGROUP_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Sharding.h"
#include "shardc/Runtime/Status.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace shardc {

class ProcessGroup {
public:
  virtual ~ProcessGroup();
  /// This process's place among size() processes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Sends `sendBytes` bytes to process `to` while receiving `recvBytes`
  /// bytes from process `from` (one step of a ring).
  virtual Status sendRecv(const void *send, size_t sendBytes, int to, void *recv, size_t recvBytes,
                          int from) = 0;
  /// One message of an exchange: `bytes` bytes to or from process `peer`.
  struct Transfer {
    int peer;
    void *data;
    size_t bytes;
  };
  /// Posts every send and every receive at once and waits for all of them,
  /// so no order of the transfers can deadlock. Between two processes,
  /// messages are received in the order they were sent.
  virtual Status exchange(const std::vector<Transfer> &sends,
                          const std::vector<Transfer> &recvs) = 0;
  /// `bytes` bytes of process `root` to every process.
  virtual Status broadcast(void *data, size_t bytes, int root) = 0;
  virtual Status barrier() = 0;
  /// Ends every process of the run with `code`: what a process that
  /// cannot go on does, so that the others do not wait for it forever.
  [[noreturn]] virtual void abort(int code) = 0;
};

/// Whether this build has MPI.
bool mpiBuilt();
/// Whether this process was started by an MPI launcher (mpirun, srun).
bool launchedByMpi();
/// The process group of this run: MPI's world when launched by an MPI
/// launcher (initialized on first use, finalized at exit); null for a plain
/// process. An error when launched under MPI by a build without it.
StatusOr<std::shared_ptr<ProcessGroup>> worldProcessGroup();

/// What a program returns from main, or exits with: under a run of several
/// processes, a failing process (a nonzero `code`) ends the whole run
/// (MPI_Abort), since the others would wait for it in their next
/// collective, or in MPI_Finalize, forever.
int endRun(int code);
[[noreturn]] void exitRun(int code);

/// The devices of a mesh of `numDevices` that this process runs: process r
/// of P runs the block [r * numDevices / P, (r + 1) * numDevices / P);
/// without a group (or with one process), all of them.
struct DeviceRange {
  int64_t first = 0, count = 0;
  bool contains(int64_t d) const { return d >= first && d < first + count; }
};
DeviceRange localDevices(const ProcessGroup *processes, int64_t numDevices);

/// A result of a mesh over processes holds only this process's shards (the
/// others are empty). Whether each process holds every block of it, so
/// that it can assemble the global array alone (a replicated array, or one
/// split only over the devices inside each process).
bool eachProcessHoldsEveryBlock(const ProcessGroup &processes, const NamedSharding &sharding,
                                const Shape &localShape);
/// Fills the shards of other processes' devices: each process sends its
/// own to the others. Collective: every process calls it for the same
/// array, in the same order, as with jax's process_allgather.
Status gatherShards(ProcessGroup &processes, std::vector<Array> &shards);
/// The global array of `shards` (a result, holding this process's shards):
/// assembled here when each process holds every block, else after
/// gatherShards, which is then collective.
StatusOr<Array> fetchGlobal(ProcessGroup *processes, const NamedSharding &sharding,
                            std::vector<Array> shards, const Shape &global);

/// The ring all-reduce of the CPU backend over `members` (process ranks in
/// group order; this process must be one): `data` (count elements of
/// `dtype`) becomes the combination of every member's, computed in the
/// order of the CPU backend's shared-memory ring, so the bits are the same.
Status ringAllReduce(ProcessGroup &group, const std::vector<int> &members, Reduction kind,
                     DType dtype, void *data, int64_t count);

/// Every member's `bytes` bytes (this process's are `mine`), in member
/// order, passed around the ring of `members`.
Status ringAllGather(ProcessGroup &group, const std::vector<int> &members, const void *mine,
                     size_t bytes, std::vector<std::vector<uint8_t>> &all);

} // namespace shardc

#endif // SHARDC_RUNTIME_PROCESSGROUP_H
