//===- CpuGemm.cpp - the CPU backend's matrix products --------------------===//
//
// Every f32 dot_general of the CPU backend ends here, as a batch of
// matrices read in place (MatrixView). Which library runs a product is a
// fixed rule per shape, from the shape table in bench/gemm_bench.cpp:
//   - oneDNN's matmul (brgemm kernels, AVX-512 and AMX) for products of at
//     least kDnnlMinFlops, batched ones in one call; at f32 it runs these
//     shapes at about twice OpenBLAS's rate, and it is the library with
//     bf16 kernels (OpenBLAS 0.3.21 as Debian builds it has no sbgemm);
//   - OpenBLAS for the rest: matrix-vector products (a decode step's
//     weights), small products, batches of small untransposed items where
//     OpenBLAS has a kernel for the CPU, and everything when oneDNN is not
//     built in;
//   - plain loops for tiny items (a decode step's attention), and for
//     everything without either library.
// The rule is a guess from one CPU's table. Where both libraries could run
// a product on the f32 path (f32; tf32 and bf16 without bf16 kernels, on
// the rounded operands), the first call of its layout times both on this
// machine and the faster one runs it from then on (ProductWisdom.h: kept
// in the compile cache's directory, so later processes run it the same way
// and results repeat bit for bit; SHARDC_PRODUCT_WISDOM=0 keeps the rule).
//
// bf16 precision rounds both operands to bf16 (nearest even) and
// accumulates in f32: oneDNN's bf16 kernels where the CPU has bf16
// instructions, else the f32 path on the rounded operands (same numbers, f32
// speed; said once on stderr). tf32 is a GPU format: the CPU rounds the
// operands to it and runs the f32 path, for the GPU's numbers.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "RegionTeam.h"
#include "ProductWisdom.h"

#include "shardc/Runtime/Environment.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>

#ifdef SHARDC_HAVE_CBLAS
#include <cblas.h>
#endif
#ifdef SHARDC_HAVE_DNNL
#include <dnnl.hpp>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace shardc::cpu {

