//===- FusedKernelIR.h - LLVM IR for one fused program ----------*- C++ -*-===//
//
// Generates the native kernel of a Fused step (the FusedKernelFn ABI of
// shardc/Runtime/FusedKernel.h) as LLVM IR: explicit vectors of `width`
// floats, a masked tail, transcendentals through glibc's vector math library
// (libmvec), row reductions in vector accumulators. No LLVM header here.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_JIT_FUSEDKERNELIR_H
#define SHARDC_JIT_FUSEDKERNELIR_H

#include "shardc/Runtime/Plan.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace shardc::jit {

/// The vector unit kernels are written for (x86-64): floats per vector and
/// the ISA letter of the x86 vector function ABI, which names libmvec's
/// variants (_ZGVeN16v_expf, _ZGVdN8v_expf, _ZGVbN4v_expf).
struct VectorTarget {
  int width = 16; // 16: AVX-512, 8: AVX2, 4: SSE2
  char isa = 'e'; // 'e', 'd', 'b'
};

/// Why `program` gets no kernel (broadcasts or reductions over different row
/// lengths, an opcode the generator does not know), or "" when it does.
std::string unsupportedReason(const FusedProgram &program);

/// The module holding `void name(ptr inputs, ptr outputs, ptr accumulators,
/// i64 begin, i64 end)`, unoptimized. `program` must be supported.
std::unique_ptr<llvm::Module> buildFusedKernelIR(const FusedProgram &program,
                                                 const VectorTarget &target,
                                                 llvm::LLVMContext &context,
                                                 const std::string &name);

} // namespace shardc::jit

#endif // SHARDC_JIT_FUSEDKERNELIR_H
