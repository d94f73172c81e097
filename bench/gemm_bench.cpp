//===- gemm_bench.cpp - the CPU backend's products on the model's shapes --===//
//
// Times cpu::gemm, the function every f32 dot_general of the CPU backend
// calls, on the Tiny Transformer's products (batch 32 x 128 tokens,
// d_model 256, FFN 1024, 4 heads of 64): forward, the data gradients (the
// weight read transposed in place) and the weight gradients (the
// activations read transposed, K = 4096), and the attention's batched
// products. Each shape runs on every library and precision the build has,
// forced (GemmLibrary) and as the backend's rule picks (auto). One JSON
// line per row on stdout; bench/gemm_bench.sh puts them beside the FMA peak
// and numpy.
//
//   shardc-gemm-bench [--threads N] [--seconds S]
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "GemmBench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace shardc;
using namespace shardc::cpu;
using shardc::bench::GemmShape;
using shardc::bench::kGemmShapes;

namespace {

MatrixView view(int64_t batch, int64_t rows, int64_t cols, bool trans) {
  MatrixView v;
  v.trans = trans;
  v.ld = trans ? rows : cols;
  v.elements = batch * rows * cols;
  if (batch > 1) {
    v.batchSizes = {batch};
    v.batchStrides = {rows * cols};
  }
  return v;
}

const char *libraryName(GemmLibrary l) {
  return l == GemmLibrary::OneDnn ? "onednn" : l == GemmLibrary::OpenBlas ? "openblas" : "auto";
}

} // namespace

int main(int argc, char **argv) {
  int threads = 2;
  double seconds = 0.3;
  if (!shardc::bench::parseBenchArgs(argc, argv, "shardc-gemm-bench", threads, seconds))
    return 2;
  // One device on `threads` cores, as the backend sets it up.
  setBlasThreads(threads, /*concurrentCallers=*/false);
  enterDeviceThread();

  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const GemmShape &s : kGemmShapes) {
    std::vector<float> A(s.batch * s.M * s.K), B(s.batch * s.K * s.N), C(s.batch * s.M * s.N);
    for (float &x : A)
      x = u(rng);
    for (float &x : B)
      x = u(rng);
    MatrixView a = view(s.batch, s.M, s.K, s.transA), b = view(s.batch, s.K, s.N, s.transB);
    for (MatmulPrecision p : {MatmulPrecision::F32, MatmulPrecision::BF16})
      for (GemmLibrary l : {GemmLibrary::Auto, GemmLibrary::OneDnn, GemmLibrary::OpenBlas}) {
        if (!gemmLibraryAvailable(l) || (p == MatmulPrecision::BF16 && l == GemmLibrary::OpenBlas))
          continue;
        auto once = [&] { gemm(s.M, s.N, s.K, A.data(), a, B.data(), b, C.data(), p, l); };
        for (int w = 0; w < 3; ++w)
          once();
        shardc::bench::printRow(s, matmulPrecisionName(p), libraryName(l), threads,
                                shardc::bench::medianSeconds(once, seconds));
      }
  }
  std::printf("{\"bf16_instructions\": %s}\n", bf16Instructions() ? "true" : "false");
  return 0;
}
