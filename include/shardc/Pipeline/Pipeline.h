//===- Pipeline.h - from a .mlir file to a plan -----------------*- C++ -*-===//
//
// The compiler pipeline as the driver and the embedding API use it: load a
// module, choose the entry function, propagate and partition when it is
// sharded, lower to a plan.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PIPELINE_PIPELINE_H
#define SHARDC_PIPELINE_PIPELINE_H

#include "shardc/Common/CollectiveCost.h"
#include "shardc/Common/CompileOptions.h"
#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Runtime/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include "mlir/AsmParser/AsmParserState.h"

#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir
namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

/// A parsed and verified module. Diagnostics are printed to stderr with file
/// locations, or, with `captureDiagnostics`, collected in `diagnostics`.
struct LoadedModule {
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> printer;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> collector;
  std::string diagnostics;
  std::string text; // the file's contents
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Where the parser found each definition: recovers the SSA names the
  /// source gave values (%x), which the IR does not keep.
  std::unique_ptr<mlir::AsmParserState> parserState;
};

/// The SSA names `fn`'s arguments have in the source ("%x"), or "" where
/// the module was not parsed from text.
std::vector<std::string> sourceArgumentNames(const LoadedModule &loaded, mlir::func::FuncOp fn);

/// Parses `path`. On failure returns null and sets `error` (the diagnostics
/// are also printed unless captured).
std::unique_ptr<LoadedModule> loadModule(const std::string &path, std::string &error,
                                         bool captureDiagnostics = false);
/// The same for program text already in memory; `bufferName` names it in
/// diagnostics.
std::unique_ptr<LoadedModule> loadModuleFromText(const std::string &text,
                                                 const std::string &bufferName, std::string &error,
                                                 bool captureDiagnostics = false);

/// The entry function: `requested`, else @main, else the only public one.
/// Null with `error` set when there is none.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, const std::string &requested,
                             std::string &error);

/// The stages of a compile's passes before the lowering, in order:
/// Propagate (the precision, then --shardc-propagate) and Partition
/// (--shardc-partition, then the bf16 operands).
enum class CompileStage { Propagate, Partition };

/// Which stages to build, and what a caller asks of them.
struct CompileStages {
  CompileStage first = CompileStage::Propagate, last = CompileStage::Partition;
  /// Filled by propagation with where each sharding came from.
  ShardingProvenance *provenance = nullptr;
};

/// The passes of every compile before the lowering, the one place they
/// are chosen: --shardc-matmul-precision (unless f32), --shardc-propagate
/// and --shardc-partition on `entry` (every function when empty; both leave
/// a function without a mesh, or already partitioned, as it is), then
/// --shardc-bf16-operands where `options.bf16Operands`; the stages
/// `stages` names, in order.
void buildCompilePipeline(mlir::OpPassManager &pm, const std::string &entry,
                          const CompileOptions &options = {}, const CompileStages &stages = {});
/// Registers `--shardc-compile="entry=... output=... OPTION=VALUE..."` for
/// shardc-opt, with every compile option (CompileOptions.def) by its flag:
/// the same passes, then --shardc-lower-to-plan.
void registerCompilePipeline();

/// Runs buildCompilePipeline's passes on `module`, writing
/// 01-propagated.mlir and 02-partitioned.mlir into `dumpDir` if given: what
/// `shardc run --backend reference` interprets, and `shardc explain`
/// describes stage by stage. Errors are diagnostics.
mlir::LogicalResult runCompilePipeline(mlir::ModuleOp module, const std::string &entry,
                                       const CompileOptions &options = {},
                                       const std::string &dumpDir = "",
                                       const CompileStages &stages = {});

/// runCompilePipeline on `fn`, then its lowering to a plan
/// (`options.rowPrograms` and `options.bf16Outputs` apply there); with
/// `dumpDir`, 03-plan.txt too. Errors are diagnostics.
mlir::FailureOr<Plan> compileToPlan(mlir::ModuleOp module, mlir::func::FuncOp fn,
                                    const std::string &dumpDir = "",
                                    const CompileOptions &options = {});

} // namespace shardc

#endif // SHARDC_PIPELINE_PIPELINE_H
