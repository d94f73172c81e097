//===- RunCommand.cpp - shardc run ----------------------------------------===//
//
// Loads a module, binds .npy files to the entry function's arguments, runs it
// and writes each result to <output-dir>/<entry>.result<i>.npy. Every input
// is checked before anything runs, and outputs are written only after the
// whole run succeeded, each atomically.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "mlir/Support/FileUtilities.h"

#include <cstdio>
#include <map>

using namespace mlir;

namespace shardc::driver {

namespace {
const char kRunHelp[] =
    "usage: shardc run FILE.mlir [--entry NAME] [--input NAME=FILE.npy]...\n"
    "                  [--output-dir DIR] [--backend reference]\n"
    "\n"
    "  --entry NAME        function to run (default: main, or the only public one)\n"
    "  --input NAME=FILE   .npy file for the argument NAME (its shardc.name, or\n"
    "                      argN for argument N); every argument needs one\n"
    "  --output-dir DIR    where to write <entry>.result<i>.npy (default: .)\n"
    "  --backend NAME      reference (the interpreter)\n";

struct RunOptions {
  std::string file;
  std::string entry;
  std::vector<std::pair<std::string, std::string>> inputs; // name, path
  std::string outputDir = ".";
  std::string backend = "reference";
};

/// Parses `args`; returns an exit code when parsing ends the command.
std::optional<int> parseRunOptions(const std::vector<std::string> &args,
                                   RunOptions &opts) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kRunHelp, stdout);
      return kOk;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!opts.file.empty()) {
        reportError("more than one input file: '" + opts.file + "' and '" + arg + "'");
        return kUsage;
      }
      opts.file = arg;
      continue;
    }
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg == "--entry" || arg == "--input" || arg == "--output-dir" ||
               arg == "--backend") {
      if (i + 1 >= args.size()) {
        reportError("option '" + arg + "' needs a value");
        return kUsage;
      }
      value = args[++i];
    }
    if (arg == "--entry") {
      opts.entry = value;
    } else if (arg == "--output-dir") {
      opts.outputDir = value;
    } else if (arg == "--backend") {
      opts.backend = value;
    } else if (arg == "--input") {
      size_t sep = value.find('=');
      if (sep == std::string::npos || sep == 0 || sep + 1 == value.size()) {
        reportError("--input expects NAME=FILE.npy, got '" + value + "'");
        return kUsage;
      }
      opts.inputs.emplace_back(value.substr(0, sep), value.substr(sep + 1));
    } else {
      reportError("unknown option '" + arg + "' for 'shardc run' (try --help)");
      return kUsage;
    }
  }
  if (opts.file.empty()) {
    reportError("'shardc run' needs a FILE.mlir (try --help)");
    return kUsage;
  }
  if (opts.backend != "reference") {
    reportError("backend '" + opts.backend +
                "' is not available in this build (available: reference)");
    return kFailed;
  }
  return std::nullopt;
}

/// The driver's name for argument `i` of `fn`.
std::string argName(func::FuncOp fn, unsigned i) {
  if (auto name = fn.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName))
    return name.getValue().str();
  return "arg" + std::to_string(i);
}

/// The global type of argument `i`: its type, or for a partitioned function
/// the local type scaled up by its sharding.
RankedTensorType globalArgType(func::FuncOp fn, unsigned i) {
  auto type = cast<RankedTensorType>(fn.getArgumentTypes()[i]);
  auto meshRef = fn->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName);
  auto s = fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
  MeshOp mesh = meshRef ? lookupMesh(fn, meshRef) : MeshOp();
  if (!mesh || !s)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] *= getGroupSize(mesh, s.getDimAxes(d));
  return RankedTensorType::get(shape, type.getElementType());
}

/// Chooses the entry function: --entry, else @main, else the only public one.
func::FuncOp findEntry(ModuleOp module, const std::string &requested) {
  std::vector<func::FuncOp> candidates;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal())
      candidates.push_back(fn);
  auto names = [&] {
    std::string s;
    for (auto fn : candidates)
      s += (s.empty() ? "@" : ", @") + fn.getSymName().str();
    return s.empty() ? std::string("none") : s;
  };
  std::string want = requested.empty() ? "main" : requested;
  for (auto fn : candidates)
    if (fn.getSymName() == want)
      return fn;
  if (requested.empty()) {
    std::vector<func::FuncOp> pub;
    for (auto fn : candidates)
      if (fn.isPublic())
        pub.push_back(fn);
    if (pub.size() == 1)
      return pub[0];
    reportError("no @main function; choose one with --entry (functions: " + names() +
                ")");
  } else {
    reportError("no function @" + requested + " (functions: " + names() + ")");
  }
  return {};
}
} // namespace

