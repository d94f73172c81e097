//===- FusedJit.cpp - fused programs compiled by ORC's LLJIT --------------===//
//
// One LLJIT per FusedJit, for the host CPU (its name and features, so the
// kernels use AVX-512 where the CPU has it), with glibc's libmvec loaded for
// the vector transcendentals. Each program is generated, optimized at O2 and
// compiled on first request, under one lock; its address is cached by the
// program's encoding, and later requests cost one hash lookup.
//
//===----------------------------------------------------------------------===//

#include "shardc/JIT/FusedJit.h"
#include "shardc/JIT/FusedKernelIR.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

using namespace llvm;

namespace shardc {

struct FusedJit::Impl {
  std::unique_ptr<orc::LLJIT> jit;
  std::unique_ptr<TargetMachine> tm; // for the optimization pipeline
  jit::VectorTarget target;
  mutable std::mutex mutex;
  struct Entry {
    FusedKernelFn kernel = nullptr;
    bool decided = false;    // compiled, declined or failed: final
    int64_t interpreted = 0; // elements run by the interpreter so far
    int64_t calls = 0;       // and its calls
  };
  std::unordered_map<std::string, Entry> programs; // by encoding
  int64_t compileAfterElements = 0, compileAfterCalls = 0;
  FusedJitStats stats;
  int64_t nextId = 0;

  /// Generates and optimizes `program`'s kernel.
  std::unique_ptr<Module> optimizedModule(const FusedProgram &program, LLVMContext &ctx,
                                          const std::string &name) {
    std::unique_ptr<Module> m = jit::buildFusedKernelIR(program, target, ctx, name);
    m->setDataLayout(tm->createDataLayout());
    m->setTargetTriple(tm->getTargetTriple());
    if (verifyModule(*m, &errs()))
      return nullptr;
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2).run(*m, mam);
    return m;
  }

  FusedKernelFn compile(const FusedProgram &program) {
    std::string name = "shardc_fused_" + std::to_string(nextId++);
    auto ctx = std::make_unique<LLVMContext>();
    std::unique_ptr<Module> m = optimizedModule(program, *ctx, name);
    if (!m)
      return nullptr;
    if (Error e = jit->addIRModule(orc::ThreadSafeModule(std::move(m),
                                                         orc::ThreadSafeContext(std::move(ctx))))) {
      consumeError(std::move(e));
      return nullptr;
    }
    Expected<orc::ExecutorAddr> addr = jit->lookup(name);
    if (!addr) {
      std::string msg = toString(addr.takeError());
      std::fprintf(stderr, "shardc: fused kernel compilation failed: %s\n", msg.c_str());
      return nullptr;
    }
    return addr->toPtr<FusedKernelFn>();
  }
};

FusedJit::FusedJit(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
FusedJit::~FusedJit() = default;

std::shared_ptr<FusedJit> FusedJit::create(const FusedJitOptions &options, std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  auto fail = [&](std::string msg) {
    error = std::move(msg);
    return std::shared_ptr<FusedJit>();
  };
  Expected<orc::JITTargetMachineBuilder> jtmb = orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return fail(toString(jtmb.takeError()));
  if (jtmb->getTargetTriple().getArch() != Triple::x86_64)
    return fail("fused kernels are generated for x86-64 only");
  jtmb->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);

  auto impl = std::make_unique<Impl>();
  StringMap<bool> features = sys::getHostCPUFeatures();
  int widest = features.lookup("avx512f") ? 16 : features.lookup("avx2") ? 8 : 4;
  int width = options.vectorWidth ? options.vectorWidth : widest;
  if (width != 4 && width != 8 && width != 16)
    return fail("vector width must be 4, 8 or 16");
  if (width > widest)
    return fail("this CPU has no " + std::to_string(width) + "-float vectors");
  impl->target = {width, width == 16 ? 'e' : width == 8 ? 'd' : 'b'};
  impl->compileAfterElements = options.compileAfterElements;
  impl->compileAfterCalls = options.compileAfterCalls;

  Expected<std::unique_ptr<TargetMachine>> tm = jtmb->createTargetMachine();
  if (!tm)
    return fail(toString(tm.takeError()));
  impl->tm = std::move(*tm);
  Expected<std::unique_ptr<orc::LLJIT>> jit =
      orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit)
    return fail(toString(jit.takeError()));
  impl->jit = std::move(*jit);
  // The vector transcendentals (_ZGVeN16v_expf, ...).
  auto libmvec = orc::DynamicLibrarySearchGenerator::Load(
      "libmvec.so.1", impl->jit->getDataLayout().getGlobalPrefix());
  if (!libmvec)
    return fail("cannot load libmvec.so.1: " + toString(libmvec.takeError()));
  impl->jit->getMainJITDylib().addGenerator(std::move(*libmvec));
  return std::shared_ptr<FusedJit>(new FusedJit(std::move(impl)));
}

FusedKernelFn FusedJit::kernelFor(const FusedProgram &program,
                                  const std::vector<int64_t> &encoded, int64_t elements) {
  std::string key((const char *)encoded.data(), encoded.size() * sizeof(int64_t));
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto [it, inserted] = impl->programs.try_emplace(std::move(key));
  Impl::Entry &entry = it->second;
  if (entry.decided)
    return entry.kernel;
  if (inserted && !jit::unsupportedReason(program).empty()) {
    ++impl->stats.declined;
    entry.decided = true;
    return nullptr;
  }
  // Not worth compiling yet: the interpreter runs this call.
  entry.interpreted += elements;
  entry.calls += 1;
  if (entry.interpreted < impl->compileAfterElements && entry.calls < impl->compileAfterCalls) {
    impl->stats.waiting += inserted;
    return nullptr;
  }
  impl->stats.waiting -= !inserted;
  auto start = std::chrono::steady_clock::now();
  entry.kernel = impl->compile(program);
  entry.decided = true; // failures are not retried
  impl->stats.compileMs +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
  ++(entry.kernel ? impl->stats.compiled : impl->stats.failed);
  return entry.kernel;
}

FusedJitStats FusedJit::stats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->stats;
}

int FusedJit::vectorWidth() const { return impl->target.width; }

std::string FusedJit::optimizedIR(const FusedProgram &program) {
  std::string reason = jit::unsupportedReason(program);
  if (!reason.empty())
    return "; unsupported: " + reason + "\n";
  LLVMContext ctx;
  std::lock_guard<std::mutex> lock(impl->mutex);
  std::unique_ptr<Module> m = impl->optimizedModule(program, ctx, "shardc_fused");
  std::string text;
  raw_string_ostream os(text);
  if (m)
    m->print(os, nullptr);
  return text;
}

std::shared_ptr<FusedJit> installFusedJit() {
  // Created once and never destroyed: kernels handed out stay valid until
  // the process exits.
  static std::shared_ptr<FusedJit> *installed = [] {
    auto *slot = new std::shared_ptr<FusedJit>();
    const char *env = std::getenv("SHARDC_FUSED_JIT");
    if (env && std::strcmp(env, "0") == 0)
      return slot;
    FusedJitOptions options;
    if (env && std::strcmp(env, "eager") == 0)
      options.compileAfterElements = options.compileAfterCalls = 0;
    std::string error;
    *slot = FusedJit::create(options, error);
    if (!*slot)
      std::fprintf(stderr,
                   "shardc: warning: fused kernels stay interpreted (no JIT: %s)\n",
                   error.c_str());
    return slot;
  }();
  if (*installed)
    setFusedKernelCompiler(*installed);
  return *installed;
}

} // namespace shardc
