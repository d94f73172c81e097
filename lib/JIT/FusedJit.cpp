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

#include "shardc/Runtime/CompileCache.h"
#include "shardc/Runtime/Environment.h"
#include "shardc/Runtime/File.h"

#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
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

namespace {

/// Object files of compiled kernels on disk: "SHARDCK\0", an FNV-1a 64 of
/// the object, then the object. Written atomically when LLVM has compiled
/// a kernel's module (named by its key), read back by the key; a file that
/// fails its checksum is ignored (and replaced on the next compile).
class KernelDiskCache : public ObjectCache {
public:
  explicit KernelDiskCache(std::string dir) : dir(std::move(dir)) {}

  void notifyObjectCompiled(const Module *m, MemoryBufferRef obj) override {
    if (dir.empty() || m->getModuleIdentifier().rfind("shardc_fused_", 0) != 0)
      return;
    std::string bytes(kMagic, 8);
    uint64_t sum = fnv(obj.getBuffer());
    bytes.append((const char *)&sum, 8);
    bytes.append(obj.getBuffer().data(), obj.getBuffer().size());
    if (!shardc::makeDirectories(dir).ok())
      return;
    (void)shardc::writeFileAtomically(path(m->getModuleIdentifier()), bytes);
  }
  std::unique_ptr<MemoryBuffer> getObject(const Module *) override { return nullptr; }

  /// The object of kernel `name`, or null.
  std::unique_ptr<MemoryBuffer> load(const std::string &name) const {
    if (dir.empty())
      return nullptr;
    shardc::StatusOr<std::string> bytes = shardc::readFile(path(name));
    if (!bytes.ok() || bytes->size() < 16 || bytes->compare(0, 8, kMagic, 8) != 0)
      return nullptr;
    uint64_t sum;
    std::memcpy(&sum, bytes->data() + 8, 8);
    StringRef obj(bytes->data() + 16, bytes->size() - 16);
    if (fnv(obj) != sum)
      return nullptr;
    return MemoryBuffer::getMemBufferCopy(obj, name);
  }

private:
  static constexpr const char kMagic[8] = {'S', 'H', 'A', 'R', 'D', 'C', 'K', 0};
  std::string dir;
  std::string path(const std::string &name) const { return dir + "/" + name + ".o"; }
  static uint64_t fnv(StringRef s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s)
      h = (h ^ c) * 1099511628211ull;
    return h;
  }
};

} // namespace

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
  std::shared_ptr<KernelDiskCache> disk;
  std::string identity; // the host CPU, the vector width, the compiler

  /// The kernel's symbol and file name: a hash of the program and of
  /// everything else its machine code depends on.
  std::string nameFor(const std::vector<int64_t> &encoded) const {
    uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;
    auto feed = [&](const void *p, size_t n) {
      for (size_t i = 0; i < n; ++i) {
        unsigned char c = ((const unsigned char *)p)[i];
        a = (a ^ c) * 1099511628211ull;
        b = (b ^ c ^ (a >> 7)) * 1099511628211ull;
      }
    };
    feed(identity.data(), identity.size());
    feed(encoded.data(), encoded.size() * sizeof(int64_t));
    char hex[40];
    std::snprintf(hex, sizeof(hex), "shardc_fused_%016llx%016llx", (unsigned long long)a,
                  (unsigned long long)b);
    return hex;
  }

  /// The kernel from the disk cache, or null.
  FusedKernelFn load(const std::string &name) {
    std::unique_ptr<MemoryBuffer> obj = disk ? disk->load(name) : nullptr;
    if (!obj)
      return nullptr;
    if (Error e = jit->addObjectFile(std::move(obj))) {
      consumeError(std::move(e));
      return nullptr;
    }
    Expected<orc::ExecutorAddr> addr = jit->lookup(name);
    if (!addr) {
      consumeError(addr.takeError());
      return nullptr;
    }
    return addr->toPtr<FusedKernelFn>();
  }

  /// Generates and optimizes `program`'s kernel.
  std::unique_ptr<Module> optimizedModule(const FusedProgram &program, LLVMContext &ctx,
                                          const std::string &name) {
    std::unique_ptr<Module> m = jit::buildFusedKernelIR(program, target, ctx, name);
    m->setModuleIdentifier(name); // the disk cache files the object by it
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

  FusedKernelFn compile(const FusedProgram &program, const std::string &name) {
    auto ctx = std::make_unique<LLVMContext>();
    std::unique_ptr<Module> m = optimizedModule(program, *ctx, name);
    if (!m)
      return nullptr;
    if (Error e = jit->addIRModule(
            orc::ThreadSafeModule(std::move(m), orc::ThreadSafeContext(std::move(ctx))))) {
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
  impl->identity = std::string(sys::getHostCPUName()) + "/" + std::to_string(width) + "/" +
                   CompileCache::compilerFingerprint();
  if (!options.cacheDir.empty())
    impl->disk = std::make_shared<KernelDiskCache>(options.cacheDir);
  std::shared_ptr<KernelDiskCache> disk = impl->disk;
  Expected<std::unique_ptr<orc::LLJIT>> jit =
      orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*jtmb))
          .setCompileFunctionCreator(
              [disk](orc::JITTargetMachineBuilder builder)
                  -> Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
                Expected<std::unique_ptr<TargetMachine>> machine = builder.createTargetMachine();
                if (!machine)
                  return machine.takeError();
                return std::make_unique<orc::TMOwningSimpleCompiler>(std::move(*machine),
                                                                     disk.get());
              })
          .create();
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

