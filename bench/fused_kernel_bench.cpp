//===- fused_kernel_bench.cpp - fused steps: interpreter, JIT, specialized ===//
//
// What a fused step costs three ways on the same chains, same thread count
// (the fused paths use the OpenMP pool only when OpenBLAS is the OpenMP
// build; the specialized loops run on one thread):
//   - the tile-program interpreter (shared, precompiled loops over tiles);
//   - the kernel the FusedJit compiles for the chain (when the compiler
//     layer is built), and the time it takes to compile it;
//   - code written by hand for the one chain, compiled by the C++ compiler
//     for x86-64-v3 (AVX2; the interpreter's clone uses the same ISA), with
//     libm calls as written.
// The chains are light (relu(x + bias)), transcendental (exp(x - rowmax),
// gelu with erf) and reducing (a softmax's row sums), at 1024x1024 f32 and,
// for per-call overhead, at 64x64.
//   build/bin/shardc-fused-kernel-bench [reps]
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h" // the CPU backend's kernel entry points

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/FusedKernel.h"
#ifdef SHARDC_BENCH_JIT
#include "shardc/JIT/FusedJit.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace shardc;

namespace {

#if defined(__GNUC__) && defined(__x86_64__)
#define SPECIALIZED __attribute__((target("arch=x86-64-v3")))
#else
#define SPECIALIZED
#endif

SPECIALIZED void biasReluSpecialized(const float *x, const float *bias, float *y, int64_t rows,
                                     int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = x[r * cols + c] + bias[c];
      y[r * cols + c] = v > 0.0f ? v : 0.0f;
    }
}

SPECIALIZED void expShiftSpecialized(const float *x, const float *rowmax, float *y, int64_t rows,
                                     int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(x[r * cols + c] - rowmax[r]);
}

SPECIALIZED void geluSpecialized(const float *x, const float *, float *y, int64_t rows,
                                 int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i)
    y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678f));
}

/// y = exp(x - rowmax) and its row sums (accumulated in double, like the
/// fused step).
SPECIALIZED void softmaxSumSpecialized(const float *x, const float *rowmax, float *y, float *sums,
                                       int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      float e = std::exp(x[r * cols + c] - rowmax[r]);
      y[r * cols + c] = e;
      s += e;
    }
    sums[r] = (float)s;
  }
}

struct Chain {
  std::string name;
  std::vector<FusedProgram::Instruction> instructions;
  FusedProgram::LoadMode mode; // how v is loaded
  bool rowSum;                 // the last register is also summed by rows
  std::function<void(const float *, const float *, float *, float *, int64_t, int64_t)> specialized;
};

/// A one-step plan: out = program(x, v) where v is broadcast along `mode`
/// (and the row sums of the last register when the chain reduces).
Plan fusedPlan(const Chain &chain, int64_t rows, int64_t cols) {
  Plan p;
  p.entry = "main";
  int64_t vlen = chain.mode == FusedProgram::AlongRows ? cols : rows;
  p.values = {PlanValue{DType::F32, {rows, cols}, kArgument},
              PlanValue{DType::F32, {vlen}, kArgument}, PlanValue{DType::F32, {rows, cols}, 0},
              PlanValue{DType::F32, {rows}, 0}};
  p.args = {0, 1};
  p.results = {2};
  FusedProgram program;
  program.inputs = {{FusedProgram::Whole, 0}, {chain.mode, cols}};
  program.instructions = chain.instructions;
  int64_t last = (int64_t)(1 + program.instructions.size());
  program.outputs = {last};
  PlanStep step;
  step.op = OpCode::Fused;
  step.inputs = {0, 1};
  step.outputs = {2};
  if (chain.rowSum) {
    program.reductions = {{last, Reduction::Sum, cols}};
    step.outputs.push_back(3);
  }
  step.attrs = program.encode();
  step.location = "bench";
  p.steps = {step};
  return p;
}

