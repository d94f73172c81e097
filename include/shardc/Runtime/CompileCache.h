//===- CompileCache.h - compiled plans by key -------------------*- C++ -*-===//
//
// Compiling is the slow part of running a program; a cache keeps the plans
// compiled so far, in memory and, when given a directory, on disk as .shardc
// artifacts shared between processes. The key is the caller's: a hash of
// everything the plan depends on (program text, entry, input shapes and
// dtypes, shardings, backend, compiler version; see keyFor).
//
// Disk entries are written atomically (temporary file + rename), so
// concurrent writers never leave a torn file; an entry that fails to load
// (truncated, corrupted, from another format version) is recompiled and
// replaced, with a warning on stderr. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_COMPILECACHE_H
#define SHARDC_RUNTIME_COMPILECACHE_H

#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Status.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shardc {

class CompileCache {
public:
  /// `dir` empty: memory only. The directory is created on first store.
  explicit CompileCache(std::string dir = "");

  /// $SHARDC_CACHE_DIR, else $XDG_CACHE_HOME/shardc, else $HOME/.cache/shardc.
  static std::string defaultDir();

  /// A 128-bit hex digest of the key parts and the compiler's fingerprint.
  static std::string keyFor(const std::vector<std::string> &parts);
  /// The same with another fingerprint (tests: a plan made by another
  /// build is never found).
  static std::string keyFor(const std::string &fingerprint, const std::vector<std::string> &parts);
  /// This build's fingerprint: the plan format's version and a hash of
  /// every source of the compiler and runtime, taken at build time
  /// (cmake/CompilerBuildId.cmake), so a rebuild with any change misses.
  static const char *compilerFingerprint();

  /// The plan for `key`, compiling it with `compile` on a miss.
  StatusOr<std::shared_ptr<const Plan>>
  getOrCompile(const std::string &key, const std::function<StatusOr<Plan>()> &compile);

  struct Stats {
    int64_t memoryHits = 0, diskHits = 0, misses = 0, corruptEntries = 0;
  };
  Stats stats() const;
  /// "cache: 1 memory hit, 0 disk hits, 1 miss (0 corrupt entries) in DIR"
  std::string statsLine() const;
  const std::string &directory() const { return dir; }

private:
  std::string dir;
  mutable std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Plan>> memory;
  Stats counts;
};

} // namespace shardc

#endif // SHARDC_RUNTIME_COMPILECACHE_H
