//===- shardc.cpp - the shardc compiler driver ----------------------------===//
//
// `shardc <command> ...`: the user-facing entry point. Each command lives in
// its own file; this one dispatches and prints help.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Runtime/ProcessGroup.h"

#include <cstdio>
#include <cstring>
#include <optional>

using namespace shardc::driver;

static const char kHelp[] =
    "usage: shardc <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile FILE.mlir -o FILE.shardc [--entry NAME] [--dump-stages DIR]\n"
    "      Compiles a function (propagated, partitioned, planned) to an artifact.\n"
    "  run FILE.mlir|FILE.shardc [--entry NAME] [--input NAME=FILE.npy]...\n"
    "                [--output-dir DIR] [--backend cpu|reference]\n"
    "      Runs a function on .npy inputs and writes <entry>.result<i>.npy.\n"
    "      Arguments are named by their shardc.name attribute, or arg0, arg1, ...\n"
    "  explain FILE.mlir [--entry NAME] [--show NAME]\n"
    "      Shows the sharding of every value and where it came from, and every\n"
    "      collective partitioning inserts, with its cause and bytes sent.\n"
    "  import FILE.mlir [-o OUT.mlir]\n"
    "      Converts a StableHLO module (as JAX prints it) to the shardc dialect.\n"
    "      The other commands also read StableHLO modules directly.\n"
    "\n"
    "Run 'shardc <command> --help' for the options of a command.\n";

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? kUsage : kOk;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "run") // under mpirun, a failing process ends the run
    return shardc::endRun(runCommand(args));
  if (command == "compile")
    return compileCommand(args);
  if (command == "explain")
    return explainCommand(args);
  if (command == "import")
    return importCommand(args);
  reportError("unknown command '" + command + "' (try 'shardc --help')");
  return kUsage;
}
