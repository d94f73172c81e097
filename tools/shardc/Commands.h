//===- Commands.h - the subcommands of the shardc driver --------*- C++ -*-===//

#ifndef SHARDC_TOOLS_SHARDC_COMMANDS_H
#define SHARDC_TOOLS_SHARDC_COMMANDS_H

#include <string>
#include <vector>

namespace shardc::driver {

/// Exit codes: 0 success, 1 the job failed (bad input, runtime error),
/// 2 the command line is wrong.
enum ExitCode { kOk = 0, kFailed = 1, kUsage = 2 };

/// Prints "shardc: error: <message>" to stderr.
void reportError(const std::string &message);

/// `shardc run FILE.mlir [--entry NAME] [--input NAME=FILE.npy]...
///                       [--output-dir DIR] [--backend reference]`
int runCommand(const std::vector<std::string> &args);

/// `shardc compile FILE.mlir -o FILE.shardc [--entry NAME] [--dump-stages DIR]`
int compileCommand(const std::vector<std::string> &args);

/// `shardc explain FILE.mlir [--entry NAME] [--show NAME]`
int explainCommand(const std::vector<std::string> &args);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_COMMANDS_H
