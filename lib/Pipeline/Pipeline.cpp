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

#include <type_traits>

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

void buildCompilePipeline(OpPassManager &pm, const std::string &entry,
                          const CompileOptions &options, const CompileStages &stages) {
  auto wanted = [&](CompileStage s) { return stages.first <= s && s <= stages.last; };
  if (wanted(CompileStage::Propagate)) {
    if (options.precision != MatmulPrecision::F32)
      pm.addPass(createMatmulPrecisionPass(options.precision));
    pm.addPass(createPropagatePass(entry, stages.provenance));
  }
  if (wanted(CompileStage::Partition)) {
    ShardcPartitionOptions partition;
    partition.entry = entry;
    partition.padUneven = options.padUneven;
    partition.linkLatencyNs = options.linkLatencyNs;
    partition.linkBytesPerS = options.linkBytesPerS;
    pm.addPass(createShardcPartition(partition));
    if (options.bf16Operands)
      pm.addPass(createShardcBf16Operands());
  }
}

/// Writes stage `name` of `shardc compile --dump-stages` into `dir`.
static Status writeStage(const std::string &dir, const char *name, const std::string &text) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return Status::error("cannot create '" + dir + "': " + ec.message());
  return writeFileAtomically(dir + "/" + name, text);
}

namespace {

/// The type of a compile option in `--shardc-compile="..."`: its own, but
/// a precision is read as text, which the precision pass reports when it
/// names none.
template <class Kind> struct PipelineOptionType { using type = typename Kind::type; };
template <> struct PipelineOptionType<option_kinds::Precision> { using type = std::string; };

/// The text of a pipeline option's value, as CompileOptions::set reads it.
template <class Kind, class T> std::string optionText(const T &value) {
  if constexpr (std::is_same_v<T, std::string>)
    return value;
  else
    return Kind::format(value);
}

/// A compile option's default as its pipeline option holds it.
template <class Kind>
typename PipelineOptionType<Kind>::type pipelineDefault(typename Kind::type value) {
  if constexpr (std::is_same_v<typename PipelineOptionType<Kind>::type, std::string>)
    return Kind::format(value);
  else
    return value;
}

struct CompilePipelineOptions : PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("only this function (default: every function)")};
  Option<std::string> output{*this, "output",
                             llvm::cl::desc("where to write the plans ('-': standard output)"),
                             llvm::cl::init("-")};
  // Every compile option (CompileOptions.def), by its flag.
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  Option<PipelineOptionType<option_kinds::KIND>::type> FIELD{                                      \
      *this, FLAG, llvm::cl::desc(HELP),                                                           \
      llvm::cl::init(pipelineDefault<option_kinds::KIND>(DEFAULT))};
#include "shardc/Common/CompileOptions.def"
  /// The name allreduce-bucket-bytes had here before the options were one
  /// table; given, it wins.
  Option<int64_t> bucketBytes{*this, "bucket-bytes",
                              llvm::cl::desc("the same as allreduce-bucket-bytes"),
                              llvm::cl::init(-1)};

  /// The options given, as a compile reads them: "" or what is wrong. An
  /// unknown precision is left to the precision pass, which reports it.
  std::string read(CompileOptions &compile) const {
#define SHARDC_COMPILE_OPTION(FIELD, KIND, DEFAULT, FLAG, METAVAR, SCOPE, HELP)                    \
  if (FIELD.getNumOccurrences() && !std::is_same_v<option_kinds::KIND, option_kinds::Precision>) { \
    if (std::string problem = compile.set(FLAG, optionText<option_kinds::KIND>(FIELD.getValue())); \
        !problem.empty())                                                                          \
      return problem;                                                                              \
  }
#include "shardc/Common/CompileOptions.def"
    if (bucketBytes >= 0)
      compile.allReduceBucketBytes = bucketBytes;
    return "";
  }
};

/// Reports a pipeline option the pipeline cannot run with, when it runs.
struct CompileOptionError : PassWrapper<CompileOptionError, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CompileOptionError)
  explicit CompileOptionError(std::string message) : message(std::move(message)) {}
  void runOnOperation() override {
    emitError(getOperation().getLoc(), "--shardc-compile: ") << message;
    signalPassFailure();
  }
  std::string message;
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
        if (std::string problem = options.read(compile); !problem.empty()) {
          pm.addPass(std::make_unique<CompileOptionError>(problem));
          return;
        }
        // The link's two numbers are checked by the partition pass, an
        // unknown precision by the precision pass, which report them.
        if (!parseMatmulPrecision(options.precision, compile.precision)) {
          ShardcMatmulPrecisionOptions precision;
          precision.precision = options.precision;
          pm.addPass(createShardcMatmulPrecision(precision));
        }
        buildCompilePipeline(pm, options.entry, compile);
        ShardcLowerToPlanOptions lower;
        lower.entry = options.entry;
        lower.output = options.output;
        lower.bucketBytes = compile.allReduceBucketBytes;
        lower.rowPrograms = compile.rowPrograms;
        lower.bf16Outputs = compile.bf16Outputs;
        lower.memoryBudget = compile.memoryBudget;
        pm.addPass(createShardcLowerToPlan(lower));
      });
}

LogicalResult runCompilePipeline(ModuleOp module, const std::string &entry,
                                 const CompileOptions &options, const std::string &dumpDir,
                                 const CompileStages &stages) {
  PassManager pm(module.getContext());
  buildCompilePipeline(pm, entry, options, stages);
  StageDumper *dumper = nullptr;
  if (!dumpDir.empty()) {
    auto owned = std::make_unique<StageDumper>(dumpDir);
    dumper = owned.get();
    pm.addInstrumentation(std::move(owned));
  }
  if (failed(pm.run(module)))
    return failure();
  if (dumper && !dumper->status.ok())
    return emitError(module.getLoc()) << dumper->status.message();
  return success();
}

FailureOr<Plan> compileToPlan(ModuleOp module, func::FuncOp fn, const std::string &dumpDir,
                              const CompileOptions &options) {
  if (failed(runCompilePipeline(module, fn.getSymName().str(), options, dumpDir)))
    return failure();
  FailureOr<Plan> plan = lowerToPlan(fn, options.allReduceBucketBytes,
                                     FuseOptions{options.rowPrograms, options.bf16Outputs});
  if (failed(plan) || failed(checkMemoryBudget(fn, *plan, options.memoryBudget)))
    return failure();
  plan->compileOptions = options.key();
  if (!dumpDir.empty())
    if (Status s = writeStage(dumpDir, "03-plan.txt", describePlan(*plan)); !s.ok())
      return fn.emitError() << s.message();
  return plan;
}

} // namespace shardc