template <typename Fn> double medianMs(int reps, Fn fn) {
  fn();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto t = std::chrono::steady_clock::now();
    fn();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}
} // namespace

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  using I = FusedProgram::Instruction;
  std::vector<Chain> chains = {
      // r2 = x + v; r3 = 0; r4 = max(r2, r3)
      {"relu(x + bias)",
       {I{OpCode::Add, 0, 1, 0}, I{OpCode::Constant, 0, 0, 0.0f}, I{OpCode::Max, 2, 3, 0}},
       FusedProgram::AlongRows,
       false,
       [](const float *x, const float *v, float *y, float *, int64_t r, int64_t c) {
         biasReluSpecialized(x, v, y, r, c);
       }},
      // r2 = x - v; r3 = exp(r2)
      {"exp(x - rowmax)",
       {I{OpCode::Sub, 0, 1, 0}, I{OpCode::Exp, 2, 0, 0}},
       FusedProgram::AlongColumns,
       false,
       [](const float *x, const float *v, float *y, float *, int64_t r, int64_t c) {
         expShiftSpecialized(x, v, y, r, c);
       }},
      // r2 = x * 0.7071; r3 = erf(r2); r4 = 1; r5 = r3 + r4; r6 = 0.5; r7 = x * r6;
      // r8 = r7 * r5
      {"gelu (erf)",
       {I{OpCode::Constant, 0, 0, 0.70710678f}, I{OpCode::Mul, 0, 2, 0}, I{OpCode::Erf, 3, 0, 0},
        I{OpCode::Constant, 0, 0, 1.0f}, I{OpCode::Add, 4, 5, 0}, I{OpCode::Constant, 0, 0, 0.5f},
        I{OpCode::Mul, 0, 7, 0}, I{OpCode::Mul, 8, 6, 0}},
       FusedProgram::AlongRows,
       false,
       [](const float *x, const float *v, float *y, float *, int64_t r, int64_t c) {
         geluSpecialized(x, v, y, r, c);
       }},
      // r2 = x - v; r3 = exp(r2); row sums of r3
      {"exp(x - rowmax), row sums",
       {I{OpCode::Sub, 0, 1, 0}, I{OpCode::Exp, 2, 0, 0}},
       FusedProgram::AlongColumns,
       true,
       [](const float *x, const float *v, float *y, float *s, int64_t r, int64_t c) {
         softmaxSumSpecialized(x, v, y, s, r, c);
       }},
  };

#ifdef SHARDC_BENCH_JIT
  std::string error;
  std::shared_ptr<FusedJit> jit =
      FusedJit::create(FusedJitOptions{0, /*compileAfterElements=*/0}, error);
  if (!jit)
    std::fprintf(stderr, "no JIT: %s\n", error.c_str());
#endif
  std::printf("| chain | shape | interpreter (ms) | JIT kernel (ms) | specialized (ms) | "
              "JIT speedup | specialized / JIT | JIT compile (ms) |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1024, 1024}, {64, 64}}) {
    std::vector<double> xs(rows * cols), vs(std::max(rows, cols));
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = std::sin(0.001 * i);
    for (size_t i = 0; i < vs.size(); ++i)
      vs[i] = std::cos(0.01 * i);
    Array x = Array::fromDoubles(DType::F32, {rows, cols}, xs);
    Array v = Array::fromDoubles(DType::F32, {(int64_t)vs.size()}, vs);
    Array out = Array::uninitialized(DType::F32, {rows, cols});
    Array sums = Array::uninitialized(DType::F32, {rows});
    int r = rows * cols >= 1 << 16 ? reps : reps * 20;
    for (const Chain &chain : chains) {
      Plan plan = fusedPlan(chain, rows, cols);
      // The kernels alone, on the same buffers as the specialized code.
      cpu::DeviceBuffers buffers{0, {x.bytes(), v.bytes(), out.bytes(), sums.bytes()}};
      setFusedKernelCompiler(nullptr);
      double interp = medianMs(r, [&] { (void)cpu::runFused(plan, plan.steps[0], buffers); });
      double spec = medianMs(r, [&] {
        chain.specialized(x.data<float>(), v.data<float>(), out.data<float>(), sums.data<float>(),
                          rows, cols);
      });
      double jitMs = NAN, compileMs = NAN;
#ifdef SHARDC_BENCH_JIT
      if (jit) {
        double before = jit->stats().compileMs;
        setFusedKernelCompiler(jit);
        jitMs = medianMs(r, [&] { (void)cpu::runFused(plan, plan.steps[0], buffers); });
        setFusedKernelCompiler(nullptr);
        compileMs = jit->stats().compileMs - before;
      }
#endif
      std::printf("| %s | %lldx%lld | %.4f | %.4f | %.4f | %.2f | %.2f | %.1f |\n",
                  chain.name.c_str(), (long long)rows, (long long)cols, interp, jitMs, spec,
                  interp / jitMs, spec / jitMs, compileMs);
    }
  }
  return 0;
}