namespace {

int blasThreads = 1;
/// More than one device thread calls BLAS: the thread count stays as
/// setBlasThreads left it (see there).
bool concurrentBlasCallers = false;
/// Tests turn the CPU's bf16 instructions off to run the emulated path.
bool bf16InstructionsAllowed = true;
/// Tests force a library on the products left to the rule, and turn the
/// product wisdom off.
std::atomic<GemmLibrary> forcedLibrary{GemmLibrary::Auto};
std::atomic<bool> productWisdomAllowed{true};

/// Sets BLAS's thread count for the next calls from this thread, when this
/// thread is the only one calling BLAS.
void useBlasThreads(int threads) {
#ifdef SHARDC_HAVE_CBLAS
  if (!concurrentBlasCallers)
    openblas_set_num_threads(threads);
#else
  (void)threads;
#endif
}

/// The most multiply-adds of one item that plain loops compute (see
/// blasGemm).
constexpr int64_t kTinyProductMacs = 1 << 14;

/// The most rows of A a product with a matrix read by rows (B^T) runs as
/// matrix-vector products, each load of the matrix serving four rows (a
/// batch of 8's decode step, a prefill of 8 positions): they read the
/// matrix as it is stored, where the library paths widened or packed it
/// first (at bf16, slower than f32 on these shapes).
constexpr int64_t kFewRows = 8;

/// SHARDC_LOG=debug: which library and kernel each product shape gets.
bool debugLog() {
  static const bool on = envIs(Env::Log, "debug");
  return on;
}

void debugOnce(const std::string &line) { sayOnce("debug", line); }

/// "f32 product M x N x K (I items, A^T, B^T)", as the debug log names a
/// product.
std::string productName(const char *precision, int64_t M, int64_t N, int64_t K, const MatrixView &a,
                        const MatrixView &b) {
  char name[160];
  std::snprintf(name, sizeof name, "%s product %lld x %lld x %lld (%lld items%s%s)", precision,
                (long long)M, (long long)N, (long long)K, (long long)a.items(),
                a.trans ? ", A^T" : "", b.trans ? ", B^T" : "");
  return name;
}

/// The guard every product passes before a library or kernel reads its
/// operands: a view that reads outside its buffer (ProductViews.h), or two
/// that walk their items differently, is an internal error naming the
/// product and the path, never a read. Before the views are aligned
/// (`aligned` false), they may list the same items by different batch
/// dimensions: gemm aligns them.
void guardViews(const char *precision, int64_t M, int64_t N, int64_t K, const MatrixView &a,
                const MatrixView &b, const char *path, bool aligned = true) {
  std::string problem;
  for (bool lhs : {true, false}) {
    std::string p = lhs ? viewProblem(a, M, K) : viewProblem(b, K, N);
    if (!p.empty() && problem.empty())
      problem = std::string("its ") + (lhs ? "lhs" : "rhs") + " view " + p;
  }
  if (problem.empty() && a.items() != b.items())
    problem = "its lhs view holds " + std::to_string(a.items()) + " items and its rhs view " +
              std::to_string(b.items());
  if (problem.empty() && aligned && a.batchSizes != b.batchSizes)
    problem = "its views walk their items by different batch dimensions";
  if (!problem.empty())
    throw ProductViewError("internal error: " + productName(precision, M, N, K, a, b) + " (" +
                           path + "): " + problem + "; nothing was read");
}

/// Whether OpenBLAS runs a kernel made for this CPU. On a CPU it does not
/// know it falls back to a generic one ("Prescott": a tenth of the FMA
/// peak), whatever the CPU's vector units.
bool openblasKnowsCpu() {
#ifdef SHARDC_HAVE_CBLAS
  static const bool knows = [] {
    const char *core = openblas_get_corename();
    for (const char *tuned : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
      if (core && std::strcmp(core, tuned) == 0)
        return true;
    return false;
  }();
  return knows;
#else
  return false;
#endif
}

/// Timed runs of each library when the product wisdom measures a layout.
constexpr int kWisdomRounds = 5;

/// Below this many flops a product stays on OpenBLAS: oneDNN's per-call
/// cost (memory objects, a stream, its thread team) is a few microseconds.
constexpr int64_t kDnnlMinFlops = int64_t(1) << 22;

//===----------------------------------------------------------------------===//
// bf16 rounding
//===----------------------------------------------------------------------===//

bool cpuHasBf16() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has && bf16InstructionsAllowed;
#else
  return false;
#endif
}

void toBf16Scalar(const float *x, uint16_t *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = floatToBF16(x[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The instruction rounds subnormal inputs as zeros: a run that has one is
/// rounded by floatToBF16, as the reference rounds it.
__attribute__((target("avx512f,avx512bf16,avx512vl"))) void toBf16Avx512(const float *x,
                                                                         uint16_t *y, int64_t n) {
  const __m512i exponent = _mm512_set1_epi32(0x7f800000), magnitude = _mm512_set1_epi32(0x7fffffff);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(x + i);
    __m512i bits = _mm512_castps_si512(v);
    __mmask16 nonzero = _mm512_test_epi32_mask(bits, magnitude),
              normal = _mm512_test_epi32_mask(bits, exponent);
    if (nonzero & ~normal) { // a subnormal lane
      toBf16Scalar(x + i, y + i, 16);
      continue;
    }
    __m256bh h = _mm512_cvtneps_pbh(v);
    _mm256_storeu_si256((__m256i *)(y + i), (__m256i)h);
  }
  toBf16Scalar(x + i, y + i, n - i);
}
#endif

/// y = bf16(x), nearest even (NaN stays NaN), for one run of elements.
void toBf16Run(const float *x, uint16_t *y, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpuHasBf16())
    return toBf16Avx512(x, y, n);
#endif
  toBf16Scalar(x, y, n);
}

/// y = x rounded to bf16 or tf32 and kept in f32, for one run of elements.
void roundRun(const float *x, float *y, int64_t n, MatmulPrecision p) {
  if (p == MatmulPrecision::BF16)
    for (int64_t i = 0; i < n; ++i)
      y[i] = bf16ToFloat(floatToBF16(x[i]));
  else
    for (int64_t i = 0; i < n; ++i)
      y[i] = roundToTF32(x[i]);
}

/// Whether a view leaves gaps in what it spans (q, k and v are slices of one
/// qkv buffer, each read a third): then rounding its extent would convert
/// elements no product reads.
bool hasGaps(const MatrixView &v, int64_t rows, int64_t cols) {
  int64_t dense = v.items() * rows * cols;
  return v.extent(rows, cols) > dense + dense / 4;
}

/// The elements an operand's view reads as rows x cols matrices, rounded (or
/// widened, or copied) by `run` into `buf`, on the shared pool: its extent as it is (the view
/// stays), or with `pack`, only the matrices it reads, one after the other
/// in the view's orientation (`v` then describes the packed copy, its batch
/// dimensions flattened into one). Both operands of a product are packed
/// or neither, so their batch dimensions stay alike.
template <typename In, typename T, typename Run>
const T *roundedOperand(const In *x, MatrixView &v, int64_t rows, int64_t cols, bool pack,
                        std::vector<T> &buf, Run run) {
  int64_t items = v.items(), dense = items * rows * cols, extent = v.extent(rows, cols);
  if (!pack) {
    if ((int64_t)buf.size() < extent)
      buf.resize(extent);
    parallelRange(extent, [&](int64_t b, int64_t e) { run(x + b, buf.data() + b, e - b); });
    v.elements = extent; // what was rounded
    return buf.data();
  }
  if ((int64_t)buf.size() < dense)
    buf.resize(dense);
  // Stored lines: rows, or columns when the view reads the matrix transposed.
  int64_t lines = v.trans ? cols : rows, length = v.trans ? rows : cols;
  std::vector<int64_t> offsets = v.offsets();
  parallelRange(
      items * lines,
      [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          int64_t item = i / lines, line = i % lines;
          run(x + offsets[item] + line * v.ld, buf.data() + i * length, length);
        }
      },
      dense);
  v.batchSizes = items > 1 ? std::vector<int64_t>{items} : std::vector<int64_t>{};
  v.batchStrides = items > 1 ? std::vector<int64_t>{rows * cols} : std::vector<int64_t>{};
  v.ld = length;
  v.elements = dense;
  return buf.data();
}

/// y = x for one run of bf16 elements.
void copyBf16Run(const uint16_t *x, uint16_t *y, int64_t n) { std::memcpy(y, x, n * 2); }

/// y = x widened to f32 (exact), for one run of bf16 elements.
void widenBf16Run(const uint16_t *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = bf16ToFloat(x[i]);
}

/// An operand for oneDNN's bf16 kernels: a bf16 one as it is (packed where
/// the view has gaps), an f32 one rounded.
const uint16_t *bf16Operand(const void *x, DType type, MatrixView &v, int64_t rows, int64_t cols,
                            bool pack, std::vector<uint16_t> &buf) {
  if (type != DType::BF16)
    return roundedOperand((const float *)x, v, rows, cols, pack, buf, toBf16Run);
  if (!pack)
    return (const uint16_t *)x;
  return roundedOperand((const uint16_t *)x, v, rows, cols, pack, buf, copyBf16Run);
}

/// An operand for the f32 path at a rounding precision: a bf16 one widened
/// (rounded already), an f32 one rounded to `p`.
const float *roundedF32Operand(const void *x, DType type, MatrixView &v, int64_t rows, int64_t cols,
                               bool pack, std::vector<float> &buf, MatmulPrecision p) {
  if (type == DType::BF16)
    return roundedOperand((const uint16_t *)x, v, rows, cols, pack, buf, widenBf16Run);
  auto round = [p](const float *in, float *out, int64_t n) { roundRun(in, out, n, p); };
  return roundedOperand((const float *)x, v, rows, cols, pack, buf, round);
}

void noteBf16Emulated(const char *why) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "shardc: bf16 products run at f32 speed on this machine (%s); the results "
                 "are those of bf16 operands with f32 accumulation\n",
                 why);
  });
}

