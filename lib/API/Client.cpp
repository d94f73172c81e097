//===- Client.cpp - the embedding API -------------------------------------===//
//
// The Client owns the backend and the compile cache behind a pointer, so
// that shardc.h exposes no MLIR; every compilation goes through
// Client::Impl::compileProgram and the cache.
//
//===----------------------------------------------------------------------===//

#include "ClientImpl.h"

#include "shardc/Dialect/Shardc/Transforms/Autodiff.h"
#include "shardc/Dialect/Shardc/Transforms/Optimizers.h"
#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Pipeline/Pipeline.h"
#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/ProcessGroup.h"
#include "shardc/JIT/FusedJit.h"
#include "shardc/Runtime/CudaBackend.h"
#include "shardc/Runtime/File.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdio>

namespace shardc {

int processIndex() {
  StatusOr<std::shared_ptr<ProcessGroup>> world = worldProcessGroup();
  return world.ok() && *world ? (*world)->rank() : 0;
}

int processCount() {
  StatusOr<std::shared_ptr<ProcessGroup>> world = worldProcessGroup();
  return world.ok() && *world ? (*world)->size() : 1;
}

//===----------------------------------------------------------------------===//
// DeviceArray
//===----------------------------------------------------------------------===//

DeviceArray::DeviceArray(NamedSharding sharding, Shape globalShape, std::vector<Array> shards)
    : layout_(std::make_shared<const Layout>(
          Layout{std::move(sharding), std::move(globalShape), shards.front().dtype()})),
      shards_(std::make_shared<std::vector<Array>>(std::move(shards))) {}

DeviceArray::DeviceArray(NamedSharding sharding, Shape globalShape, DType dtype,
                         std::vector<Array> shards, ProcessGroup *processes)
    : layout_(std::make_shared<const Layout>(
          Layout{std::move(sharding), std::move(globalShape), dtype})),
      shards_(std::make_shared<std::vector<Array>>(std::move(shards))), processes_(processes) {}

const Array &DeviceArray::localShard() const {
  return (*shards_)[localDevices(processes_, (int64_t)shards_->size()).first];
}

std::vector<Array> DeviceArray::takeShards() && {
  if (shards_.use_count() == 1)
    return std::move(*shards_);
  return *shards_;
}

Array DeviceArray::fetch() const {
  StatusOr<Array> global = fetchGlobal(processes_, sharding(), *shards_, shape());
  if (!global.ok()) { // the transfer between processes failed: nothing to go on with
    std::fprintf(stderr, "error: fetching a %s: %s\n", Array(dtype(), shape()).typeString().c_str(),
                 global.message().c_str());
    processes_->abort(1);
  }
  return std::move(*global);
}

std::string DeviceArray::visualize() const { return sharding().visualize(shape()); }

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

Executable::Executable(std::shared_ptr<const Plan> plan, std::shared_ptr<Backend> backend)
    : plan_(std::move(plan)), backend_(std::move(backend)) {}

const std::string &Executable::entry() const { return plan_->entry; }
const std::vector<std::string> &Executable::argNames() const { return plan_->argNames; }
const std::vector<Shape> &Executable::argShapes() const { return plan_->argGlobalShapes; }
const std::vector<NamedSharding> &Executable::argShardings() const { return plan_->argShardings; }
int64_t Executable::numDevices() const { return plan_->numDevices(); }
int64_t Executable::bufferBytesPerDevice() const { return plan_->arenaBytes; }
const Plan &Executable::plan() const { return *plan_; }

static bool sameLayout(const NamedSharding &a, const NamedSharding &b) {
  return a.mesh.axisNames == b.mesh.axisNames && a.mesh.axisSizes == b.mesh.axisSizes &&
         a.spec == b.spec;
}

std::vector<bool> Executable::donatedArgs() const {
  std::vector<bool> d = plan_->donated;
  d.resize(plan_->args.size(), false);
  return d;
}

StatusOr<std::vector<DeviceArray>> Executable::call(const std::vector<DeviceArray> &args) {
  return run(args, nullptr);
}

StatusOr<std::vector<DeviceArray>> Executable::call(std::vector<DeviceArray> &&args) {
  return run(args, &args);
}

StatusOr<std::vector<DeviceArray>> Executable::run(const std::vector<DeviceArray> &args,
                                                   std::vector<DeviceArray> *given) {
  const Plan &plan = *plan_;
  if (args.size() != plan.args.size())
    return Status::error("@" + plan.entry + " takes " + std::to_string(plan.args.size()) +
                         " arguments, got " + std::to_string(args.size()));
  std::vector<DeviceArrays> resharded(args.size()), owned(args.size());
  // The shards' addresses, in lists kept from call to call on this thread
  // (a decode step passes some sixty arguments; no backend calls back in).
  static thread_local std::vector<std::vector<const Array *>> shards;
  shards.resize(args.size());
  for (auto &list : shards)
    list.clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const DeviceArray &a = args[i];
    DType want = plan.values[plan.args[i]].dtype;
    if (a.dtype() != want || a.shape() != plan.argGlobalShapes[i])
      return Status::error("argument '" + plan.argNames[i] + "' must be " +
                           Array(want, plan.argGlobalShapes[i]).typeString() + ", got " +
                           Array(a.dtype(), a.shape()).typeString());
    if (sameLayout(a.sharding(), plan.argShardings[i])) {
      bool donated = given && i < plan.donated.size() && plan.donated[i];
      if (donated) // the backend may write over these: they are ours now
        owned[i] = std::move((*given)[i]).takeShards();
      for (const Array &s : donated ? owned[i] : a.shards())
        shards[i].push_back(&s);
      continue;
    }
    // Another layout: through the host (a device-side reshard is future work).
    Array global = a.fetch();
    for (int64_t d = 0; d < plan.numDevices(); ++d)
      resharded[i].push_back(plan.argShardings[i].shard(global, d));
    for (const Array &s : resharded[i])
      shards[i].push_back(&s);
    if (given && i < plan.donated.size() && plan.donated[i])
      std::swap(owned[i], resharded[i]); // a fresh copy: ours to write over
  }
  StatusOr<std::vector<DeviceArrays>> results = backend_->execute(plan, shards, &owned);
  if (!results.ok())
    return results.status();
  std::vector<DeviceArray> out;
  for (size_t r = 0; r < results->size(); ++r)
    out.emplace_back(plan.resultShardings[r], plan.resultGlobalShapes[r],
                     plan.values[plan.results[r]].dtype, std::move((*results)[r]),
                     backend_->processes());
  return out;
}

