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
const char kCompileUsage[] = "usage: shardc compile FILE.mlir -o FILE.shardc [--entry NAME]\n"
                             "                      [--backend cpu|cuda] [--dump-stages DIR]\n";
const char kCompileOwnHelp[] =
    "\n"
    "  -o FILE             the artifact to write\n"
    "  --entry NAME        function to compile (default: main, or the only public one)\n"
    "  --backend NAME      cpu or cuda (the plan format every backend runs)\n"
    "  --dump-stages DIR   write 01-propagated.mlir, 02-partitioned.mlir, 03-plan.txt\n";

std::string compileHelp() {
  return kCompileUsage + compileOptionsUsage(22) + kCompileOwnHelp +
         compileOptionsHelp("compile options:");
}
} // namespace

int compileCommand(const std::vector<std::string> &args) {
  CommandLine cl;
  if (std::optional<int> code = parseCommandLine(
          args, "compile", withCompileFlags({"-o", "--entry", "--dump-stages", "--backend"}, false),
          withCompileFlags({}, true), compileHelp(), cl))
    return *code;
  std::string file = cl.file, output = cl.get("-o"), entry = cl.get("--entry"),
              dumpDir = cl.get("--dump-stages"), backend = cl.get("--backend", "cpu");
  if (file.empty() || output.empty()) {
    reportError("'shardc compile' needs FILE.mlir and -o FILE.shardc (try --help)");
    return kUsage;
  }
  // One plan format runs on every backend; the name is checked, not used.
  if (backend != "cpu" && backend != "cuda") {
    reportError("backend '" + backend + "' is not available (available: cpu, cuda)");
    return kFailed;
  }
  CompileOptions options;
  if (!readCompileOptions(cl, options))
    return kUsage;
  std::string error;
  std::unique_ptr<LoadedModule> loaded = loadModule(file, error);
  if (!loaded)
    return kFailed; // the diagnostics were printed
  mlir::func::FuncOp fn = findEntry(*loaded->module, entry, error);
  if (!fn) {
    reportError(error);
    return kFailed;
  }
  mlir::FailureOr<Plan> plan = compileToPlan(*loaded->module, fn, dumpDir, options);
  if (mlir::failed(plan))
    return kFailed;
  Status written = writeArtifact(output, *plan);
  if (!written.ok()) {
    reportError(written.message());
    return kFailed;
  }
  std::string products =
      options.precision == MatmulPrecision::F32
          ? ""
          : std::string(", ") + matmulPrecisionName(options.precision) + " products";
  std::printf("compiled @%s for %lld device(s): %zu steps, %lld bytes of buffers per "
              "device%s -> %s\n",
              plan->entry.c_str(), (long long)plan->numDevices(), plan->steps.size(),
              (long long)plan->arenaBytes, products.c_str(), output.c_str());
  return kOk;
}

} // namespace shardc::driver
