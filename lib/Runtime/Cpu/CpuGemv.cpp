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
#define SHARDC_GEMV_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))
#define SHARDC_GEMV_F32_TARGET __attribute__((target("avx512f")))

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

// The kernels differ in how a step of a row meets a step of a vector, so
// their loop, rowDots below, is written once against traits of that: Elem
// the matrix's element and XElem the vectors' (bf16 as its bits), kStep
// elements a step, Reg a step as loaded, Acc the f32 lanes it adds into.
// Where kMasked, a row's last partial step is read under a Mask, zeros in
// both operands beyond K (nothing past the row is read); where kPrefetch,
// rows ahead are fetched. Only the traits' functions hold intrinsics, each
// marked with its instruction set, and each kernel is rowDots flattened
// into a function of its set: GCC inlines them only there (always_inline
// would fail, since GCC inlines into rowDots' own body first). rowDots has
// no set of its own, so vectors reach them by reference: passed by value
// from there they would need their set's ABI (GCC warns, clang refuses).

/// bf16 on AVX512-BF16: vdpbf16ps adds w[2i+1] x[2i+1], then w[2i] x[2i],
/// of 32 elements of a row and a vector into lane i (subnormals count as
/// zero). It takes bf16 as stored: no widening, half the instructions of
/// the AVX2 kernel per element.
struct Bf16Avx512 {
  using Elem = uint16_t;
  using XElem = uint16_t;
  using Reg = __m512i;
  using Acc = __m512;
  using Mask = __mmask32;
  static constexpr int64_t kStep = 32;
  static constexpr bool kMasked = true, kPrefetch = true;
  static void mask(Mask &m, int64_t n) { m = (Mask)((uint64_t(1) << n) - 1); }
  SHARDC_GEMV_BF16_TARGET static void load(Reg &r, const uint16_t *p) { r = _mm512_loadu_si512(p); }
  SHARDC_GEMV_BF16_TARGET static void load(Reg &r, const uint16_t *p, const Mask &m) {
    r = _mm512_maskz_loadu_epi16(m, p);
  }
  SHARDC_GEMV_BF16_TARGET static void zero(Acc &acc) { acc = _mm512_setzero_ps(); }
  SHARDC_GEMV_BF16_TARGET static void madd(Acc &acc, const Reg &w, const Reg &x) {
    acc = _mm512_dpbf16_ps(acc, (__m512bh)w, (__m512bh)x);
  }
  SHARDC_GEMV_BF16_TARGET static float sum(const Acc &acc) { return _mm512_reduce_add_ps(acc); }
};

/// f32 on AVX-512 FMAs, 16 lanes.
struct F32Avx512 {
  using Elem = float;
  using XElem = float;
  using Reg = __m512;
  using Acc = __m512;
  using Mask = __mmask16;
  static constexpr int64_t kStep = 16;
  static constexpr bool kMasked = true, kPrefetch = true;
  static void mask(Mask &m, int64_t n) { m = (Mask)((1u << n) - 1); }
  SHARDC_GEMV_F32_TARGET static void load(Reg &r, const float *p) { r = _mm512_loadu_ps(p); }
  SHARDC_GEMV_F32_TARGET static void load(Reg &r, const float *p, const Mask &m) {
    r = _mm512_maskz_loadu_ps(m, p);
  }
  SHARDC_GEMV_F32_TARGET static void zero(Acc &acc) { acc = _mm512_setzero_ps(); }
  SHARDC_GEMV_F32_TARGET static void madd(Acc &acc, const Reg &w, const Reg &x) {
    acc = _mm512_fmadd_ps(w, x, acc);
  }
  SHARDC_GEMV_F32_TARGET static float sum(const Acc &acc) { return _mm512_reduce_add_ps(acc); }
};

