//===- Pipeline.cpp - what the driver's commands share --------------------===//

#include "Pipeline.h"

#include "Commands.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Runtime/File.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

namespace shardc::driver {

std::unique_ptr<LoadedModule> loadModule(const std::string &path) {
  auto loaded = std::make_unique<LoadedModule>();
  loaded->context.loadDialect<ShardcDialect, func::FuncDialect>();
  loaded->diagnostics = std::make_unique<SourceMgrDiagnosticHandler>(
      loaded->sourceMgr, &loaded->context);
  std::string error;
  auto buffer = openInputFile(path, &error);
  if (!buffer) {
    reportError("cannot open '" + path + "': " + error);
    return nullptr;
  }
  loaded->sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  loaded->module = parseSourceFile<ModuleOp>(loaded->sourceMgr, &loaded->context);
  if (!loaded->module)
    return nullptr; // the parser or the verifier printed why
  return loaded;
}

func::FuncOp findEntry(ModuleOp module, const std::string &requested) {
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
    reportError("no @main function; choose one with --entry (functions: " + names() +
                ")");
  } else {
    reportError("no function @" + requested + " (functions: " + names() + ")");
  }
  return {};
}

static LogicalResult dump(const std::string &dir, const std::string &name,
                          const std::string &text) {
  if (dir.empty())
    return success();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    reportError("cannot create '" + dir + "': " + ec.message());
    return failure();
  }
  Status s = writeFileAtomically(dir + "/" + name, text);
  if (!s.ok()) {
    reportError(s.message());
    return failure();
  }
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
          failed(dump(dumpDir, "01-propagated.mlir", print(module))) ||
          failed(partitionFunction(fn)) || failed(verify(module)) ||
          failed(dump(dumpDir, "02-partitioned.mlir", print(module))))
        return failure();
    }
  }
  FailureOr<Plan> plan = lowerToPlan(fn);
  if (failed(plan) || failed(dump(dumpDir, "03-plan.txt", describePlan(*plan))))
    return failure();
  return plan;
}

} // namespace shardc::driver
