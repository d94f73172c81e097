//===- gpu_bench.cpp - timing plans on the CUDA backend -------------------===//
//
// Runs on the GPU machine, which has no MLIR: plans come as artifacts.
//
//   shardc-gpu-bench --peak
//       cuBLAS f32 GEMM 8192^3 (FP32 and TF32): the peak a matmul-bound
//       plan is measured against; one JSON line.
//   shardc-gpu-bench --conformance DIR
//       every DIR/<case>/plan.shardc on the GPUs with DIR/<case>/arg<i>.npy,
//       against DIR/<case>/result<i>.npy with the tolerances of
//       CudaConformanceTest (for machines without GoogleTest); one line per
//       case, exit 1 on a mismatch.
//   shardc-gpu-bench PLAN.shardc [--reps N] [--examples-per-call E]
//       random inputs (floats ~ N(0, 0.05), integers in [0, 10), scalars
//       1e-3), a warm-up call, then N timed calls; one JSON line with the
//       median whole call (copies in and out included), the median device
//       time of the steps alone, the matmul TFLOP/s over the steps, and
//       examples/s for E examples per call.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/CudaBackend.h"
#include "shardc/Runtime/Npy.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace shardc;

namespace {

int peak() {
  const int n = 8192;
  float *a, *b, *c;
  if (cudaMalloc((void **)&a, sizeof(float) * n * n) != cudaSuccess ||
      cudaMalloc((void **)&b, sizeof(float) * n * n) != cudaSuccess ||
      cudaMalloc((void **)&c, sizeof(float) * n * n) != cudaSuccess) {
    std::fprintf(stderr, "shardc-gpu-bench: no GPU memory for the peak GEMM\n");
    return 1;
  }
  cudaMemset(a, 0, sizeof(float) * n * n);
  cudaMemset(b, 0, sizeof(float) * n * n);
  cublasHandle_t h;
  cublasCreate(&h);
  double tflops[2];
  for (int tf32 = 0; tf32 < 2; ++tf32) {
    cublasComputeType_t ct = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    float alpha = 1, beta = 0;
    auto run = [&] {
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_32F, n, b, CUDA_R_32F, n,
                   &beta, c, CUDA_R_32F, n, ct, CUBLAS_GEMM_DEFAULT);
    };
    run();
    cudaDeviceSynchronize();
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    const int reps = 10;
    cudaEventRecord(s);
    for (int r = 0; r < reps; ++r)
      run();
    cudaEventRecord(e);
    cudaEventSynchronize(e);
    float ms = 0;
    cudaEventElapsedTime(&ms, s, e);
    tflops[tf32] = 2.0 * n * n * (double)n * reps / (ms * 1e-3) / 1e12;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("{\"gpu\": \"%s\", \"gemm\": %d, \"fp32_tflops\": %.1f, \"tf32_tflops\": %.1f}\n",
              prop.name, n, tflops[0], tflops[1]);
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Flops of the plan's dot_general steps on one device.
double matmulFlops(const Plan &plan) {
  double flops = 0;
  for (const PlanStep &s : plan.steps) {
    if (s.op != OpCode::DotGeneral)
      continue;
    const PlanValue &lhs = plan.values[s.inputs[0]], &out = plan.values[s.outputs[0]];
    size_t nb = s.attrs[0], nc = s.attrs[1];
    double k = 1;
    for (size_t i = 0; i < nc; ++i)
      k *= lhs.shape[s.attrs[2 + 2 * nb + i]];
    flops += 2.0 * k * numElements(out.shape);
  }
  return flops;
}

/// Elements of `got` that differ from `want` (ints exact; f32 1e-4, f64
/// 1e-10 relative to max(1, |want|); NaN meets NaN).
int64_t mismatches(const Array &got, const Array &want) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape())
    return std::max<int64_t>(1, want.numElements());
  int64_t bad = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    if (!isFloat(want.dtype())) {
      bad += got.getInt(i) != want.getInt(i);
      continue;
    }
    double g = got.getDouble(i), w = want.getDouble(i);
    double rel = want.dtype() == DType::F64 ? 1e-10 : 1e-4;
    bool ok = std::isnan(g) || std::isnan(w) ? std::isnan(g) && std::isnan(w)
              : std::isinf(g) || std::isinf(w)
                  ? g == w
                  : std::fabs(g - w) <= rel * std::max(1.0, std::fabs(w));
    bad += !ok;
  }
  return bad;
}

