//===- CudaNccl.h - collectives of the CUDA backend -------------*- C++ -*-===//
//
// One NCCL communicator per device group of every set of mesh axes the plan
// communicates over (a collective over axes A groups the devices that differ
// only along A; see Mesh::group). In one process, ncclCommInitAll builds each
// group's communicators; across processes (one GPU each), rank 0 writes the
// NCCL unique id to SHARDC_NCCL_ID_FILE, every process joins one world
// communicator (once per backend), and each plan's groups are split from
// it. The id file must be fresh for each run: a stale one from an earlier
// run would be read by the other ranks before rank 0 replaces it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CUDA_CUDANCCL_H
#define SHARDC_LIB_RUNTIME_CUDA_CUDANCCL_H

#include "shardc/Runtime/CudaBackend.h"
#include "shardc/Runtime/Plan.h"

#include <cuda_runtime_api.h>
#ifdef SHARDC_HAVE_NCCL
#include <nccl.h>
#else
#include "NcclUnavailable.h"
#endif

#include <map>
#include <string>
#include <vector>

namespace shardc {
class ProcessGroup;
}

namespace shardc::cuda {

/// The communicators of one plan's mesh, for the devices of this process.
class Communicators {
public:
  Communicators() = default;
  Communicators(const Communicators &) = delete;
  Communicators &operator=(const Communicators &) = delete;
  ~Communicators();

  /// Builds the communicators for every axes set of `plan`'s collectives.
  /// `gpus[d]` is the GPU of mesh position d, -1 where it belongs to
  /// another process. In a multi-process run, groups are split from
  /// `world`, which is created on first use (one unique id per run) and
  /// owned by the caller.
  Status init(const Plan &plan, const std::vector<int> &gpus, const CudaOptions &options,
              ncclComm_t &world);

  /// The communicator of device `d` for a collective over `axes`; null for
  /// groups of one device.
  ncclComm_t get(const std::vector<std::string> &axes, int64_t d) const;

private:
  std::map<std::vector<std::string>, std::vector<ncclComm_t>> comms; // [axes][device]
};

/// What one device of this process needs to run a collective step.
struct CollectiveDevice {
  int64_t device; // mesh position
  int gpu;
  cudaStream_t stream;
  const void *in; // the operand
  void *out;      // the result
  void *scratch;  // 2 * max(operand, result) bytes
};

/// Enqueues a collective step on every device of this process (in one NCCL
/// group, so one thread can drive several GPUs). No host synchronization.
Status runCollective(const Plan &plan, const PlanStep &step, const Communicators &comms,
                     const std::vector<CollectiveDevice> &devices);

/// The unique id of a multi-process run: rank 0 creates it and writes it to
/// `path` (atomically); the others wait for the file (up to 120 s).
StatusOr<ncclUniqueId> exchangeUniqueId(const std::string &path, int rank);
/// The NCCL id of rank 0, broadcast over MPI to every process.
StatusOr<ncclUniqueId> broadcastUniqueId(ProcessGroup &processes);

} // namespace shardc::cuda

#endif // SHARDC_LIB_RUNTIME_CUDA_CUDANCCL_H