//===----------------------------------------------------------------------===//
// oneDNN
//===----------------------------------------------------------------------===//

#ifdef SHARDC_HAVE_DNNL

/// Batch dimensions of both operands as oneDNN reads them: adjacent ones
/// merged where both operands step over the inner one whole.
struct DnnlBatch {
  std::vector<int64_t> sizes, aStrides, bStrides;
};

DnnlBatch dnnlBatch(const MatrixView &a, const MatrixView &b) {
  DnnlBatch d;
  for (size_t i = 0; i < a.batchSizes.size(); ++i) {
    int64_t n = a.batchSizes[i], sa = a.batchStrides[i], sb = b.batchStrides[i];
    if (!d.sizes.empty() && d.aStrides.back() == n * sa && d.bStrides.back() == n * sb) {
      d.sizes.back() *= n;
      d.aStrides.back() = sa;
      d.bStrides.back() = sb;
      continue;
    }
    d.sizes.push_back(n);
    d.aStrides.push_back(sa);
    d.bStrides.push_back(sb);
  }
  return d;
}

struct DnnlProduct {
  std::optional<dnnl::matmul> primitive; // empty: oneDNN has no fast kernel for it
  dnnl::memory::desc a, b, c;
};

dnnl::engine &dnnlEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

/// The primitive for one product shape, made once per device thread (each
/// thread its own, so no two threads share a primitive's scratchpad).
DnnlProduct *dnnlProduct(int64_t M, int64_t N, int64_t K, const MatrixView &a, const MatrixView &b,
                         bool bf16) {
  using dt = dnnl::memory::data_type;
  DnnlBatch batch = dnnlBatch(a, b);
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  std::vector<int64_t> key = {bf16, M, N, K, threads, a.trans, a.ld, b.trans, b.ld};
  for (size_t i = 0; i < batch.sizes.size(); ++i) {
    key.push_back(batch.sizes[i]);
    key.push_back(batch.aStrides[i]);
    key.push_back(batch.bStrides[i]);
  }
  static thread_local std::map<std::vector<int64_t>, DnnlProduct> cache;
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second.primitive ? &it->second : nullptr;
  if (cache.size() >= 512)
    cache.clear();
  DnnlProduct &p = cache[key];

  dnnl::memory::dims ad = batch.sizes, bd = batch.sizes, cd = batch.sizes;
  dnnl::memory::dims as = batch.aStrides, bs = batch.bStrides, cs;
  int64_t items = 1;
  for (int64_t s : batch.sizes)
    items *= s;
  for (size_t i = 0; i < batch.sizes.size(); ++i) {
    items /= batch.sizes[i];
    cs.push_back(items * M * N);
  }
  ad.insert(ad.end(), {M, K});
  as.insert(as.end(), {a.trans ? 1 : a.ld, a.trans ? a.ld : 1});
  bd.insert(bd.end(), {K, N});
  bs.insert(bs.end(), {b.trans ? 1 : b.ld, b.trans ? b.ld : 1});
  cd.insert(cd.end(), {M, N});
  cs.insert(cs.end(), {N, 1});
  std::string kernel;
  try {
    p.a = dnnl::memory::desc(ad, bf16 ? dt::bf16 : dt::f32, as);
    p.b = dnnl::memory::desc(bd, bf16 ? dt::bf16 : dt::f32, bs);
    p.c = dnnl::memory::desc(cd, dt::f32, cs);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p.a, p.b, p.c), dnnlEngine());
    kernel = pd.impl_info_str();
    // The reference implementation is slower than OpenBLAS at any shape.
    if (kernel.find("ref") == std::string::npos)
      p.primitive.emplace(pd);
  } catch (const dnnl::error &e) {
    kernel = std::string("none: ") + e.what();
  }
  if (debugLog()) {
    debugOnce(productName(bf16 ? "bf16" : "f32", M, N, K, a, b) +
              (p.primitive
                   ? ": oneDNN kernel " + kernel
                   : ": oneDNN has no fast kernel (" + kernel + "); " +
                         (bf16 ? "rounded operands on the f32 path" : "OpenBLAS") + " runs it"));
  }
  return p.primitive ? &p : nullptr;
}

