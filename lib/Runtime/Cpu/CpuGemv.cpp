//===- CpuGemv.cpp - matrix-vector products -------------------------------===//
//
// A decode step multiplies one row of activations by each weight matrix.
// Such a product reads the matrix once and does two flops per element, so
// its time is the time to read the matrix. Weights kept at bf16 halve that,
// but only if the product reads them as they are: the general bf16 path
// widens a bf16 operand to f32 (or rounds an f32 one) into a buffer first,
// which reads and writes more than the product itself.
//
// These kernels read a bf16 matrix row by row as it is, against the vector
// rounded to bf16 once per call: exactly the bf16 product (both operands
// rounded to bf16, their products exact in f32, summed in f32). On a CPU
// with AVX512-BF16 one instruction multiplies 32 elements of a row by the
// vector's and adds them in pairs into 16 f32 lanes (subnormal operands
// count as zero, as in the library products on those instructions);
// elsewhere an AVX2 kernel widens eight elements at a time to f32 in
// registers, which costs twice the instructions per element.
//
// An f32 matrix is rounded to bf16 first, so that a product gives the same
// bits whichever operand was stored at bf16. Weights in PyTorch's layout
// ([out, in], read as B^T) make each output element the dot product of one
// contiguous row with the vector; four rows go at once so each load of the
// vector serves four rows, and the rows split across the shared pool in
// contiguous runs.
//
// Up to eight vectors at once (a batch's decode step, a short prefill) go
// four per load of the matrix. At f32 the same shapes (sgemv read the
// matrix at about 0.9 times the rate, sgemm on so few rows packs it first)
// have an AVX-512 FMA kernel, and an AVX2 one (two vectors per load of the
// matrix: AVX2 has sixteen registers) where AVX-512 is missing.
//
// Each output element is summed in one fixed order (lanes, then the lanes
// added), whatever the thread count and the vectors beside it.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "shardc/Runtime/Array.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace shardc::cpu {

namespace {

#if defined(__x86_64__) && defined(__GNUC__)

#define SHARDC_GEMV_TARGET __attribute__((target("avx2,fma")))

/// Eight bf16 elements widened to f32 (exact: the bf16 bits are the f32's
/// upper half).
SHARDC_GEMV_TARGET inline __m256 widen8(const uint16_t *p) {
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

SHARDC_GEMV_TARGET inline float sum8(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  __m128 s = _mm_add_ps(lo, hi);                 // lanes i + 4
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));        // + lanes 2 apart
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 0x55)); // + the neighbour
  return _mm_cvtss_f32(s);
}

/// y[r] = W[r, 0:K] . x for r in [begin, end): W bf16, rows `ld` apart; x
/// f32 (bf16 values), contiguous.
SHARDC_GEMV_TARGET void bf16RowDotsAvx2(int64_t begin, int64_t end, int64_t K, const uint16_t *W,
                                        int64_t ld, const float *x, float *y) {
  int64_t K16 = K / 16 * 16;
  // The elements past the last multiple of 16: in lane order, after the
  // vector sums, so a row's sum does not depend on its group.
  auto tail = [&](const uint16_t *w, float sum) {
    for (int64_t k = K16; k < K; ++k)
      sum += bf16ToFloat(w[k]) * x[k];
    return sum;
  };
  int64_t r = begin;
  for (; r + 4 <= end; r += 4) {
    const uint16_t *w0 = W + r * ld, *w1 = w0 + ld, *w2 = w1 + ld, *w3 = w2 + ld;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    __m256 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    for (int64_t k = 0; k < K16; k += 16) {
      __m256 x0 = _mm256_loadu_ps(x + k), x1 = _mm256_loadu_ps(x + k + 8);
      a0 = _mm256_fmadd_ps(widen8(w0 + k), x0, a0);
      b0 = _mm256_fmadd_ps(widen8(w0 + k + 8), x1, b0);
      a1 = _mm256_fmadd_ps(widen8(w1 + k), x0, a1);
      b1 = _mm256_fmadd_ps(widen8(w1 + k + 8), x1, b1);
      a2 = _mm256_fmadd_ps(widen8(w2 + k), x0, a2);
      b2 = _mm256_fmadd_ps(widen8(w2 + k + 8), x1, b2);
      a3 = _mm256_fmadd_ps(widen8(w3 + k), x0, a3);
      b3 = _mm256_fmadd_ps(widen8(w3 + k + 8), x1, b3);
    }
    y[r] = tail(w0, sum8(_mm256_add_ps(a0, b0)));
    y[r + 1] = tail(w1, sum8(_mm256_add_ps(a1, b1)));
    y[r + 2] = tail(w2, sum8(_mm256_add_ps(a2, b2)));
    y[r + 3] = tail(w3, sum8(_mm256_add_ps(a3, b3)));
  }
  for (; r < end; ++r) {
    const uint16_t *w = W + r * ld;
    __m256 a = _mm256_setzero_ps(), b = a;
    for (int64_t k = 0; k < K16; k += 16) {
      a = _mm256_fmadd_ps(widen8(w + k), _mm256_loadu_ps(x + k), a);
      b = _mm256_fmadd_ps(widen8(w + k + 8), _mm256_loadu_ps(x + k + 8), b);
    }
    y[r] = tail(w, sum8(_mm256_add_ps(a, b)));
  }
}

