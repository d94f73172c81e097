//===- CpuGemmTest.cpp - the CPU backend's matrix products ----------------===//
//
// Every path of cpu::gemm (oneDNN, OpenBLAS, the rule that picks between
// them; f32, bf16 on the CPU's instructions and emulated, tf32) against a
// product in double precision of the operands as the precision rounds
// them, on views read in place: transposed, with a leading dimension
// wider than the matrix, and batched with strides.
//
//===----------------------------------------------------------------------===//

#include "Cpu/CpuKernels.h"
#include "Cpu/RegionTeam.h"

#include "shardc/Runtime/Array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <random>
#include <vector>

using namespace shardc;
using namespace shardc::cpu;

namespace {

struct Case {
  const char *name;
  int64_t M, N, K;
  bool transA, transB;
  int64_t batch; // items, each its own matrices
};

/// An operand holding `batch` rows x cols matrices (stored transposed when
/// `trans`), `pad` extra elements per row and between items.
struct Operand {
  std::vector<float> data;
  MatrixView view;
  int64_t rows, cols;

  Operand(int64_t batch, int64_t rows, int64_t cols, bool trans, int64_t pad, std::mt19937 &rng)
      : rows(rows), cols(cols) {
    view.trans = trans;
    view.ld = (trans ? rows : cols) + pad;
    int64_t item = (trans ? cols : rows) * view.ld + pad;
    if (batch > 1) {
      view.batchSizes = {batch};
      view.batchStrides = {item};
    }
    data.resize(batch * item);
    view.elements = (int64_t)data.size();
    std::uniform_real_distribution<float> u(-1, 1);
    for (float &x : data)
      x = u(rng);
  }
  float at(int64_t b, int64_t r, int64_t c) const {
    int64_t base = view.batchStrides.empty() ? 0 : b * view.batchStrides[0];
    return data[base + (view.trans ? c * view.ld + r : r * view.ld + c)];
  }
};

float rounded(float x, MatmulPrecision p) {
  if (p == MatmulPrecision::BF16)
    return bf16ToFloat(floatToBF16(x));
  if (p == MatmulPrecision::TF32)
    return roundToTF32(x);
  return x;
}

/// `x` rounded to bf16, element by element, as a bf16 operand stores it.
std::vector<uint16_t> toBf16Elements(const std::vector<float> &x) {
  std::vector<uint16_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    out[i] = floatToBF16(x[i]);
  return out;
}

/// The largest error of gemm() against the double-precision product of the
/// rounded operands, relative to the largest |product|.
double relativeError(const Case &c, MatmulPrecision precision, GemmLibrary library) {
  std::mt19937 rng(7);
  Operand a(c.batch, c.M, c.K, c.transA, 3, rng), b(c.batch, c.K, c.N, c.transB, 5, rng);
  std::vector<float> C(c.batch * c.M * c.N, NAN);
  gemm(c.M, c.N, c.K, a.data.data(), a.view, b.data.data(), b.view, C.data(), precision, library);
  double worst = 0, scale = 0;
  for (int64_t t = 0; t < c.batch; ++t)
    for (int64_t i = 0; i < c.M; ++i)
      for (int64_t j = 0; j < c.N; ++j) {
        double want = 0;
        for (int64_t k = 0; k < c.K; ++k)
          want +=
              (double)rounded(a.at(t, i, k), precision) * (double)rounded(b.at(t, k, j), precision);
        double got = C[(t * c.M + i) * c.N + j];
        worst = std::max(worst, std::isfinite(got) ? std::abs(got - want) : INFINITY);
        scale = std::max(scale, std::abs(want));
      }
  return worst / std::max(scale, 1e-30);
}

const Case kCases[] = {
    {"small", 5, 7, 3, false, false, 1},
    {"vector_times_matrix", 1, 96, 64, false, false, 1},
    {"large", 256, 192, 256, false, false, 1},
    {"large_lhs_transposed", 192, 256, 128, true, false, 1},
    {"large_rhs_transposed", 128, 256, 192, false, true, 1},
    {"large_both_transposed", 160, 128, 256, true, true, 1},
    {"batched", 64, 48, 80, false, false, 12},
    {"batched_transposed", 128, 128, 64, false, true, 16},
    // Tiny items, computed by plain loops: a decode step's attention (one
    // query against a head's keys, its probabilities against the values),
    // sums along K of a length no multiple of the eight lanes, a transposed
    // row, and enough items to share the cores.
    {"tiny_query_keys", 1, 128, 64, false, true, 4},
    {"tiny_probs_values", 1, 64, 128, false, false, 4},
    {"tiny_odd_k", 3, 5, 13, false, true, 2},
    {"tiny_lhs_transposed", 2, 9, 21, true, true, 3},
    {"tiny_both_transposed_odd", 4, 6, 7, true, false, 5},
    {"tiny_many_items", 1, 128, 64, false, true, 64},
    // Rows of C in groups of 32 and 8 columns with a remainder, and dots in
    // groups of four columns with one left over.
    {"tiny_wide_rows", 2, 83, 19, false, false, 3},
    // One row against a matrix read by rows (weights as PyTorch stores
    // them), one column from A's rows, and a transposed row: matrix-vector
    // products, with lengths off the kernels' 16 lanes and groups of 4.
    {"vector_times_rows", 1, 83, 37, false, true, 1},
    {"vector_times_long_rows", 1, 258, 1040, false, true, 1},
    {"rows_times_vector", 45, 1, 70, false, false, 1},
    {"transposed_vector_times_rows", 1, 64, 40, true, true, 1},
    {"tiny_dot_groups", 3, 13, 29, true, true, 2},
    // A few rows against a matrix read by rows (a batch's decode step, a
    // short prefill): four vectors per load of the matrix and the rest, a
    // transposed A, rows and lengths off the groups of 4 and the 32 lanes.
    {"eight_rows_times_rows", 8, 83, 37, false, true, 1},
    {"five_rows_times_long_rows", 5, 258, 1040, false, true, 1},
    {"two_rows_times_rows", 2, 7, 70, false, true, 1},
    {"transposed_rows_times_rows", 3, 64, 40, true, true, 1},
    // Matrix-vector products large enough to be split across threads, in
    // every orientation of the matrix (inside a team, the elements of C are
    // split into single-threaded calls).
    {"vector_times_long_columns", 1, 301, 1030, false, false, 1},
    {"long_rows_times_vector", 299, 1, 1029, false, true, 1},
    {"long_columns_times_vector", 303, 1, 1027, true, false, 1},
};

std::vector<GemmLibrary> libraries() {
  std::vector<GemmLibrary> out{GemmLibrary::Auto};
  for (GemmLibrary l : {GemmLibrary::OneDnn, GemmLibrary::OpenBlas})
    if (gemmLibraryAvailable(l))
      out.push_back(l);
  return out;
}

const char *libraryName(GemmLibrary l) {
  return l == GemmLibrary::OneDnn ? "oneDNN" : l == GemmLibrary::OpenBlas ? "OpenBLAS" : "auto";
}

// oneDNN sizes its thread team by the calling thread's OpenMP default,
// which OpenBLAS's OpenMP build sets to one thread for a small product: a
// large product after a small one still gets every thread.
TEST(CpuGemm, ALargeProductAfterASmallOneGetsEveryThread) {
#ifndef _OPENMP
  GTEST_SKIP() << "built without OpenMP";
#else
  if (!gemmLibraryAvailable(GemmLibrary::OneDnn) || !gemmLibraryAvailable(GemmLibrary::OpenBlas))
    GTEST_SKIP() << "needs oneDNN and OpenBLAS";
  std::mt19937 rng(7);
  setBlasThreads(2, /*concurrentCallers=*/false);
  Operand sa(1, 32, 32, false, 0, rng), sb(1, 32, 32, false, 0, rng);
  std::vector<float> sc(32 * 32);
  gemm(32, 32, 32, sa.data.data(), sa.view, sb.data.data(), sb.view, sc.data(),
       MatmulPrecision::F32, GemmLibrary::OpenBlas);
  Operand la(1, 256, 256, false, 0, rng), lb(1, 256, 256, false, 0, rng);
  std::vector<float> lc(256 * 256);
  gemm(256, 256, 256, la.data.data(), la.view, lb.data.data(), lb.view, lc.data(),
       MatmulPrecision::F32, GemmLibrary::OneDnn);
  EXPECT_EQ(omp_get_max_threads(), 2);
  setBlasThreads(1, /*concurrentCallers=*/false);
#endif
}

TEST(CpuGemm, F32MatchesTheProductOnEveryPath) {
  // The matrix-vector kernels on AVX-512, and on AVX2 as a CPU without it
  // runs them.
  for (bool avx512 : {true, false}) {
    allowAvx512Kernels(avx512);
    for (GemmLibrary library : libraries())
      for (const Case &c : kCases)
        EXPECT_LT(relativeError(c, MatmulPrecision::F32, library), 1e-5)
            << c.name << " on " << libraryName(library) << (avx512 ? "" : " (AVX2)");
  }
  allowAvx512Kernels(true);
}

// A decode step's row against the weights (read by rows) gives the same
// bits alone as among up to eight rows: a sequence decodes to the same
// bytes whatever the batch beside it, inside a team and outside one. That
// holds where the backend's matrix-vector kernels run: f32 on AVX-512 or
// AVX2, bf16 on the bf16 instructions or on the AVX2 kernel that emulates
// them.
TEST(CpuGemm, ARowAgainstRowsGivesTheSameBitsInABatch) {
#if defined(__x86_64__) && defined(__GNUC__)
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  const bool avx512 = false, avx2 = false;
#endif
  struct Path {
    MatmulPrecision precision;
    bool instructions; // bf16: on the CPU's bf16 instructions where it has them
    bool avx512;       // f32: on the AVX-512 kernel where the CPU has it
    bool runs;
  };
  const Path paths[] = {{MatmulPrecision::F32, true, true, avx512},
                        {MatmulPrecision::F32, true, false, avx2},
                        {MatmulPrecision::BF16, true, true, avx2},
                        {MatmulPrecision::BF16, false, true, avx2}};
  const int64_t N = 261, K = 1043; // off the lanes and the groups of four
  std::mt19937 rng(11);
  Operand a(1, 8, K, false, 0, rng), b(1, K, N, true, 0, rng);
  setBlasThreads(2, /*concurrentCallers=*/false);
  for (const Path &path : paths) {
    if (!path.runs)
      continue;
    allowBf16Instructions(path.instructions);
    allowAvx512Kernels(path.avx512);
    for (bool team : {false, true})
      for (int64_t rows = 2; rows <= 8; rows += 3) {
        std::vector<float> together(rows * N), alone(N);
        auto run = [&] {
          gemm(rows, N, K, a.data.data(), a.view, b.data.data(), b.view, together.data(),
               path.precision);
          for (int64_t i = 0; i < rows; ++i) {
            MatrixView row = a.view;
            row.elements -= i * K;
            gemm(1, N, K, a.data.data() + i * K, row, b.data.data(), b.view, alone.data(),
                 path.precision);
            ASSERT_EQ(std::memcmp(alone.data(), together.data() + i * N, N * sizeof(float)), 0)
                << "row " << i << " of " << rows << " at " << matmulPrecisionName(path.precision)
                << (path.instructions ? "" : " (emulated)") << (path.avx512 ? "" : " (AVX2)")
                << (team ? " inside a team" : "");
          }
        };
        if (team)
          runInOneRegion(2, run);
        else
          run();
      }
  }
  allowBf16Instructions(true);
  allowAvx512Kernels(true);
  setBlasThreads(1, /*concurrentCallers=*/false);
}

// Inside a plan's one region (RegionTeam.h) the products that split their
// work through the team give the product too, at every precision.
TEST(CpuGemm, ProductsInsideOneRegionMatchTheProduct) {
  setBlasThreads(2, /*concurrentCallers=*/false);
  // bf16 on the CPU's bf16 instructions, and on the AVX2 kernels of CPUs
  // without them; f32 on the AVX-512 and on the AVX2 matrix-vector kernel:
  // the other thread runs its half of either.
  for (bool instructions : {true, false}) {
    allowBf16Instructions(instructions);
    allowAvx512Kernels(instructions);
    for (MatmulPrecision precision :
         {MatmulPrecision::F32, MatmulPrecision::BF16, MatmulPrecision::TF32})
      for (const Case &c : kCases) {
        if (!productSuitsOneRegion(c.batch, c.M, c.N, c.K))
          continue;
        double error = INFINITY;
        runInOneRegion(2, [&] {
          EXPECT_TRUE(leadsRegionTeam() || sharedThreadPoolSize() < 2);
          error = relativeError(c, precision, GemmLibrary::Auto);
        });
        EXPECT_LT(error, 1e-5) << c.name << " at " << matmulPrecisionName(precision)
                               << (instructions ? "" : " (emulated, AVX2)");
      }
  }
  allowBf16Instructions(true);
  allowAvx512Kernels(true);
  setBlasThreads(1, /*concurrentCallers=*/false);
}

// bf16 operands summed in f32: the result is the exact product of the
// rounded operands up to f32 summation, far closer than the 2^-8 the
// rounding itself moves each operand.
TEST(CpuGemm, Bf16IsTheProductOfRoundedOperands) {
  for (bool instructions : {true, false}) {
    allowBf16Instructions(instructions);
    for (GemmLibrary library : libraries())
      for (const Case &c : kCases)
        EXPECT_LT(relativeError(c, MatmulPrecision::BF16, library), 1e-5)
            << c.name << " on " << libraryName(library) << (instructions ? "" : " (emulated)");
  }
  allowBf16Instructions(true);
}

TEST(CpuGemm, Tf32IsTheProductOfRoundedOperands) {
  for (GemmLibrary library : libraries())
    for (const Case &c : kCases)
      EXPECT_LT(relativeError(c, MatmulPrecision::TF32, library), 1e-5)
          << c.name << " on " << libraryName(library);
}

// Attention's products read q, k and v in place from one qkv buffer
// [B, T, 3, H, hd]: two batch dimensions (B and H) with strides, each view
// reading a third of what it spans, so bf16 and tf32 pack what they read;
// and one operand with gaps beside one without (probs [B, H, T, T] times v).
TEST(CpuGemm, ViewsWithGapsMatchTheProductOnEveryPath) {
  const int64_t B = 3, T = 40, H = 4, hd = 16, row = 3 * H * hd;
  std::vector<float> qkv(B * T * row), probs(B * H * T * T);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float &x : qkv)
    x = u(rng);
  for (float &x : probs)
    x = u(rng);
  auto slice = [&](int64_t part, bool trans) {
    MatrixView v;
    v.batchSizes = {B, H};
    v.batchStrides = {T * row, hd};
    v.trans = trans;
    v.ld = row;
    v.elements = (int64_t)qkv.size() - part * H * hd;
    return std::pair{qkv.data() + part * H * hd, v};
  };
  MatrixView p;
  p.batchSizes = {B, H};
  p.batchStrides = {H * T * T, T * T};
  p.ld = T;
  p.elements = (int64_t)probs.size();
  auto at = [](const float *x, const MatrixView &v, int64_t b, int64_t h, int64_t r, int64_t c,
               MatmulPrecision prec) {
    const float *m = x + b * v.batchStrides[0] + h * v.batchStrides[1];
    return (double)rounded(v.trans ? m[c * v.ld + r] : m[r * v.ld + c], prec);
  };
  struct Product {
    const char *name;
    const float *A;
    MatrixView a;
    const float *Bm;
    MatrixView b;
    int64_t M, N, K;
  };
  std::vector<uint16_t> qkvHalf = toBf16Elements(qkv), probsHalf = toBf16Elements(probs);
  auto [q, qv] = slice(0, false);
  auto [k, kv] = slice(1, true); // k^T: [hd, T], rows of k read as columns
  auto [v, vv] = slice(2, false);
  const Product products[] = {{"scores q k^T", q, qv, k, kv, T, T, hd},
                              {"probs v", probs.data(), p, v, vv, T, hd, T}};
  for (GemmLibrary library : libraries())
    for (MatmulPrecision prec :
         {MatmulPrecision::F32, MatmulPrecision::BF16, MatmulPrecision::TF32})
      for (const Product &x : products) {
        std::vector<float> C(B * H * x.M * x.N, NAN);
        gemm(x.M, x.N, x.K, x.A, x.a, x.Bm, x.b, C.data(), prec, library);
        double worst = 0, scale = 0;
        for (int64_t b = 0; b < B; ++b)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < x.M; ++i)
              for (int64_t j = 0; j < x.N; ++j) {
                double want = 0;
                for (int64_t l = 0; l < x.K; ++l)
                  want += at(x.A, x.a, b, h, i, l, prec) * at(x.Bm, x.b, b, h, l, j, prec);
                double got = C[((b * H + h) * x.M + i) * x.N + j];
                worst = std::max(worst, std::isfinite(got) ? std::abs(got - want) : INFINITY);
                scale = std::max(scale, std::abs(want));
              }
        EXPECT_LT(worst / scale, 1e-5)
            << x.name << " on " << libraryName(library) << " at " << matmulPrecisionName(prec);
        if (prec != MatmulPrecision::BF16)
          continue;
        // The same views of bf16 copies (packed as bf16): the same product.
        auto half = [&](const float *p) -> const uint16_t * {
          return p >= probs.data() && p < probs.data() + probs.size()
                     ? probsHalf.data() + (p - probs.data())
                     : qkvHalf.data() + (p - qkv.data());
        };
        std::vector<float> fromHalf(C.size(), NAN);
        gemm(x.M, x.N, x.K, half(x.A), DType::BF16, x.a, half(x.Bm), DType::BF16, x.b,
             fromHalf.data(), prec, library);
        EXPECT_EQ(0, std::memcmp(fromHalf.data(), C.data(), C.size() * sizeof(float)))
            << x.name << " of bf16 operands on " << libraryName(library);
      }
}

