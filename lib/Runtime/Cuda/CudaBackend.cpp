//===- CudaBackend.cpp - plans on NVIDIA GPUs, one per mesh position ------===//
//
// Memory is planned like the CPU backend's: per device one arena of
// plan.arenaBytes (every intermediate at its planned offset), one region for
// the arguments and one scratch buffer (operand repacking for cuBLAS and
// NCCL), all allocated once and grown only when a larger plan comes. A plan
// is prepared once (constants uploaded, fused kernels compiled with NVRTC,
// communicators built) and cached. A call copies the arguments in, enqueues
// every step on each device's stream (one host thread drives all devices,
// step by step; collectives are NCCL group calls), copies the results out
// and synchronizes once. Data errors found by kernels (an index out of
// range) are flagged on the device and reported after the call.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/CudaBackend.h"
#include "shardc/Runtime/Environment.h"

#include "CudaFusedCodegen.h"
#include "CudaKernels.h"
#include "CudaNccl.h"
#include "CudaNvrtc.h"
#include "CudaPlugin.h"

#include "shardc/Runtime/ProcessGroup.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <memory>

namespace shardc {

namespace {

using namespace cuda;

#define SHARDC_CUDA_TRY(expr)                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (expr);                                                                       \
    if (e_ != cudaSuccess)                                                                         \
      return Status::error(std::string(#expr) + ": " + cudaGetErrorString(e_));                    \
  } while (0)

const char *cublasName(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return "cuBLAS error";
  }
}

constexpr size_t kAlign = 256;
size_t alignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
constexpr size_t kBlasWorkspace = size_t(32) << 20;

/// Device memory that grows, never shrinks.
struct DeviceBuffer {
  void *ptr = nullptr;
  size_t size = 0;
  Status reserve(size_t bytes) {
    if (bytes <= size)
      return Status::success();
    if (ptr)
      cudaFree(ptr);
    ptr = nullptr, size = 0;
    SHARDC_CUDA_TRY(cudaMalloc(&ptr, std::max<size_t>(bytes, kAlign)));
    size = bytes;
    return Status::success();
  }
};

struct Device {
  int gpu = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  DeviceBuffer arena, args, scratch, blasWorkspace, errorFlag;
};

/// What a plan needs beyond its arena, built once per plan.
struct Prepared {
  std::vector<DeviceBuffer> constants; // per device: every constant
  std::vector<size_t> constantOffset;  // per step
  std::vector<bool> splat;             // per step: a Constant fill
  std::vector<cudaKernel_t> fused;     // per step
  std::vector<FusedKernel> fusedInfo;  // per step
  size_t scratchBytes = 0;
  std::unique_ptr<Communicators> comms;
  ~Prepared() {
    for (DeviceBuffer &b : constants)
      if (b.ptr)
        cudaFree(b.ptr);
  }
};

/// What identifies a prepared plan: its id (Plan::id) when it has one,
/// else its whole contents, constants included.
std::string fingerprint(const Plan &plan) {
  std::string s = plan.entry + "|" + std::to_string(plan.values.size()) + "|" +
                  std::to_string(plan.arenaBytes) + "|" + std::to_string(plan.steps.size());
  if (plan.id)
    return s + "|id " + std::to_string(plan.id);
  uint64_t h = 1469598103934665603ull; // FNV-1a
  auto mix = [&](const void *p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      h = (h ^ static_cast<const uint8_t *>(p)[i]) * 1099511628211ull;
  };
  for (const PlanValue &v : plan.values) {
    mix(&v.dtype, sizeof(v.dtype));
    mix(v.shape.data(), v.shape.size() * sizeof(int64_t));
    mix(&v.offset, sizeof(v.offset));
  }
  for (const PlanStep &st : plan.steps) {
    mix(&st.op, sizeof(st.op));
    mix(st.inputs.data(), st.inputs.size() * sizeof(int32_t));
    mix(st.outputs.data(), st.outputs.size() * sizeof(int32_t));
    mix(st.attrs.data(), st.attrs.size() * sizeof(int64_t));
    mix(st.constant.bytes(), st.constant.sizeInBytes());
  }
  return s + "|content " + std::to_string(h);
}

StridedView contiguousView(const Shape &shape) {
  StridedView v;
  v.rank = (int)shape.size();
  std::vector<int64_t> st = stridesOf(shape);
  for (int d = 0; d < v.rank; ++d)
    v.shape[d] = shape[d], v.inStrides[d] = st[d], v.outStrides[d] = st[d];
  return v;
}

struct DotPlan {
  std::vector<int64_t> lb, rb, lc, rc, lf, rf;
  int64_t B = 1, M = 1, N = 1, K = 1;
  bool packLhs = false, packRhs = false, transLhs = false, transRhs = false;
  MatmulPrecision precision = MatmulPrecision::F32;
};

bool isIdentity(const std::vector<int64_t> &perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != (int64_t)i)
      return false;
  return true;
}

std::vector<int64_t> cat3(std::vector<int64_t> a, const std::vector<int64_t> &b,
                          const std::vector<int64_t> &c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

DotPlan planDot(const Plan &plan, const PlanStep &s) {
  const PlanValue &lv = plan.values[s.inputs[0]], &rv = plan.values[s.inputs[1]];
  DotPlan p;
  DotGeneralDims dims = DotGeneralDims::decode(s.attrs, lv.shape, rv.shape);
  p.lb = dims.lhsBatching, p.rb = dims.rhsBatching, p.lc = dims.lhsContracting,
  p.rc = dims.rhsContracting, p.lf = dims.lhsFree, p.rf = dims.rhsFree;
  p.B = dims.B, p.M = dims.M, p.N = dims.N, p.K = dims.K;
  p.precision = dims.precision;
  bool blas = lv.dtype != DType::I32 && lv.dtype != DType::I64 && lv.dtype != DType::I1;
  // cuBLAS takes (batch, M, K) or (batch, K, M) operands as they are; the
  // integer loop only the first; other layouts are packed in scratch.
  if (isIdentity(cat3(p.lb, p.lf, p.lc))) {
  } else if (blas && isIdentity(cat3(p.lb, p.lc, p.lf))) {
    p.transLhs = true;
  } else {
    p.packLhs = true;
  }
  if (isIdentity(cat3(p.rb, p.rc, p.rf))) {
  } else if (blas && isIdentity(cat3(p.rb, p.rf, p.rc))) {
    p.transRhs = true;
  } else {
    p.packRhs = true;
  }
  return p;
}

/// A view that permutes `shape` by `perm` into a contiguous result.
StridedView permuteView(const Shape &shape, const std::vector<int64_t> &perm) {
  StridedView v;
  v.rank = (int)perm.size();
  std::vector<int64_t> in = stridesOf(shape);
  Shape outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<int64_t> out = stridesOf(outShape);
  for (int d = 0; d < v.rank; ++d)
    v.shape[d] = outShape[d], v.inStrides[d] = in[perm[d]], v.outStrides[d] = out[d];
  return v;
}

/// The corner of `box` inside `operand` whose starts are the step's inputs
/// from `first` on; the kernel reads and clamps them.
DynamicCorner dynamicCorner(const Plan &plan, const PlanStep &s, size_t first, const Shape &operand,
                            const Shape &box, const std::vector<uint8_t *> &ptr, bool intoOutput) {
  DynamicCorner c;
  std::vector<int64_t> st = stridesOf(operand);
  for (size_t d = 0; d < operand.size(); ++d) {
    int32_t id = s.inputs[first + d];
    c.index[d] = ptr[id];
    c.indexBytes[d] = (int)dtypeSize(plan.values[id].dtype);
    c.limit[d] = operand[d] - box[d];
    c.strides[d] = st[d];
  }
  c.intoOutput = intoOutput;
  return c;
}

class CudaBackend : public Backend {
public:
  CudaBackend(CudaOptions options, int gpuCount) : options(options), gpuCount(gpuCount) {}
  ~CudaBackend() override {
    prepared.clear();
    if (world)
      ncclCommDestroy(world);
    for (Device &d : devices) {
      cudaSetDevice(d.gpu);
      for (DeviceBuffer *b : {&d.arena, &d.args, &d.scratch, &d.blasWorkspace, &d.errorFlag})
        if (b->ptr)
          cudaFree(b->ptr);
      if (d.blas)
        cublasDestroy(d.blas);
      if (d.stream)
        cudaStreamDestroy(d.stream);
    }
    for (cudaEvent_t e : events)
      if (e)
        cudaEventDestroy(e);
    for (cudaLibrary_t lib : libraries)
      cudaLibraryUnload(lib);
  }

  const char *name() const override { return "cuda"; }

  using Backend::execute;
  StatusOr<std::vector<DeviceArrays>> execute(const Plan &plan,
                                              const std::vector<std::vector<const Array *>> &args,
                                              std::vector<DeviceArrays> *donated) override;

  /// Events on the first local device: call start, steps start, steps end,
  /// call end.
  cudaEvent_t events[4] = {};
  int64_t timedDevice = -1;

private:
  /// Value addresses on each device (empty for devices of other processes).
  using DevicePointers = std::vector<std::vector<uint8_t *>>;
  /// Records event `which` of `events` on the timed device's stream.
  void mark(int which);
  /// Per device of this process: its buffers reserved, its error flag
  /// cleared, the arguments uploaded, and every value's address in `ptrs`.
  Status uploadArguments(const Plan &plan, const std::vector<std::vector<const Array *>> &args,
                         const std::vector<int64_t> &local, const Prepared &prep,
                         DevicePointers &ptrs);
  /// The plan's steps, in order, each on every device of this process.
  Status runSteps(const Plan &plan, const Prepared &prep, const std::vector<int64_t> &local,
                  DevicePointers &ptrs);
  /// The results copied out after one synchronization per device, or the
  /// first step whose kernel raised a device's error flag, as an error.
  StatusOr<std::vector<DeviceArrays>>
  downloadResults(const Plan &plan, const std::vector<int64_t> &local, const DevicePointers &ptrs);
  Status initDevices(int64_t n);
  StatusOr<Prepared *> prepare(const Plan &plan);
  StatusOr<cudaKernel_t> fusedKernel(const std::vector<int64_t> &ints, const FusedKernel &k);
  Status runStep(const Plan &plan, const Prepared &prep, size_t stepIndex, int64_t d,
                 std::vector<uint8_t *> &ptr);
  Status runDot(const Plan &plan, const PlanStep &s, Device &dev, std::vector<uint8_t *> &ptr);
  Status runCopy(const Plan &plan, const PlanStep &s, Device &dev, std::vector<uint8_t *> &ptr);
  Status runFused(const Plan &plan, const Prepared &prep, size_t stepIndex, Device &dev,
                  std::vector<uint8_t *> &ptr);
  /// Mesh positions this process drives.
  std::vector<int64_t> localDevices(int64_t n) const {
    std::vector<int64_t> local;
    for (int64_t d = 0; d < n; ++d)
      if (options.processRank < 0 || d == options.processRank)
        local.push_back(d);
    return local;
  }

  CudaOptions options;
  int gpuCount;
  std::vector<Device> devices; // by mesh position (unused entries: other processes)
  std::mutex executeMutex;
  std::map<std::string, std::unique_ptr<Prepared>> prepared;
  std::map<std::vector<int64_t>, cudaKernel_t> fusedCache;
  ncclComm_t world = nullptr; // multi-process runs: every process, once
  std::vector<cudaLibrary_t> libraries;
};

Status CudaBackend::initDevices(int64_t n) {
  if (options.processRank < 0 && n > gpuCount)
    return Status::error("the plan runs on " + std::to_string(n) +
                         " devices but this machine has " + std::to_string(gpuCount) +
                         " usable GPU(s) (the CUDA backend runs one mesh position per GPU)");
  while ((int64_t)devices.size() < n) {
    int64_t d = devices.size();
    devices.emplace_back();
    Device &dev = devices.back();
    bool local = options.processRank < 0 || d == options.processRank;
    dev.gpu = options.processRank < 0 ? (int)d : options.processRank % std::max(1, gpuCount);
    if (!local)
      continue;
    SHARDC_CUDA_TRY(cudaSetDevice(dev.gpu));
    SHARDC_CUDA_TRY(cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking));
    cublasStatus_t st = cublasCreate(&dev.blas);
    if (st != CUBLAS_STATUS_SUCCESS)
      return Status::error(std::string("cublasCreate: ") + cublasName(st));
    st = cublasSetStream(dev.blas, dev.stream);
    if (st != CUBLAS_STATUS_SUCCESS)
      return Status::error(std::string("cublasSetStream: ") + cublasName(st));
    // An explicit workspace: cuBLAS allocates nothing while steps run.
    Status s = dev.blasWorkspace.reserve(kBlasWorkspace);
    if (!s.ok())
      return s;
    st = cublasSetWorkspace(dev.blas, dev.blasWorkspace.ptr, kBlasWorkspace);
    if (st != CUBLAS_STATUS_SUCCESS)
      return Status::error(std::string("cublasSetWorkspace: ") + cublasName(st));
    s = dev.errorFlag.reserve(sizeof(int32_t));
    if (!s.ok())
      return s;
  }
  return Status::success();
}

StatusOr<cudaKernel_t> CudaBackend::fusedKernel(const std::vector<int64_t> &ints,
                                                const FusedKernel &k) {
  auto it = fusedCache.find(ints);
  if (it != fusedCache.end())
    return it->second;
  cudaDeviceProp prop;
  SHARDC_CUDA_TRY(cudaGetDeviceProperties(
      &prop, devices[options.processRank < 0 ? 0 : options.processRank].gpu));
  std::string arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  StatusOr<std::string> code = compileWithNvrtc(k.source, arch);
  if (!code.ok()) { // an architecture newer than NVRTC knows: PTX the driver compiles
    StatusOr<std::string> ptx = compileWithNvrtc(k.source, "compute_90");
    if (!ptx.ok()) // both logs: the first is usually the telling one
      return Status::error(arch + ": " + code.message() + "\ncompute_90: " + ptx.message());
    code = std::move(ptx);
  }
  cudaLibrary_t lib;
  SHARDC_CUDA_TRY(
      cudaLibraryLoadData(&lib, code->data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  libraries.push_back(lib);
  cudaKernel_t kernel;
  SHARDC_CUDA_TRY(cudaLibraryGetKernel(&kernel, lib, kFusedKernelName));
  fusedCache[ints] = kernel;
  return kernel;
}

StatusOr<Prepared *> CudaBackend::prepare(const Plan &plan) {
  std::string key = fingerprint(plan);
  auto it = prepared.find(key);
  if (it != prepared.end())
    return it->second.get();
  if (prepared.size() >= 16) // plans come and go (compile caches): keep a few
    prepared.clear();
  auto p = std::make_unique<Prepared>();
  int64_t n = plan.numDevices();
  size_t steps = plan.steps.size();
  p->constantOffset.assign(steps, 0);
  p->splat.assign(steps, false);
  p->fused.assign(steps, nullptr);
  p->fusedInfo.resize(steps);

  // Constants: splats are filled, others uploaded once.
  size_t constantBytes = 0;
  for (size_t i = 0; i < steps; ++i) {
    const PlanStep &s = plan.steps[i];
    if (s.op == OpCode::Constant) {
      const Array &c = s.constant;
      size_t es = dtypeSize(c.dtype());
      bool splat = c.numElements() > 0;
      for (int64_t e = 1; splat && e < c.numElements(); ++e)
        splat = std::memcmp(c.bytes(), c.bytes() + e * es, es) == 0;
      p->splat[i] = splat;
      if (!splat) {
        p->constantOffset[i] = constantBytes;
        constantBytes += alignUp(c.sizeInBytes());
      }
    }
    if (s.op == OpCode::DotGeneral) {
      DotPlan dp = planDot(plan, s);
      size_t need = 0;
      if (dp.packLhs)
        need += alignUp(plan.values[s.inputs[0]].bytes());
      if (dp.packRhs)
        need += alignUp(plan.values[s.inputs[1]].bytes());
      p->scratchBytes = std::max(p->scratchBytes, need);
    }
    if (isCollective(s.op)) {
      size_t big = std::max(plan.values[s.inputs[0]].bytes(), plan.values[s.outputs[0]].bytes());
      p->scratchBytes = std::max(p->scratchBytes, 2 * alignUp(big));
    }
    if (s.op == OpCode::Fused) {
      FusedProgram prog = FusedProgram::decode(s.attrs);
      StatusOr<FusedKernel> k = generateFusedKernel(prog, s.inputs.size(), s.outputs.size());
      if (!k.ok())
        return Status::error(s.location + ": " + k.message());
      StatusOr<cudaKernel_t> kernel = fusedKernel(s.attrs, *k);
      if (!kernel.ok())
        return Status::error(s.location + ": " + kernel.message());
      p->fused[i] = *kernel;
      p->fusedInfo[i] = std::move(*k);
    }
  }
  p->constants.resize(n);
  for (int64_t d : localDevices(n)) {
    SHARDC_CUDA_TRY(cudaSetDevice(devices[d].gpu));
    Status s = p->constants[d].reserve(constantBytes);
    if (!s.ok())
      return s;
    for (size_t i = 0; i < steps; ++i) {
      const PlanStep &st = plan.steps[i];
      if (st.op == OpCode::Constant && !p->splat[i] && st.constant.sizeInBytes())
        SHARDC_CUDA_TRY(cudaMemcpy((uint8_t *)p->constants[d].ptr + p->constantOffset[i],
                                   st.constant.bytes(), st.constant.sizeInBytes(),
                                   cudaMemcpyHostToDevice));
    }
    // A copy from pageable memory may return before it lands, and the steps
    // read constants on a non-blocking stream: wait for the uploads here.
    SHARDC_CUDA_TRY(cudaDeviceSynchronize());
  }
  std::vector<int> gpus(n, -1);
  for (int64_t d : localDevices(n))
    gpus[d] = devices[d].gpu;
  p->comms = std::make_unique<Communicators>();
  Status s = p->comms->init(plan, gpus, options, world);
  if (!s.ok())
    return s;
  Prepared *raw = p.get();
  prepared[key] = std::move(p);
  return raw;
}

Status CudaBackend::runDot(const Plan &plan, const PlanStep &s, Device &dev,
                           std::vector<uint8_t *> &ptr) {
  const PlanValue &lv = plan.values[s.inputs[0]], &rv = plan.values[s.inputs[1]];
  DType dt = lv.dtype;
  if (lv.dtype != rv.dtype || plan.values[s.outputs[0]].dtype != dt)
    return Status::error("the CUDA backend runs products of operands stored at the result's "
                         "precision; this one has " +
                         std::string(dtypeName(lv.dtype)) + " and " + dtypeName(rv.dtype) +
                         " operands and a " + dtypeName(plan.values[s.outputs[0]].dtype) +
                         " result");
  size_t es = dtypeSize(dt);
  DotPlan p = planDot(plan, s);
  void *out = ptr[s.outputs[0]];
  if (p.B * p.M * p.N == 0)
    return Status::success();
  if (p.K == 0) {
    SHARDC_CUDA_TRY(cudaMemsetAsync(out, 0, p.B * p.M * p.N * es, dev.stream));
    return Status::success();
  }
  const void *A = ptr[s.inputs[0]], *Bm = ptr[s.inputs[1]];
  uint8_t *scratch = (uint8_t *)dev.scratch.ptr;
  if (p.packLhs) {
    launchStridedCopy(es, A, scratch, permuteView(lv.shape, cat3(p.lb, p.lf, p.lc)), dev.stream);
    A = scratch;
    scratch += alignUp(lv.bytes());
  }
  if (p.packRhs) {
    launchStridedCopy(es, Bm, scratch, permuteView(rv.shape, cat3(p.rb, p.rc, p.rf)), dev.stream);
    Bm = scratch;
  }
  if (dt == DType::I32 || dt == DType::I64 || dt == DType::I1) {
    launchNaiveMatmul(dt, A, Bm, out, p.B, p.M, p.N, p.K, dev.stream);
    return Status::success();
  }
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS multiplies the
  // rhs (m = N) by the lhs (n = M).
  cudaDataType_t type = dt == DType::F32   ? CUDA_R_32F
                        : dt == DType::F64 ? CUDA_R_64F
                        : dt == DType::F16 ? CUDA_R_16F
                                           : CUDA_R_16BF;
  // The step's precision (its compile's): f32 operands and results, with
  // tensor-core products of operands cuBLAS rounds to bf16 or tf32, summed
  // in f32.
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (dt == DType::F64)
    compute = CUBLAS_COMPUTE_64F;
  else if (dt == DType::F32 && p.precision == MatmulPrecision::BF16)
    compute = CUBLAS_COMPUTE_32F_FAST_16BF;
  else if (dt == DType::F32 && p.precision == MatmulPrecision::TF32)
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  float alpha32 = 1, beta32 = 0;
  double alpha64 = 1, beta64 = 0;
  const void *alpha = dt == DType::F64 ? (const void *)&alpha64 : &alpha32;
  const void *beta = dt == DType::F64 ? (const void *)&beta64 : &beta32;
  cublasOperation_t opRhs = p.transRhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opLhs = p.transLhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  int64_t ldRhs = p.transRhs ? p.K : p.N, ldLhs = p.transLhs ? p.M : p.K;
  cublasStatus_t st = cublasGemmStridedBatchedEx(
      dev.blas, opRhs, opLhs, (int)p.N, (int)p.M, (int)p.K, alpha, Bm, type, (int)ldRhs, p.K * p.N,
      A, type, (int)ldLhs, p.M * p.K, beta, out, type, (int)p.N, p.M * p.N, (int)p.B, compute,
      CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS)
    return Status::error(std::string("cublasGemmStridedBatchedEx: ") + cublasName(st));
  return Status::success();
}

/// The steps that copy elements from one layout to another (a strided
/// walk over the output, or the input's box).
Status CudaBackend::runCopy(const Plan &plan, const PlanStep &s, Device &dev,
                            std::vector<uint8_t *> &ptr) {
  cudaStream_t stream = dev.stream;
  const PlanValue &out = plan.values[s.outputs[0]];
  const PlanValue &in0 = plan.values[s.inputs[0]];
  uint8_t *y = ptr[s.outputs[0]];
  auto x = [&](size_t i) { return ptr[s.inputs[i]]; };
  switch (s.op) {
  case OpCode::BroadcastInDim: {
    StridedView v = contiguousView(out.shape);
    std::vector<int64_t> inSt = stridesOf(in0.shape);
    for (int dd = 0; dd < v.rank; ++dd)
      v.inStrides[dd] = 0;
    for (size_t i = 0; i < s.attrs.size(); ++i)
      if (in0.shape[i] == out.shape[s.attrs[i]])
        v.inStrides[s.attrs[i]] = inSt[i];
    launchStridedCopy(dtypeSize(out.dtype), x(0), y, v, stream);
    break;
  }
  case OpCode::Reshape:
    if (y != x(0) && out.bytes())
      SHARDC_CUDA_TRY(cudaMemcpyAsync(y, x(0), out.bytes(), cudaMemcpyDeviceToDevice, stream));
    break;
  case OpCode::Transpose:
    launchStridedCopy(dtypeSize(out.dtype), x(0), y, permuteView(in0.shape, s.attrs), stream);
    break;
  case OpCode::Slice: {
    size_t r = in0.shape.size();
    StridedView v = contiguousView(out.shape);
    std::vector<int64_t> inSt = stridesOf(in0.shape);
    for (size_t dd = 0; dd < r; ++dd) {
      v.inStrides[dd] = inSt[dd] * s.attrs[2 * r + dd];
      v.inOffset += s.attrs[dd] * inSt[dd];
    }
    launchStridedCopy(dtypeSize(out.dtype), x(0), y, v, stream);
    break;
  }
  case OpCode::DynamicSlice: {
    StridedView v = contiguousView(out.shape);
    std::vector<int64_t> inSt = stridesOf(in0.shape);
    for (int dd = 0; dd < v.rank; ++dd)
      v.inStrides[dd] = inSt[dd];
    launchDynamicCopy(dtypeSize(out.dtype), x(0), y, v,
                      dynamicCorner(plan, s, 1, in0.shape, out.shape, ptr, false), stream);
    break;
  }
  case OpCode::DynamicUpdateSlice: {
    // In place (the output shares the operand's buffer) only the box is
    // written: one step of a cache update costs the update's bytes.
    const PlanValue &update = plan.values[s.inputs[1]];
    if (y != x(0) && out.bytes())
      SHARDC_CUDA_TRY(cudaMemcpyAsync(y, x(0), out.bytes(), cudaMemcpyDeviceToDevice, stream));
    StridedView v = contiguousView(update.shape);
    std::vector<int64_t> outSt = stridesOf(out.shape);
    for (int dd = 0; dd < v.rank; ++dd)
      v.outStrides[dd] = outSt[dd];
    launchDynamicCopy(dtypeSize(out.dtype), x(1), y, v,
                      dynamicCorner(plan, s, 2, out.shape, update.shape, ptr, true), stream);
    break;
  }
  case OpCode::Concatenate: {
    int64_t dim = s.attrs[0], at = 0;
    std::vector<int64_t> outSt = stridesOf(out.shape);
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const PlanValue &iv = plan.values[s.inputs[i]];
      StridedView v = contiguousView(iv.shape);
      for (int dd = 0; dd < v.rank; ++dd)
        v.outStrides[dd] = outSt[dd];
      v.outOffset = at * outSt[dim];
      launchStridedCopy(dtypeSize(out.dtype), x(i), y, v, stream);
      at += iv.shape[dim];
    }
    break;
  }
  default:
    return Status::error(std::string("not a copy: ") + opCodeName(s.op));
  }
  SHARDC_CUDA_TRY(cudaGetLastError());
  return Status::success();
}

/// A fused elementwise step: its kernel (compiled by prepare) over every
/// output element, or one block per row of a row kernel.
Status CudaBackend::runFused(const Plan &plan, const Prepared &prep, size_t stepIndex, Device &dev,
                             std::vector<uint8_t *> &ptr) {
  const PlanStep &s = plan.steps[stepIndex];
  const PlanValue &out = plan.values[s.outputs[0]];
  const FusedKernel &k = prep.fusedInfo[stepIndex];
  FusedProgram prog = FusedProgram::decode(s.attrs);
  int64_t count = prog.outputs.empty() ? numElements(out.shape) * prog.reductions[0].cols
                                       : numElements(out.shape);
  if (count == 0)
    return Status::success();
  std::vector<void *> pointers;
  for (size_t i = 0; i < s.inputs.size(); ++i)
    pointers.push_back(ptr[s.inputs[i]]);
  for (size_t o = 0; o < s.outputs.size(); ++o)
    pointers.push_back(ptr[s.outputs[o]]);
  long long total = count;
  std::vector<void *> params;
  for (void *&p : pointers)
    params.push_back(&p);
  params.push_back(&total);
  dim3 grid =
      k.rowKernel
          ? dim3((unsigned)(count / k.rowCols))
          : dim3((unsigned)std::min<int64_t>((count + kFusedBlock - 1) / kFusedBlock, 1 << 20));
  SHARDC_CUDA_TRY(cudaLaunchKernel((const void *)prep.fused[stepIndex], grid, dim3(kFusedBlock),
                                   params.data(), 0, dev.stream));
  return Status::success();
}

Status CudaBackend::runStep(const Plan &plan, const Prepared &prep, size_t stepIndex, int64_t d,
                            std::vector<uint8_t *> &ptr) {
  const PlanStep &s = plan.steps[stepIndex];
  Device &dev = devices[d];
  cudaStream_t stream = dev.stream;
  const PlanValue &out = plan.values[s.outputs[0]];
  const PlanValue &in0 = plan.values[s.inputs.empty() ? s.outputs[0] : s.inputs[0]];
  int64_t n = numElements(out.shape);
  uint8_t *y = ptr[s.outputs[0]];
  auto x = [&](size_t i) { return ptr[s.inputs[i]]; };
  DeviceErrors errors{(int32_t *)dev.errorFlag.ptr};
  auto tooDeep = [&](size_t rank) -> Status {
    return Status::error(std::string(opCodeName(s.op)) + " of rank " + std::to_string(rank) +
                         " (the CUDA backend handles rank <= " + std::to_string(kMaxRank) + ")");
  };
  size_t rank = out.shape.size();
  for (int32_t id : s.inputs) // every operand: a dot_general may pack its rhs
    rank = std::max(rank, plan.values[id].shape.size());
  if (rank > (size_t)kMaxRank)
    return tooDeep(rank);

  switch (s.op) {
  case OpCode::Constant:
    if (prep.splat[stepIndex])
      launchFill(dtypeSize(out.dtype), s.constant.bytes(), y, n, stream);
    else if (out.bytes())
      SHARDC_CUDA_TRY(
          cudaMemcpyAsync(y, (uint8_t *)prep.constants[d].ptr + prep.constantOffset[stepIndex],
                          out.bytes(), cudaMemcpyDeviceToDevice, stream));
    break;
  case OpCode::Iota: {
    std::vector<int64_t> st = stridesOf(out.shape);
    launchIota(out.dtype, y, n, st[s.attrs[0]], out.shape[s.attrs[0]], stream);
    break;
  }
  case OpCode::Compare:
    launchCompare(s.attrs[0], in0.dtype, x(0), x(1), y, n, stream);
    break;
  case OpCode::Select:
    launchSelect(dtypeSize(out.dtype), x(0), x(1), x(2), y, n, stream);
    break;
  case OpCode::Convert:
    launchConvert(in0.dtype, out.dtype, x(0), y, n, stream);
    break;
  case OpCode::DotGeneral:
    return runDot(plan, s, dev, ptr);
  case OpCode::Reduce: {
    std::vector<int64_t> dims(s.attrs.begin() + 1, s.attrs.end());
    std::vector<int64_t> st = stridesOf(in0.shape);
    StridedView kept, reduced;
    for (int64_t dim = 0; dim < (int64_t)in0.shape.size(); ++dim) {
      bool r = std::find(dims.begin(), dims.end(), dim) != dims.end();
      StridedView &v = r ? reduced : kept;
      v.shape[v.rank] = in0.shape[dim];
      v.inStrides[v.rank++] = st[dim];
    }
    launchReduce(s.attrs[0], in0.dtype, x(0), y, kept, reduced, stream);
    break;
  }
  case OpCode::BroadcastInDim:
  case OpCode::Reshape:
  case OpCode::Transpose:
  case OpCode::Slice:
  case OpCode::DynamicSlice:
  case OpCode::DynamicUpdateSlice:
  case OpCode::Concatenate:
    return runCopy(plan, s, dev, ptr);
  case OpCode::Fused:
    if (Status fused = runFused(plan, prep, stepIndex, dev, ptr); !fused.ok())
      return fused;
    break;
#define SHARDC_STRUCTURED(Name, ...)                                                               \
  case OpCode::Name: {                                                                             \
    StructuredLaunch launch{{}, {}, y, &out, s.attrs, stream, errors, (int32_t)stepIndex};         \
    for (size_t i = 0; i < s.inputs.size(); ++i) {                                                 \
      launch.inputs.push_back(x(i));                                                               \
      launch.inputValues.push_back(&plan.values[s.inputs[i]]);                                     \
    }                                                                                              \
    launch##Name(launch);                                                                          \
    break;                                                                                         \
  }
#include "shardc/Common/OpCodes.def"
  default:
    if (isUnary(s.op))
      launchUnary(s.op, out.dtype, x(0), y, n, stream);
    else if (isBinary(s.op))
      launchBinary(s.op, out.dtype, x(0), x(1), y, n, errors, (int32_t)stepIndex, stream);
    else
      return Status::error(std::string("no CUDA kernel for ") + opCodeName(s.op));
  }
  SHARDC_CUDA_TRY(cudaGetLastError());
  return Status::success();
}

StatusOr<std::vector<DeviceArrays>>
CudaBackend::execute(const Plan &plan, const std::vector<std::vector<const Array *>> &args,
                     std::vector<DeviceArrays> *) {
  // Arguments are uploaded into device buffers of their own, so a value
  // written over a donated argument is written over its upload. One plan
  // at a time: the streams and buffers are this backend's.
  std::lock_guard<std::mutex> lock(executeMutex);
  int64_t n = plan.numDevices();
  if (args.size() != plan.args.size())
    return Status::error("expected " + std::to_string(plan.args.size()) + " arguments, got " +
                         std::to_string(args.size()));
  std::vector<int64_t> local = localDevices(n);
  if (local.empty())
    return Status::error("process rank " + std::to_string(options.processRank) +
                         " has no position in a mesh of " + std::to_string(n) + " devices");
  Status valid = checkShardArguments(plan, args, local);
  if (!valid.ok())
    return valid;
  Status s = initDevices(n);
  if (!s.ok())
    return s;
  StatusOr<Prepared *> prep = prepare(plan);
  if (!prep.ok())
    return prep.status();
  timedDevice = local[0];
  if (!events[0]) {
    SHARDC_CUDA_TRY(cudaSetDevice(devices[timedDevice].gpu));
    for (cudaEvent_t &e : events)
      SHARDC_CUDA_TRY(cudaEventCreate(&e));
  }
  DevicePointers ptrs(n);
  mark(0);
  if (Status up = uploadArguments(plan, args, local, **prep, ptrs); !up.ok())
    return up;
  mark(1);
  if (Status ran = runSteps(plan, **prep, local, ptrs); !ran.ok())
    return ran;
  mark(2);
  return downloadResults(plan, local, ptrs);
}

void CudaBackend::mark(int which) {
  if (timedDevice < 0)
    return;
  cudaSetDevice(devices[timedDevice].gpu);
  cudaEventRecord(events[which], devices[timedDevice].stream);
}

Status CudaBackend::uploadArguments(const Plan &plan,
                                    const std::vector<std::vector<const Array *>> &args,
                                    const std::vector<int64_t> &local, const Prepared &prep,
                                    DevicePointers &ptrs) {
  size_t argBytes = 0;
  std::vector<size_t> argOffset;
  for (int32_t id : plan.args) {
    argOffset.push_back(argBytes);
    argBytes += alignUp(plan.values[id].bytes());
  }
  for (int64_t d : local) {
    Device &dev = devices[d];
    SHARDC_CUDA_TRY(cudaSetDevice(dev.gpu));
    for (DeviceBuffer *b : {&dev.arena, &dev.args, &dev.scratch}) {
      size_t need = b == &dev.arena  ? (size_t)plan.arenaBytes
                    : b == &dev.args ? argBytes
                                     : prep.scratchBytes;
      if (Status s = b->reserve(need); !s.ok())
        return s;
    }
    SHARDC_CUDA_TRY(cudaMemsetAsync(dev.errorFlag.ptr, 0x7f, sizeof(int32_t), dev.stream));
    std::vector<uint8_t *> &ptr = ptrs[d];
    ptr.assign(plan.values.size(), nullptr);
    for (size_t v = 0; v < plan.values.size(); ++v)
      if (plan.values[v].offset >= 0)
        ptr[v] = (uint8_t *)dev.arena.ptr + plan.values[v].offset;
    for (size_t i = 0; i < plan.args.size(); ++i) {
      ptr[plan.args[i]] = (uint8_t *)dev.args.ptr + argOffset[i];
      if (args[i][d]->sizeInBytes())
        SHARDC_CUDA_TRY(cudaMemcpyAsync(ptr[plan.args[i]], args[i][d]->bytes(),
                                        args[i][d]->sizeInBytes(), cudaMemcpyHostToDevice,
                                        dev.stream));
    }
    for (size_t v = 0; v < plan.values.size(); ++v)
      if (plan.values[v].offset == kInArgument)
        ptr[v] = ptr[plan.args[plan.values[v].inArgument]];
  }
  return Status::success();
}

Status CudaBackend::runSteps(const Plan &plan, const Prepared &prep,
                             const std::vector<int64_t> &local, DevicePointers &ptrs) {
  int64_t n = plan.numDevices();
  // With SHARDC_CUDA_SYNC=1 every step is waited for and checked, so a
  // fault names its step (slow; for diagnosis).
  static const bool syncEachStep = envIs(Env::CudaSync, "1");
  auto checkStep = [&](const PlanStep &step) -> Status {
    if (!syncEachStep)
      return Status::success();
    for (int64_t d : local) {
      SHARDC_CUDA_TRY(cudaSetDevice(devices[d].gpu));
      cudaError_t e = cudaStreamSynchronize(devices[d].stream);
      if (e == cudaSuccess)
        e = cudaGetLastError();
      if (e != cudaSuccess)
        return Status::error(step.location + ": " + opCodeName(step.op) +
                             " failed: " + cudaGetErrorString(e));
    }
    return Status::success();
  };
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep &step = plan.steps[i];
    if (isCollective(step.op)) {
      // A merged all_reduce goes one buffer per NCCL call.
      for (size_t k = 0; k < step.inputs.size(); ++k) {
        PlanStep one = step.inputs.size() > 1 ? step.part(k) : step;
        std::vector<CollectiveDevice> group;
        for (int64_t d : local)
          group.push_back({d, devices[d].gpu, devices[d].stream, ptrs[d][one.inputs[0]],
                           ptrs[d][one.outputs[0]], devices[d].scratch.ptr});
        if (Status s = runCollective(plan, one, *prep.comms, group); !s.ok())
          return Status::error(step.location + ": " + s.message());
      }
    } else {
      for (int64_t d : local) {
        SHARDC_CUDA_TRY(cudaSetDevice(devices[d].gpu));
        if (Status s = runStep(plan, prep, i, d, ptrs[d]); !s.ok())
          return Status::error(step.location + ": " + s.message() +
                               (n > 1 ? " (on device " + std::to_string(d) + ")" : ""));
      }
    }
    if (Status s = checkStep(step); !s.ok())
      return s;
  }
  return Status::success();
}

StatusOr<std::vector<DeviceArrays>> CudaBackend::downloadResults(const Plan &plan,
                                                                 const std::vector<int64_t> &local,
                                                                 const DevicePointers &ptrs) {
  int64_t n = plan.numDevices();
  std::vector<DeviceArrays> results(plan.results.size(), DeviceArrays(n));
  std::vector<int32_t> failing(n, INT32_MAX);
  for (int64_t d : local) {
    Device &dev = devices[d];
    SHARDC_CUDA_TRY(cudaSetDevice(dev.gpu));
    for (size_t r = 0; r < plan.results.size(); ++r) {
      const PlanValue &v = plan.values[plan.results[r]];
      results[r][d] = Array::uninitialized(v.dtype, v.shape);
      if (v.bytes())
        SHARDC_CUDA_TRY(cudaMemcpyAsync(results[r][d].bytes(), ptrs[d][plan.results[r]], v.bytes(),
                                        cudaMemcpyDeviceToHost, dev.stream));
    }
    SHARDC_CUDA_TRY(cudaMemcpyAsync(&failing[d], dev.errorFlag.ptr, sizeof(int32_t),
                                    cudaMemcpyDeviceToHost, dev.stream));
  }
  mark(3);
  for (int64_t d : local) {
    SHARDC_CUDA_TRY(cudaSetDevice(devices[d].gpu));
    SHARDC_CUDA_TRY(cudaStreamSynchronize(devices[d].stream));
  }
  for (int64_t d : local) {
    if (failing[d] < 0 || failing[d] >= (int32_t)plan.steps.size())
      continue;
    const PlanStep &step = plan.steps[failing[d]];
    // Structured ops report indices out of range (take, scatter_add); the
    // elementwise ones, integer division by zero.
    std::string what = isStructured(step.op)
                           ? std::string(opCodeName(step.op)) + ": an index is out of range"
                           : "integer division by zero";
    return Status::error(step.location + ": " + what +
                         (n > 1 ? " (on device " + std::to_string(d) + ")" : ""));
  }
  return results;
}

/// Why no GPU can be used, or the number of GPUs.
StatusOr<int> usableGpus() {
  // cudart loads the driver itself; looking first gives a clearer message.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char *why = dlerror();
    return Status::error(std::string("no usable CUDA device (CUDA driver not found: ") +
                         (why ? why : "libcuda.so.1 cannot be loaded") + ")");
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return Status::error(std::string("no usable CUDA device (cudaGetDeviceCount: ") +
                         cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")");
  if (count == 0)
    return Status::error("no usable CUDA device (the driver reports no GPU)");
  return count;
}

} // namespace

