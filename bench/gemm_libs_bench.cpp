//===- gemm_libs_bench.cpp - BLIS and libxsmm on the model's shapes -------===//
//
// The product libraries the CPU backend does not use, timed on the shapes
// of shardc-gemm-bench (GemmBench.h) so bench/gemm_bench.sh can set them
// beside oneDNN and OpenBLAS: whether either would earn a place in the
// backend's per-shape rule. f32 only: Debian's BLIS 0.9 has no bf16
// product, and libxsmm 1.17's bf16 kernels want B in its VNNI layout, which
// no operand of the model is in.
//
//   - BLIS through its native API, which reads any operand through row and
//     column strides (a transposed one in place). A batch of small items
//     runs one single-threaded product per item over the cores, as the
//     backend runs OpenBLAS on them; a single product gets BLIS's threads.
//   - libxsmm's JIT kernels, column-major, so row-major C = A B is computed
//     as C^T = B^T A^T on the same buffers. A small item is one kernel; a
//     large product is tiled the way libxsmm's users tile it: 64 x 64 tiles
//     of C over the cores, each a chain of beta = 1 kernels over blocks of
//     64 along K. A layout its JIT has no kernel for is reported as such.
//
// Its own binary, apart from shardc-gemm-bench: BLIS exports the BLAS and
// CBLAS symbols that OpenBLAS does, and one process must not hold both.
//
//   shardc-gemm-libs-bench [--threads N] [--seconds S]
//
// One JSON line per measured cell on stdout, in shardc-gemm-bench's format
// ("library": "blis" or "libxsmm"), and one line naming the kernels each
// library picked for this CPU.
//
//===----------------------------------------------------------------------===//

#include "GemmBench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#ifdef SHARDC_BENCH_BLIS
#include <blis.h>
#endif
#ifdef SHARDC_BENCH_LIBXSMM
#include <libxsmm.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

using shardc::bench::GemmShape;
using shardc::bench::kGemmShapes;

namespace {

/// One shape's operands, random in [-1, 1), each stored as the shape reads
/// it (a transposed operand the other way round).
struct Operands {
  std::vector<float> A, B, C;
  int64_t lda, ldb; // row-major leading dimensions of the stored matrices
};

Operands operands(const GemmShape &s) {
  Operands o;
  o.A.resize(s.batch * s.M * s.K);
  o.B.resize(s.batch * s.K * s.N);
  o.C.resize(s.batch * s.M * s.N);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float &x : o.A)
    x = u(rng);
  for (float &x : o.B)
    x = u(rng);
  o.lda = s.transA ? s.M : s.K;
  o.ldb = s.transB ? s.K : s.N;
  return o;
}

/// C = A B by plain loops in double, for checking a library's answer.
std::vector<double> reference(const GemmShape &s, const Operands &o, int64_t item) {
  std::vector<double> c(s.M * s.N, 0.0);
  const float *a = o.A.data() + item * s.M * s.K, *b = o.B.data() + item * s.K * s.N;
  for (int64_t m = 0; m < s.M; ++m)
    for (int64_t k = 0; k < s.K; ++k) {
      double av = s.transA ? a[k * o.lda + m] : a[m * o.lda + k];
      for (int64_t n = 0; n < s.N; ++n)
        c[m * s.N + n] += av * (s.transB ? b[n * o.ldb + k] : b[k * o.ldb + n]);
    }
  return c;
}

/// Whether the last item of C matches the double-precision product to f32
/// accuracy (relative to the row's magnitude): a measurement of a wrong
/// answer is not reported.
bool correct(const GemmShape &s, const Operands &o) {
  int64_t item = s.batch - 1;
  std::vector<double> want = reference(s, o, item);
  const float *c = o.C.data() + item * s.M * s.N;
  // Rounding grows with K; a transposed or misplaced operand is off by
  // the product's own magnitude, about sqrt(K) / 3.
  double tolerance = 1e-5 + 1e-6 * (double)s.K;
  for (int64_t i = 0; i < s.M * s.N; ++i)
    if (std::abs(c[i] - want[i]) > tolerance)
      return false;
  return true;
}

void report(const GemmShape &s, const char *library, int threads, double seconds,
            const std::function<void()> &once, Operands &o) {
  for (int w = 0; w < 3; ++w)
    once();
  if (!correct(s, o)) {
    std::fprintf(stderr, "shardc-gemm-libs-bench: %s gives a wrong product for %s; not reported\n",
                 library, s.name);
    return;
  }
  shardc::bench::printRow(s, "f32", library, threads, shardc::bench::medianSeconds(once, seconds));
}

