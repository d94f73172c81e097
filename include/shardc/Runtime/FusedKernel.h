//===- FusedKernel.h - native kernels for Fused steps -----------*- C++ -*-===//
//
// The CPU backend runs a Fused step with its tile-program interpreter unless
// a FusedKernelCompiler is installed and returns machine code for the step's
// program. The runtime links no LLVM: the compiler layer (lib/JIT) provides
// the compiler, and the driver, the embedding API and the tests install it.
// Plain C++; no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_FUSEDKERNEL_H
#define SHARDC_RUNTIME_FUSEDKERNEL_H

#include "shardc/Runtime/Plan.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace shardc {

/// A Fused step's program compiled for one element range. With n the step's
/// element count and i in [begin, end) (0 <= begin <= end <= n):
///   - inputs[k] is input k's buffer, read as its FusedProgram::Input says
///     (element i, column i % cols, row i / cols, or element 0);
///   - outputs[o][i] receives register program.outputs[o] (an output may be
///     the very buffer of an input, element over element);
///   - accumulators[k][i / cols] combines register reductions[k].reg at i
///     into row i / cols, in element order (sum, or max / min with NaN
///     propagating); the caller fills them first with 0, -inf or +inf and
///     rounds them to f32 after the last range.
/// Disjoint ranges may run on different threads at once, provided that no
/// row of a reduction is split between two threads.
using FusedKernelFn = void (*)(const float *const *inputs, float *const *outputs,
                               double *const *accumulators, int64_t begin, int64_t end);

/// Turns fused programs into native kernels. Thread-safe: device threads ask
/// for kernels concurrently.
class FusedKernelCompiler {
public:
  virtual ~FusedKernelCompiler();
  /// The kernel of `program` (whose encoding is `encoded`) for a step of
  /// `elements` elements, or nullptr when the compiler declines (not yet
  /// worth compiling, unsupported) or fails; the caller then runs the
  /// interpreter. A kernel returned stays valid as long as the compiler lives.
  virtual FusedKernelFn kernelFor(const FusedProgram &program, const std::vector<int64_t> &encoded,
                                  int64_t elements) = 0;
  /// Whether kernelFor's answer for the program `encoded` is final (a
  /// kernel, or declined for good), so that a caller may keep it rather
  /// than ask again each call. The default: never.
  virtual bool settled(const std::vector<int64_t> &encoded) { return false; }
};

/// Installs `compiler` for every CPU backend of the process (nullptr: the
/// tile-program interpreter only). Not to be called while a plan runs.
void setFusedKernelCompiler(std::shared_ptr<FusedKernelCompiler> compiler);
/// The compiler installed, or nullptr.
FusedKernelCompiler *fusedKernelCompiler();
/// Changes with every setFusedKernelCompiler: kernels kept from a compiler
/// are valid while it is the same.
uint64_t fusedKernelCompilerGeneration();

} // namespace shardc

#endif // SHARDC_RUNTIME_FUSEDKERNEL_H
