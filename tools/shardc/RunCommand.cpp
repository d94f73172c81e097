//===- RunCommand.cpp - shardc run ----------------------------------------===//
//
// Runs a function of a .mlir file, or a compiled .shardc artifact, on .npy
// inputs and writes each result to <output-dir>/<entry>.result<i>.npy (the
// entry made a safe file name). Every input is checked against the
// function's global signature before anything runs, and outputs are written
// only after the whole run succeeded, each atomically.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Pipeline/Pipeline.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/MatmulPrecision.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/Artifact.h"
#include "shardc/JIT/FusedJit.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/ProcessGroup.h"
#include "shardc/Runtime/CompileCache.h"
#include "shardc/Runtime/CudaBackend.h"
#include "shardc/Runtime/File.h"
#include "shardc/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>

using namespace mlir;

namespace shardc::driver {

namespace {
const char kRunUsage[] =
    "usage: shardc run FILE.mlir|FILE.shardc [--entry NAME] [--input NAME=FILE.npy]...\n"
    "                  [--output-dir DIR] [--backend cpu|cuda|reference]\n";
const char kRunOwnHelp[] =
    "\n"
    "  --entry NAME        function to run (default: main, or the only public one)\n"
    "  --input NAME=FILE   .npy file for the argument NAME (its shardc.name, its\n"
    "                      name in the source, %x or x, or argN for argument N);\n"
    "                      every argument needs one\n"
    "  --output-dir DIR    where to write <entry>.result<i>.npy (default: .)\n"
    "  --backend NAME      cpu (default: the compiled plan on simulated devices),\n"
    "                      cuda (the plan on GPUs, one per mesh position) or\n"
    "                      reference (the interpreter; .mlir files only)\n"
    "  --cache-dir DIR     compile cache (default: $SHARDC_CACHE_DIR, else\n"
    "                      $XDG_CACHE_HOME/shardc, else ~/.cache/shardc)\n"
    "  --no-cache          compile without reading or writing the disk cache\n"
    "  --cache-stats       print the cache's hits and misses\n"
    "  --benchmark N       run N more times (cpu or cuda) and print one JSON line\n"
    "                      with the median and best time per call\n"
    "  --local-devices K   under mpirun: each process runs K devices of the mesh\n"
    "                      (a check: the mesh must have processes x K devices;\n"
    "                      without it, any equal share)\n";

std::string runHelp() {
  return kRunUsage + compileOptionsUsage(18) + kRunOwnHelp +
         compileOptionsHelp("compile options (as shardc compile; .mlir files only: an "
                            "artifact keeps those it was compiled with):");
}

struct RunOptions {
  std::string file;
  std::string entry;
  std::vector<std::pair<std::string, std::string>> inputs; // name, path
  std::string outputDir = ".";
  std::string backend = "cpu";
  std::string cacheDir = CompileCache::defaultDir();
  bool cacheStats = false;
  bool noCache = false;
  int benchmark = 0;
  int localDevices = 0; // 0: any equal share of the mesh
  CompileOptions compile;
};

/// The global signature the inputs are checked against.
struct Signature {
  std::string entry;
  std::vector<std::string> names;       // e.g. "x", or "arg1"
  std::vector<std::string> sourceNames; // the source's SSA names ("%x"), if known
  std::vector<DType> dtypes;
  std::vector<Shape> shapes; // global
};

std::optional<int> parseRunOptions(const std::vector<std::string> &args, RunOptions &opts) {
  CommandLine cl;
  if (std::optional<int> code =
          parseCommandLine(args, "run",
                           withCompileFlags({"--entry", "--input", "--output-dir", "--backend",
                                             "--cache-dir", "--benchmark", "--local-devices"},
                                            false),
                           withCompileFlags({"--no-cache", "--cache-stats"}, true), runHelp(), cl))
    return *code;
  opts.file = cl.file;
  opts.entry = cl.get("--entry");
  opts.outputDir = cl.get("--output-dir", opts.outputDir);
  opts.backend = cl.get("--backend", opts.backend);
  opts.cacheDir = cl.get("--cache-dir", opts.cacheDir);
  opts.noCache = cl.has("--no-cache");
  opts.cacheStats = cl.has("--cache-stats");
  if (!readCompileOptions(cl, opts.compile))
    return kUsage;
  for (auto &[name, value] : cl.values) {
    if (name == "--input") {
      size_t sep = value.find('=');
      if (sep == std::string::npos || sep == 0 || sep + 1 == value.size()) {
        reportError("--input expects NAME=FILE.npy, got '" + value + "'");
        return kUsage;
      }
      opts.inputs.emplace_back(value.substr(0, sep), value.substr(sep + 1));
    } else if (name == "--benchmark") {
      opts.benchmark = std::atoi(value.c_str());
      if (opts.benchmark < 1) {
        reportError("--benchmark expects a positive count, got '" + value + "'");
        return kUsage;
      }
    } else if (name == "--local-devices") {
      opts.localDevices = std::atoi(value.c_str());
      if (opts.localDevices < 1) {
        reportError("--local-devices expects a positive count, got '" + value + "'");
        return kUsage;
      }
    }
  }
  if (opts.file.empty()) {
    reportError("'shardc run' needs a FILE.mlir or FILE.shardc (try --help)");
    return kUsage;
  }
  if (opts.backend != "cpu" && opts.backend != "cuda" && opts.backend != "reference") {
    reportError("backend '" + opts.backend + "' is not available (available: cpu, " +
                (cudaBackendBuilt() ? "cuda, " : "") + "reference)");
    return kFailed;
  }
  return std::nullopt;
}

std::string typeString(DType dtype, const Shape &shape) { return Array(dtype, shape).typeString(); }

/// The global signature of `fn` (for a partitioned function, its local types
/// scaled up by the argument shardings).
std::optional<Signature> signatureOf(func::FuncOp fn, const LoadedModule &loaded) {
  Signature sig{fn.getSymName().str(), {}, sourceArgumentNames(loaded, fn), {}, {}};
  auto meshRef = fn->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName);
  MeshOp mesh = meshRef ? lookupMesh(fn, meshRef) : MeshOp();
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto name = fn.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName);
    sig.names.push_back(name ? name.getValue().str() : "arg" + std::to_string(i));
    auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
    std::optional<DType> dtype = type ? toDType(type.getElementType()) : std::nullopt;
    if (!dtype) {
      reportError("argument '" + sig.names.back() + "' has a type shardc cannot run");
      return std::nullopt;
    }
    Shape shape(type.getShape().begin(), type.getShape().end());
    auto s = fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
    if (mesh && s)
      for (size_t d = 0; d < shape.size(); ++d)
        shape[d] *= getGroupSize(mesh, s.getDimAxes(d));
    sig.dtypes.push_back(*dtype);
    sig.shapes.push_back(shape);
  }
  return sig;
}

