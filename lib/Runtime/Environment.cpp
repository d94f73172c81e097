//===- Environment.cpp - the environment variables shardc reads -----------===//
//
// The one place the libraries call getenv.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Environment.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace shardc {

const std::vector<EnvVariable> &environmentVariables() {
  static const std::vector<EnvVariable> all = {
#define SHARDC_ENV(Id, name, kind, meaning) {Env::Id, name, EnvKind::kind, meaning},
#include "shardc/Runtime/Environment.def"
  };
  return all;
}

const char *envName(Env var) { return environmentVariables()[(size_t)var].name; }

const char *envValue(Env var) { return std::getenv(envName(var)); }

bool envIs(Env var, const char *value) {
  const char *v = envValue(var);
  return v && std::strcmp(v, value) == 0;
}

std::optional<int64_t> envInt(Env var) {
  const char *v = envValue(var);
  if (!v)
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long n = *v >= '0' && *v <= '9' ? std::strtoll(v, &end, 10) : -1;
  if (n >= 0 && errno == 0 && end && *end == '\0')
    return (int64_t)n;
  static std::mutex lock;
  static std::set<Env> said;
  std::lock_guard<std::mutex> guard(lock);
  if (said.insert(var).second)
    std::fprintf(stderr, "shardc: warning: %s=%s is not a non-negative integer; ignored\n",
                 envName(var), v);
  return std::nullopt;
}

} // namespace shardc
