//===- ClientImpl.h - what a Client holds -----------------------*- C++ -*-===//

#ifndef SHARDC_LIB_API_CLIENTIMPL_H
#define SHARDC_LIB_API_CLIENTIMPL_H

#include "shardc/shardc.h"

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/CompileCache.h"

namespace shardc {

struct Client::Impl {
  std::string backendName;
  std::shared_ptr<Backend> backend; // shared with every executable
  std::unique_ptr<CompileCache> cache;

  /// Compiles (or finds in the cache) function `entry` of the program
  /// `bytes` (MLIR text, or a .shardc artifact; `path` names it in
  /// diagnostics), after `transform`, with `options`. The cache key covers
  /// the program, the entry, the transform and its options, the compile
  /// options, the backend and the compiler version: the same request never
  /// compiles twice.
  StatusOr<std::shared_ptr<Executable>>
  compileProgram(const std::string &bytes, const std::string &path, const std::string &entry,
                 JitOptions::Transform transform, const std::vector<unsigned> &wrt,
                 const TrainStepOptions &train, const CompileOptions &options);
};

} // namespace shardc

#endif // SHARDC_LIB_API_CLIENTIMPL_H
