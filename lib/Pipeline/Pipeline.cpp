//===- Pipeline.cpp - from a .mlir file to a plan -------------------------===//

#include "shardc/Pipeline/Pipeline.h"

#include "shardc/Conversion/Passes.h"
#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Conversion/StableHLOToShardc.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/MatmulPrecision.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Dialect/StableHLO/StableHLO.h"
#include "shardc/Runtime/File.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

namespace shardc {

std::unique_ptr<LoadedModule> loadModule(const std::string &path, std::string &error,
                                         bool captureDiagnostics) {
  StatusOr<std::string> text = readFile(path);
  if (!text.ok()) {
    error = text.message();
    return nullptr;
  }
  return loadModuleFromText(*text, path, error, captureDiagnostics);
}

std::unique_ptr<LoadedModule> loadModuleFromText(const std::string &text,
                                                 const std::string &bufferName, std::string &error,
                                                 bool captureDiagnostics) {
  auto loaded = std::make_unique<LoadedModule>();
  loaded->context.loadDialect<ShardcDialect, func::FuncDialect>();
  // A module JAX printed (StableHLO, Shardy or GSPMD shardings) is read too,
  // and imported right after parsing.
  loadStableHLODialects(loaded->context);
  // A diagnostic names the user's location and says what is wrong; it does
  // not append the generic form of the op it is attached to (a whole
  // function, for an argument's error).
  loaded->context.printOpOnDiagnostic(false);
  if (captureDiagnostics)
    loaded->collector = std::make_unique<ScopedDiagnosticHandler>(
        &loaded->context, [l = loaded.get()](Diagnostic &d) {
          std::string loc;
          llvm::raw_string_ostream os(loc);
          os << d.getLocation();
          l->diagnostics += loc + ": " + d.str() + "\n";
          return success();
        });
  else
    loaded->printer =
        std::make_unique<SourceMgrDiagnosticHandler>(loaded->sourceMgr, &loaded->context);
  loaded->text = text;
  loaded->sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                                       llvm::SMLoc());
  // Parsed with the parser's state kept, for the source's SSA names.
  loaded->parserState = std::make_unique<AsmParserState>();
  Block block;
  ParserConfig config(&loaded->context);
  if (succeeded(parseAsmSourceFile(loaded->sourceMgr, &block, config, loaded->parserState.get())))
    loaded->module = mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
        &block, &loaded->context, FileLineColLoc::get(&loaded->context, bufferName, 0, 0));
  if (loaded->module && isStableHLOModule(*loaded->module) &&
      failed(importStableHLO(*loaded->module)))
    loaded->module = nullptr;
  if (!loaded->module) {
    error = captureDiagnostics ? loaded->diagnostics : "cannot parse '" + bufferName + "'";
    return nullptr;
  }
  return loaded;
}

std::vector<std::string> sourceArgumentNames(const LoadedModule &loaded, func::FuncOp fn) {
  std::vector<std::string> names(fn.getNumArguments());
  if (!loaded.parserState || fn.getBody().empty())
    return names;
  const AsmParserState::BlockDefinition *def =
      loaded.parserState->getBlockDef(&fn.getBody().front());
  for (size_t i = 0; def && i < names.size() && i < def->arguments.size(); ++i) {
    llvm::SMRange r = def->arguments[i].loc;
    if (r.isValid())
      names[i] = std::string(r.Start.getPointer(), r.End.getPointer());
  }
  return names;
}

func::FuncOp findEntry(ModuleOp module, const std::string &requested, std::string &error) {
  std::vector<func::FuncOp> candidates;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal())
      candidates.push_back(fn);
  auto names = [&] {
    std::string s;
    for (auto fn : candidates)
      s += (s.empty() ? "@" : ", @") + fn.getSymName().str();
    return s.empty() ? std::string("none") : s;
  };
  std::string want = requested.empty() ? "main" : requested;
  for (auto fn : candidates)
    if (fn.getSymName() == want)
      return fn;
  if (requested.empty()) {
    std::vector<func::FuncOp> pub;
    for (auto fn : candidates)
      if (fn.isPublic())
        pub.push_back(fn);
    if (pub.size() == 1)
      return pub[0];
    error = "no @main function; choose one with --entry (functions: " + names() + ")";
  } else {
    error = "no function @" + requested + " (functions: " + names() + ")";
  }
  return {};
}

/// `x` as a number that reads back as itself.
static std::string exactNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string CompileOptions::key() const {
  return std::string("pad-uneven=") + (padUneven ? "1" : "0") +
         " precision=" + matmulPrecisionName(precision) +
         " bucket-bytes=" + std::to_string(allReduceBucketBytes) +
         " link-latency-s=" + exactNumber(link.latencySeconds) +
         " link-bytes-per-s=" + exactNumber(link.bytesPerSecond) +
         " bf16-operands=" + (bf16Operands ? "1" : "0") +
         " row-programs=" + (rowPrograms ? "1" : "0") +
         " bf16-outputs=" + (bf16Outputs ? "1" : "0");
}

void CompileOptions::useBackend(const std::string &backend) {
  bool cpu = backend == "cpu";
  // The CPU backend's products read bf16 operands: values only they read
  // are rounded once, where they are made.
  bf16Operands = cpu;
  // Its fused chains store them at bf16 directly.
  bf16Outputs = cpu;
  // Its fused chains read back the row reductions they make (a layer norm
  // is one step: a decode step's dozen small steps per norm were a tenth of
  // its time), with the same bits.
  rowPrograms = cpu;
}