StatusOr<std::vector<Array>> Executable::call(const std::vector<Array> &args) {
  return runPlan(*backend_, *plan_, args);
}

//===----------------------------------------------------------------------===//
// Client
//===----------------------------------------------------------------------===//

Client::Client() : impl(std::make_shared<Impl>()) {}
Client::Client(Client &&) = default;
Client &Client::operator=(Client &&) = default;
Client::~Client() = default;

std::string Client::defaultCacheDir() { return CompileCache::defaultDir(); }

StatusOr<Client> Client::create(const std::string &backend, const std::string &cacheDir) {
  std::unique_ptr<Backend> created;
  if (backend == "cpu") {
    // Fused steps run as JIT-compiled kernels unless SHARDC_FUSED_JIT=0.
    installFusedJit(cacheDir);
    created = createCpuBackend();
  } else if (backend == "cuda") {
    StatusOr<std::unique_ptr<Backend>> cuda = createCudaBackend();
    if (!cuda.ok())
      return Status::error("backend 'cuda': " + cuda.message());
    created = std::move(*cuda);
  } else {
    return Status::error("backend '" + backend + "' is not available (available: cpu" +
                         (cudaBackendBuilt() ? ", cuda)" : ")"));
  }
  Client client;
  client.impl->backendName = backend;
  client.impl->backend = std::move(created);
  client.impl->cache = std::make_unique<CompileCache>(cacheDir);
  return client;
}

const std::string &Client::backend() const { return impl->backendName; }

StatusOr<DeviceArray> Client::device_put(const Array &array, const NamedSharding &sharding) {
  // A layout that does not divide a dimension pads it (see localShape).
  Status valid = sharding.validate(array.shape(), /*allowPadding=*/true);
  if (!valid.ok())
    return Status::error("device_put of " + array.typeString() + ": " + valid.message());
  // Under several processes, only this process's devices get their shard.
  ProcessGroup *processes = impl->backend->processes();
  int64_t n = sharding.mesh.numDevices();
  if (processes && n % processes->size() != 0)
    return Status::error("device_put of " + array.typeString() + ": the mesh of " +
                         std::to_string(n) + " device(s) cannot be shared equally by " +
                         std::to_string(processes->size()) + " processes");
  DeviceRange mine = localDevices(processes, n);
  std::vector<Array> shards(n);
  for (int64_t d = mine.first; d < mine.first + mine.count; ++d)
    shards[d] = sharding.shard(array, d);
  return DeviceArray(sharding, array.shape(), array.dtype(), std::move(shards), processes);
}