// The rounding is visible: a bf16 product of operands that bf16 cannot
// hold differs from the f32 one by about bf16's precision.
TEST(CpuGemm, Bf16DiffersFromF32ByBf16Rounding) {
  const int64_t M = 64, N = 64, K = 256;
  std::vector<float> A(M * K), B(K * N), f32(M * N), bf16(M * N);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  for (float &x : A)
    x = u(rng);
  for (float &x : B)
    x = u(rng);
  MatrixView a, b;
  a.ld = K, b.ld = N;
  a.elements = M * K, b.elements = K * N;
  gemm(M, N, K, A.data(), a, B.data(), b, f32.data(), MatmulPrecision::F32);
  gemm(M, N, K, A.data(), a, B.data(), b, bf16.data(), MatmulPrecision::BF16);
  double worst = 0;
  for (int64_t i = 0; i < M * N; ++i)
    worst = std::max(worst, std::abs(double(bf16[i]) - f32[i]) / f32[i]);
  EXPECT_GT(worst, 2e-5); // f32 summation alone: about 1e-7
  EXPECT_LT(worst, 1e-2);
}

// An operand stored as bf16 (a value the program rounded once, for every
// product that reads it) gives exactly the product of its f32 value
// rounded inside the product: either operand or both, on every path and
// layout, on the CPU's bf16 instructions and emulated.
TEST(CpuGemm, Bf16OperandsGiveTheProductOfTheirF32Values) {
  for (bool instructions : {true, false}) {
    allowBf16Instructions(instructions);
    for (GemmLibrary library : libraries())
      for (const Case &c : kCases) {
        std::mt19937 rng(5);
        Operand a(c.batch, c.M, c.K, c.transA, 3, rng), b(c.batch, c.K, c.N, c.transB, 5, rng);
        std::vector<uint16_t> ha = toBf16Elements(a.data), hb = toBf16Elements(b.data);
        size_t n = c.batch * c.M * c.N;
        std::vector<float> want(n, NAN);
        gemm(c.M, c.N, c.K, a.data.data(), a.view, b.data.data(), b.view, want.data(),
             MatmulPrecision::BF16, library);
        for (int mix = 1; mix < 4; ++mix) {
          bool halfA = mix & 1, halfB = mix & 2;
          std::vector<float> got(n, NAN);
          gemm(c.M, c.N, c.K, halfA ? (const void *)ha.data() : a.data.data(),
               halfA ? DType::BF16 : DType::F32, a.view,
               halfB ? (const void *)hb.data() : b.data.data(), halfB ? DType::BF16 : DType::F32,
               b.view, got.data(), MatmulPrecision::BF16, library);
          EXPECT_EQ(0, std::memcmp(got.data(), want.data(), n * sizeof(float)))
              << c.name << " on " << libraryName(library) << (halfA ? ", A bf16" : "")
              << (halfB ? ", B bf16" : "") << (instructions ? "" : " (emulated)");
        }
      }
  }
  allowBf16Instructions(true);
}

