//===- Pipeline.h - what the driver's commands share ------------*- C++ -*-===//

#ifndef SHARDC_TOOLS_SHARDC_PIPELINE_H
#define SHARDC_TOOLS_SHARDC_PIPELINE_H

#include "shardc/Runtime/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc::driver {

/// A parsed and verified module, with diagnostics going to stderr with file
/// locations for as long as it lives.
struct LoadedModule {
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> diagnostics;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Parses `path`; null (after printing why) on failure.
std::unique_ptr<LoadedModule> loadModule(const std::string &path);

/// The entry function: `requested`, else @main, else the only public one.
/// Prints an error and returns null when there is none.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, const std::string &requested);

/// The compiler pipeline: propagate and partition when the function is
/// sharded, then lower to a plan. With `dumpDir`, writes each stage there
/// (01-propagated.mlir, 02-partitioned.mlir, 03-plan.txt).
mlir::FailureOr<Plan> compileToPlan(mlir::ModuleOp module, mlir::func::FuncOp fn,
                                    const std::string &dumpDir = "");

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_PIPELINE_H