CudaCallTiming cuda::lastCallTiming(Backend &backend) {
  auto *cuda = dynamic_cast<CudaBackend *>(&backend);
  CudaCallTiming t;
  if (!cuda || cuda->timedDevice < 0 || !cuda->events[0])
    return t;
  float steps = 0, total = 0;
  if (cudaEventElapsedTime(&steps, cuda->events[1], cuda->events[2]) == cudaSuccess &&
      cudaEventElapsedTime(&total, cuda->events[0], cuda->events[3]) == cudaSuccess)
    t = {steps, total};
  return t;
}

StatusOr<std::unique_ptr<Backend>> cuda::createBackend(const CudaOptions &given) {
  CudaOptions options = given;
  // Under mpirun, a GPU per process, ranked as MPI ranks them.
  if (StatusOr<std::shared_ptr<ProcessGroup>> mpi = worldProcessGroup();
      options.processRank < 0 && mpi.ok() && *mpi && (*mpi)->size() > 1) {
    options.processRank = (*mpi)->rank();
    options.processCount = (*mpi)->size();
  }
  if (std::optional<int64_t> rank = envInt(Env::NcclRank); rank && options.processRank < 0) {
    options.processRank = (int)*rank;
    options.processCount = (int)envInt(Env::NcclRanks).value_or(0);
  }
  StatusOr<int> gpus = usableGpus();
  if (!gpus.ok())
    return gpus.status();
  if (options.processRank >= 0 && options.processCount <= options.processRank)
    return Status::error("SHARDC_NCCL_RANK " + std::to_string(options.processRank) +
                         " needs SHARDC_NCCL_NRANKS above it");
  if (options.processRank >= 0) {
    // One GPU per process: the local GPU is the rank's, modulo the GPUs seen
    // (CUDA_VISIBLE_DEVICES usually leaves one).
    cudaError_t e = cudaSetDevice(options.processRank % *gpus);
    if (e != cudaSuccess)
      return Status::error(std::string("cudaSetDevice: ") + cudaGetErrorString(e));
  }
  return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(options, *gpus));
}

} // namespace shardc
