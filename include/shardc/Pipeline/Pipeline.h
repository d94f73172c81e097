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
#include "shardc/Conversion/ShardcToPlan.h"
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

/// What a compile may choose beyond the program itself. A plan depends on
/// the program and on these alone, so key() is what the compile cache adds
/// to the program for its key: a field added here belongs in key() too.
struct CompileOptions {
  /// Pad dimensions the mesh axes do not divide (--pad-uneven).
  bool padUneven = false;
  /// How f32 products are computed (--precision): set on every f32
  /// dot_general that has none, by --shardc-matmul-precision.
  MatmulPrecision precision = MatmulPrecision::F32;
  /// All_reduces of independent values merge into buckets of up to this
  /// many bytes (--allreduce-bucket-bytes; 0 merges nothing).
  int64_t allReduceBucketBytes = kDefaultAllReduceBucketBytes;
  /// The link partitioning ranks its choices over (--link-latency-ns,
  /// --link-bytes-per-s); the default ranks by bytes, then collectives.
  LinkModel link;
  /// Each value that only bf16 products read is rounded to bf16 once, where
  /// it is made (--shardc-bf16-operands): the same numbers, half the bytes.
  /// For backends whose products read bf16 operands: the CPU's.
  bool bf16Operands = false;
  /// A chain of elementwise steps may read back the row reductions it makes
  /// (a softmax in one pass over memory; see FusedProgram::readsReductions).
  /// Only the CPU backend runs them: the API's CPU compiles turn them on
  /// (a layer norm is then one step); off by default.
  bool rowPrograms = false;
  /// A convert of a fused chain's f32 value to bf16 joins the chain, which
  /// stores the value at bf16 only (the values --shardc-bf16-operands
  /// rounds are made so). For the CPU backend, which runs them.
  bool bf16Outputs = false;

  /// Every field, by name: "pad-uneven=0 precision=f32 bucket-bytes=4194304
  /// link-latency-s=0 link-bytes-per-s=0 bf16-operands=0 row-programs=0
  /// bf16-outputs=0".
  std::string key() const;
  /// What a run on `backend` turns on for itself: on the CPU backend, whose
  /// kernels run them, bf16Operands, bf16Outputs and rowPrograms (shardc
  /// compile leaves them off, so that its artifacts stay portable).
  void useBackend(const std::string &backend);
};

/// The passes of `shardc compile` before the lowering:
/// --shardc-matmul-precision (unless f32), --shardc-propagate and
/// --shardc-partition, on `entry` only (every function when empty).
void buildCompilePipeline(mlir::OpPassManager &pm, const std::string &entry,
                          const CompileOptions &options = {});
/// Registers `--shardc-compile{entry=... pad-uneven=... precision=... bucket-bytes=...
/// output=...}` for shardc-opt: the same passes, then --shardc-lower-to-plan.
void registerCompilePipeline();

/// Runs the compile pipeline on `fn` when it is sharded (and not yet
/// partitioned), then lowers it; `options.precision` and
/// `options.bf16Operands` (on the partitioned function) apply either way,
/// and `options.rowPrograms` and `options.bf16Outputs` to the lowering.
/// With `dumpDir`, writes each stage there (01-propagated.mlir,
/// 02-partitioned.mlir, 03-plan.txt). Errors are diagnostics.
mlir::FailureOr<Plan> compileToPlan(mlir::ModuleOp module, mlir::func::FuncOp fn,
                                    const std::string &dumpDir = "",
                                    const CompileOptions &options = {});

} // namespace shardc

#endif // SHARDC_PIPELINE_PIPELINE_H