/// Before each oneDNN call. oneDNN sizes its thread team by the calling
/// thread's OpenMP default, which OpenBLAS's OpenMP build sets with its own
/// thread count: a small product that ran OpenBLAS on one thread
/// (useBlasThreads) must not leave the large products after it on one
/// thread too.
void giveDnnlEveryThread() {
#ifdef _OPENMP
  if (!concurrentBlasCallers && omp_get_max_threads() != blasThreads)
    omp_set_num_threads(blasThreads);
#endif
}

bool dnnlGemm(int64_t M, int64_t N, int64_t K, const void *A, const MatrixView &a, const void *B,
              const MatrixView &b, float *C, bool bf16) {
  guardViews(bf16 ? "bf16" : "f32", M, N, K, a, b, "oneDNN");
  giveDnnlEveryThread();
  DnnlProduct *p = dnnlProduct(M, N, K, a, b, bf16);
  if (!p)
    return false;
  static thread_local dnnl::stream stream(dnnlEngine());
  dnnl::memory am(p->a, dnnlEngine(), const_cast<void *>(A));
  dnnl::memory bm(p->b, dnnlEngine(), const_cast<void *>(B));
  dnnl::memory cm(p->c, dnnlEngine(), C);
  p->primitive->execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  stream.wait();
  return true;
}

#endif // SHARDC_HAVE_DNNL

//===----------------------------------------------------------------------===//
// OpenBLAS, or a loop
//===----------------------------------------------------------------------===//

/// Eight f32 lanes, as GCC's vector extension (AVX in the x86-64-v3 clone
/// below, two SSE halves in the default one), read and written at any
/// float's address.
typedef float Lanes8 __attribute__((vector_size(32), aligned(4), may_alias));

inline const Lanes8 &lanesAt(const float *p) { return *reinterpret_cast<const Lanes8 *>(p); }
inline Lanes8 &lanesAt(float *p) { return *reinterpret_cast<Lanes8 *>(p); }