/// While a group of four rows is read, the group this many rows ahead is
/// fetched into L1: the hardware prefetcher alone left about a tenth of the
/// L3's bandwidth unused (a decode step's f32 weights, 12.8 MB over two
/// threads: 168 against 190 GB/s on a Zen 5).
constexpr int64_t kPrefetchRows = 8;

/// The rows kPrefetchRows ahead of the group at row r of [r, end), or
/// nulls where they lie past the range (prefetches never fault, but rows
/// another thread reads are not this one's to fetch).
template <class T>
inline void rowsAhead(const T *W, int64_t ld, int64_t r, int64_t end, const T *ahead[4]) {
  bool inside = r + kPrefetchRows + 4 <= end;
  for (int i = 0; i < 4; ++i)
    ahead[i] = inside ? W + (r + kPrefetchRows + i) * ld : nullptr;
}

/// Fetches the next cache line, at element k, of each row rowsAhead gave.
template <class T> inline void fetchAhead(const T *const ahead[4], int64_t k) {
  if (ahead[0])
    for (int i = 0; i < 4; ++i)
      _mm_prefetch((const char *)(ahead[i] + k), _MM_HINT_T0);
}

/// kernel(V, x, y) for the vectors of X (K apart) four at a time, V an
/// std::integral_constant of 1 to 4, with y where their results start.
template <class T, class Kernel>
void fourAtATime(int64_t K, const T *X, int64_t vectors, float *Y, int64_t ldy,
                 const Kernel &kernel) {
  for (int64_t v = 0; v < vectors; v += 4) {
    const T *x = X + v * K;
    float *y = Y + v * ldy;
    switch (std::min<int64_t>(4, vectors - v)) {
    case 1:
      kernel(std::integral_constant<int, 1>{}, x, y);
      break;
    case 2:
      kernel(std::integral_constant<int, 2>{}, x, y);
      break;
    case 3:
      kernel(std::integral_constant<int, 3>{}, x, y);
      break;
    default:
      kernel(std::integral_constant<int, 4>{}, x, y);
    }
  }
}

#define SHARDC_GEMV_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))

// vdpbf16ps: lane i of acc adds w[2i+1] x[2i+1], then w[2i] x[2i], of 32 bf16
// elements of a row and a vector (subnormals count as zero).

