//===- shardc.h - the embedding API -----------------------------*- C++ -*-===//
//
// What a host program includes to compile and run shardc programs. Named
// after JAX where JAX has the idea: a Client for a backend and its devices,
// Mesh / PartitionSpec / NamedSharding (Runtime/Sharding.h), device_put,
// compile, call, and a picture of an array's layout. No MLIR header is
// reachable from here; link the `shardc::shardc` CMake target.
//
//   shardc::Client client = *shardc::Client::create("cpu");
//   auto exe = *client.compile("model.mlir");               // cached by content
//   shardc::Mesh mesh{{"data"}, {2}};
//   shardc::DeviceArray x = client.device_put(host, {mesh, {{"data"}, {}}});
//   std::vector<shardc::DeviceArray> out = *exe->call({x, w});
//   shardc::Array y = out[0].fetch();
//
// Ownership: a DeviceArray holds its shards by reference, immutable, so
// copies are cheap and share them (as jax.Array); an Executable is shared
// (it may be cached by the client) and keeps the client's backend alive, so
// it may outlive the Client; so does a Jitted. Donation: a call that is
// handed the only reference to an argument the program donates
// (JitOptions::donate) may write its results over that argument's buffers. Thread safety: one call
// at a time per Client and per Executable.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_SHARDC_H
#define SHARDC_SHARDC_H

#include "shardc/Common/CompileOptions.h"
#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Sharding.h"
#include "shardc/Runtime/Status.h"
#include "shardc/tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace shardc {

struct Plan;
class Backend;
class ProcessGroup;
class CompileCache;

/// A global array laid out on the devices of a mesh: one shard per device.
/// A handle, like a jax.Array: copies share the shards and the layout, so
/// passing the same parameters to every call copies no buffers and makes
/// no allocations.
class DeviceArray {
public:
  DeviceArray(NamedSharding sharding, Shape globalShape, std::vector<Array> shards);
  /// An array whose devices are spread over `processes` (null: all in this
  /// process): only this process's shards are held, the others are empty.
  DeviceArray(NamedSharding sharding, Shape globalShape, DType dtype, std::vector<Array> shards,
              ProcessGroup *processes);

  const NamedSharding &sharding() const { return layout_->sharding; }
  const Shape &shape() const { return layout_->globalShape; }
  DType dtype() const { return layout_->dtype; }
  /// shards()[d] is device d's shard; under several processes, only those
  /// of this process's devices are held (the others are empty).
  const std::vector<Array> &shards() const { return *shards_; }
  /// The shard of this process's first device, like the first of jax's
  /// addressable_shards (a replicated array's value, for one).
  const Array &localShard() const;
  /// The shards, moved out when this is their only reference (a donation),
  /// else copied.
  std::vector<Array> takeShards() &&;
  /// Gathers the global array to the host. Under several processes this
  /// brings the other processes' shards over unless each process holds
  /// every block (a replicated array): then every process must fetch the
  /// same arrays in the same order, as with jax's process_allgather.
  Array fetch() const;
  /// The layout as a grid of blocks labelled with device ids (rank <= 2),
  /// like jax.debug.visualize_array_sharding.
  std::string visualize() const;

private:
  struct Layout {
    NamedSharding sharding;
    Shape globalShape;
    DType dtype;
  };
  std::shared_ptr<const Layout> layout_;
  std::shared_ptr<std::vector<Array>> shards_;
  ProcessGroup *processes_ = nullptr;
};

/// A compiled function, ready to call on the devices of its mesh.
class Executable {
public:
  Executable(std::shared_ptr<const Plan> plan, std::shared_ptr<Backend> backend);
  const std::string &entry() const;
  /// The arguments' names (shardc.name, or argN), global shapes and layouts.
  const std::vector<std::string> &argNames() const;
  const std::vector<Shape> &argShapes() const;
  const std::vector<NamedSharding> &argShardings() const;
  int64_t numDevices() const;
  /// Bytes of buffers each device uses (after reuse).
  int64_t bufferBytesPerDevice() const;
  /// The compiled per-device program (shardc/Runtime/Plan.h), for analyses
  /// such as analyzePlanCost (shardc/Runtime/PlanCost.h).
  const Plan &plan() const;

