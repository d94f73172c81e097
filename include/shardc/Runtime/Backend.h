//===- Backend.h - what runs a plan -----------------------------*- C++ -*-===//
//
// A backend executes a Plan on the devices of its mesh. The interface is
// small on purpose: a new backend implements `execute` (see CpuBackend.cpp).
// `execute` may be called from several threads: a backend runs one plan at
// a time (the others wait), since its devices and buffers are shared.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_BACKEND_H
#define SHARDC_RUNTIME_BACKEND_H

#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace shardc {

class ProcessGroup;

class Backend {
public:
  virtual ~Backend();
  /// "cpu", "cuda", ...
  virtual const char *name() const = 0;
  /// The processes the mesh's devices are spread over (null: all are in
  /// this one). Then execute returns only this process's shards (those of
  /// localDevices(); the others are empty) and fetchGlobal gathers.
  virtual ProcessGroup *processes() const { return nullptr; }
  /// Runs `plan`: `args[i][d]` is argument i's shard on device d. Returns
  /// `results[i][d]`. Errors name the step's source location.
  virtual StatusOr<std::vector<DeviceArrays>> execute(const Plan &plan,
                                                      const std::vector<DeviceArrays> &args);
  /// The same, borrowing the shards: `args[i][d]` must outlive the call.
  StatusOr<std::vector<DeviceArrays>> execute(const Plan &plan,
                                              const std::vector<std::vector<const Array *>> &args) {
    return execute(plan, args, nullptr);
  }
  /// The same, where `donated` (if given) holds, for each argument the plan
  /// donates, the shards the caller gives up (`args` points at them), or
  /// nothing. A value the plan writes over a donated argument
  /// (PlanValue::inArgument) is computed in those shards and returned in
  /// them; without them the backend copies the argument first.
  virtual StatusOr<std::vector<DeviceArrays>>
  execute(const Plan &plan, const std::vector<std::vector<const Array *>> &args,
          std::vector<DeviceArrays> *donated) = 0;
};

/// Checks that `args` has one list of shards per argument of `plan`, each
/// with one shard per device, and that the shards of `devices` (those this
/// process holds) have the argument's dtype and local shape. Errors name
/// the argument.
Status checkShardArguments(const Plan &plan, const std::vector<std::vector<const Array *>> &args,
                           const std::vector<int64_t> &devices);

/// How a CPU backend runs.
struct CpuBackendOptions {
  /// After every call, each step's time on device 0 (summed by source
  /// location and op), slowest first, on stderr.
  bool profile = false;
  /// What the environment asks for: `profile` where SHARDC_PROFILE is set.
  static CpuBackendOptions fromEnvironment();
};

/// N simulated devices, one thread each. Under an MPI launcher the devices
/// are spread over the run's processes (worldProcessGroup()). Options from
/// the environment (CpuBackendOptions::fromEnvironment).
std::unique_ptr<Backend> createCpuBackend();
std::unique_ptr<Backend> createCpuBackend(const CpuBackendOptions &options);
/// The same over `processes`, an equal block of the mesh's devices each
/// (null: every device in this process).
std::unique_ptr<Backend> createCpuBackend(std::shared_ptr<ProcessGroup> processes);

/// device_put + execute + gather: splits each global argument by the plan's
/// argument sharding, runs, and assembles each result by its sharding.
/// Checks each argument's dtype and global shape first; errors name it.
StatusOr<std::vector<Array>> runPlan(Backend &backend, const Plan &plan,
                                     const std::vector<Array> &globalArgs);

} // namespace shardc

#endif // SHARDC_RUNTIME_BACKEND_H