/// Y[v * ldy + r] = W[r, 0:K] . X[v, 0:K] for r in [begin, end) and each of
/// V vectors (X's rows, K apart), on the CPU's bf16 dot-product instruction,
/// which takes bf16 as it is stored: no widening, half the instructions of
/// the AVX2 kernel per element. Each load of a row of W serves the V
/// vectors, each load of a vector four rows. W and X bf16. A row's last
/// partial run of 32 is read under a mask, zeros in both operands beyond K,
/// so nothing past the row is read. Each element is summed in the same
/// order whatever V and the rows around it.
template <int V>
SHARDC_GEMV_BF16_TARGET void bf16RowDotsAvx512(int64_t begin, int64_t end, int64_t K,
                                               const uint16_t *W, int64_t ld, const uint16_t *X,
                                               float *Y, int64_t ldy) {
  int64_t K32 = K / 32 * 32;
  __mmask32 last = (__mmask32)((uint64_t(1) << (K - K32)) - 1);
  __m512i xLast[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v)
    xLast[v] = _mm512_maskz_loadu_epi16(last, X + v * K + K32);
  int64_t r = begin;
  for (; r + 4 <= end; r += 4) {
    const uint16_t *w[4] = {W + r * ld, W + (r + 1) * ld, W + (r + 2) * ld, W + (r + 3) * ld};
    const uint16_t *ahead[4];
    rowsAhead(W, ld, r, end, ahead);
    __m512 acc[4][V];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[i][v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < K32; k += 32) {
      fetchAhead(ahead, k);
      __m512i xk[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        xk[v] = _mm512_loadu_si512(X + v * K + k);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        __m512i wk = _mm512_loadu_si512(w[i] + k);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm512_dpbf16_ps(acc[i][v], (__m512bh)wk, (__m512bh)xk[v]);
      }
    }
    if (last)
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        __m512i wk = _mm512_maskz_loadu_epi16(last, w[i] + K32);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm512_dpbf16_ps(acc[i][v], (__m512bh)wk, (__m512bh)xLast[v]);
      }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        Y[v * ldy + r + i] = _mm512_reduce_add_ps(acc[i][v]);
  }
  for (; r < end; ++r) {
    const uint16_t *w = W + r * ld;
    __m512 acc[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      acc[v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < K32; k += 32) {
      __m512i wk = _mm512_loadu_si512(w + k);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[v] =
            _mm512_dpbf16_ps(acc[v], (__m512bh)wk, (__m512bh)_mm512_loadu_si512(X + v * K + k));
    }
    if (last) {
      __m512i wk = _mm512_maskz_loadu_epi16(last, w + K32);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[v] = _mm512_dpbf16_ps(acc[v], (__m512bh)wk, (__m512bh)xLast[v]);
    }
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      Y[v * ldy + r] = _mm512_reduce_add_ps(acc[v]);
  }
}

#define SHARDC_GEMV_F32_TARGET __attribute__((target("avx512f")))

/// Y[v * ldy + r] = W[r, 0:K] . X[v, 0:K] for r in [begin, end) and each of
/// V vectors (X's rows, K apart), all f32, with AVX-512 FMAs: each load of
/// a row of W serves the V vectors, each load of a vector four rows. A
/// row's last partial run of 16 is read under a mask. Each element is
/// summed in the same order whatever V and the rows around it.
template <int V>
SHARDC_GEMV_F32_TARGET void f32RowDotsAvx512(int64_t begin, int64_t end, int64_t K, const float *W,
                                             int64_t ld, const float *X, float *Y, int64_t ldy) {
  int64_t K16 = K / 16 * 16;
  __mmask16 last = (__mmask16)((1u << (K - K16)) - 1);
  __m512 xLast[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v)
    xLast[v] = _mm512_maskz_loadu_ps(last, X + v * K + K16);
  int64_t r = begin;
  for (; r + 4 <= end; r += 4) {
    const float *w[4] = {W + r * ld, W + (r + 1) * ld, W + (r + 2) * ld, W + (r + 3) * ld};
    const float *ahead[4];
    rowsAhead(W, ld, r, end, ahead);
    __m512 acc[4][V];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[i][v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < K16; k += 16) {
      fetchAhead(ahead, k);
      __m512 xk[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        xk[v] = _mm512_loadu_ps(X + v * K + k);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        __m512 wk = _mm512_loadu_ps(w[i] + k);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm512_fmadd_ps(wk, xk[v], acc[i][v]);
      }
    }
    if (last)
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        __m512 wk = _mm512_maskz_loadu_ps(last, w[i] + K16);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm512_fmadd_ps(wk, xLast[v], acc[i][v]);
      }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        Y[v * ldy + r + i] = _mm512_reduce_add_ps(acc[i][v]);
  }
  for (; r < end; ++r) {
    const float *w = W + r * ld;
    __m512 acc[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      acc[v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < K16; k += 16) {
      __m512 wk = _mm512_loadu_ps(w + k);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[v] = _mm512_fmadd_ps(wk, _mm512_loadu_ps(X + v * K + k), acc[v]);
    }
    if (last) {
      __m512 wk = _mm512_maskz_loadu_ps(last, w + K16);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[v] = _mm512_fmadd_ps(wk, xLast[v], acc[v]);
    }
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      Y[v * ldy + r] = _mm512_reduce_add_ps(acc[v]);
  }
}