int conformance(const std::string &root) {
  namespace fs = std::filesystem;
  StatusOr<std::unique_ptr<Backend>> backend = createCudaBackend();
  if (!backend.ok()) {
    std::fprintf(stderr, "shardc-gpu-bench: error: %s\n", backend.message().c_str());
    return 1;
  }
  std::vector<fs::path> dirs;
  for (const auto &e : fs::directory_iterator(root))
    if (e.is_directory())
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  int failed = 0, skipped = 0, passed = 0;
  for (const fs::path &dir : dirs) {
    std::string name = dir.filename().string();
    StatusOr<Plan> plan = readArtifact((dir / "plan.shardc").string());
    std::vector<Array> args, want;
    bool loaded = plan.ok();
    for (size_t i = 0; loaded && i < plan->args.size(); ++i) {
      StatusOr<Array> a = readNpy((dir / ("arg" + std::to_string(i) + ".npy")).string());
      loaded = a.ok();
      if (loaded)
        args.push_back(std::move(*a));
    }
    for (size_t i = 0; loaded && i < plan->results.size(); ++i) {
      StatusOr<Array> a = readNpy((dir / ("result" + std::to_string(i) + ".npy")).string());
      loaded = a.ok();
      if (loaded)
        want.push_back(std::move(*a));
    }
    if (!loaded) {
      std::printf("FAIL %s: cannot load the case\n", name.c_str());
      ++failed;
      continue;
    }
    StatusOr<std::vector<Array>> got = runPlan(**backend, *plan, args);
    if (!got.ok() && got.message().find("usable GPU(s)") != std::string::npos) {
      std::printf("SKIP %s: needs %lld GPUs\n", name.c_str(), (long long)plan->numDevices());
      ++skipped;
      continue;
    }
    if (!got.ok()) {
      std::printf("FAIL %s: %s\n", name.c_str(), got.message().c_str());
      ++failed;
      continue;
    }
    int64_t bad = 0;
    for (size_t r = 0; r < want.size(); ++r) {
      int64_t m = mismatches((*got)[r], want[r]);
      if (m)
        std::printf("  %s result %zu: %lld of %lld elements differ\n", name.c_str(), r,
                    (long long)m, (long long)want[r].numElements());
      bad += m;
    }
    std::printf("%s %s\n", bad ? "FAIL" : "PASS", name.c_str());
    (bad ? failed : passed) += 1;
  }
  std::printf("conformance: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string path;
  int reps = 50;
  double examples = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--peak")
      return peak();
    if (a == "--conformance" && i + 1 < argc)
      return conformance(argv[i + 1]);
    if (a == "--reps" && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (a == "--examples-per-call" && i + 1 < argc)
      examples = std::atof(argv[++i]);
    else
      path = a;
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: shardc-gpu-bench --peak | PLAN.shardc [--reps N] "
                         "[--examples-per-call E]\n");
    return 2;
  }
  StatusOr<Plan> plan = readArtifact(path);
  if (!plan.ok()) {
    std::fprintf(stderr, "shardc-gpu-bench: error: %s\n", plan.message().c_str());
    return 1;
  }
  StatusOr<std::unique_ptr<Backend>> backend = createCudaBackend();
  if (!backend.ok()) {
    std::fprintf(stderr, "shardc-gpu-bench: error: %s\n", backend.message().c_str());
    return 1;
  }
  std::mt19937 rng(0);
  std::normal_distribution<double> normal(0.0, 0.05);
  std::vector<Array> args;
  for (size_t i = 0; i < plan->args.size(); ++i) {
    DType dt = plan->values[plan->args[i]].dtype;
    Array a(dt, plan->argGlobalShapes[i]);
    for (int64_t e = 0; e < a.numElements(); ++e) {
      if (a.rank() == 0)
        a.setDouble(e, 1e-3); // step counts, learning rates
      else if (isFloat(dt))
        a.setDouble(e, normal(rng));
      else
        a.setInt(e, (int64_t)(rng() % 10));
    }
    args.push_back(std::move(a));
  }
  StatusOr<std::vector<Array>> first = runPlan(**backend, *plan, args);
  if (!first.ok()) {
    std::fprintf(stderr, "shardc-gpu-bench: error: %s\n", first.message().c_str());
    return 1;
  }
  std::vector<double> wall, steps;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    StatusOr<std::vector<Array>> out = runPlan(**backend, *plan, args);
    auto end = std::chrono::steady_clock::now();
    if (!out.ok()) {
      std::fprintf(stderr, "shardc-gpu-bench: error: %s\n", out.message().c_str());
      return 1;
    }
    wall.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    steps.push_back(cudaLastCallTiming(**backend).stepsMs);
  }
  double callMs = median(wall), stepsMs = median(steps);
  double first0 = (*first)[0].numElements() ? (*first)[0].getDouble(0) : 0;
  std::printf("{\"plan\": \"%s\", \"devices\": %lld, \"steps\": %zu, \"reps\": %d, "
              "\"ms_per_call\": %.4f, \"ms_steps\": %.4f, \"matmul_tflops_steps\": %.2f, "
              "\"examples_per_s\": %.0f, \"examples_per_s_steps\": %.0f, \"result0\": %.6g}\n",
              path.c_str(), (long long)plan->numDevices(), plan->steps.size(), reps, callMs,
              stepsMs, stepsMs > 0 ? matmulFlops(*plan) / (stepsMs * 1e-3) / 1e12 : 0.0,
              examples > 0 ? examples / (callMs * 1e-3) : 0.0,
              examples > 0 && stepsMs > 0 ? examples / (stepsMs * 1e-3) : 0.0, first0);
  return 0;
}