/// The sum of a dot product's eight lanes, in a fixed order.
inline float sumLanes(const Lanes8 &v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

/// One item of a tiny product, C[M,N] = A[M,K] B[K,N], by plain loops:
/// a row of A against B's rows (axpy along C's row, 32 or 8 columns of C
/// held in registers across K) or, where B is read transposed, against B's
/// columns (dots along K, eight lanes at a time, four columns sharing each
/// load of A's row). Each element of C sums in the same order whichever
/// group computes it.
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void tinyProduct(int64_t M, int64_t N, int64_t K, const float *x, const MatrixView &a,
                 const float *y, const MatrixView &b, float *c, float *row) {
  for (int64_t m = 0; m < M; ++m) {
    const float *am = x + m * a.ld;
    if (a.trans) { // A(m, k) = x[k * lda + m]: the row copied
      for (int64_t k = 0; k < K; ++k)
        row[k] = x[k * a.ld + m];
      am = row;
    }
    float *cm = c + m * N;
    if (!b.trans) { // B(k, n) = y[k * ldb + n]
      int64_t n = 0;
      for (; n + 32 <= N; n += 32) {
        Lanes8 c0{}, c1{}, c2{}, c3{};
        for (int64_t k = 0; k < K; ++k) {
          const float *bk = y + k * b.ld + n;
          Lanes8 av = Lanes8{} + am[k];
          c0 += av * lanesAt(bk);
          c1 += av * lanesAt(bk + 8);
          c2 += av * lanesAt(bk + 16);
          c3 += av * lanesAt(bk + 24);
        }
        lanesAt(cm + n) = c0, lanesAt(cm + n + 8) = c1;
        lanesAt(cm + n + 16) = c2, lanesAt(cm + n + 24) = c3;
      }
      for (; n + 8 <= N; n += 8) {
        Lanes8 c0{};
        for (int64_t k = 0; k < K; ++k)
          c0 += (Lanes8{} + am[k]) * lanesAt(y + k * b.ld + n);
        lanesAt(cm + n) = c0;
      }
      for (; n < N; ++n) {
        float sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += am[k] * y[k * b.ld + n];
        cm[n] = sum;
      }
      continue;
    }
    int64_t K8 = K / 8 * 8;
    auto tail = [&](const float *bn, float sum) {
      for (int64_t k = K8; k < K; ++k)
        sum += am[k] * bn[k];
      return sum;
    };
    int64_t n = 0;
    for (; n + 4 <= N; n += 4) { // B(k, n) = y[n * ldb + k]
      const float *b0 = y + n * b.ld, *b1 = b0 + b.ld, *b2 = b1 + b.ld, *b3 = b2 + b.ld;
      Lanes8 l0{}, l1{}, l2{}, l3{};
      for (int64_t k = 0; k < K8; k += 8) {
        Lanes8 ak = lanesAt(am + k);
        l0 += ak * lanesAt(b0 + k);
        l1 += ak * lanesAt(b1 + k);
        l2 += ak * lanesAt(b2 + k);
        l3 += ak * lanesAt(b3 + k);
      }
      cm[n] = tail(b0, sumLanes(l0));
      cm[n + 1] = tail(b1, sumLanes(l1));
      cm[n + 2] = tail(b2, sumLanes(l2));
      cm[n + 3] = tail(b3, sumLanes(l3));
    }
    for (; n < N; ++n) {
      const float *bn = y + n * b.ld;
      Lanes8 l{};
      for (int64_t k = 0; k < K8; k += 8)
        l += lanesAt(am + k) * lanesAt(bn + k);
      cm[n] = tail(bn, sumLanes(l));
    }
  }
}

void blasGemm(int64_t M, int64_t N, int64_t K, const float *A, const MatrixView &a, const float *B,
              const MatrixView &b, float *C) {
  guardViews("f32", M, N, K, a, b, "OpenBLAS");
  std::vector<int64_t> aOff = a.offsets(), bOff = b.offsets();
  int64_t batch = (int64_t)aOff.size();
  // Items this small (a decode step's attention: one query row against a
  // head's keys, then its values) take longer to hand to BLAS, and to wake
  // its threads for, than to compute. The rule is per item, so a batch
  // split across devices computes each item the same way. Many of them
  // share the cores.
  if (M * N * K <= kTinyProductMacs) {
    auto items = [&](int64_t begin, int64_t end) {
      static thread_local std::vector<float> row;
      if (a.trans && (int64_t)row.size() < K)
        row.resize(K);
      for (int64_t i = begin; i < end; ++i)
        tinyProduct(M, N, K, A + aOff[i], a, B + bOff[i], b, C + i * M * N, row.data());
    };
    // Each item reads its B whole (a head's keys or values, from L3 by
    // the time the next decode step comes round, past the weights read in
    // between): reading, not multiplying, is what the items cost, and what
    // makes them worth the team. Bytes count as work.
    parallelRange(batch, items, batch * std::max(M * N * K, (M * K + K * N) * 4));
    return;
  }
  // A product of few rows with a large matrix (a decode step of a batch)
  // is bound by reading the matrix: it gets the threads too.
  bool small = 2 * M * N * K < (int64_t(1) << 24) && K * std::max(M, N) * 4 < (int64_t(1) << 18);
  // Waking BLAS threads costs more than a small product gains from them.
  useBlasThreads(small ? 1 : blasThreads);
#ifdef SHARDC_HAVE_CBLAS
  // One row (or one column) of C: a matrix-vector product, which reads the
  // matrix once (a decode step's weights); a large one on every BLAS thread,
  // since it is bound by the bytes it reads, not by arithmetic.
  if ((M == 1 || N == 1) && batch == 1) {
    const float *x = A + aOff[0], *y = B + bOff[0];
    // Elements [lo, hi) of C, whose one row or column has `outputs` of them.
    int64_t outputs = M == 1 ? N : M;
    auto rows = [&](int64_t lo, int64_t hi) {
      int n = (int)(hi - lo);
      if (M == 1) { // C[1,N] = x[1,K] B[K,N]: the vector is A's row
        int incx = a.trans ? (int)a.ld : 1;
        if (b.trans) // B's rows lo..hi
          cblas_sgemv(CblasRowMajor, CblasNoTrans, n, (int)K, 1.0f, y + lo * b.ld, (int)b.ld, x,
                      incx, 0.0f, C + lo, 1);
        else // B's columns lo..hi
          cblas_sgemv(CblasRowMajor, CblasTrans, (int)K, n, 1.0f, y + lo, (int)b.ld, x, incx, 0.0f,
                      C + lo, 1);
      } else { // C[M,1] = A[M,K] y[K,1]: the vector is B's column
        int incy = b.trans ? 1 : (int)b.ld;
        if (a.trans) // A's columns lo..hi
          cblas_sgemv(CblasRowMajor, CblasTrans, (int)K, n, 1.0f, x + lo, (int)a.ld, y, incy, 0.0f,
                      C + lo, 1);
        else // A's rows lo..hi
          cblas_sgemv(CblasRowMajor, CblasNoTrans, n, (int)K, 1.0f, x + lo * a.ld, (int)a.ld, y,
                      incy, 0.0f, C + lo, 1);
      }
    };
    // Inside a plan's one region BLAS would run on this thread alone: the
    // team splits the elements instead, one single-threaded call each.
    if (leadsRegionTeam() && M * N * K * 4 >= (int64_t(1) << 18)) {
      parallelRange(outputs, rows, M * N * K);
      return;
    }
    useBlasThreads(M * N * K * 4 >= (int64_t(1) << 18) ? blasThreads : 1);
    rows(0, outputs);
    return;
  }
#endif
  auto item = [&](int64_t i) {
    const float *x = A + aOff[i], *y = B + bOff[i];
    float *c = C + i * M * N;
#ifdef SHARDC_HAVE_CBLAS
    cblas_sgemm(CblasRowMajor, a.trans ? CblasTrans : CblasNoTrans,
                b.trans ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, x, (int)a.ld, y,
                (int)b.ld, 0.0f, c, (int)N);
#else
    for (int64_t m = 0; m < M; ++m) {
      float *row = c + m * N;
      std::fill(row, row + N, 0.0f);
      for (int64_t k = 0; k < K; ++k) {
        float av = a.trans ? x[k * a.ld + m] : x[m * a.ld + k];
        for (int64_t n = 0; n < N; ++n)
          row[n] += av * (b.trans ? y[n * b.ld + k] : y[k * b.ld + n]);
      }
    }
#endif
  };
  // Many small products (attention's per-head [T,hd] x [hd,T]) share the
  // cores instead: one single-threaded sgemm per item. Large ones stay
  // outside any parallel region, where OpenMP BLAS would see a nested
  // level and run on one thread.
  int threads = small && batch > 1 ? (int)std::min<int64_t>(blasThreads, batch) : 1;
  if (threads > 1 && leadsRegionTeam()) {
    parallelRange(
        batch,
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            item(i);
        },
        std::numeric_limits<int64_t>::max());
    return;
  }
#ifdef _OPENMP
  if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < batch; ++i)
      item(i);
    return;
  }
