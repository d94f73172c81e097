//===- Cli.h - shardc-gpt's command-line helpers ---------------*- C++ -*-===//
//
// What both commands share: the usage text and errors, number and mesh
// options, and the median of a series.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_MODELS_TRANSFORMER_CLI_H
#define SHARDC_MODELS_TRANSFORMER_CLI_H

#include "Model.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpt::cli {

/// Prints the error and the usage; exit code 2.
[[noreturn]] void usage(const std::string &why);
/// --help: the usage on stdout, exit 0.
[[noreturn]] void help();
/// Prints the error; exit code 1.
[[noreturn]] void die(const std::string &why);

/// The command's options as (--name, value) pairs; --help, and an option
/// without a value, end the program with the usage.
std::vector<std::pair<std::string, std::string>> optionPairs(int argc, char **argv);
/// An integer >= min, or the usage.
int64_t toInt(const std::string &opt, const std::string &v, int64_t min);
/// A finite number >= 0, or the usage.
double toDouble(const std::string &opt, const std::string &v);
/// f32, bf16 or tf32, or the usage (listing them).
std::string toPrecision(const std::string &opt, const std::string &v);
/// "on" or "off" (a usage error otherwise).
/// --remat's value: none, block or dots.
Remat toRemat(const std::string &opt, const std::string &v);
const char *rematName(Remat r);
Attention toAttention(const std::string &opt, const std::string &v);
const char *attentionName(Attention a);
bool toOnOff(const std::string &opt, const std::string &v);
/// The mesh from --mesh data=D,model=M (or --devices N: data=N), checked
/// against --devices.
void resolveMesh(const std::string &meshText, int64_t devices, int64_t &data, int64_t &model);

double median(std::vector<double> v);

/// The commands: argv[1] is the command's name.
int trainMain(int argc, char **argv);
int generateMain(int argc, char **argv);
int planMain(int argc, char **argv);

} // namespace gpt::cli

#endif // SHARDC_MODELS_TRANSFORMER_CLI_H