/// The same with AVX2 FMAs, eight lanes: for V of 1 or 2 vectors (their
/// accumulators for four rows, the vectors' runs and a row's fill eleven
/// of the sixteen registers). A row's last partial run of 8 is read under
/// a mask. Each element is summed in the same order whatever V and the
/// rows around it.
template <int V>
SHARDC_GEMV_TARGET void f32RowDotsAvx2(int64_t begin, int64_t end, int64_t K, const float *W,
                                       int64_t ld, const float *X, float *Y, int64_t ldy) {
  static_assert(V == 1 || V == 2, "two vectors at most per load of a row");
  int64_t K8 = K / 8 * 8;
  alignas(32) int32_t lanes[8];
  for (int i = 0; i < 8; ++i)
    lanes[i] = i < K - K8 ? -1 : 0;
  const __m256i last = _mm256_load_si256(reinterpret_cast<const __m256i *>(lanes));
  const bool partial = K8 < K;
  __m256 xLast[V];
  for (int v = 0; v < V; ++v)
    xLast[v] = _mm256_maskload_ps(X + v * K + K8, last);
  int64_t r = begin;
  for (; r + 4 <= end; r += 4) {
    const float *w[4] = {W + r * ld, W + (r + 1) * ld, W + (r + 2) * ld, W + (r + 3) * ld};
    const float *ahead[4];
    rowsAhead(W, ld, r, end, ahead);
    __m256 acc[4][V];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v)
        acc[i][v] = _mm256_setzero_ps();
    for (int64_t k = 0; k < K8; k += 8) {
      if ((k & 15) == 0) // a cache line is 16 floats
        fetchAhead(ahead, k);
      __m256 xk[V];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v)
        xk[v] = _mm256_loadu_ps(X + v * K + k);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        __m256 wk = _mm256_loadu_ps(w[i] + k);
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm256_fmadd_ps(wk, xk[v], acc[i][v]);
      }
    }
    if (partial)
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        __m256 wk = _mm256_maskload_ps(w[i] + K8, last);
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm256_fmadd_ps(wk, xLast[v], acc[i][v]);
      }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v)
        Y[v * ldy + r + i] = sum8(acc[i][v]);
  }
  for (; r < end; ++r) {
    const float *w = W + r * ld;
    __m256 acc[V];
    for (int v = 0; v < V; ++v)
      acc[v] = _mm256_setzero_ps();
    for (int64_t k = 0; k < K8; k += 8) {
      __m256 wk = _mm256_loadu_ps(w + k);
      for (int v = 0; v < V; ++v)
        acc[v] = _mm256_fmadd_ps(wk, _mm256_loadu_ps(X + v * K + k), acc[v]);
    }
    if (partial) {
      __m256 wk = _mm256_maskload_ps(w + K8, last);
      for (int v = 0; v < V; ++v)
        acc[v] = _mm256_fmadd_ps(wk, xLast[v], acc[v]);
    }
    for (int v = 0; v < V; ++v)
      Y[v * ldy + r] = sum8(acc[v]);
  }
}

/// Tests: false makes the f32 kernel take its AVX2 path on an AVX-512 CPU.
bool avx512KernelsAllowed = true;

bool cpuHasAvx512F() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has && avx512KernelsAllowed;
}

bool cpuHasAvx512Bw() {
  static const bool has = __builtin_cpu_supports("avx512bw");
  return has;
}

bool cpuHasAvx2Fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

#endif

} // namespace

