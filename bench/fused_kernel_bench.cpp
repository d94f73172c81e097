//===- fused_kernel_bench.cpp - fused programs vs specialized code --------===//
//
// How much a fused step loses by running its program over tiles (shared,
// precompiled loops) instead of machine code generated for the one chain, as
// a JIT would emit it. Both versions compute relu(x + bias) and
// exp(x - rowmax) over a 1024x1024 f32 matrix, and the specialized ones are
// compiled for the same ISA (x86-64-v3) as the fused loops' AVX2 clone.
//   build/bin/shardc-fused-kernel-bench [reps]
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h" // the CPU backend's kernel entry points

#include "shardc/Runtime/Backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace shardc;

namespace {
constexpr int64_t kRows = 1024, kCols = 1024;

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("arch=x86-64-v3")))
#endif
void biasReluSpecialized(const float *x, const float *bias, float *y) {
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) {
      float v = x[r * kCols + c] + bias[c];
      y[r * kCols + c] = v > 0.0f ? v : 0.0f;
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("arch=x86-64-v3")))
#endif
void expShiftSpecialized(const float *x, const float *rowmax, float *y) {
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c)
      y[r * kCols + c] = std::exp(x[r * kCols + c] - rowmax[r]);
}

/// A one-step plan: out = program(x, v) where v is broadcast along `mode`.
Plan fusedPlan(std::vector<FusedProgram::Instruction> instructions,
               FusedProgram::LoadMode mode) {
  Plan p;
  p.entry = "main";
  int64_t vlen = mode == FusedProgram::AlongRows ? kCols : kRows;
  p.values = {PlanValue{DType::F32, {kRows, kCols}, kArgument},
              PlanValue{DType::F32, {vlen}, kArgument},
              PlanValue{DType::F32, {kRows, kCols}, 0}};
  p.args = {0, 1};
  p.results = {2};
  p.argNames = {"x", "v"};
  p.argShardings = {NamedSharding{Mesh{}, PartitionSpec(2)},
                    NamedSharding{Mesh{}, PartitionSpec(1)}};
  p.resultShardings = {NamedSharding{Mesh{}, PartitionSpec(2)}};
  p.argGlobalShapes = {{kRows, kCols}, {vlen}};
  p.resultGlobalShapes = {{kRows, kCols}};
  FusedProgram program;
  program.inputs = {{FusedProgram::Whole, 0}, {mode, kCols}};
  program.instructions = std::move(instructions);
  program.outputs = {(int64_t)(1 + program.instructions.size())};
  PlanStep step;
  step.op = OpCode::Fused;
  step.inputs = {0, 1};
  step.outputs = {2};
  step.ints = program.encode();
  step.location = "bench";
  p.steps = {step};
  p.arenaBytes = kRows * kCols * 4;
  return p;
}

template <typename Fn> double medianMs(int reps, Fn fn) {
  fn();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto t = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - t)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}
} // namespace

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  std::vector<double> xs(kRows * kCols), vs(kCols);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = std::sin(0.001 * i);
  for (size_t i = 0; i < vs.size(); ++i)
    vs[i] = std::cos(0.01 * i);
  Array x = Array::fromDoubles(DType::F32, {kRows, kCols}, xs);
  Array v = Array::fromDoubles(DType::F32, {kCols}, vs);
  Array out = Array::uninitialized(DType::F32, {kRows, kCols});

  using I = FusedProgram::Instruction;
  // relu(x + bias): r2 = x + v; r3 = 0; r4 = max(r2, r3)
  Plan biasRelu = fusedPlan({I{OpCode::Add, 0, 1, 0}, I{OpCode::Constant, 0, 0, 0.0f},
                             I{OpCode::Max, 2, 3, 0}},
                            FusedProgram::AlongRows);
  // exp(x - rowmax): r2 = x - v; r3 = exp(r2)
  Plan expShift = fusedPlan({I{OpCode::Sub, 0, 1, 0}, I{OpCode::Exp, 2, 0, 0}},
                            FusedProgram::AlongColumns);
  // The kernels alone, on the same buffers as the specialized code.
  cpu::DeviceBuffers buffers{0, {x.bytes(), v.bytes(), out.bytes()}};
  double fusedBias = medianMs(reps, [&] {
    (void)cpu::runFused(biasRelu, biasRelu.steps[0], buffers);
  });
  double specBias = medianMs(reps, [&] {
    biasReluSpecialized(x.data<float>(), v.data<float>(), out.data<float>());
  });
  double fusedExp = medianMs(reps, [&] {
    (void)cpu::runFused(expShift, expShift.steps[0], buffers);
  });
  double specExp = medianMs(reps, [&] {
    expShiftSpecialized(x.data<float>(), v.data<float>(), out.data<float>());
  });
  std::printf("| chain (1024x1024 f32) | fused step (ms) | specialized code (ms) | ratio |\n");
  std::printf("| --- | --- | --- | --- |\n");
  std::printf("| relu(x + bias) | %.3f | %.3f | %.2f |\n", fusedBias, specBias,
              specBias / fusedBias);
  std::printf("| exp(x - rowmax) | %.3f | %.3f | %.2f |\n", fusedExp, specExp,
              specExp / fusedExp);
  return 0;
}
