//===- shardc-opt.cpp - the MLIR opt tool for shardc ----------------------===//
//
// Parses, verifies, transforms and prints modules in the shardc dialect; the
// tool the lit tests drive. Every shardc pass is registered here.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/Passes.h"
#include "shardc/Conversion/StableHLOToShardc.h"
#include "shardc/Dialect/Shardc/IR/ShardcDialect.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/StableHLO/StableHLO.h"
#include "shardc/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  shardc::registerShardcPasses();
  shardc::registerShardcConversionPasses();
  shardc::registerImportStableHLOPass();
  shardc::registerCompilePipeline();
  mlir::DialectRegistry registry;
  registry.insert<shardc::ShardcDialect, mlir::func::FuncDialect, shardc::StableHLODialect,
                  shardc::ChloDialect, shardc::SdyDialect>();
  auto [inputFile, outputFile] =
      mlir::registerAndParseCLIOptions(argc, argv, "shardc optimizer driver\n", registry);
  // A StableHLO module (as JAX prints it) is imported before the passes
  // asked for run; without passes, it prints as it was read.
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  mlir::MlirOptMainConfig asked = config;
  config.setPassPipelineSetupFn([asked](mlir::PassManager &pm) -> mlir::LogicalResult {
    mlir::PassManager probe(pm.getContext(), pm.getOpAnchorName(),
                            mlir::PassManager::Nesting::Implicit);
    if (mlir::failed(asked.setupPassPipeline(probe)))
      return mlir::failure();
    if (probe.size() > 0)
      pm.addPass(shardc::createImportStableHLOPass());
    return asked.setupPassPipeline(pm);
  });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
