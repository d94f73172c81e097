//===- Commands.h - the subcommands of the shardc driver --------*- C++ -*-===//

#ifndef SHARDC_TOOLS_SHARDC_COMMANDS_H
#define SHARDC_TOOLS_SHARDC_COMMANDS_H

#include "shardc/Common/CompileOptions.h"
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
  /// Whether `name` was given a value.
  bool given(const std::string &name) const;
  bool has(const std::string &flag) const;
};

/// Parses `args` for `command`, knowing which options take values and which
/// are flags. Returns an exit code when parsing ends the command: after
/// printing `help` for --help, or an error for an unknown option, a missing
/// value, or a second input file.
std::optional<int> parseCommandLine(const std::vector<std::string> &args,
                                    const std::string &command,
                                    const std::vector<std::string> &valueOptions,
                                    const std::vector<std::string> &flagOptions,
                                    const std::string &help, CommandLine &out);

/// The driver's flags of the compile options (CompileOptions.def, Driver
/// scope), with their "--": those that take a value ("--precision"), and
/// the on/off ones ("--pad-uneven").
std::vector<std::string> compileValueFlags();
std::vector<std::string> compileOnOffFlags();
/// `list` and the value flags (or, with `onOff`, the on/off flags) of the
/// compile options, for parseCommandLine.
std::vector<std::string> withCompileFlags(std::vector<std::string> list, bool onOff);

/// Reads every compile option given on `cl` into `options`; false, after
/// an error naming the flag and what is wrong, for a bad value or a
/// combination that does not go together.
bool readCompileOptions(const CommandLine &cl, CompileOptions &options);

/// The compile options' usage ("[--pad-uneven] [--precision NAME] ..."),
/// lines `indent` spaces in, and their help under `heading`, as every
/// command that compiles prints them.
std::string compileOptionsUsage(size_t indent);
std::string compileOptionsHelp(const std::string &heading);

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
