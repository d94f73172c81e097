//===- CompileCache.cpp - compiled plans by key ---------------------------===//

#include "shardc/Runtime/CompileCache.h"

#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/Environment.h"
#include "shardc/Runtime/File.h"

#include "CompilerBuildId.h" // generated: SHARDC_COMPILER_BUILD_ID

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

namespace shardc {

namespace {
/// The compiler's identity for cache keys: its version, bumped with any
/// change to what a plan means, and a hash of the sources it was built
/// from, so that a changed compiler never reuses an older one's plans.
const char kCompilerVersion[] = "shardc-0.1.0-plan3-" SHARDC_COMPILER_BUILD_ID;

uint64_t fnv1a(const std::string &s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

} // namespace

CompileCache::CompileCache(std::string dir) : dir(std::move(dir)) {}

std::string CompileCache::defaultDir() {
  if (const char *d = envValue(Env::CacheDir); d && *d)
    return d;
  if (const char *d = envValue(Env::XdgCacheHome); d && *d)
    return std::string(d) + "/shardc";
  if (const char *d = envValue(Env::Home); d && *d)
    return std::string(d) + "/.cache/shardc";
  return "";
}

const char *CompileCache::compilerFingerprint() { return kCompilerVersion; }

std::string CompileCache::keyFor(const std::vector<std::string> &parts) {
  return keyFor(kCompilerVersion, parts);
}

std::string CompileCache::keyFor(const std::string &fingerprint,
                                 const std::vector<std::string> &parts) {
  uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;
  auto feed = [&](const std::string &part) {
    std::string framed = std::to_string(part.size()) + ":" + part;
    a = fnv1a(framed, a);
    b = fnv1a(framed, b ^ (a >> 7));
  };
  feed(fingerprint);
  feed(std::to_string(kArtifactVersion));
  for (const std::string &p : parts)
    feed(p);
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
  return hex;
}

StatusOr<std::shared_ptr<const Plan>>
CompileCache::getOrCompile(const std::string &key, const std::function<StatusOr<Plan>()> &compile) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memory.find(key);
    if (it != memory.end()) {
      ++counts.memoryHits;
      return it->second;
    }
  }
  std::string path = dir.empty() ? "" : dir + "/" + key + ".shardc";
  if (!path.empty()) {
    StatusOr<std::string> bytes = readFile(path);
    if (bytes.ok()) {
      StatusOr<Plan> plan = deserializePlan(*bytes, path);
      if (plan.ok()) {
        auto shared = std::make_shared<const Plan>(std::move(*plan));
        std::lock_guard<std::mutex> lock(mutex);
        ++counts.diskHits;
        memory[key] = shared;
        return shared;
      }
      std::fprintf(stderr, "shardc: warning: %s; recompiling\n", plan.message().c_str());
      std::lock_guard<std::mutex> lock(mutex);
      ++counts.corruptEntries;
    }
  }
  StatusOr<Plan> plan = compile();
  if (!plan.ok())
    return plan.status();
  auto shared = std::make_shared<const Plan>(std::move(*plan));
  if (!path.empty()) {
    Status made = makeDirectories(dir);
    Status written = made.ok() ? writeArtifact(path, *shared) : made;
    if (!written.ok()) // a cache that cannot store still runs
      std::fprintf(stderr, "shardc: warning: cannot store in the compile cache: %s\n",
                   written.message().c_str());
  }
  std::lock_guard<std::mutex> lock(mutex);
  ++counts.misses;
  memory[key] = shared;
  return shared;
}

CompileCache::Stats CompileCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counts;
}

std::string CompileCache::statsLine() const {
  Stats s = stats();
  auto plural = [](int64_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return "cache: " + plural(s.memoryHits, "memory hit", "memory hits") + ", " +
         plural(s.diskHits, "disk hit", "disk hits") + ", " + plural(s.misses, "miss", "misses") +
         " (" + plural(s.corruptEntries, "corrupt entry", "corrupt entries") + ")" +
         (dir.empty() ? std::string(", memory only") : " in " + dir);
}

} // namespace shardc
