//===- CompileOptions.h - the options of a compile, from one table -*- C++ -*-===//
//
// MLIR-free: the driver, shardc-opt's pipeline, the embedding API, the
// compile cache and artifacts all read the options of a compile from this
// struct, whose fields, flags, defaults, help, parsers and cache key come
// from CompileOptions.def. A new option is one line there plus its use.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMMON_COMPILEOPTIONS_H
#define SHARDC_COMMON_COMPILEOPTIONS_H

#include "shardc/Common/CollectiveCost.h"
#include "shardc/Common/MatmulPrecision.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

/// All_reduces of independent values merge into buckets of up to this many
/// bytes unless a compile says otherwise.
constexpr int64_t kDefaultAllReduceBucketBytes = int64_t(4) << 20;

/// How the text of each kind of option is read and written. `parse` leaves
/// `out` as it was and returns what is wrong ("expected ...") on bad text.
namespace option_kinds {
/// On or off: "1"/"0", "true"/"false" (a driver flag given alone is "1").
struct Flag {
  using type = bool;
  static std::string parse(const std::string &text, bool &out);
  static std::string format(bool v) { return v ? "1" : "0"; }
  static const char *example() { return "1"; }
};
/// A number of bytes, 0 or more.
struct Bytes {
  using type = int64_t;
  static std::string parse(const std::string &text, int64_t &out);
  static std::string format(int64_t v) { return std::to_string(v); }
  static const char *example() { return "12345"; }
};
/// A positive real number (0, the default, means "not given").
struct Positive {
  using type = double;
  static std::string parse(const std::string &text, double &out);
  static std::string format(double v);
  static const char *example() { return "250"; }
};
/// "f32", "bf16" or "tf32".
struct Precision {
  using type = MatmulPrecision;
  static std::string parse(const std::string &text, MatmulPrecision &out);
  static std::string format(MatmulPrecision v) { return matmulPrecisionName(v); }
  static const char *example() { return "bf16"; }
};
} // namespace option_kinds

struct CompileOptions {
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  option_kinds::KIND::type FIELD = DEFAULT;
#include "shardc/Common/CompileOptions.def"

  /// Who sets an option (CompileOptions.def).
  enum class Scope { Driver, Backend };
  /// One option as the table declares it.
  struct Info {
    const char *flag;    // "precision"
    const char *metavar; // "NAME" ("" for an on/off flag)
    Scope scope;
    const char *help;
    bool isFlag;         // on/off: `--pad-uneven` alone on the driver
    const char *example; // a value other than the default ("bf16")
  };
  /// Every option, in the table's order.
  static const std::vector<Info> &options();

  /// Sets the option named `flag` from `text` as a user typed it; "" on
  /// success, else what is wrong ("--precision: unknown precision 'fp8'
  /// (choices: f32, bf16, tf32)"), with nothing changed.
  std::string set(const std::string &flag, const std::string &text);
  /// The option named `flag` as text that set() reads back ("bf16").
  std::string get(const std::string &flag) const;
  /// What is wrong with the options together ("" if nothing): the link's
  /// two numbers come both or neither.
  std::string check() const;

  /// Every option by flag, in the table's order: "pad-uneven=0
  /// precision=f32 allreduce-bucket-bytes=4194304 ...": the compile cache's
  /// key and the artifact header's record of a compile.
  std::string key() const;
  /// The options whose values differ from the defaults, as `key` writes
  /// them ("precision=bf16"); "" for a default compile.
  std::string changed() const;
  /// Sets the options `key` (or `changed`) wrote; "" on success, else what
  /// is wrong, as set() says it.
  std::string setFromKey(const std::string &key);
  /// What a plan's record of its options (Plan::compileOptions) says, for a
  /// message: "compiled with precision=bf16", "compiled with the default
  /// options", or "its options are not recorded" (an older artifact).
  static std::string describeRecord(const std::string &key);
  /// The first option set here (away from its default) that a plan
  /// compiled with the options `key` records does not have with this value
  /// ("precision"); "" when none (asking an artifact for the options it was
  /// compiled with is no conflict). Every option set conflicts with an
  /// empty record.
  std::string conflictWith(const std::string &key) const;

  /// The link partitioning ranks its choices over (see LinkModel): none
  /// unless both link options are given.
  LinkModel link() const { return {linkLatencyNs * 1e-9, linkBytesPerS}; }

  /// What a run on `backend` turns on for itself: on the CPU backend, whose
  /// kernels run them, bf16Operands, bf16Outputs and rowPrograms (shardc
  /// compile leaves them off, so that its artifacts stay portable).
  void useBackend(const std::string &backend);
};

} // namespace shardc

#endif // SHARDC_COMMON_COMPILEOPTIONS_H