int runCommand(const std::vector<std::string> &args) {
  RunOptions opts;
  if (std::optional<int> code = parseRunOptions(args, opts))
    return *code;

  MLIRContext context;
  context.loadDialect<ShardcDialect, func::FuncDialect>();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto buffer = openInputFile(opts.file, &error);
  if (!buffer) {
    reportError("cannot open '" + opts.file + "': " + error);
    return kFailed;
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return kFailed; // the parser or verifier printed why

  func::FuncOp fn = findEntry(*module, opts.entry);
  if (!fn)
    return kFailed;
  std::string entry = fn.getSymName().str();

  // Bind inputs to arguments by name.
  unsigned numArgs = fn.getNumArguments();
  std::map<std::string, unsigned> byName;
  std::string known;
  for (unsigned i = 0; i < numArgs; ++i) {
    byName[argName(fn, i)] = i;
    byName["arg" + std::to_string(i)] = i;
    known += (known.empty() ? "" : ", ") + argName(fn, i);
  }
  std::vector<std::optional<Array>> bound(numArgs);
  for (auto &[name, path] : opts.inputs) {
    auto it = byName.find(name);
    if (it == byName.end()) {
      reportError("@" + entry + " has no argument '" + name + "' (arguments: " +
                  (known.empty() ? "none" : known) + ")");
      return kFailed;
    }
    unsigned i = it->second;
    if (bound[i]) {
      reportError("argument '" + argName(fn, i) + "' is given more than once");
      return kFailed;
    }
    StatusOr<Array> array = readNpy(path);
    if (!array.ok()) {
      reportError("input '" + argName(fn, i) + "': " + array.message());
      return kFailed;
    }
    RankedTensorType type = globalArgType(fn, i);
    std::optional<DType> dtype = toDType(type.getElementType());
    if (!dtype) {
      reportError("argument '" + argName(fn, i) + "' has unsupported type " +
                  std::to_string(i));
      return kFailed;
    }
    // bf16 has no .npy dtype: it is read as f32 and rounded.
    if (*dtype == DType::BF16 && array->dtype() == DType::F32)
      *array = Array::fromDoubles(DType::BF16, array->shape(), array->toDoubles());
    Shape shape(type.getShape().begin(), type.getShape().end());
    if (array->dtype() != *dtype || array->shape() != shape) {
      std::string expected;
      llvm::raw_string_ostream os(expected);
      os << type;
      reportError("input '" + argName(fn, i) + "' (argument #" + std::to_string(i) +
                  ") must be " + expected + ", but " + path + " holds " +
                  array->typeString());
      return kFailed;
    }
    bound[i] = std::move(*array);
  }
  std::vector<Array> inputs;
  for (unsigned i = 0; i < numArgs; ++i) {
    if (!bound[i]) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << globalArgType(fn, i);
      reportError("missing input for argument '" + argName(fn, i) + "' (#" +
                  std::to_string(i) + ", " + type + "); pass --input " +
                  argName(fn, i) + "=FILE.npy");
      return kFailed;
    }
    inputs.push_back(std::move(*bound[i]));
  }

  // A sharded function runs partitioned, on the devices of its mesh.
  FailureOr<MeshOp> mesh = findFunctionMesh(fn);
  if (failed(mesh))
    return kFailed;
  bool partitioned = fn->hasAttr(ShardcDialect::kPartitionedAttrName);
  if (*mesh && !partitioned) {
    if (failed(propagateShardings(fn)) || failed(partitionFunction(fn)) ||
        failed(verify(*module)))
      return kFailed;
    partitioned = true;
  }
  FailureOr<std::vector<Array>> results =
      partitioned ? interpretPartitioned(fn, inputs) : interpret(fn, inputs);
  if (failed(results))
    return kFailed; // the interpreter emitted a diagnostic at the failing op
  if (partitioned) {
    auto meshRef = fn->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName);
    std::printf("ran @%s on %lld simulated devices (mesh @%s)\n", entry.c_str(),
                (long long)lookupMesh(fn, meshRef).getNumDevices(),
                meshRef.getValue().str().c_str());
  }

  if (std::error_code ec = llvm::sys::fs::create_directories(opts.outputDir)) {
    reportError("cannot create output directory '" + opts.outputDir +
                "': " + ec.message());
    return kFailed;
  }
  for (size_t i = 0; i < results->size(); ++i) {
    std::string path = opts.outputDir + "/" + entry + ".result" + std::to_string(i) + ".npy";
    Status written = writeNpy(path, (*results)[i]);
    if (!written.ok()) {
      reportError(written.message());
      return kFailed;
    }
    std::printf("wrote %s (%s)\n", path.c_str(), (*results)[i].typeString().c_str());
  }
  return kOk;
}

} // namespace shardc::driver
