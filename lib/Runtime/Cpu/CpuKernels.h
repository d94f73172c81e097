//===- CpuKernels.h - the CPU backend's kernels and collectives -*- C++ -*-===//
//
// Each runs one plan step on one device's buffers. Kernels without a fast
// path fall back to the reference kernels (correct for every dtype, slow);
// collectives run real shared-memory algorithms across the device threads.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CPU_CPUKERNELS_H
#define SHARDC_LIB_RUNTIME_CPU_CPUKERNELS_H

#include "DeviceGroup.h"
#include "RangeFn.h"

#include "shardc/Runtime/FusedKernel.h"
#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/ProductViews.h"
#include "shardc/Runtime/Status.h"

#include <functional>
#include <string>
#include <unordered_map>

namespace shardc::cpu {

/// One device's view of the values of a plan: a pointer per value id.
struct DeviceBuffers {
  int64_t device;
  std::vector<uint8_t *> ptr;
  /// Per step of the plan, the native kernel of a Fused step, chosen once
  /// per call for every device (fusedKernelsFor); null: ask the compiler.
  const std::vector<FusedKernelFn> *kernels = nullptr;
};

/// The native kernel of each Fused step of `plan` (null where there is
/// none, or not yet: the interpreter runs it), asked of the installed
/// compiler once per call. Every device of every process uses the same
/// choice, so results do not depend on how devices map to threads or
/// processes.
std::vector<FusedKernelFn> fusedKernelsFor(const Plan &plan);

/// Runs a step with a fast path if there is one for it; false otherwise.
bool runFastKernel(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers);

/// transpose, broadcast_in_dim, slice, concatenate, dynamic_slice and
/// dynamic_update_slice of any rank, take (rows by index) and f32
/// reductions over any dimensions, as strided walks; false otherwise.
bool runLayoutKernel(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers);

/// Row-major copy of `x` (shape `shape`, elements of 1, 2, 4 or 8 bytes)
/// with dimensions permuted by `perm`.
void permute(const void *x, size_t elementSize, const Shape &shape,
             const std::vector<int64_t> &perm, void *out);

/// y = op(a[, b]) over n f32 elements, for the unary and binary elementwise
/// opcodes (vectorized, with an AVX2 clone where the CPU has it).
void elementwiseF32(OpCode op, const float *a, const float *b, float *y, int64_t n);

/// Runs a Fused step (see FusedProgram).
Status runFused(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers);

/// Which library runs a product: Auto is the backend's rule (CpuGemm.cpp);
/// the others force one, for benchmarks and tests (see
/// gemmLibraryAvailable).
enum class GemmLibrary { Auto, OneDnn, OpenBlas };
bool gemmLibraryAvailable(GemmLibrary library);

/// C[b] = A[b] x B[b] for every item, A logically [M,K] and B [K,N], C packed
/// [batch, M, N] row-major, f32 accumulation; at bf16 precision the operands
/// are rounded to bf16 first. The two views hold the same items in the same
/// order, by any batch dimensions (they are aligned here). A view that
/// reads past its `elements` throws ProductViewError before anything reads
/// it.
void gemm(int64_t M, int64_t N, int64_t K, const float *A, const MatrixView &a, const float *B,
          const MatrixView &b, float *C, MatmulPrecision precision = MatmulPrecision::F32,
          GemmLibrary library = GemmLibrary::Auto);
/// The same with each operand's element type: f32, or at bf16 precision
/// also bf16 (then it is rounded already; the results are those of its f32
/// value rounded inside the product).
void gemm(int64_t M, int64_t N, int64_t K, const void *A, DType aType, const MatrixView &a,
          const void *B, DType bType, const MatrixView &b, float *C, MatmulPrecision precision,
          GemmLibrary library = GemmLibrary::Auto);

/// The bf16 product y[r] = W[r, 0:K] . x for r in [0, rows) (CpuGemv.cpp):
/// W's rows `ld` apart, x's elements `incx` apart, each f32 (rounded to
/// bf16 here) or bf16 (a bf16 matrix is read as it is). False, with nothing
/// written, where the CPU has no kernel for it (AVX2 and FMA).
bool bf16MatrixVector(int64_t rows, int64_t K, const void *W, DType wType, int64_t ld,
                      const void *x, DType xType, int64_t incx, float *y);

/// The same for `vectors` vectors, `vstride` elements apart: y[v * ldy + r]
/// = W[r, 0:K] . x_v (a matrix of few rows times W^T: a batch's decode step,
/// a short prefill), each load of W serving four of them.
bool bf16MatrixVectors(int64_t rows, int64_t K, const void *W, DType wType, int64_t ld,
                       const void *x, DType xType, int64_t vectors, int64_t vstride, int64_t incx,
                       float *y, int64_t ldy);

/// The f32 product of the same shape, y[v * ldy + r] = W[r, 0:K] . x_v, on
/// AVX-512 FMAs (four vectors per load of W) or else AVX2 FMAs (two), where
/// sgemm on so few rows packs W first; false, with nothing written, on a
/// CPU with neither.
bool f32MatrixVectors(int64_t rows, int64_t K, const float *W, int64_t ld, const float *x,
                      int64_t vectors, int64_t vstride, int64_t incx, float *y, int64_t ldy);

/// y = bf16(x), nearest even (NaN stays NaN), as bf16 products round their
/// f32 operands: on the shared pool.
void toBf16(const float *x, uint16_t *y, int64_t n);
/// y = x widened to f32 (exact), on the shared pool.
void fromBf16(const uint16_t *x, float *y, int64_t n);

/// Writes "shardc: <level>: <line>" to stderr the first time `line` is said
/// at `level` in this process ("debug", "warning").
void sayOnce(const char *level, const std::string &line);

/// Whether bf16 products run on the CPU's bf16 instructions (else they are
/// emulated at f32 speed, with the same results).
bool bf16Instructions();
/// Tests: false makes bf16 products take the emulated path.
void allowBf16Instructions(bool allow);
/// For tests: the library that runs every product left to the backend's
/// choice (GemmLibrary::Auto), Auto restoring the rule; and whether the
/// product wisdom is asked (by default it is).
void forceGemmLibrary(GemmLibrary library);
void allowProductWisdom(bool allow);
/// Tests: false makes the f32 matrix-vector kernel take its AVX2 path on a
/// CPU with AVX-512, as it runs on one without.
void allowAvx512Kernels(bool allow);

/// Threads a kernel may use on an OpenMP pool it shares with BLAS: the BLAS
/// thread count when OpenBLAS is the OpenMP build, else 1.
int sharedThreadPoolSize();

/// Whether a product of `items` [M, K] x [K, N] matrices runs as fast inside
/// one region of a team (RegionTeam.h) as outside it: its work is split by
/// parallelRange, not by BLAS or oneDNN (which run on one thread there).
bool productSuitsOneRegion(int64_t items, int64_t M, int64_t N, int64_t K);

/// Threads each BLAS call may use. Called before the device threads start:
/// OpenBLAS's thread count is global state that its calls read and its
/// setter rewrites (reallocating per-thread buffers), so when several
/// device threads call BLAS at once (`concurrentCallers`) the count is set
/// here once and the kernels leave it alone; a single device thread still
/// drops to one BLAS thread for small products.
void setBlasThreads(int threads, bool concurrentCallers);

/// Prepares the calling device thread for BLAS calls next to other device
/// threads' (its OpenMP default thread count set to the BLAS count).
void enterDeviceThread();

/// Product step `step` made in blocks of whole rows of its result, of
/// equal rows and about `blockBytes` each, with `afterBlock(e0, e1)` run
/// after elements [e0, e1) of the result are written (once, over all of it,
/// for a batch of products, a result of fewer than two blocks, or a
/// transposed A at bf16 or tf32, whose blocks would be packed again each).
/// False, with nothing run, where its operand types have no fast path.
bool dotGeneralInBlocks(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                        int64_t blockBytes, RangeFn afterBlock);

/// Runs product step `dot` and the Fused step `reader` that reads its result
/// element by element, block by block: each block of the result is read
/// back from the core's cache, where the two steps one after the other
/// would write all of it to memory and read it back. The reader computes
/// what it would alone; each block of the product is a product of its own
/// rows, which the library chosen for its shape may sum in another order
/// than the whole product's (the same bits where it sums each element
/// alike at any row count, as the Tiny Transformer's steps measured). False,
/// with nothing run, where the pair does not qualify (see CpuFused.cpp);
/// the caller then runs the steps themselves.
bool runProductAndReader(const Plan &plan, const PlanStep &dot, const PlanStep &reader,
                         DeviceBuffers &buffers);

/// Scaled dot-product attention in the layout of JAX's
/// dot_product_attention: q [B,T,N,H], k and v [B,S,N,H], f32, each item
/// (b, n) a [positions, H] block whose rows are `qRow` (`kRow`, `vRow`)
/// floats apart, N * H where 0: q, k and v of a packed [B,T,3,N,H] tensor
/// have rows 3 N H apart. Query t of batch item b sees key s where s <
/// kvLengths[b] (where given: [B] i32, clamped to [0, S]) and, when
/// `causal`, s <= t. An operand's batch items are its positions' rows one
/// after another. attentionBackward writes dq, dk and dv with the rows of
/// q, k and v, and batch items `gradBatch` floats apart where it is not 0:
/// the three of a batch item one after another, as attention_grad packs
/// them ([B, T + 2 S, N, H]).
struct AttentionDims {
  int64_t B = 0, T = 0, S = 0, N = 0, H = 0;
  double scale = 1;
  bool causal = false;
  int64_t qRow = 0, kRow = 0, vRow = 0, outRow = 0;
  int64_t gradBatch = 0;
  int64_t qRows() const { return qRow ? qRow : N * H; }
  int64_t kRows() const { return kRow ? kRow : N * H; }
  int64_t vRows() const { return vRow ? vRow : N * H; }
  int64_t outRows() const { return outRow ? outRow : N * H; }
  int64_t dqBatch() const { return gradBatch ? gradBatch : T * qRows(); }
  int64_t dkBatch() const { return gradBatch ? gradBatch : S * kRows(); }
  int64_t dvBatch() const { return gradBatch ? gradBatch : S * vRows(); }
};

/// out (laid out as [B,T,N,H] with rows `outRow` apart) = softmax(scale q
/// k^T over the keys each query sees) v, and, where `lse` is given, lse
/// [B,N,T], each row's log-sum-exp of its scaled scores. A row that sees no
/// key gets zeros (and -inf). Runs one (b, n) item at a time with its
/// scores in the thread's cache (CpuAttention.cpp); nothing [T,S] is stored.
void attentionForward(const AttentionDims &dims, const float *q, const float *k, const float *v,
                      const int32_t *kvLengths, float *out, float *lse = nullptr);

/// The gradients of attentionForward's q, k and v, laid out as they are
/// (dq's rows qRow apart, ...), from the operands and the output's gradient
/// dout (laid out as the output). The probabilities are recomputed.
void attentionBackward(const AttentionDims &dims, const float *q, const float *k, const float *v,
                       const int32_t *kvLengths, const float *dout, float *dq, float *dk,
                       float *dv);

/// Runs fn(begin, end) over [0, n) in contiguous chunks, on the shared
/// OpenMP pool when the work (elements touched, default n) is large enough
/// to pay for waking it (2^16 and more), else in one call.
void parallelRange(int64_t n, RangeFn fn, int64_t work = -1);

/// A value derived from step `s`, kept in `known` (a thread's own map) so
/// that a small step's decoding (a dozen allocations) is not redone at
/// every call. `same(kept)` says whether a kept value still describes `s`:
/// another plan's step may sit at the same address. `make()` derives it.
template <class T, class Same, class Make>
const T &keptForStep(std::unordered_map<const PlanStep *, T> &known, const PlanStep &s,
                     const Same &same, const Make &make) {
  if (auto it = known.find(&s); it != known.end() && same(it->second))
    return it->second;
  if (known.size() >= 4096) // a bound, not a policy
    known.clear();
  return known[&s] = make();
}

/// Runs a non-collective step.
Status runKernel(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers);

/// Runs a collective step; every device of the plan calls it for the same
/// step. Returns false (with nothing written) if the group was aborted.
bool runCollective(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                   DeviceGroup &group);

} // namespace shardc::cpu

#endif // SHARDC_LIB_RUNTIME_CPU_CPUKERNELS_H
