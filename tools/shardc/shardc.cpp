//===- shardc.cpp - the shardc compiler driver ----------------------------===//
//
// `shardc <command> ...`: the user-facing entry point. Each command lives in
// its own file; this one dispatches and prints help.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

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
    "\n"
    "Run 'shardc <command> --help' for the options of a command.\n";

void shardc::driver::reportError(const std::string &message) {
  std::fprintf(stderr, "shardc: error: %s\n", message.c_str());
}

std::string CommandLine::get(const std::string &name, const std::string &fallback) const {
  for (auto it = values.rbegin(); it != values.rend(); ++it)
    if (it->first == name)
      return it->second;
  return fallback;
}

bool CommandLine::has(const std::string &flag) const {
  for (const std::string &f : flags)
    if (f == flag)
      return true;
  return false;
}

std::optional<int> shardc::driver::parseCommandLine(
    const std::vector<std::string> &args, const std::string &command,
    const std::vector<std::string> &valueOptions,
    const std::vector<std::string> &flagOptions, const char *help, CommandLine &out) {
  auto contains = [](const std::vector<std::string> &list, const std::string &x) {
    for (const std::string &y : list)
      if (x == y)
        return true;
    return false;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(help, stdout);
      return kOk;
    }
    if (arg.empty() || arg[0] != '-') {
      if (!out.file.empty()) {
        reportError("more than one input file: '" + out.file + "' and '" + arg + "'");
        return kUsage;
      }
      out.file = arg;
      continue;
    }
    if (contains(flagOptions, arg)) {
      out.flags.push_back(arg);
      continue;
    }
    std::string value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (contains(valueOptions, arg)) {
      if (i + 1 >= args.size()) {
        reportError("option '" + arg + "' needs a value");
        return kUsage;
      }
      value = args[++i];
    }
    if (!contains(valueOptions, arg)) {
      reportError("unknown option '" + arg + "' for 'shardc " + command + "' (try --help)");
      return kUsage;
    }
    out.values.emplace_back(arg, value);
  }
  return std::nullopt;
}

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? kUsage : kOk;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "run")
    return runCommand(args);
  if (command == "compile")
    return compileCommand(args);
  if (command == "explain")
    return explainCommand(args);
  reportError("unknown command '" + command + "' (try 'shardc --help')");
  return kUsage;
}
