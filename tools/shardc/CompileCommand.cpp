//===- CompileCommand.cpp - shardc compile --------------------------------===//
//
// Compiles a function to a self-contained .shardc artifact that `shardc run`
// executes without the compiler, optionally writing every stage.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Pipeline/Pipeline.h"

#include "shardc/Runtime/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdio>

namespace shardc::driver {

namespace {
const char kCompileHelp[] =
    "usage: shardc compile FILE.mlir -o FILE.shardc [--entry NAME]\n"
    "                      [--backend cpu] [--dump-stages DIR]\n"
    "\n"
    "  -o FILE             the artifact to write\n"
    "  --entry NAME        function to compile (default: main, or the only public one)\n"
    "  --backend NAME      cpu (the plan format every backend runs)\n"
    "  --dump-stages DIR   write 01-propagated.mlir, 02-partitioned.mlir, 03-plan.txt\n";
} // namespace

int compileCommand(const std::vector<std::string> &args) {
  std::string file, output, entry, dumpDir, backend = "cpu";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kCompileHelp, stdout);
      return kOk;
    }
    if (arg.rfind("-", 0) != 0) {
      if (!file.empty()) {
        reportError("more than one input file: '" + file + "' and '" + arg + "'");
        return kUsage;
      }
      file = arg;
      continue;
    }
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      reportError("option '" + arg + "' needs a value");
      return kUsage;
    }
    if (arg == "-o")
      output = value;
    else if (arg == "--entry")
      entry = value;
    else if (arg == "--dump-stages")
      dumpDir = value;
    else if (arg == "--backend")
      backend = value;
    else {
      reportError("unknown option '" + arg + "' for 'shardc compile' (try --help)");
      return kUsage;
    }
  }
  if (file.empty() || output.empty()) {
    reportError("'shardc compile' needs FILE.mlir and -o FILE.shardc (try --help)");
    return kUsage;
  }
  if (backend != "cpu") {
    reportError("backend '" + backend + "' is not available in this build (available: cpu)");
    return kFailed;
  }
  std::string error;
  std::unique_ptr<LoadedModule> loaded = loadModule(file, error);
  if (!loaded)
    return kFailed; // the diagnostics were printed
  mlir::func::FuncOp fn = findEntry(*loaded->module, entry, error);
  if (!fn) {
    reportError(error);
    return kFailed;
  }
  mlir::FailureOr<Plan> plan = compileToPlan(*loaded->module, fn, dumpDir);
  if (mlir::failed(plan))
    return kFailed;
  Status written = writeArtifact(output, *plan);
  if (!written.ok()) {
    reportError(written.message());
    return kFailed;
  }
  std::printf("compiled @%s for %lld device(s): %zu steps, %lld bytes of buffers per "
              "device -> %s\n",
              plan->entry.c_str(), (long long)plan->numDevices(), plan->steps.size(),
              (long long)plan->arenaBytes, output.c_str());
  return kOk;
}

} // namespace shardc::driver