  /// Runs on sharded arguments; each must have the argument's global shape
  /// and dtype (it is resharded if its layout differs).
  StatusOr<std::vector<DeviceArray>> call(const std::vector<DeviceArray> &args);
  /// The same, where the program may reuse the buffers of its donated
  /// arguments that `args` holds the only reference to (pass them with
  /// std::move): a cache updated in place is then never copied.
  StatusOr<std::vector<DeviceArray>> call(std::vector<DeviceArray> &&args);
  /// Runs on host arrays (placed by the argument shardings) and fetches.
  StatusOr<std::vector<Array>> call(const std::vector<Array> &args);
  /// The arguments the program may write over (JitOptions::donate,
  /// shardc.donated).
  std::vector<bool> donatedArgs() const;

private:
  StatusOr<std::vector<DeviceArray>> run(const std::vector<DeviceArray> &args,
                                         std::vector<DeviceArray> *given);
  std::shared_ptr<const Plan> plan_;
  std::shared_ptr<Backend> backend_;
};

/// What `Client::compileTrainStep` builds around a loss function: forward,
/// backward and this optimizer's update, as one executable (see
/// --shardc-train-step for the signature).
struct TrainStepOptions {
  std::string optimizer = "adam"; // "sgd" (with momentum), "adam" or "adamw"
  std::vector<unsigned> wrt;      // parameters to train; empty: every float argument
  double momentum = 0.0;          // sgd
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8; // adam(w)
  double weightDecay = 0.0;                          // adamw
  /// Clips the gradients to this global L2 norm before the update (e.g.
  /// 1.0), like torch.nn.utils.clip_grad_norm_; 0: no clipping.
  double clipNorm = 0.0;
  /// A mesh axis to split optimizer state and updates over (dimension 0),
  /// like ZeRO stage 1: see --shardc-train-step's shard-state-over.
  std::string shardStateOver;
};

/// How Client::jit turns a traced function into an executable.
struct JitOptions {
  std::string name = "main";         // the traced function's name
  std::vector<std::string> argNames; // default: arg0, arg1, ...
  /// Layouts of host-array arguments (default: replicated); DeviceArray
  /// arguments keep their own, as in JAX.
  std::vector<NamedSharding> inShardings;
  /// The mesh of shard_map and with_sharding_constraint when no argument
  /// is laid out on one.
  Mesh mesh;
  enum class Transform {
    None,         // the function as traced
    ValueAndGrad, // its rank-0 result, then the gradients of `wrt`
    TrainStep,    // Client::compileTrainStep's step around it (loss)
  } transform = Transform::None;
  std::vector<unsigned> wrt; // ValueAndGrad: empty = every float argument;
                             // TrainStep: the parameters (required)
  /// Arguments whose buffers the call may reuse for results, like JAX's
  /// donate_argnums: pass them to Jitted::call with std::move (see
  /// Executable::call). Only for Transform::None.
  std::vector<unsigned> donate;
  TrainStepOptions train; // TrainStep
  /// The compile's options (shardc/Common/CompileOptions.def), set by field
  /// or by flag (`compile.set("precision", "bf16")`). Among them, how f32
  /// products are computed, like jax.default_matmul_precision and
  /// torch.autocast: MatmulPrecision::F32 (as they are), BF16 (bf16
  /// operands, f32 sums: parameters, optimizer state, gradient reductions
  /// and the loss stay f32) or TF32 (operands rounded to 10 mantissa bits);
  /// and padUneven, which pads dimensions the mesh axes do not divide.
  CompileOptions compile;
};

class Jitted;

