//===- Pipeline.cpp - from a .mlir file to a plan -------------------------===//

#include "shardc/Pipeline/Pipeline.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Runtime/File.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
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
                                                 const std::string &bufferName,
                                                 std::string &error,
                                                 bool captureDiagnostics) {
  auto loaded = std::make_unique<LoadedModule>();
  loaded->context.loadDialect<ShardcDialect, func::FuncDialect>();
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
    loaded->printer = std::make_unique<SourceMgrDiagnosticHandler>(loaded->sourceMgr,
                                                                   &loaded->context);
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

static LogicalResult dump(Operation *anchor, const std::string &dir,
                          const std::string &name, const std::string &text) {
  if (dir.empty())
    return success();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return anchor->emitError() << "cannot create '" << dir << "': " << ec.message();
  Status s = writeFileAtomically(dir + "/" + name, text);
  if (!s.ok())
    return anchor->emitError() << s.message();
  return success();
}

static std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s + "\n";
}

FailureOr<Plan> compileToPlan(ModuleOp module, func::FuncOp fn, const std::string &dumpDir) {
  if (!fn->hasAttr(ShardcDialect::kPartitionedAttrName)) {
    FailureOr<MeshOp> mesh = findFunctionMesh(fn);
    if (failed(mesh))
      return failure();
    if (*mesh) {
      if (failed(propagateShardings(fn)) || failed(verify(module)) ||
          failed(dump(fn, dumpDir, "01-propagated.mlir", print(module))) ||
          failed(partitionFunction(fn)) || failed(verify(module)) ||
          failed(dump(fn, dumpDir, "02-partitioned.mlir", print(module))))
        return failure();
    }
  }
  FailureOr<Plan> plan = lowerToPlan(fn);
  if (failed(plan) || failed(dump(fn, dumpDir, "03-plan.txt", describePlan(*plan))))
    return failure();
  return plan;
}

} // namespace shardc
