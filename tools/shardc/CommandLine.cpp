//===- CommandLine.cpp - what the driver's commands share -----------------===//
//
// Error reporting and the command-line parser of every `shardc` command
// (see Commands.h); with the commands, a library the driver and the fuzzer
// (tools/shardc-fuzz) link.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Conversion/ShardcToPlan.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace shardc::driver;

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

bool shardc::driver::precisionOption(const CommandLine &cl, MatmulPrecision &precision) {
  std::string name = cl.get("--precision", "f32");
  if (parseMatmulPrecision(name, precision))
    return true;
  reportError("--precision: unknown precision '" + name + "' (choices: f32, bf16, tf32)");
  return false;
}

bool shardc::driver::bucketBytesOption(const CommandLine &cl, int64_t &bytes) {
  std::string text = cl.get("--allreduce-bucket-bytes");
  if (text.empty()) {
    bytes = kDefaultAllReduceBucketBytes;
    return true;
  }
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == 0 && end && *end == '\0' && value >= 0 && text[0] != '-' && text[0] != '+' &&
      text[0] != ' ') {
    bytes = value;
    return true;
  }
  reportError("--allreduce-bucket-bytes: expected a number of bytes (0 or more; 0 merges "
              "nothing), got '" +
              text + "'");
  return false;
}

bool shardc::driver::linkOption(const CommandLine &cl, LinkModel &link) {
  std::string latency = cl.get("--link-latency-ns"), bandwidth = cl.get("--link-bytes-per-s");
  link = {};
  if (latency.empty() && bandwidth.empty())
    return true;
  if (latency.empty() || bandwidth.empty()) {
    reportError("--link-latency-ns and --link-bytes-per-s go together: give both or neither");
    return false;
  }
  auto positive = [](const std::string &text, const char *name, double &value) {
    char *end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    if (errno == 0 && end && *end == '\0' && !text.empty() && text[0] != ' ' &&
        std::isfinite(value) && value > 0)
      return true;
    reportError(std::string(name) + ": expected a positive number, got '" + text + "'");
    return false;
  };
  double ns = 0, bytesPerS = 0;
  if (!positive(latency, "--link-latency-ns", ns) ||
      !positive(bandwidth, "--link-bytes-per-s", bytesPerS))
    return false;
  link = {ns * 1e-9, bytesPerS};
  return true;
}

std::optional<int> shardc::driver::parseCommandLine(const std::vector<std::string> &args,
                                                    const std::string &command,
                                                    const std::vector<std::string> &valueOptions,
                                                    const std::vector<std::string> &flagOptions,
                                                    const char *help, CommandLine &out) {
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
