//===- Backend.cpp - what every backend shares ----------------------------===//
//
// The borrowing adapter of Backend::execute and runPlan (device_put, execute,
// gather), shared by the CPU and CUDA backends.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/ProcessGroup.h"

namespace shardc {

Backend::~Backend() = default;

StatusOr<std::vector<DeviceArrays>> Backend::execute(const Plan &plan,
                                                     const std::vector<DeviceArrays> &args) {
  std::vector<std::vector<const Array *>> borrowed;
  for (const DeviceArrays &shards : args) {
    borrowed.emplace_back();
    for (const Array &a : shards)
      borrowed.back().push_back(&a);
  }
  return execute(plan, borrowed);
}

Status checkShardArguments(const Plan &plan, const std::vector<std::vector<const Array *>> &args,
                           const std::vector<int64_t> &devices) {
  int64_t n = plan.numDevices();
  if (args.size() != plan.args.size())
    return Status::error("expected " + std::to_string(plan.args.size()) + " arguments, got " +
                         std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const PlanValue &v = plan.values[plan.args[i]];
    if ((int64_t)args[i].size() != n)
      return Status::error("argument '" + plan.argNames[i] + "' has shards for " +
                           std::to_string(args[i].size()) + " devices, expected " +
                           std::to_string(n));
    for (int64_t d : devices)
      if (args[i][d]->dtype() != v.dtype || args[i][d]->shape() != v.shape)
        return Status::error("argument '" + plan.argNames[i] + "' shard must be " +
                             Array(v.dtype, v.shape).typeString() + ", got " +
                             args[i][d]->typeString());
  }
  return Status::success();
}

StatusOr<std::vector<Array>> runPlan(Backend &backend, const Plan &plan,
                                     const std::vector<Array> &globalArgs) {
  if (globalArgs.size() != plan.args.size())
    return Status::error("@" + plan.entry + " takes " + std::to_string(plan.args.size()) +
                         " arguments, got " + std::to_string(globalArgs.size()));
  // One device: the global arrays are the shards, borrowed as they are.
  bool single = plan.numDevices() == 1;
  std::vector<DeviceArrays> shards;
  std::vector<std::vector<const Array *>> borrowed;
  for (size_t i = 0; i < globalArgs.size(); ++i) {
    const Array &g = globalArgs[i];
    const PlanValue &v = plan.values[plan.args[i]];
    if (g.dtype() != v.dtype || g.shape() != plan.argGlobalShapes[i])
      return Status::error("argument '" + plan.argNames[i] + "' must be " +
                           Array(v.dtype, plan.argGlobalShapes[i]).typeString() + ", got " +
                           g.typeString());
    DeviceArrays d;
    if (!single)
      for (int64_t dev = 0; dev < plan.numDevices(); ++dev)
        d.push_back(plan.argShardings[i].shard(g, dev));
    shards.push_back(std::move(d));
  }
  for (size_t i = 0; i < globalArgs.size(); ++i) {
    borrowed.emplace_back();
    if (single)
      borrowed.back().push_back(&globalArgs[i]);
    else
      for (const Array &a : shards[i])
        borrowed.back().push_back(&a);
  }
  StatusOr<std::vector<DeviceArrays>> results = backend.execute(plan, borrowed);
  if (!results.ok())
    return results.status();
  // A backend spanning processes returns only this process's shards; the
  // global arrays are assembled from them, gathering where needed.
  std::vector<Array> out;
  for (size_t r = 0; r < results->size(); ++r) {
    if (single) {
      out.push_back(std::move((*results)[r][0]));
      continue;
    }
    StatusOr<Array> global = fetchGlobal(backend.processes(), plan.resultShardings[r],
                                         std::move((*results)[r]), plan.resultGlobalShapes[r]);
    if (!global.ok())
      return global.status();
    out.push_back(std::move(*global));
  }
  return out;
}

} // namespace shardc