StatusOr<std::shared_ptr<Executable>>
Client::Impl::compileProgram(const std::string &bytes, const std::string &path,
                             const std::string &entry, JitOptions::Transform transform,
                             const std::vector<unsigned> &wrt, const TrainStepOptions &train,
                             const CompileOptions &given) {
  if (std::string problem = given.check(); !problem.empty())
    return Status::error(problem);
  CompileOptions options = given;
  options.useBackend(backendName);
  // Everything besides the program that the plan depends on.
  std::vector<std::string> keyParts{bytes, entry, backendName, options.key()};
  std::string wrtList;
  for (unsigned i : wrt)
    wrtList += std::to_string(i) + ",";
  OptimizerConfig config;
  if (transform == JitOptions::Transform::ValueAndGrad) {
    keyParts.insert(keyParts.end(), {"value-and-grad", wrtList});
  } else if (transform == JitOptions::Transform::TrainStep) {
    config.kind = train.optimizer;
    config.momentum = train.momentum;
    config.beta1 = train.beta1;
    config.beta2 = train.beta2;
    config.epsilon = train.epsilon;
    config.weightDecay = train.weightDecay;
    config.clipNorm = train.clipNorm;
    config.shardStateOver = train.shardStateOver;
    // What the step is built from, every field of it (OptimizerConfig::key).
    keyParts.insert(keyParts.end(), {"train-step", wrtList, config.key()});
  }
  StatusOr<std::shared_ptr<const Plan>> plan =
      cache->getOrCompile(CompileCache::keyFor(keyParts), [&]() -> StatusOr<Plan> {
        if (looksLikeArtifact(bytes)) {
          if (transform != JitOptions::Transform::None)
            return Status::error("'" + path +
                                 "' is a compiled artifact: it cannot be "
                                 "differentiated or turned into a training step");
          StatusOr<Plan> loaded = deserializePlan(bytes, path);
          if (loaded.ok())
            if (std::string changed = given.conflictWith(loaded->compileOptions); !changed.empty())
              return Status::error("'" + path +
                                   "' is a compiled artifact: it keeps the compile options it "
                                   "was compiled with (" +
                                   CompileOptions::describeRecord(loaded->compileOptions) +
                                   "; asked for " + changed + "=" + given.get(changed) + ")");
          if (loaded.ok() && !entry.empty() && loaded->entry != entry)
            return Status::error("'" + path + "' holds @" + loaded->entry + ", not @" + entry);
          return loaded;
        }
        std::string error;
        std::unique_ptr<LoadedModule> loaded = loadModuleFromText(bytes, path, error, true);
        if (!loaded)
          return Status::error(error);
        mlir::func::FuncOp fn = findEntry(*loaded->module, entry, error);
        if (!fn)
          return Status::error(path + ": " + error);
        mlir::FailureOr<mlir::func::FuncOp> target = fn;
        if (transform == JitOptions::Transform::ValueAndGrad)
          target = differentiate(fn, wrt);
        else if (transform == JitOptions::Transform::TrainStep)
          target = buildTrainStep(fn, wrt, config);
        if (mlir::failed(target))
          return Status::error(loaded->diagnostics);
        mlir::FailureOr<Plan> compiled =
            compileToPlan(*loaded->module, *target, /*dumpDir=*/"", options);
        if (mlir::failed(compiled))
          return Status::error(loaded->diagnostics);
        return std::move(*compiled);
      });
  if (!plan.ok())
    return plan.status();
  return std::make_shared<Executable>(*plan, backend);
}

StatusOr<std::shared_ptr<Executable>>
Client::compile(const std::string &path, const std::string &entry, const CompileOptions &options) {
  StatusOr<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.status();
  return impl->compileProgram(*bytes, path, entry, JitOptions::Transform::None, {}, {}, options);
}

StatusOr<std::shared_ptr<Executable>> Client::compileTrainStep(const std::string &path,
                                                               const std::string &loss,
                                                               const TrainStepOptions &options,
                                                               const CompileOptions &compile) {
  StatusOr<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.status();
  return impl->compileProgram(*bytes, path, loss, JitOptions::Transform::TrainStep, options.wrt,
                              options, compile);
}

Client::CacheStats Client::cacheStats() const {
  CompileCache::Stats s = impl->cache->stats();
  return {s.memoryHits, s.diskHits, s.misses, s.corruptEntries};
}

} // namespace shardc
