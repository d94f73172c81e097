//===- Jit.cpp - Client::jit: trace once per signature, compile, call -----===//
//
// A Jitted keeps one executable per argument signature (dtypes, global
// shapes, layouts). A new signature traces the function (tensor.h) into
// module text and compiles it through the client's compile cache, so the
// same traced program is never compiled twice, even across processes.
//
//===----------------------------------------------------------------------===//

#include "ClientImpl.h"

#include "shardc/Runtime/Plan.h"

#include <map>
#include <mutex>
#include <set>

namespace shardc {

struct Jitted::State {
  std::shared_ptr<Client::Impl> client; // kept alive: the Jitted may outlive the Client
  std::mutex mutex;                     // guards executables and traces
  TracedFn fn;
  JitOptions options;
  std::map<std::string, std::shared_ptr<Executable>> executables;
  int64_t traces = 0;
};

Jitted Client::jit(TracedFn fn, JitOptions options) {
  auto state = std::make_shared<Jitted::State>();
  state->client = impl;
  state->fn = std::move(fn);
  state->options = std::move(options);
  return Jitted(std::move(state));
}

namespace {

/// The traced function's arguments among a call's: for a training step, the
/// optimizer state and the learning rate follow the loss's arguments.
StatusOr<size_t> tracedArgCount(const JitOptions &o, size_t callArgs) {
  if (o.transform != JitOptions::Transform::TrainStep)
    return callArgs;
  if (o.wrt.empty())
    return Status::error("jit: a TrainStep transform needs JitOptions::wrt (the parameters)");
  std::set<unsigned> params(o.wrt.begin(), o.wrt.end()); // each counts once
  size_t state = o.train.optimizer == "sgd" ? params.size() : 2 * params.size() + 1;
  if (callArgs < state + 1)
    return Status::error("jit: the training step takes the loss's arguments, " +
                         std::to_string(state) +
                         " optimizer state arrays and the learning "
                         "rate; got " +
                         std::to_string(callArgs) + " arguments");
  size_t traced = callArgs - state - 1;
  if (*params.rbegin() >= traced)
    return Status::error("jit: parameter " + std::to_string(*params.rbegin()) +
                         " is not one of the function's " + std::to_string(traced) + " arguments");
  return traced;
}

std::string signature(const std::vector<ArgSpec> &args) {
  // Every part length-prefixed, so no two signatures print alike.
  std::string key;
  auto part = [&](const std::string &p) { key += std::to_string(p.size()) + ":" + p; };
  for (const ArgSpec &a : args) {
    part(dtypeName(a.dtype));
    part(shapeString(a.shape));
    for (size_t i = 0; i < a.sharding.mesh.axisNames.size(); ++i) {
      part(a.sharding.mesh.axisNames[i]);
      part(std::to_string(a.sharding.mesh.axisSizes[i]));
    }
    part("|");
    for (const auto &dim : a.sharding.spec) {
      for (const std::string &axis : dim)
        part(axis);
      part(";");
    }
    part("||");
  }
  return key;
}

std::string argName(const JitOptions &o, size_t i) {
  return i < o.argNames.size() ? o.argNames[i] : "arg" + std::to_string(i);
}

} // namespace

StatusOr<std::string> Jitted::trace(const std::vector<ArgSpec> &args) const {
  try {
    return traceToModule(state_->fn, args, state_->options.name, state_->options.mesh);
  } catch (const TraceError &e) {
    return Status::error(e.what());
  } catch (const std::exception &e) { // thrown by the user's function itself
    return Status::error("tracing @" + state_->options.name + ": " + e.what());
  }
}

StatusOr<std::shared_ptr<Executable>> Jitted::lower(const std::vector<ArgSpec> &args) {
  std::string key = signature(args);
  std::lock_guard<std::mutex> lock(state_->mutex); // one trace per signature
  auto found = state_->executables.find(key);
  if (found != state_->executables.end())
    return found->second;
  const JitOptions &o = state_->options;
  std::vector<ArgSpec> marked = args;
  for (unsigned i : o.donate) {
    if (i >= marked.size())
      return Status::error("jit: donated argument " + std::to_string(i) + " is not one of @" +
                           o.name + "'s " + std::to_string(marked.size()) + " arguments");
    if (o.transform != JitOptions::Transform::None)
      return Status::error("jit: donation is only for functions without a transform");
    marked[i].donated = true;
  }
  StatusOr<std::string> text = trace(marked);
  ++state_->traces;
  if (!text.ok())
    return text.status();
  StatusOr<std::shared_ptr<Executable>> exe = state_->client->compileProgram(
      *text, "<trace of @" + o.name + ">", o.name, o.transform, o.wrt, o.train, o.compile);
  if (!exe.ok())
    return exe.status();
  state_->executables.emplace(key, *exe);
  return *exe;
}

int64_t Jitted::traceCount() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->traces;
}

StatusOr<std::shared_ptr<Executable>> Jitted::lowerFor(const std::vector<DeviceArray> &args) {
  StatusOr<size_t> traced = tracedArgCount(state_->options, args.size());
  if (!traced.ok())
    return traced.status();
  std::vector<ArgSpec> specs;
  for (size_t i = 0; i < *traced; ++i) {
    const DeviceArray &a = args[i];
    NamedSharding sharding = a.sharding();
    if (sharding.mesh.numDevices() == 1 && sharding.mesh.axisNames.empty())
      sharding = {};
    specs.push_back({argName(state_->options, i), a.dtype(), a.shape(), sharding});
  }
  return lower(specs);
}

StatusOr<std::vector<DeviceArray>> Jitted::call(const std::vector<DeviceArray> &args) {
  StatusOr<std::shared_ptr<Executable>> exe = lowerFor(args);
  if (!exe.ok())
    return exe.status();
  return (*exe)->call(args);
}

StatusOr<std::vector<DeviceArray>> Jitted::call(std::vector<DeviceArray> &&args) {
  StatusOr<std::shared_ptr<Executable>> exe = lowerFor(args);
  if (!exe.ok())
    return exe.status();
  return (*exe)->call(std::move(args));
}

StatusOr<std::vector<Array>> Jitted::call(const std::vector<Array> &args) {
  const JitOptions &o = state_->options;
  StatusOr<size_t> traced = tracedArgCount(o, args.size());
  if (!traced.ok())
    return traced.status();
  std::vector<ArgSpec> specs;
  for (size_t i = 0; i < *traced; ++i)
    specs.push_back({argName(o, i), args[i].dtype(), args[i].shape(),
                     i < o.inShardings.size() ? o.inShardings[i] : NamedSharding{}});
  StatusOr<std::shared_ptr<Executable>> exe = lower(specs);
  if (!exe.ok())
    return exe.status();
  return (*exe)->call(args);
}

} // namespace shardc