#endif
  for (int64_t i = 0; i < batch; ++i)
    item(i);
}

#if defined(SHARDC_HAVE_DNNL) && defined(SHARDC_HAVE_CBLAS)
/// The library for an f32 product both could run: by the product wisdom
/// (ProductWisdom.h), measured on these operands the first time a layout
/// is seen, into a scratch result; `rule` where SHARDC_PRODUCT_WISDOM=0 or
/// oneDNN has no fast kernel for the layout.
GemmLibrary measuredLibrary(int64_t M, int64_t N, int64_t K, const float *A, const MatrixView &a,
                            const float *B, const MatrixView &b, GemmLibrary rule) {
  WisdomStore *store = productWisdomAllowed ? productWisdom() : nullptr;
  if (!store)
    return rule;
  ProductLayout layout;
  layout.M = M, layout.N = N, layout.K = K, layout.items = a.items();
  layout.transA = a.trans, layout.transB = b.trans, layout.lda = a.ld, layout.ldb = b.ld;
  layout.threads = blasThreads;
  // What this thread has asked before, without the store's lock.
  static thread_local std::map<ProductLayout, GemmLibrary> known;
  if (auto it = known.find(layout); it != known.end())
    return it->second;
  if (known.size() >= 4096)
    known.clear();
  giveDnnlEveryThread(); // the primitive's key has the thread count its calls run with
  if (!dnnlProduct(M, N, K, a, b, /*bf16=*/false))
    return known[layout] = rule;
  bool measured = false;
  ProductMeasurement m;
  GemmLibrary use = store->choose(layout, rule, [&] {
    measured = true;
    std::vector<float> scratch;
    try {
      scratch.resize(a.items() * M * N);
    } catch (const std::bad_alloc &) {
      // No memory for a second result: the rule stands, as if both tied.
      m.oneDnnMs = m.openBlasMs = 1;
      return m;
    }
    auto runDnnl = [&] { dnnlGemm(M, N, K, A, a, B, b, scratch.data(), /*bf16=*/false); };
    auto runBlas = [&] { blasGemm(M, N, K, A, a, B, b, scratch.data()); };
    // Each once to warm up (oneDNN's primitive, OpenBLAS's buffers), then
    // alternately, so a disturbance of the machine falls on both.
    runDnnl();
    runBlas();
    std::vector<double> dnnlMs, blasMs;
    auto timed = [](const auto &run) {
      auto t0 = std::chrono::steady_clock::now();
      run();
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
          .count();
    };
    for (int i = 0; i < kWisdomRounds; ++i) {
      dnnlMs.push_back(timed(runDnnl));
      blasMs.push_back(timed(runBlas));
    }
    auto median = [](std::vector<double> &v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    m.oneDnnMs = median(dnnlMs);
    m.openBlasMs = median(blasMs);
    return m;
  });
  if (debugLog()) {
    char what[160];
    if (measured)
      std::snprintf(
          what, sizeof what,
          ": measured oneDNN %.3f ms, OpenBLAS %.3f ms: %s runs it (the rule's guess: %s)",
          m.oneDnnMs, m.openBlasMs, use == GemmLibrary::OneDnn ? "oneDNN" : "OpenBLAS",
          rule == GemmLibrary::OneDnn ? "oneDNN" : "OpenBLAS");
    else
      std::snprintf(what, sizeof what, ": %s, as measured before",
                    use == GemmLibrary::OneDnn ? "oneDNN" : "OpenBLAS");
    debugOnce(productName("f32", M, N, K, a, b) + what +
              (store->path().empty() ? "" : " (product wisdom: " + store->path() + ")"));
  }
  known[layout] = use;
  return use;
}
#endif

} // namespace