/// f32 on AVX2 FMAs, eight lanes: for V of 1 or 2 vectors (their
/// accumulators for four rows, the vectors' steps and a row's fill eleven
/// of the sixteen registers).
struct F32Avx2 {
  using Elem = float;
  using XElem = float;
  using Reg = __m256;
  using Acc = __m256;
  using Mask = __m256i;
  static constexpr int64_t kStep = 8;
  static constexpr bool kMasked = true, kPrefetch = true;
  /// All ones in the first n lanes, 0 in the others.
  SHARDC_GEMV_TARGET static void mask(Mask &m, int64_t n) {
    alignas(32) int32_t lanes[8];
    for (int i = 0; i < 8; ++i)
      lanes[i] = i < n ? -1 : 0;
    m = _mm256_load_si256(reinterpret_cast<const __m256i *>(lanes));
  }
  SHARDC_GEMV_TARGET static void load(Reg &r, const float *p) { r = _mm256_loadu_ps(p); }
  SHARDC_GEMV_TARGET static void load(Reg &r, const float *p, const Mask &m) {
    r = _mm256_maskload_ps(p, m);
  }
  SHARDC_GEMV_TARGET static void zero(Acc &acc) { acc = _mm256_setzero_ps(); }
  SHARDC_GEMV_TARGET static void madd(Acc &acc, const Reg &w, const Reg &x) {
    acc = _mm256_fmadd_ps(w, x, acc);
  }
  SHARDC_GEMV_TARGET static float sum(const Acc &acc) { return sum8(acc); }
};

/// bf16 on AVX2, against a vector widened to f32: 16 elements a step,
/// widened eight at a time, into two accumulators (a step's first and last
/// eight) added before their lanes. Unlike the others it adds a row's last
/// K % 16 elements one by one after the lanes, and fetches no rows ahead.
struct Bf16Avx2 {
  struct Pair {
    __m256 lo, hi;
  };
  using Elem = uint16_t;
  using XElem = float;
  using Reg = Pair;
  using Acc = Pair;
  using Mask = bool; // none: no masked loads
  static constexpr int64_t kStep = 16;
  static constexpr bool kMasked = false, kPrefetch = false;
  SHARDC_GEMV_TARGET static void load(Reg &r, const uint16_t *p) {
    r.lo = widen8(p);
    r.hi = widen8(p + 8);
  }
  SHARDC_GEMV_TARGET static void load(Reg &r, const float *p) {
    r.lo = _mm256_loadu_ps(p);
    r.hi = _mm256_loadu_ps(p + 8);
  }
  SHARDC_GEMV_TARGET static void zero(Acc &acc) { acc.lo = acc.hi = _mm256_setzero_ps(); }
  SHARDC_GEMV_TARGET static void madd(Acc &acc, const Reg &w, const Reg &x) {
    acc.lo = _mm256_fmadd_ps(w.lo, x.lo, acc.lo);
    acc.hi = _mm256_fmadd_ps(w.hi, x.hi, acc.hi);
  }
  SHARDC_GEMV_TARGET static float sum(const Acc &acc) {
    return sum8(_mm256_add_ps(acc.lo, acc.hi));
  }
};