bool bf16MatrixVectors(int64_t rows, int64_t K, const void *matrix, DType wType, int64_t ld,
                       const void *x, DType xType, int64_t vectors, int64_t vstride, int64_t incx,
                       float *y, int64_t ldy) {
#if defined(__x86_64__) && defined(__GNUC__)
  auto isFloat = [](DType t) { return t == DType::F32 || t == DType::BF16; };
  if (!cpuHasAvx2Fma() || rows <= 0 || K <= 0 || vectors <= 0 || !isFloat(wType) || !isFloat(xType))
    return false;
  const uint16_t *W = (const uint16_t *)matrix;
  if (wType == DType::F32) { // each row rounded, packed K apart
    static thread_local std::vector<uint16_t> rounded;
    rounded.resize(rows * K);
    if (ld == K) // one run, split over the pool
      toBf16((const float *)matrix, rounded.data(), rows * K);
    else
      for (int64_t r = 0; r < rows; ++r)
        toBf16((const float *)matrix + r * ld, rounded.data() + r * K, K);
    W = rounded.data(), ld = K;
  }
  // The vectors rounded to bf16 (as the products round them), each
  // contiguous, K apart, once per call.
  static thread_local std::vector<uint16_t> half;
  static thread_local std::vector<float> gathered, vec;
  half.resize(vectors * K);
  for (int64_t v = 0; v < vectors; ++v) {
    uint16_t *hv = half.data() + v * K;
    if (xType == DType::F32) {
      const float *f = (const float *)x + v * vstride;
      if (incx != 1) {
        gathered.resize(K);
        for (int64_t k = 0; k < K; ++k)
          gathered[k] = f[k * incx];
        f = gathered.data();
      }
      toBf16(f, hv, K);
    } else {
      const uint16_t *b = (const uint16_t *)x + v * vstride;
      for (int64_t k = 0; k < K; ++k)
        hv[k] = b[k * incx];
    }
  }
  const uint16_t *h = half.data();
  // Runs of four rows, so that the split keeps groups whole.
  int64_t groups = (rows + 3) / 4;
  if (bf16Instructions() && cpuHasAvx512Bw()) {
    parallelRange(
        groups,
        [&](int64_t begin, int64_t end) {
          fourAtATime(K, h, vectors, y, ldy, [&](auto V, const uint16_t *x, float *yv) {
            bf16RowDotsAvx512<decltype(V)::value>(begin * 4, std::min(end * 4, rows), K, W, ld, x,
                                                  yv, ldy);
          });
        },
        rows * K * vectors);
    return true;
  }
  // The AVX2 kernel reads the vectors widened to f32.
  vec.resize(vectors * K);
  for (int64_t i = 0; i < vectors * K; ++i) {
    uint32_t bits = (uint32_t)h[i] << 16;
    std::memcpy(&vec[i], &bits, 4);
  }
  // Other threads run ranges too: they read this thread's vectors, not
  // their own thread_local ones.
  const float *widened = vec.data();
  parallelRange(
      groups,
      [&](int64_t begin, int64_t end) {
        for (int64_t v = 0; v < vectors; ++v)
          bf16RowDotsAvx2(begin * 4, std::min(end * 4, rows), K, W, ld, widened + v * K,
                          y + v * ldy);
      },
      rows * K * vectors);
  return true;
#else
  (void)rows, (void)K, (void)matrix, (void)wType, (void)ld, (void)x, (void)xType;
  (void)vectors, (void)vstride, (void)incx, (void)y, (void)ldy;
  return false;
#endif
}

bool f32MatrixVectors(int64_t rows, int64_t K, const float *W, int64_t ld, const float *x,
                      int64_t vectors, int64_t vstride, int64_t incx, float *y, int64_t ldy) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!(cpuHasAvx512F() || cpuHasAvx2Fma()) || rows <= 0 || K <= 0 || vectors <= 0)
    return false;
  // The vectors gathered contiguous, K apart.
  static thread_local std::vector<float> packed;
  packed.resize(vectors * K);
  for (int64_t v = 0; v < vectors; ++v)
    for (int64_t k = 0; k < K; ++k)
      packed[v * K + k] = x[v * vstride + k * incx];
  const float *X = packed.data();
  int64_t groups = (rows + 3) / 4; // runs of four rows, kept whole by the split
  if (cpuHasAvx512F()) {
    parallelRange(
        groups,
        [&](int64_t begin, int64_t end) {
          fourAtATime(K, X, vectors, y, ldy, [&](auto V, const float *x, float *yv) {
            f32RowDotsAvx512<decltype(V)::value>(begin * 4, std::min(end * 4, rows), K, W, ld, x,
                                                 yv, ldy);
          });
        },
        rows * K * vectors);
    return true;
  }
  parallelRange(
      groups,
      [&](int64_t begin, int64_t end) {
        int64_t r0 = begin * 4, r1 = std::min(end * 4, rows);
        for (int64_t v = 0; v < vectors; v += 2)
          if (v + 1 < vectors)
            f32RowDotsAvx2<2>(r0, r1, K, W, ld, X + v * K, y + v * ldy, ldy);
          else
            f32RowDotsAvx2<1>(r0, r1, K, W, ld, X + v * K, y + v * ldy, ldy);
      },
      rows * K * vectors);
  return true;
#else
  (void)rows, (void)K, (void)W, (void)ld, (void)x, (void)vectors, (void)vstride, (void)incx;
  (void)y, (void)ldy;
  return false;
#endif
}

void allowAvx512Kernels(bool allow) {
#if defined(__x86_64__) && defined(__GNUC__)
  avx512KernelsAllowed = allow;
#else
  (void)allow;
#endif
}

bool bf16MatrixVector(int64_t rows, int64_t K, const void *matrix, DType wType, int64_t ld,
                      const void *x, DType xType, int64_t incx, float *y) {
  return bf16MatrixVectors(rows, K, matrix, wType, ld, x, xType, 1, 0, incx, y, rows);
}

} // namespace shardc::cpu