Signature signatureOf(const Plan &plan) {
  Signature sig{plan.entry, plan.argNames, {}, {}, plan.argGlobalShapes};
  for (int32_t id : plan.args)
    sig.dtypes.push_back(plan.values[id].dtype);
  return sig;
}

/// Reads and checks every input; nullopt (after one error line) on failure.
std::optional<std::vector<Array>> bindInputs(const Signature &sig, const RunOptions &opts) {
  size_t n = sig.names.size();
  std::map<std::string, size_t> byName;
  std::string known;
  // An argument answers to its shardc.name, to argN, and to the SSA name
  // the source gave it (%x, or x where no other argument has that name).
  for (size_t i = 0; i < n; ++i) {
    byName[sig.names[i]] = i;
    byName["arg" + std::to_string(i)] = i;
    bool ssa = i < sig.sourceNames.size() && !sig.sourceNames[i].empty() &&
               sig.sourceNames[i] != "%" + sig.names[i];
    known +=
        (known.empty() ? "" : ", ") + sig.names[i] + (ssa ? " (" + sig.sourceNames[i] + ")" : "");
  }
  for (size_t i = 0; i < sig.sourceNames.size(); ++i) {
    const std::string &ssa = sig.sourceNames[i];
    if (ssa.size() < 2 || ssa[0] != '%')
      continue;
    byName.emplace(ssa, i);
    byName.emplace(ssa.substr(1), i);
  }
  std::vector<std::optional<Array>> bound(n);
  for (auto &[name, path] : opts.inputs) {
    auto it = byName.find(name);
    if (it == byName.end()) {
      reportError("@" + sig.entry + " has no argument '" + name +
                  "' (arguments: " + (known.empty() ? "none" : known) + ")");
      return std::nullopt;
    }
    size_t i = it->second;
    if (bound[i]) {
      reportError("argument '" + sig.names[i] + "' is given more than once");
      return std::nullopt;
    }
    StatusOr<Array> array = readNpy(path);
    if (!array.ok()) {
      reportError("input '" + sig.names[i] + "': " + array.message());
      return std::nullopt;
    }
    // bf16 has no .npy dtype: it is read as f32 and rounded.
    if (sig.dtypes[i] == DType::BF16 && array->dtype() == DType::F32)
      *array = Array::fromDoubles(DType::BF16, array->shape(), array->toDoubles());
    if (array->dtype() != sig.dtypes[i] || array->shape() != sig.shapes[i]) {
      reportError("input '" + sig.names[i] + "' (argument #" + std::to_string(i) + ") must be " +
                  typeString(sig.dtypes[i], sig.shapes[i]) + ", but " + path + " holds " +
                  array->typeString());
      return std::nullopt;
    }
    bound[i] = std::move(*array);
  }
  std::vector<Array> inputs;
  for (size_t i = 0; i < n; ++i) {
    if (!bound[i]) {
      reportError("missing input for argument '" + sig.names[i] + "' (#" + std::to_string(i) +
                  ", " + typeString(sig.dtypes[i], sig.shapes[i]) + "); pass --input " +
                  sig.names[i] + "=FILE.npy");
      return std::nullopt;
    }
    inputs.push_back(std::move(*bound[i]));
  }
  return inputs;
}

