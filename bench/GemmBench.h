//===- GemmBench.h - the GEMM benches' shapes, timing and rows --*- C++ -*-===//
//
// The products of one training step of the Tiny Transformer (batch 32 x 128
// tokens, d_model 256, FFN 1024, 4 heads of 64): forward, the data
// gradients (the weight read transposed in place), the weight gradients
// (the activations read transposed, K = 4096) and attention's batched
// products. Row-major C[M,N] = A[M,K] B[K,N] per item; a transposed
// operand is stored the other way round and read in place. The GEMM
// benches share them, their command line, their timing and their JSON rows,
// so bench/gemm_bench.sh lines their tables up row by row.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_BENCH_GEMMBENCH_H
#define SHARDC_BENCH_GEMMBENCH_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace shardc::bench {

struct GemmShape {
  const char *name;
  int64_t batch, M, N, K;
  bool transA, transB;
};

// Tokens 4096 = 32 x 128; heads x batch = 128 attention items.
inline constexpr GemmShape kGemmShapes[] = {
    {"qkv fwd", 1, 4096, 768, 256, false, false},
    {"attn-out / logits fwd", 1, 4096, 256, 256, false, false},
    {"ff1 fwd", 1, 4096, 1024, 256, false, false},
    {"ff2 fwd", 1, 4096, 256, 1024, false, false},
    {"ff1 data grad (W^T)", 1, 4096, 256, 1024, false, true},
    {"ff2 data grad (W^T)", 1, 4096, 1024, 256, false, true},
    {"ff1 weight grad (X^T dY)", 1, 256, 1024, 4096, true, false},
    {"ff2 weight grad (X^T dY)", 1, 1024, 256, 4096, true, false},
    {"scores q k^T (x128)", 128, 128, 128, 64, false, true},
    {"probs v (x128)", 128, 128, 64, 128, false, false},
};

inline double secondsNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// `tool [--threads N] [--seconds S]`; false (usage said) on anything else.
inline bool parseBenchArgs(int argc, char **argv, const char *tool, int &threads, double &seconds) {
  bool ok = argc % 2 == 1;
  for (int i = 1; ok && i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds"))
      seconds = std::atof(argv[i + 1]);
    else
      ok = false;
  }
  if (ok && threads >= 1 && seconds > 0)
    return true;
  std::fprintf(stderr, "usage: %s [--threads N] [--seconds S] (both positive)\n", tool);
  return false;
}

/// The median time of `once` over at least 5 calls and `seconds` (warmed
/// up by the caller).
inline double medianSeconds(const std::function<void()> &once, double seconds) {
  std::vector<double> times;
  double start = secondsNow();
  while (times.size() < 5 || secondsNow() - start < seconds) {
    double t0 = secondsNow();
    once();
    times.push_back(secondsNow() - t0);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// One measured cell as a JSON line on stdout.
inline void printRow(const GemmShape &s, const char *precision, const char *library, int threads,
                     double medianS) {
  double flops = 2.0 * s.batch * s.M * s.N * s.K;
  std::printf("{\"shape\": \"%s\", \"batch\": %lld, \"M\": %lld, \"N\": %lld, \"K\": %lld, "
              "\"trans_a\": %s, \"trans_b\": %s, \"precision\": \"%s\", \"library\": \"%s\", "
              "\"threads\": %d, \"ms\": %.4f, \"gflops\": %.1f}\n",
              s.name, (long long)s.batch, (long long)s.M, (long long)s.N, (long long)s.K,
              s.transA ? "true" : "false", s.transB ? "true" : "false", precision, library, threads,
              medianS * 1e3, flops / medianS * 1e-9);
  std::fflush(stdout);
}

} // namespace shardc::bench

#endif // SHARDC_BENCH_GEMMBENCH_H
