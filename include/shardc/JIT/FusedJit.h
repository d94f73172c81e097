//===- FusedJit.h - fused programs compiled to machine code -----*- C++ -*-===//
//
// The FusedKernelCompiler of the compiler layer: generates LLVM IR per fused
// program (FusedKernelIR.h), optimizes it for the host CPU and compiles it
// with ORC's LLJIT, which lives as long as the FusedJit. Kernels are cached
// by the program's encoding, so each program compiles once per process.
// Thread-safe. No LLVM header here.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_JIT_FUSEDJIT_H
#define SHARDC_JIT_FUSEDJIT_H

#include "shardc/Runtime/FusedKernel.h"

#include <memory>
#include <string>

namespace shardc {

struct FusedJitOptions {
  /// Floats per vector: 16 (AVX-512), 8 (AVX2) or 4 (SSE2); 0 picks the
  /// widest the host has.
  int vectorWidth = 0;
  /// A program is compiled once the interpreter has run it over this many
  /// elements in all (the current call included), so that compiling (about
  /// 8 ms) never costs more than interpreting already has on the heaviest
  /// chains; programs that run once on small tensors stay interpreted. 0
  /// compiles every program on first use.
  int64_t compileAfterElements = int64_t(1) << 20;
  /// ... or once it has run this many times: a small program called again
  /// and again (each step of a decoding loop) pays for its kernel too.
  int64_t compileAfterCalls = 8;
  /// Where compiled kernels persist as object files, keyed by the program,
  /// the host CPU and the compiler's fingerprint ("" = memory only). A
  /// program found there is loaded on its first call, with no threshold
  /// and no compiling.
  std::string cacheDir;
};

struct FusedJitStats {
  int64_t compiled = 0; // programs compiled to a kernel
  int64_t declined = 0; // programs left to the interpreter (unsupported)
  int64_t waiting = 0;  // programs interpreted until they run on more elements
  int64_t failed = 0;   // programs whose compilation failed
  int64_t loaded = 0;   // programs whose kernel came from the disk cache
  double compileMs = 0; // total time spent generating and compiling
};

class FusedJit : public FusedKernelCompiler {
public:
  /// A JIT for the host, or nullptr with `error` set (no native target, no
  /// libmvec, a width the host lacks).
  static std::shared_ptr<FusedJit> create(const FusedJitOptions &options, std::string &error);
  ~FusedJit() override;

  FusedKernelFn kernelFor(const FusedProgram &program, const std::vector<int64_t> &encoded,
                          int64_t elements) override;
  bool settled(const std::vector<int64_t> &encoded) override;

  FusedJitStats stats() const;
  int vectorWidth() const;
  /// The optimized LLVM IR of `program`'s kernel, for reading and tests.
  std::string optimizedIR(const FusedProgram &program);

private:
  struct Impl;
  explicit FusedJit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Installs the process's FusedJit into the CPU backend, so fused steps run
/// as machine code. The environment variable SHARDC_FUSED_JIT chooses: unset
/// or 1, compile programs once they have run on 2^20 elements; `eager`,
/// compile every program on first use; 0, no JIT (the tile-program
/// interpreter runs every fused step). Kernels persist under `cacheDir` +
/// "/kernels" (the compile cache's directory of the first caller; "" keeps
/// them in memory) unless SHARDC_FUSED_JIT_CACHE=0. Idempotent (the first
/// call decides); returns the JIT
/// installed, or nullptr. Where the JIT cannot be created it warns once on
/// stderr and leaves the interpreter in place.
std::shared_ptr<FusedJit> installFusedJit(const std::string &cacheDir = "");

} // namespace shardc

#endif // SHARDC_JIT_FUSEDJIT_H
