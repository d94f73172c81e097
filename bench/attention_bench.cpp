//===- attention_bench.cpp - the CPU attention kernels on the model's shapes -===//
//
// Times cpu::attentionForward and attentionBackward, the kernels of
// shardc.qkv_attention, its gradient and shardc.attention, on the Tiny
// Transformer's shapes: the training step's causal self-attention of
// packed q, k, v (batch 32, 128 positions, 4 heads of 64), and a decoding
// step's one query per head over a 128-position cache filled to 96. Medians
// of the repetitions that fit in the time given. One JSON line per case on
// stdout; bench/attention_bench.sh puts them beside PyTorch's attention.
//
//   shardc-attention-bench [--threads N] [--seconds S]
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace shardc::cpu;

namespace {

double medianMs(const std::function<void()> &run, double seconds) {
  run(); // warm: buffers, caches
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  do {
    auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  } while (ms.size() < 5 ||
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
               seconds);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::vector<float> randomFloats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> x(n);
  for (float &v : x)
    v = normal(rng);
  return x;
}

} // namespace

int main(int argc, char **argv) {
  int threads = 2;
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds"))
      seconds = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: shardc-attention-bench [--threads N] [--seconds S]\n");
      return 2;
    }
  }
  setBlasThreads(threads, /*concurrentCallers=*/false);

  // Training: qkv [32,128,3,4,64], causal, rows 3 N H apart.
  {
    AttentionDims d;
    d.B = 32, d.T = d.S = 128, d.N = 4, d.H = 64, d.causal = true, d.scale = 0.125;
    int64_t NH = d.N * d.H;
    d.qRow = d.kRow = d.vRow = 3 * NH;
    std::vector<float> qkv = randomFloats(d.B * d.T * 3 * NH, 1), out(d.B * d.T * NH),
                       dout = randomFloats(d.B * d.T * NH, 2), grad(qkv.size());
    const float *q = qkv.data(), *k = q + NH, *v = q + 2 * NH;
    double fwd = medianMs([&] { attentionForward(d, q, k, v, nullptr, out.data()); }, seconds);
    double bwd = medianMs(
        [&] {
          attentionBackward(d, q, k, v, nullptr, dout.data(), grad.data(), grad.data() + NH,
                            grad.data() + 2 * NH);
        },
        seconds);
    std::printf("{\"case\": \"train\", \"B\": %lld, \"T\": %lld, \"N\": %lld, \"H\": %lld, "
                "\"causal\": true, \"threads\": %d, \"fwd_ms\": %.4f, \"bwd_ms\": %.4f}\n",
                (long long)d.B, (long long)d.T, (long long)d.N, (long long)d.H, threads, fwd, bwd);
  }
  // Decoding: q [1,1,4,64] over k, v [1,128,4,64], 96 positions filled.
  {
    AttentionDims d;
    d.B = 1, d.T = 1, d.S = 128, d.N = 4, d.H = 64, d.scale = 0.125;
    std::vector<float> q = randomFloats(d.N * d.H, 3), k = randomFloats(d.S * d.N * d.H, 4),
                       v = randomFloats(d.S * d.N * d.H, 5), out(d.N * d.H);
    int32_t filled = 96;
    double fwd = medianMs(
        [&] { attentionForward(d, q.data(), k.data(), v.data(), &filled, out.data()); }, seconds);
    std::printf("{\"case\": \"decode\", \"B\": 1, \"T\": 1, \"S\": %lld, \"filled\": %d, \"N\": "
                "%lld, \"H\": %lld, \"threads\": %d, \"fwd_ms\": %.5f}\n",
                (long long)d.S, filled, (long long)d.N, (long long)d.H, threads, fwd);
  }
  return 0;
}