/// `name` as one file name inside the output directory: characters other
/// than letters, digits, '_', '-' and '.' become '_', and so does a leading
/// '.', so no entry name (@"../x", @"a/b") reaches outside the directory.
std::string fileNameFor(const std::string &name) {
  std::string out = name.empty() ? "_" : name;
  for (char &c : out)
    if (!std::isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.')
      c = '_';
  if (out[0] == '.')
    out[0] = '_';
  return out;
}

int writeOutputs(const std::string &entry, const std::vector<Array> &results,
                 const std::string &dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    reportError("cannot create output directory '" + dir + "': " + ec.message());
    return kFailed;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    std::string path = dir + "/" + fileNameFor(entry) + ".result" + std::to_string(i) + ".npy";
    Status written = writeNpy(path, results[i]);
    if (!written.ok()) {
      reportError(written.message());
      return kFailed;
    }
    std::printf("wrote %s (%s)\n", path.c_str(), results[i].typeString().c_str());
  }
  return kOk;
}

/// The backend `opts.backend` names (cpu or cuda), or null after one error
/// line.
std::unique_ptr<Backend> createBackend(const RunOptions &opts) {
  if (opts.backend != "cuda") {
    // Fused steps run as JIT-compiled kernels unless SHARDC_FUSED_JIT=0,
    // kept beside the compile cache.
    installFusedJit(opts.noCache ? std::string() : opts.cacheDir);
    return createCpuBackend();
  }
  StatusOr<std::unique_ptr<Backend>> cuda = createCudaBackend();
  if (!cuda.ok()) {
    reportError("--backend cuda: " + cuda.message());
    return nullptr;
  }
  return std::move(*cuda);
}

int runPlanOn(Backend *backend, const Plan &plan, const std::vector<Array> &inputs,
              const RunOptions &opts) {
  if (opts.localDevices > 0) {
    StatusOr<std::shared_ptr<ProcessGroup>> world = worldProcessGroup();
    int processes = world.ok() && *world ? (*world)->size() : 1;
    if (plan.numDevices() != (int64_t)processes * opts.localDevices) {
      reportError(
          "the mesh of @" + plan.entry + " has " + std::to_string(plan.numDevices()) +
          " device(s), not " + std::to_string(processes) + " process(es) x " +
          std::to_string(opts.localDevices) + " local device(s)" +
          (plan.numDevices() % opts.localDevices == 0
               ? ": run it with mpirun -np " + std::to_string(plan.numDevices() / opts.localDevices)
               : std::string()));
      return kFailed;
    }
  }
  StatusOr<std::vector<Array>> results = runPlan(*backend, plan, inputs);
  if (!results.ok()) {
    reportError(results.message());
    return kFailed;
  }
  // Under an MPI launcher every process runs its devices and returns every
  // result; process 0 alone reports and writes them.
  StatusOr<std::shared_ptr<ProcessGroup>> world = worldProcessGroup();
  int processes = world.ok() && *world ? (*world)->size() : 1;
  bool quiet = processes > 1 && (*world)->rank() != 0;
  if (processes > 1 && !quiet)
    std::printf("ran @%s on %lld devices in %d processes\n", plan.entry.c_str(),
                (long long)plan.numDevices(), processes);
  else if (processes == 1 && (plan.numDevices() > 1 || !plan.mesh.axisNames.empty()))
    std::printf("ran @%s on %lld %s\n", plan.entry.c_str(), (long long)plan.numDevices(),
                opts.backend == "cuda" ? "GPUs" : "simulated devices");
  if (opts.benchmark > 0) {
    // Whole calls (split inputs, run, assemble results), after the warm-up
    // run above.
    std::vector<double> ms;
    for (int i = 0; i < opts.benchmark; ++i) {
      auto start = std::chrono::steady_clock::now();
      StatusOr<std::vector<Array>> again = runPlan(*backend, plan, inputs);
      auto end = std::chrono::steady_clock::now();
      if (!again.ok()) {
        reportError(again.message());
        return kFailed;
      }
      ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(ms.begin(), ms.end());
    if (!quiet)
      std::printf("{\"entry\": \"%s\", \"devices\": %lld, \"steps\": %zu, \"reps\": %d, "
                  "\"ms_median\": %.4f, \"ms_best\": %.4f}\n",
                  plan.entry.c_str(), (long long)plan.numDevices(), plan.steps.size(),
                  opts.benchmark, ms[ms.size() / 2], ms[0]);
  }
  return quiet ? kOk : writeOutputs(plan.entry, *results, opts.outputDir);
}
} // namespace

