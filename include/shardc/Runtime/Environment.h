//===- Environment.h - the environment variables shardc reads ---*- C++ -*-===//
//
// Every environment variable the libraries read is a row of
// Environment.def and is read through these functions, in one place
// (Environment.cpp). They say where things are, switch diagnostics on, or
// tune the runtime's caches; none changes a compiled plan (see
// docs/environment.md).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_ENVIRONMENT_H
#define SHARDC_RUNTIME_ENVIRONMENT_H

#include <cstdint>
#include <optional>
#include <vector>

namespace shardc {

enum class Env {
#define SHARDC_ENV(Id, ...) Id,
#include "shardc/Runtime/Environment.def"
};

enum class EnvKind { Location, Launcher, Diagnostic, Tuning };

struct EnvVariable {
  Env id;
  const char *name;
  EnvKind kind;
  const char *meaning;
};
/// Every row of Environment.def, in order.
const std::vector<EnvVariable> &environmentVariables();
/// Its name ("SHARDC_PROFILE").
const char *envName(Env var);

/// Its value, or null where it is unset.
const char *envValue(Env var);
/// Whether it is set to exactly `value`.
bool envIs(Env var, const char *value);
/// Its value as a non-negative integer; nullopt where it is unset, and
/// where it is not one (then said once on stderr, naming the variable).
std::optional<int64_t> envInt(Env var);

} // namespace shardc

#endif // SHARDC_RUNTIME_ENVIRONMENT_H