void sayOnce(const char *level, const std::string &line) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(std::string(level) + ": " + line).second)
    std::fprintf(stderr, "shardc: %s: %s\n", level, line.c_str());
}

namespace {

/// gemm() on views that walk their items by the same batch sizes, with
/// `library` resolved from what tests force.
void alignedGemm(int64_t M, int64_t N, int64_t K, const void *A, DType aType, const MatrixView &a,
                 const void *B, DType bType, const MatrixView &b, float *C,
                 MatmulPrecision precision, GemmLibrary library) {
  int64_t flops = 2 * a.items() * M * N * K;
  bool dnnl = false;
#ifdef SHARDC_HAVE_DNNL
  // At f32, a batch of small items read as they are (attention's probs v)
  // runs faster as one OpenBLAS sgemm per item over the cores, where
  // OpenBLAS has a kernel for the CPU (bench/results/gemm.md: 55% of the
  // FMA peak against oneDNN's 34% on Zen 4). bf16 stays on oneDNN's bf16
  // kernels.
  bool smallItems = precision == MatmulPrecision::F32 && a.items() > 1 && !a.trans && !b.trans &&
                    2 * M * N * K < kDnnlMinFlops && openblasKnowsCpu();
  dnnl = library == GemmLibrary::OneDnn ||
         (library == GemmLibrary::Auto && flops >= kDnnlMinFlops && M > 1 && N > 1 && !smallItems);
#endif
  (void)flops;
  // Per-thread buffers that only grow: a fresh allocation of this size
  // would be mapped and faulted in page by page on every step.
  static thread_local std::vector<uint16_t> aHalf, bHalf;
  static thread_local std::vector<float> aRound, bRound;
  // Both operands are rounded the same way, so packing one keeps the batch
  // order of the other.
  MatrixView ra = a, rb = b;
  bool pack = hasGaps(a, M, K) || hasGaps(b, K, N);
  // A matrix read by rows times one vector, or a few (a decode step's
  // weights): a bf16 matrix read as it is, at half the bytes of f32, rather
  // than widened to f32 first. An f32 one takes the same kernel, so the
  // bits do not depend on which operand was stored at bf16.
  if (precision == MatmulPrecision::BF16 && library == GemmLibrary::Auto && a.items() == 1) {
    bool done = (M <= kFewRows && b.trans &&
                 bf16MatrixVectors(N, K, B, bType, b.ld, A, aType, M, a.trans ? 1 : a.ld,
                                   a.trans ? a.ld : 1, C, N)) ||
                (N == 1 && M > 1 && !a.trans &&
                 bf16MatrixVector(M, K, A, aType, a.ld, B, bType, b.trans ? 1 : b.ld, C));
    if (done) {
      if (debugLog())
        debugOnce(productName("bf16", M, N, K, a, b) + ": the matrix-vector kernel");
      return;
    }
  }
  // One to eight rows of f32 against a matrix read by rows (a decode
  // step's): as matrix-vector products, four rows per load of the matrix,
  // each row summed in the same order whatever the rows beside it (sgemv
  // for one row read the matrix at about 0.9 times the rate).
  if (precision == MatmulPrecision::F32 && library == GemmLibrary::Auto && a.items() == 1 &&
      M <= kFewRows && b.trans && aType == DType::F32 && bType == DType::F32 &&
      f32MatrixVectors(N, K, (const float *)B, b.ld, (const float *)A, M, a.trans ? 1 : a.ld,
                       a.trans ? a.ld : 1, C, N)) {
    if (debugLog())
      debugOnce(productName("f32", M, N, K, a, b) + ": the matrix-vector kernel");
    return;
  }
  if (precision == MatmulPrecision::BF16) {
#ifdef SHARDC_HAVE_DNNL
    if (dnnl && cpuHasBf16()) {
      const uint16_t *ha = bf16Operand(A, aType, ra, M, K, pack, aHalf);
      const uint16_t *hb = bf16Operand(B, bType, rb, K, N, pack, bHalf);
      if (dnnlGemm(M, N, K, ha, ra, hb, rb, C, /*bf16=*/true))
        return;
      ra = a, rb = b;
    }
#endif
    // Small products go to the f32 path by the rule above, as they would at
    // f32; only a large one that has no bf16 kernel is worth a note.
    if (dnnl)
      noteBf16Emulated(cpuHasBf16() ? "no bf16 kernel for a product's layout"
                                    : "the CPU has no bf16 instructions");
  }
  const float *fa = (const float *)A, *fb = (const float *)B;
  if (precision != MatmulPrecision::F32) {
    // The operands rounded, then the f32 path: bf16 without a bf16 kernel,
    // and tf32 (a GPU format: the same numbers as there).
    fa = roundedF32Operand(A, aType, ra, M, K, pack, aRound, precision);
    fb = roundedF32Operand(B, bType, rb, K, N, pack, bRound, precision);
  }
#if defined(SHARDC_HAVE_DNNL) && defined(SHARDC_HAVE_CBLAS)
  // Where both libraries could run the f32 path's product (f32, tf32, and
  // bf16 without a bf16 kernel, on the rounded operands), the rule is a
  // guess from another CPU's table: the one measured faster here runs it.
  if (library == GemmLibrary::Auto && flops >= kDnnlMinFlops && M > 1 && N > 1)
    dnnl =
        measuredLibrary(M, N, K, fa, ra, fb, rb,
                        dnnl ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas) == GemmLibrary::OneDnn;
#endif
#ifdef SHARDC_HAVE_DNNL
  if (dnnl && dnnlGemm(M, N, K, fa, ra, fb, rb, C, /*bf16=*/false))
    return;
#endif
  if (debugLog())
    debugOnce(productName(matmulPrecisionName(precision), M, N, K, a, b) +
#ifdef SHARDC_HAVE_CBLAS
              ": OpenBLAS"
#else
              ": a plain loop"
#endif
    );
  blasGemm(M, N, K, fa, ra, fb, rb, C);
}

} // namespace