// The rounding of f32 to bf16 that bf16 products and convert share, on the
// CPU's instructions where it has them: nearest even, NaN kept a NaN, and
// subnormals rounded as subnormals (the instruction alone reads them as
// zeros), in runs of every length around its 16 lanes.
TEST(CpuGemm, RoundingToBf16IsNearestEvenEverywhere) {
  std::vector<float> x;
  std::mt19937 rng(9);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 4000; ++i) {
    uint32_t u = bits(rng);
    if (i % 5 == 0)
      u &= 0x807fffffu; // a subnormal (or zero)
    if (i % 7 == 0)
      u = (u & 0xffff0000u) | 0x8000u; // a tie
    float f;
    std::memcpy(&f, &u, 4);
    x.push_back(f);
  }
  for (float special : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-45f, 3.4e38f})
    x.push_back(special);
  for (bool instructions : {true, false}) {
    allowBf16Instructions(instructions);
    for (size_t n : {x.size(), size_t(15), size_t(17), size_t(33)}) {
      std::vector<uint16_t> y(n);
      toBf16(x.data(), y.data(), (int64_t)n);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(y[i], floatToBF16(x[i]))
            << "element " << i << " of " << n << (instructions ? "" : " (emulated)");
    }
  }
  allowBf16Instructions(true);
}

} // namespace