void buildCompilePipeline(OpPassManager &pm, const std::string &entry,
                          const CompileOptions &options) {
  if (options.precision != MatmulPrecision::F32) {
    ShardcMatmulPrecisionOptions precision;
    precision.precision = matmulPrecisionName(options.precision);
    pm.addPass(createShardcMatmulPrecision(precision));
  }
  ShardcPropagateOptions propagate;
  propagate.entry = entry;
  pm.addPass(createShardcPropagate(propagate));
  ShardcPartitionOptions partition;
  partition.entry = entry;
  partition.padUneven = options.padUneven;
  partition.linkLatencyNs = options.link.latencySeconds * 1e9;
  partition.linkBytesPerS = options.link.bytesPerSecond;
  pm.addPass(createShardcPartition(partition));
}

/// Writes stage `name` of `shardc compile --dump-stages` into `dir`.
static Status writeStage(const std::string &dir, const char *name, const std::string &text) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return Status::error("cannot create '" + dir + "': " + ec.message());
  return writeFileAtomically(dir + "/" + name, text);
}

namespace {

struct CompilePipelineOptions : PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("only this function (default: every function)")};
  Option<bool> padUneven{*this, "pad-uneven",
                         llvm::cl::desc("pad dimensions the axes do not divide"),
                         llvm::cl::init(false)};
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("how f32 products are computed: f32, bf16, tf32"),
                                llvm::cl::init("f32")};
  Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("merge all_reduces into buckets of up to this many bytes (0: none)"),
      llvm::cl::init(kDefaultAllReduceBucketBytes)};
  Option<double> linkLatencyNs{
      *this, "link-latency-ns",
      llvm::cl::desc("each collective's start-up time over the link, in ns (with "
                     "link-bytes-per-s)"),
      llvm::cl::init(0)};
  Option<double> linkBytesPerS{
      *this, "link-bytes-per-s",
      llvm::cl::desc("the link's bandwidth in bytes per second (with link-latency-ns)"),
      llvm::cl::init(0)};
  Option<std::string> output{*this, "output",
                             llvm::cl::desc("where to write the plans ('-': standard output)"),
                             llvm::cl::init("-")};
};

/// Writes the module after each stage of the pipeline, as
/// `shardc compile --dump-stages` names them.
class StageDumper : public PassInstrumentation {
public:
  explicit StageDumper(std::string dir) : dir(std::move(dir)) {}

  void runAfterPass(Pass *pass, Operation *op) override {
    StringRef arg = pass->getArgument();
    const char *name = arg == "shardc-propagate"   ? "01-propagated.mlir"
                       : arg == "shardc-partition" ? "02-partitioned.mlir"
                                                   : nullptr;
    if (!name || !status.ok())
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    status = writeStage(dir, name, text + "\n");
  }

  std::string dir;
  Status status = Status::success();
};

} // namespace

void registerCompilePipeline() {
  PassPipelineRegistration<CompilePipelineOptions>(
      "shardc-compile",
      "The pipeline of `shardc compile`: propagate, partition, lower to the plan (printed)",
      [](OpPassManager &pm, const CompilePipelineOptions &options) {
        CompileOptions compile;
        compile.padUneven = options.padUneven;
        // Checked by the partition pass, which reports a half-given link.
        compile.link = {options.linkLatencyNs * 1e-9, options.linkBytesPerS};
        if (!parseMatmulPrecision(options.precision, compile.precision)) {
          // The pass reports the unknown name when the pipeline runs.
          ShardcMatmulPrecisionOptions precision;
          precision.precision = options.precision;
          pm.addPass(createShardcMatmulPrecision(precision));
        }
        buildCompilePipeline(pm, options.entry, compile);
        ShardcLowerToPlanOptions lower;
        lower.entry = options.entry;
        lower.output = options.output;
        lower.bucketBytes = options.bucketBytes;
        pm.addPass(createShardcLowerToPlan(lower));
      });
}

FailureOr<Plan> compileToPlan(ModuleOp module, func::FuncOp fn, const std::string &dumpDir,
                              const CompileOptions &options) {
  setMatmulPrecision(module, options.precision);
  if (!fn->hasAttr(ShardcDialect::kPartitionedAttrName)) {
    FailureOr<MeshOp> mesh = findFunctionMesh(fn);
    if (failed(mesh))
      return failure();
    if (*mesh) {
      PassManager pm(module.getContext());
      CompileOptions rest = options;
      rest.precision = MatmulPrecision::F32; // set above, for every function
      buildCompilePipeline(pm, fn.getSymName().str(), rest);
      StageDumper *dumper = nullptr;
      if (!dumpDir.empty()) {
        auto owned = std::make_unique<StageDumper>(dumpDir);
        dumper = owned.get();
        pm.addInstrumentation(std::move(owned));
      }
      if (failed(pm.run(module)))
        return failure();
      if (dumper && !dumper->status.ok())
        return fn.emitError() << dumper->status.message();
    }
  }
  if (options.bf16Operands)
    storeBf16Operands(fn);
  FailureOr<Plan> plan = lowerToPlan(fn, options.allReduceBucketBytes,
                                     FuseOptions{options.rowPrograms, options.bf16Outputs});
  if (failed(plan))
    return failure();
  if (!dumpDir.empty())
    if (Status s = writeStage(dumpDir, "03-plan.txt", describePlan(*plan)); !s.ok())
      return fn.emitError() << s.message();
  return plan;
}

} // namespace shardc