/// Y[v * ldy + r] = W[r, 0:K] . X[v, 0:K] for r in [begin, end) and each of
/// V vectors (X's rows, K apart), on E's instructions: each load of a row
/// of W serves the V vectors, each load of a vector four rows. Each element
/// is summed in the same order whatever V and the rows around it.
template <class E, int V>
inline void rowDots(int64_t begin, int64_t end, int64_t K, const typename E::Elem *W, int64_t ld,
                    const typename E::XElem *X, float *Y, int64_t ldy) {
  using Elem = typename E::Elem;
  using Reg = typename E::Reg;
  using Acc = typename E::Acc;
  constexpr int64_t kLine = 64 / sizeof(Elem); // a row's elements per cache line
  const int64_t Kw = K / E::kStep * E::kStep;  // those in whole steps
  // The rest of a row: one step more under the mask, into the lanes.
  typename E::Mask last{};
  Reg xLast[V];
  if constexpr (E::kMasked) {
    E::mask(last, K - Kw);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      E::load(xLast[v], X + v * K + Kw, last);
  }
  auto addLast = [&](Acc acc[V], const Elem *w) {
    if constexpr (E::kMasked) {
      Reg wk;
      E::load(wk, w + Kw, last);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        E::madd(acc[v], wk, xLast[v]);
    }
  };
  // Or, without masks (bf16 on AVX2), element by element after the lanes'
  // sum, in order, so that a row's sum does not depend on its group.
  auto sum = [&](const Acc &acc, const Elem *w, int v) {
    float y = E::sum(acc);
    if constexpr (!E::kMasked)
      for (int64_t k = Kw; k < K; ++k)
        y += bf16ToFloat(w[k]) * X[v * K + k];
    return y;
  };
  int64_t r = begin;
  for (; r + 4 <= end; r += 4) {
    const Elem *w[4] = {W + r * ld, W + (r + 1) * ld, W + (r + 2) * ld, W + (r + 3) * ld};
    const Elem *ahead[4];
    rowsAhead(W, ld, r, end, ahead);
    Acc acc[4][V];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        E::zero(acc[i][v]);
    for (int64_t k = 0; k < Kw; k += E::kStep) {
      if (E::kPrefetch && (E::kStep >= kLine || (k & (kLine - 1)) == 0)) // once a line
        fetchAhead(ahead, k);
      Reg xk[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        E::load(xk[v], X + v * K + k);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        Reg wk;
        E::load(wk, w[i] + k);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          E::madd(acc[i][v], wk, xk[v]);
      }
    }
    if (Kw < K)
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i)
        addLast(acc[i], w[i]);
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        Y[v * ldy + r + i] = sum(acc[i][v], w[i], v);
  }
  for (; r < end; ++r) {
    const Elem *w = W + r * ld;
    Acc acc[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      E::zero(acc[v]);
    for (int64_t k = 0; k < Kw; k += E::kStep) {
      Reg wk;
      E::load(wk, w + k);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        Reg xk;
        E::load(xk, X + v * K + k);
        E::madd(acc[v], wk, xk);
      }
    }
    if (Kw < K)
      addLast(acc, w);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      Y[v * ldy + r] = sum(acc[v], w, v);
  }
}

// Each kernel: rowDots, the traits' functions with it, inlined whole into a
// function of the kernel's instruction set.
#define SHARDC_GEMV_FLATTEN __attribute__((flatten))

/// rowDots on bf16 with AVX512-BF16: W and X bf16.
template <int V>
SHARDC_GEMV_BF16_TARGET SHARDC_GEMV_FLATTEN void
bf16RowDotsAvx512(int64_t begin, int64_t end, int64_t K, const uint16_t *W, int64_t ld,
                  const uint16_t *X, float *Y, int64_t ldy) {
  rowDots<Bf16Avx512, V>(begin, end, K, W, ld, X, Y, ldy);
}

/// rowDots on f32 with AVX-512.
template <int V>
SHARDC_GEMV_F32_TARGET SHARDC_GEMV_FLATTEN void
f32RowDotsAvx512(int64_t begin, int64_t end, int64_t K, const float *W, int64_t ld, const float *X,
                 float *Y, int64_t ldy) {
  rowDots<F32Avx512, V>(begin, end, K, W, ld, X, Y, ldy);
}

/// rowDots on f32 with AVX2, for one or two vectors.
template <int V>
SHARDC_GEMV_TARGET SHARDC_GEMV_FLATTEN void f32RowDotsAvx2(int64_t begin, int64_t end, int64_t K,
                                                           const float *W, int64_t ld,
                                                           const float *X, float *Y, int64_t ldy) {
  static_assert(V == 1 || V == 2, "two vectors at most per load of a row");
  rowDots<F32Avx2, V>(begin, end, K, W, ld, X, Y, ldy);
}

/// y[r] = W[r, 0:K] . x for r in [begin, end): W bf16, rows `ld` apart; x
/// f32 (bf16 values), contiguous. rowDots on bf16 with AVX2, one vector.
SHARDC_GEMV_TARGET SHARDC_GEMV_FLATTEN void bf16RowDotsAvx2(int64_t begin, int64_t end, int64_t K,
                                                            const uint16_t *W, int64_t ld,
                                                            const float *x, float *y) {
  rowDots<Bf16Avx2, 1>(begin, end, K, W, ld, x, y, 0);
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