/// The processes of the run, as jax.process_index() and
/// jax.process_count(): under an MPI launcher (mpirun, srun) every process
/// runs the same program on its own devices of the mesh; otherwise 0 and 1.
/// Programs print and write files on process 0 only.
int processIndex();
int processCount();

/// A backend and its devices, plus the compile cache.
class Client {
public:
  /// `backend`: "cpu" (simulated devices, one thread each) or "cuda" (one
  /// GPU per mesh position; an error where no GPU is usable). `cacheDir`:
  /// where compiled plans persist ("" = memory only; default: the user's
  /// cache directory, see CompileCache::defaultDir).
  static StatusOr<Client> create(const std::string &backend = "cpu",
                                 const std::string &cacheDir = defaultCacheDir());
  Client(Client &&);
  Client &operator=(Client &&);
  ~Client();

  const std::string &backend() const;
  /// device_put: splits `array` by `sharding` (checked against its shape).
  StatusOr<DeviceArray> device_put(const Array &array, const NamedSharding &sharding);

  /// Compiles function `entry` (default: main, or the only public one) of a
  /// .mlir file, or loads a compiled .shardc artifact. Compiled plans are
  /// cached by the program text, entry, backend and compiler version:
  /// compiling the same thing again never recompiles.
  /// `options`: see JitOptions::compile (an artifact keeps those it was
  /// compiled with: asking for others is an error).
  StatusOr<std::shared_ptr<Executable>> compile(const std::string &path,
                                                const std::string &entry = "",
                                                const CompileOptions &options = {});

  /// Compiles the training step of the loss function `loss` of a .mlir
  /// file: arguments are the loss's, then the optimizer state, then the
  /// learning rate; results the loss, the new parameters and the new state.
  /// Cached like compile().
  StatusOr<std::shared_ptr<Executable>> compileTrainStep(const std::string &path,
                                                         const std::string &loss,
                                                         const TrainStepOptions &options,
                                                         const CompileOptions &compile = {});

  /// Like jax.jit: `fn` is traced on the first call with each argument
  /// signature (dtypes, shapes, layouts), compiled through the compile
  /// cache, and the executable reused for later calls with that signature.
  /// The result shares the client's backend and cache: it may outlive it.
  Jitted jit(TracedFn fn, JitOptions options = {});

  /// Compile cache counters: hits in memory and on disk, misses.
  struct CacheStats {
    int64_t memoryHits, diskHits, misses, corruptEntries;
  };
  CacheStats cacheStats() const;

  static std::string defaultCacheDir();

  struct Impl;

private:
  Client();
  std::shared_ptr<Impl> impl;
};

/// A traced function, compiled per argument signature (see Client::jit).
/// Trace errors (TraceError) and compile errors come back as error Status.
class Jitted {
public:
  /// Runs on sharded arguments (their layouts become the program's).
  StatusOr<std::vector<DeviceArray>> call(const std::vector<DeviceArray> &args);
  /// The same, donating what `args` holds the only reference to.
  StatusOr<std::vector<DeviceArray>> call(std::vector<DeviceArray> &&args);
  /// Runs on host arrays (laid out by JitOptions::inShardings) and fetches.
  StatusOr<std::vector<Array>> call(const std::vector<Array> &args);
  /// The executable for arguments of these types, tracing and compiling it
  /// if this signature is new.
  StatusOr<std::shared_ptr<Executable>> lower(const std::vector<ArgSpec> &args);
  /// The traced module's text for these argument types (the input of
  /// the transform), like jax.jit(f).lower(...).as_text().
  StatusOr<std::string> trace(const std::vector<ArgSpec> &args) const;
  /// How many times the function has been traced (once per signature).
  int64_t traceCount() const;

  struct State;
  explicit Jitted(std::shared_ptr<State> state) : state_(std::move(state)) {}

private:
  StatusOr<std::shared_ptr<Executable>> lowerFor(const std::vector<DeviceArray> &args);
  std::shared_ptr<State> state_;
};

} // namespace shardc

#endif // SHARDC_SHARDC_H