int runCommand(const std::vector<std::string> &args) {
  RunOptions opts;
  if (std::optional<int> code = parseRunOptions(args, opts))
    return *code;
  // The backend first: without a usable GPU, that is the one error to see.
  std::unique_ptr<Backend> backend;
  if (opts.backend != "reference" && !(backend = createBackend(opts)))
    return kFailed;

  // A compiled artifact runs as it is.
  StatusOr<std::string> head = readFile(opts.file);
  if (!head.ok()) {
    reportError(head.message());
    return kFailed;
  }
  if (looksLikeArtifact(*head)) {
    if (opts.backend == "reference") {
      reportError("the reference backend runs .mlir files; '" + opts.file +
                  "' is a compiled artifact (use --backend cpu)");
      return kFailed;
    }
    StatusOr<Plan> plan = deserializePlan(*head, opts.file);
    if (!plan.ok()) {
      reportError(plan.message());
      return kFailed;
    }
    if (std::string flag = opts.compile.conflictWith(plan->compileOptions); !flag.empty()) {
      reportError("--" + flag + ": '" + opts.file +
                  "' is a compiled artifact; it keeps the compile options it was compiled "
                  "with (" +
                  CompileOptions::describeRecord(plan->compileOptions) + ")");
      return kFailed;
    }
    if (!opts.entry.empty() && opts.entry != plan->entry) {
      reportError("'" + opts.file + "' holds @" + plan->entry + ", not @" + opts.entry);
      return kFailed;
    }
    std::optional<std::vector<Array>> inputs = bindInputs(signatureOf(*plan), opts);
    if (!inputs)
      return kFailed;
    return runPlanOn(backend.get(), *plan, *inputs, opts);
  }

  std::string error;
  std::unique_ptr<LoadedModule> loaded = loadModule(opts.file, error);
  if (!loaded)
    return kFailed; // the diagnostics were printed
  func::FuncOp fn = findEntry(*loaded->module, opts.entry, error);
  if (!fn) {
    reportError(error);
    return kFailed;
  }
  std::optional<Signature> sig = signatureOf(fn, *loaded);
  if (!sig)
    return kFailed;
  std::optional<std::vector<Array>> inputs = bindInputs(*sig, opts);
  if (!inputs)
    return kFailed;

  if (backend) {
    // Compiled plans are cached by everything they depend on: the program
    // text (locations included), the entry and the backend.
    CompileCache cache(opts.noCache ? std::string() : opts.cacheDir);
    CompileOptions options = opts.compile;
    options.useBackend(opts.backend);
    std::string key = CompileCache::keyFor({*head, sig->entry, opts.backend, options.key()});
    StatusOr<std::shared_ptr<const Plan>> plan = cache.getOrCompile(key, [&]() -> StatusOr<Plan> {
      FailureOr<Plan> compiled = compileToPlan(*loaded->module, fn, "", options);
      if (failed(compiled))
        return Status::error("compilation failed");
      return std::move(*compiled);
    });
    if (!plan.ok())
      return kFailed; // diagnostics were printed
    int code = runPlanOn(backend.get(), **plan, *inputs, opts);
    if (opts.cacheStats)
      std::printf("%s\n", cache.statsLine().c_str());
    return code;
  }

  // The reference interpreter; a sharded function runs partitioned, by the
  // passes every compile runs.
  if (failed(runCompilePipeline(*loaded->module, sig->entry, opts.compile)))
    return kFailed;
  bool partitioned = fn->hasAttr(ShardcDialect::kPartitionedAttrName);
  FailureOr<std::vector<Array>> results =
      partitioned ? interpretPartitioned(fn, *inputs) : interpret(fn, *inputs);
  if (failed(results))
    return kFailed; // the interpreter emitted a diagnostic at the failing op
  if (partitioned) {
    auto meshRef = fn->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName);
    std::printf("ran @%s on %lld simulated devices\n", sig->entry.c_str(),
                (long long)lookupMesh(fn, meshRef).getNumDevices());
  }
  return writeOutputs(sig->entry, *results, opts.outputDir);
}

} // namespace shardc::driver
