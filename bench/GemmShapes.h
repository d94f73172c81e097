//===- GemmShapes.h - the Tiny Transformer's product shapes -----*- C++ -*-===//
//
// The products of one training step of the Tiny Transformer (batch 32 x 128
// tokens, d_model 256, FFN 1024, 4 heads of 64): forward, the data
// gradients (the weight read transposed in place), the weight gradients
// (the activations read transposed, K = 4096) and attention's batched
// products. Row-major C[M,N] = A[M,K] B[K,N] per item; a transposed
// operand is stored the other way round and read in place. The GEMM
// benches share them, so their tables line up row by row.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_BENCH_GEMMSHAPES_H
#define SHARDC_BENCH_GEMMSHAPES_H

#include <chrono>
#include <cstdint>

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

} // namespace shardc::bench

#endif // SHARDC_BENCH_GEMMSHAPES_H