/// The key of a program's entry: its encoding's bytes.
static std::string programKey(const std::vector<int64_t> &encoded) {
  return std::string((const char *)encoded.data(), encoded.size() * sizeof(int64_t));
}

FusedKernelFn FusedJit::kernelFor(const FusedProgram &program, const std::vector<int64_t> &encoded,
                                  int64_t elements) {
  std::string key = programKey(encoded);
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
  // Not worth compiling yet: the interpreter runs this call. The choice
  // depends on the calls alone, not on what the disk holds, so a run gives
  // the same bits however warm the kernel cache is (a native kernel may
  // round sums and libmvec's functions differently from the interpreter).
  entry.interpreted += elements;
  entry.calls += 1;
  if (entry.interpreted < impl->compileAfterElements && entry.calls < impl->compileAfterCalls) {
    impl->stats.waiting += inserted;
    return nullptr;
  }
  impl->stats.waiting -= !inserted;
  std::string name = impl->nameFor(encoded);
  if (FusedKernelFn kernel = impl->load(name)) { // compiled by an earlier process
    ++impl->stats.loaded;
    entry.kernel = kernel;
    entry.decided = true;
    return kernel;
  }
  auto start = std::chrono::steady_clock::now();
  entry.kernel = impl->compile(program, name);
  entry.decided = true; // failures are not retried
  impl->stats.compileMs +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++(entry.kernel ? impl->stats.compiled : impl->stats.failed);
  return entry.kernel;
}

bool FusedJit::settled(const std::vector<int64_t> &encoded) {
  std::string key = programKey(encoded);
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->programs.find(key);
  return it != impl->programs.end() && it->second.decided;
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

std::shared_ptr<FusedJit> installFusedJit(const std::string &cacheDir) {
  // Created once and never destroyed: kernels handed out stay valid until
  // the process exits.
  static std::shared_ptr<FusedJit> *installed = [&cacheDir] {
    auto *slot = new std::shared_ptr<FusedJit>();
    if (envIs(Env::FusedJit, "0"))
      return slot;
    FusedJitOptions options;
    if (!envIs(Env::FusedJitCache, "0") && !cacheDir.empty())
      options.cacheDir = cacheDir + "/kernels";
    if (envIs(Env::FusedJit, "eager"))
      options.compileAfterElements = options.compileAfterCalls = 0;
    std::string error;
    *slot = FusedJit::create(options, error);
    if (!*slot)
      std::fprintf(stderr, "shardc: warning: fused kernels stay interpreted (no JIT: %s)\n",
                   error.c_str());
    return slot;
  }();
  if (*installed)
    setFusedKernelCompiler(*installed);
  return *installed;
}

} // namespace shardc
