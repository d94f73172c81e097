//===- Commands.h - the subcommands of the shardc driver --------*- C++ -*-===//

#ifndef SHARDC_TOOLS_SHARDC_COMMANDS_H
#define SHARDC_TOOLS_SHARDC_COMMANDS_H

#include "shardc/Common/CollectiveCost.h"
#include "shardc/Runtime/Plan.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardc::driver {

/// Exit codes: 0 success, 1 the job failed (bad input, runtime error),
/// 2 the command line is wrong.
enum ExitCode { kOk = 0, kFailed = 1, kUsage = 2 };

/// Prints "shardc: error: <message>" to stderr.
void reportError(const std::string &message);

/// A command line split into one input file, options with values
/// (`--name VALUE` or `--name=VALUE`, repeatable) and flags.
struct CommandLine {
  std::string file;
  std::vector<std::pair<std::string, std::string>> values; // in order
  std::vector<std::string> flags;

  /// The last value of `name`, or `fallback`.
  std::string get(const std::string &name, const std::string &fallback = "") const;
  bool has(const std::string &flag) const;
};

/// Parses `args` for `command`, knowing which options take values and which
/// are flags. Returns an exit code when parsing ends the command: after
/// printing `help` for --help, or an error for an unknown option, a missing
/// value, or a second input file.
std::optional<int> parseCommandLine(const std::vector<std::string> &args,
                                    const std::string &command,
                                    const std::vector<std::string> &valueOptions,
                                    const std::vector<std::string> &flagOptions, const char *help,
                                    CommandLine &out);

/// The value of `--precision` (f32 when absent) in `precision`; false,
/// after an error that lists the choices, for any other name.
bool precisionOption(const CommandLine &cl, MatmulPrecision &precision);

/// The value of `--allreduce-bucket-bytes` (4 MiB when absent) in `bytes`;
/// false, after an error, for anything but a number of bytes.
bool bucketBytesOption(const CommandLine &cl, int64_t &bytes);

/// `--link-latency-ns` and `--link-bytes-per-s` (both or neither, each a
/// positive number) in `link`; false, after an error, otherwise.
bool linkOption(const CommandLine &cl, LinkModel &link);

/// `shardc run FILE.mlir [--entry NAME] [--input NAME=FILE.npy]...
///                       [--output-dir DIR] [--backend reference]`
int runCommand(const std::vector<std::string> &args);

/// `shardc compile FILE.mlir -o FILE.shardc [--entry NAME] [--dump-stages DIR]
///                 [--precision f32|bf16|tf32]`
int compileCommand(const std::vector<std::string> &args);

/// `shardc explain FILE.mlir [--entry NAME] [--show NAME]`
int explainCommand(const std::vector<std::string> &args);

/// `shardc import FILE.mlir [-o OUT.mlir]`: a StableHLO module in the
/// shardc dialect.
int importCommand(const std::vector<std::string> &args);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_COMMANDS_H