void gemm(int64_t M, int64_t N, int64_t K, const void *A, DType aType, const MatrixView &a,
          const void *B, DType bType, const MatrixView &b, float *C, MatmulPrecision precision,
          GemmLibrary library) {
  guardViews(matmulPrecisionName(precision), M, N, K, a, b, "as given", /*aligned=*/false);
  if (library == GemmLibrary::Auto)
    library = forcedLibrary;
  if (a.items() == 0 || M == 0 || N == 0)
    return;
  if (a.batchSizes == b.batchSizes)
    return alignedGemm(M, N, K, A, aType, a, B, bType, b, C, precision, library);
  // Both walk their items by the same batch sizes from here on (a library
  // takes one list of them for both), or, where no common list exists, the
  // items run one at a time.
  MatrixView ra = a, rb = b;
  if (alignBatches(ra, rb))
    return alignedGemm(M, N, K, A, aType, ra, B, bType, rb, C, precision, library);
  std::vector<int64_t> aOff = a.offsets(), bOff = b.offsets();
  size_t as = dtypeSize(aType), bs = dtypeSize(bType);
  for (size_t i = 0; i < aOff.size(); ++i) {
    MatrixView ai = a, bi = b;
    ai.batchSizes.clear(), ai.batchStrides.clear(), ai.elements -= aOff[i];
    bi.batchSizes.clear(), bi.batchStrides.clear(), bi.elements -= bOff[i];
    alignedGemm(M, N, K, (const uint8_t *)A + aOff[i] * as, aType, ai,
                (const uint8_t *)B + bOff[i] * bs, bType, bi, C + i * M * N, precision, library);
  }
}

void gemm(int64_t M, int64_t N, int64_t K, const float *A, const MatrixView &a, const float *B,
          const MatrixView &b, float *C, MatmulPrecision precision, GemmLibrary library) {
  gemm(M, N, K, A, DType::F32, a, B, DType::F32, b, C, precision, library);
}

void toBf16(const float *x, uint16_t *y, int64_t n) {
  parallelRange(n, [&](int64_t b, int64_t e) { toBf16Run(x + b, y + b, e - b); });
}

void fromBf16(const uint16_t *x, float *y, int64_t n) {
  parallelRange(n, [&](int64_t b, int64_t e) { widenBf16Run(x + b, y + b, e - b); });
}

bool gemmLibraryAvailable(GemmLibrary library) {
  switch (library) {
  case GemmLibrary::Auto:
    return true;
#ifdef SHARDC_HAVE_DNNL
  case GemmLibrary::OneDnn:
    return true;
#endif
#ifdef SHARDC_HAVE_CBLAS
  case GemmLibrary::OpenBlas:
    return true;
#endif
  default:
    return false;
  }
}

bool bf16Instructions() { return cpuHasBf16(); }

void allowBf16Instructions(bool allow) { bf16InstructionsAllowed = allow; }

void forceGemmLibrary(GemmLibrary library) { forcedLibrary = library; }

void allowProductWisdom(bool allow) { productWisdomAllowed = allow; }

void setBlasThreads(int threads, bool concurrentCallers) {
  blasThreads = threads;
  concurrentBlasCallers = concurrentCallers;
#ifdef SHARDC_HAVE_CBLAS
  openblas_set_num_threads(threads);
#endif
}

void enterDeviceThread() {
#ifdef _OPENMP
  // The OpenMP build of OpenBLAS compares its global thread count with the
  // calling thread's OpenMP default and resets the global one (freeing and
  // allocating its per-thread buffers) when they differ: a device thread
  // that kept its own default would do that while another's product runs.
  // oneDNN sizes its thread team by the same default.
  omp_set_num_threads(blasThreads);
#endif
}

bool productSuitsOneRegion(int64_t items, int64_t M, int64_t N, int64_t K) {
  // The paths that hand their ranges to parallelRange: tiny items, and one
  // matrix times one vector (blasGemm's split, the bf16 kernel).
  return M * N * K <= kTinyProductMacs || (items == 1 && (M == 1 || N == 1));
}

int sharedThreadPoolSize() {
#if defined(SHARDC_HAVE_CBLAS) && defined(_OPENMP)
  return openblas_get_parallel() == 2 ? blasThreads : 1; // 2: OpenMP build
#elif defined(_OPENMP)
  return blasThreads;
#else
  return 1;
#endif
}

} // namespace shardc::cpu
