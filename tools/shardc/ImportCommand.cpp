//===- ImportCommand.cpp - shardc import ----------------------------------===//
//
// Writes the shardc-dialect module a StableHLO module (as JAX prints it)
// imports to. The other commands import such modules themselves; this one
// shows what they run, and keeps it for editing.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Pipeline/Pipeline.h"
#include "shardc/Runtime/File.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace shardc::driver {

namespace {
const char kImportHelp[] =
    "usage: shardc import FILE.mlir [-o OUT.mlir]\n"
    "\n"
    "Converts a StableHLO module (what jax.jit(f).lower(...).as_text() prints, with\n"
    "Shardy or GSPMD shardings) to the shardc dialect. run, compile and explain\n"
    "read such modules directly; docs/stablehlo.md lists what is supported.\n"
    "\n"
    "  -o FILE   where to write the module (default: standard output); written\n"
    "            whole or not at all\n";
} // namespace

int importCommand(const std::vector<std::string> &args) {
  CommandLine cl;
  if (std::optional<int> code = parseCommandLine(args, "import", {"-o"}, {}, kImportHelp, cl))
    return *code;
  if (cl.file.empty()) {
    reportError("'shardc import' needs FILE.mlir (try --help)");
    return kUsage;
  }
  std::string error;
  std::unique_ptr<LoadedModule> loaded = loadModule(cl.file, error);
  if (!loaded)
    return kFailed; // the diagnostics were printed
  std::string text;
  llvm::raw_string_ostream os(text);
  loaded->module->print(os);
  std::string output = cl.get("-o");
  if (output.empty() || output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kOk;
  }
  Status written = writeFileAtomically(output, text);
  if (!written.ok()) {
    reportError(written.message());
    return kFailed;
  }
  return kOk;
}

} // namespace shardc::driver
