//===- CompileOptions.cpp - the options of a compile, from one table ------===//
//
// Everything here walks CompileOptions.def: no option is named by hand
// outside the table except where its meaning is used (check, link,
// useBackend).
//
//===----------------------------------------------------------------------===//

#include "shardc/Common/CompileOptions.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace shardc {

namespace option_kinds {

std::string Flag::parse(const std::string &text, bool &out) {
  if (text == "1" || text == "true") {
    out = true;
    return "";
  }
  if (text == "0" || text == "false") {
    out = false;
    return "";
  }
  return "expected 1 or 0 (true or false), got '" + text + "'";
}

std::string Bytes::parse(const std::string &text, int64_t &out) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && errno == 0 && end && *end == '\0' && value >= 0 &&
      (text[0] >= '0' && text[0] <= '9')) {
    out = value;
    return "";
  }
  return "expected a number of bytes (0 or more), got '" + text + "'";
}

std::string Positive::parse(const std::string &text, double &out) {
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (!text.empty() && text[0] != ' ' && errno == 0 && end && *end == '\0' &&
      std::isfinite(value) && value > 0) {
    out = value;
    return "";
  }
  return "expected a positive number, got '" + text + "'";
}

std::string Positive::format(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v); // reads back as itself
  return text;
}

std::string Precision::parse(const std::string &text, MatmulPrecision &out) {
  if (parseMatmulPrecision(text, out))
    return "";
  return "unknown precision '" + text + "' (choices: f32, bf16, tf32)";
}

} // namespace option_kinds

const std::vector<CompileOptions::Info> &CompileOptions::options() {
  static const std::vector<Info> all = {
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  {FLAG,                                                                                           \
   METAVAR,                                                                                        \
   Scope::SCOPE,                                                                                   \
   HELP,                                                                                           \
   std::is_same_v<option_kinds::KIND, option_kinds::Flag>,                                         \
   option_kinds::KIND::example()},
#include "shardc/Common/CompileOptions.def"
  };
  return all;
}

std::string CompileOptions::set(const std::string &flag, const std::string &text) {
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  if (flag == FLAG) {                                                                              \
    std::string problem = option_kinds::KIND::parse(text, FIELD);                                  \
    return problem.empty() ? problem : "--" + flag + ": " + problem;                               \
  }
#include "shardc/Common/CompileOptions.def"
  return "no compile option --" + flag;
}

std::string CompileOptions::get(const std::string &flag) const {
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  if (flag == FLAG)                                                                                \
    return option_kinds::KIND::format(FIELD);
#include "shardc/Common/CompileOptions.def"
  return "";
}

std::string CompileOptions::check() const {
  if ((linkLatencyNs > 0) != (linkBytesPerS > 0))
    return "--link-latency-ns and --link-bytes-per-s go together: give both or neither";
  return "";
}

std::string CompileOptions::key() const {
  std::string key;
  for (const Info &o : options())
    key += (key.empty() ? "" : " ") + std::string(o.flag) + "=" + get(o.flag);
  return key;
}

std::string CompileOptions::changed() const {
  static const CompileOptions defaults;
  std::string text;
  for (const Info &o : options())
    if (get(o.flag) != defaults.get(o.flag))
      text += (text.empty() ? "" : " ") + std::string(o.flag) + "=" + get(o.flag);
  return text;
}

std::string CompileOptions::setFromKey(const std::string &key) {
  static const CompileOptions defaults;
  size_t i = 0;
  while (i < key.size()) {
    size_t end = key.find(' ', i), eq = key.find('=', i);
    if (end == std::string::npos)
      end = key.size();
    if (eq == std::string::npos || eq > end)
      return "'" + key.substr(i, end - i) + "' is no option=value";
    // A default is left as it is: "link-latency-ns=0" says none was given.
    std::string flag = key.substr(i, eq - i), value = key.substr(eq + 1, end - eq - 1);
    if (value != defaults.get(flag))
      if (std::string problem = set(flag, value); !problem.empty())
        return problem;
    i = end + 1;
  }
  return "";
}

std::string CompileOptions::describeRecord(const std::string &key) {
  CompileOptions recorded;
  if (key.empty() || !recorded.setFromKey(key).empty())
    return "its options are not recorded";
  std::string changed = recorded.changed();
  return changed.empty() ? "compiled with the default options" : "compiled with " + changed;
}

std::string CompileOptions::conflictWith(const std::string &key) const {
  static const CompileOptions defaults;
  CompileOptions recorded;
  bool known = !key.empty() && recorded.setFromKey(key).empty();
  for (const Info &o : options())
    if (get(o.flag) != defaults.get(o.flag) && (!known || get(o.flag) != recorded.get(o.flag)))
      return o.flag;
  return "";
}

void CompileOptions::useBackend(const std::string &backend) {
  bool cpu = backend == "cpu";
  // The CPU backend's products read bf16 operands: values only they read
  // are rounded once, where they are made.
  bf16Operands = cpu;
  // Its fused chains store them at bf16 directly.
  bf16Outputs = cpu;
  // Its fused chains read back the row reductions they make (a layer norm
  // is one step: a decode step's dozen small steps per norm were a tenth of
  // its time), with the same bits.
  rowPrograms = cpu;
}

// A field of CompileOptions that the table does not declare would be left
// out of the cache key, the flags and the artifacts: the struct holds the
// table's fields and nothing else.
namespace {
struct TableFieldsOnly {
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  option_kinds::KIND::type FIELD;
#include "shardc/Common/CompileOptions.def"
};
} // namespace
static_assert(sizeof(CompileOptions) == sizeof(TableFieldsOnly),
              "every field of CompileOptions is declared in CompileOptions.def");

} // namespace shardc
