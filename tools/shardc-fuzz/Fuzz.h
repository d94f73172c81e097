//===- Fuzz.h - shardc's fuzz targets and their mutation engine -*- C++ -*-===//
//
// A fuzz target takes any bytes and must return, having either accepted them
// or rejected them with a clear error: a crash, a hang, an exception or an
// allocation of absurd size is a finding. `shardc-fuzz` mutates seed inputs
// (the project's own test files and built-in examples) and feeds them to a
// target; every finding is saved as a file to replay (test/fuzz/).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TOOLS_SHARDC_FUZZ_FUZZ_H
#define SHARDC_TOOLS_SHARDC_FUZZ_FUZZ_H

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace shardc {
struct Plan;
}

namespace shardc::fuzz {

struct Target {
  std::string name;        // "npy", "artifact", "safetensors", "mlir"
  std::string description; // one line for --help
  /// Built-in seeds (valid inputs), beside the files given on the command
  /// line.
  std::function<std::vector<std::string>()> seeds;
  /// Runs one input and says whether it was accepted (a valid input);
  /// returns normally either way. Accepted mutants join the corpus.
  std::function<bool(const std::string &)> run;
  /// File extensions of seed files this target reads from a directory.
  std::vector<std::string> extensions;
  /// What an input that gets through the readers reaches ("ran a plan",
  /// "lowered"): `run` calls reached() when it gets there. Every built-in
  /// seed must; --min-reach sets the share of mutants that must.
  std::string stage;
  /// Optional: a mutation that knows the format (changes a field of a
  /// decoded input and encodes it again); used for half of the mutants.
  std::function<std::string(const std::string &, std::mt19937_64 &)> mutateFields;
};

/// Marks the input now running as having reached its target's stage.
void reached();

/// The targets without the compiler (RuntimeTargets.cpp) and, when it is
/// built, the MLIR one (CompilerTargets.cpp).
std::vector<Target> runtimeTargets();
std::vector<Target> compilerTargets();

/// Runs a plan that loaded or compiled on zero inputs, when it is small
/// enough to run in a moment (8 devices, 64 MiB): a plan that validation
/// accepts must run without crashing. Calls reached() when it runs.
void runLoadedPlan(const Plan &plan);

/// One of the values byte mutations write (0, -1, sizes near powers of two,
/// the integer limits).
int64_t interestingValue(std::mt19937_64 &rng);

/// Byte-level mutations, plus splices with another seed; deterministic in
/// the generator.
std::string mutate(const std::string &input, const std::vector<std::string> &corpus,
                   std::mt19937_64 &rng);

} // namespace shardc::fuzz

#endif // SHARDC_TOOLS_SHARDC_FUZZ_FUZZ_H