#ifdef SHARDC_BENCH_BLIS
void blisProduct(const GemmShape &s, Operands &o, int threads) {
  float one = 1.0f, zero = 0.0f;
  // Element (m, k) of A is at m * rsa + k * csa: strides read a stored
  // transpose in place.
  inc_t rsa = s.transA ? 1 : o.lda, csa = s.transA ? o.lda : 1;
  inc_t rsb = s.transB ? 1 : o.ldb, csb = s.transB ? o.ldb : 1;
  auto item = [&](int64_t i) {
    bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, s.M, s.N, s.K, &one, o.A.data() + i * s.M * s.K,
              rsa, csa, o.B.data() + i * s.K * s.N, rsb, csb, &zero, o.C.data() + i * s.M * s.N,
              s.N, 1);
  };
  if (s.batch == 1) {
    bli_thread_set_num_threads(threads);
    item(0);
    return;
  }
  bli_thread_set_num_threads(1);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < s.batch; ++i)
    item(i);
}
#endif

#ifdef SHARDC_BENCH_LIBXSMM
/// The kernels of one shape: column-major C^T[N,M] = B^T[N,K] A^T[K,M] over
/// tiles of at most 64 x 64 and blocks of at most 64 along K, one with
/// beta = 0 for a tile's first block and one with beta = 1 for the rest.
struct XsmmPlan {
  int64_t tileM, tileN, blockK;
  libxsmm_smmfunction first = nullptr, rest = nullptr;
};

XsmmPlan xsmmPlan(const GemmShape &s, const Operands &o) {
  XsmmPlan p;
  bool small = s.M <= 128 && s.N <= 128 && s.K <= 128;
  p.tileM = small ? s.M : 64;
  p.tileN = small ? s.N : 64;
  p.blockK = small ? s.K : 64;
  if (s.M % p.tileM || s.N % p.tileN || s.K % p.blockK)
    return p;
  // Row-major B stored [K,N] is column-major [N,K]: the kernel's A, as it
  // is; stored transposed it is read transposed. Likewise A is its B.
  int flags =
      (s.transB ? LIBXSMM_GEMM_FLAG_TRANS_A : 0) | (s.transA ? LIBXSMM_GEMM_FLAG_TRANS_B : 0);
  libxsmm_blasint lda = o.ldb, ldb = o.lda, ldc = s.N;
  float one = 1.0f, zero = 0.0f;
  p.first = libxsmm_smmdispatch(p.tileN, p.tileM, p.blockK, &lda, &ldb, &ldc, &one, &zero, &flags,
                                nullptr);
  p.rest = libxsmm_smmdispatch(p.tileN, p.tileM, p.blockK, &lda, &ldb, &ldc, &one, &one, &flags,
                               nullptr);
  if (!p.first || !p.rest)
    p.first = p.rest = nullptr;
  return p;
}

void xsmmProduct(const GemmShape &s, Operands &o, const XsmmPlan &p, int threads) {
  int64_t tilesM = s.M / p.tileM, tilesN = s.N / p.tileN, tiles = tilesM * tilesN;
#pragma omp parallel for num_threads(threads) schedule(static) collapse(2)
  for (int64_t i = 0; i < s.batch; ++i)
    for (int64_t t = 0; t < tiles; ++t) {
      int64_t m0 = t / tilesN * p.tileM, n0 = t % tilesN * p.tileN;
      const float *a = o.A.data() + i * s.M * s.K, *b = o.B.data() + i * s.K * s.N;
      float *c = o.C.data() + i * s.M * s.N + m0 * s.N + n0;
      for (int64_t k0 = 0; k0 < s.K; k0 += p.blockK) {
        // The tile's block of B (the kernel's A) and of A (its B).
        const float *kb = s.transB ? b + n0 * o.ldb + k0 : b + k0 * o.ldb + n0;
        const float *ka = s.transA ? a + k0 * o.lda + m0 : a + m0 * o.lda + k0;
        (k0 == 0 ? p.first : p.rest)(kb, ka, c);
      }
    }
}
#endif

} // namespace

int main(int argc, char **argv) {
  int threads = 2;
  double seconds = 0.3;
  if (!shardc::bench::parseBenchArgs(argc, argv, "shardc-gemm-libs-bench", threads, seconds))
    return 2;
  std::string blisArch = "not built", xsmmArch = "not built";
#ifdef SHARDC_BENCH_BLIS
  blisArch = bli_arch_string(bli_arch_query_id());
#endif
#ifdef SHARDC_BENCH_LIBXSMM
  libxsmm_init();
  xsmmArch = libxsmm_get_target_arch();
#endif
  for (const GemmShape &s : kGemmShapes) {
    Operands o = operands(s);
#ifdef SHARDC_BENCH_BLIS
    report(
        s, "blis", threads, seconds, [&] { blisProduct(s, o, threads); }, o);
#endif
#ifdef SHARDC_BENCH_LIBXSMM
    XsmmPlan plan = xsmmPlan(s, o);
    if (plan.first)
      report(
          s, "libxsmm", threads, seconds, [&] { xsmmProduct(s, o, plan, threads); }, o);
    else
      std::fprintf(stderr, "shardc-gemm-libs-bench: libxsmm has no kernel for %s\n", s.name);
#endif
  }
  std::printf("{\"blis_kernels\": \"%s\", \"libxsmm_kernels\": \"%s\"}\n", blisArch.c_str(),
              xsmmArch.c_str());
#ifdef SHARDC_BENCH_LIBXSMM
  libxsmm_finalize();
#endif
  return 0;
}
