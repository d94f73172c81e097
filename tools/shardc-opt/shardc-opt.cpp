//===- shardc-opt.cpp - the MLIR opt tool for shardc ----------------------===//
//
// Parses, verifies, transforms and prints modules in the shardc dialect; the
// tool the lit tests drive. Every shardc pass is registered here.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/Passes.h"
#include "shardc/Dialect/Shardc/IR/ShardcDialect.h"
#include "shardc/Dialect/Shardc/Transforms/Passes.h"
#include "shardc/Dialect/StableHLO/StableHLO.h"
#include "shardc/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  shardc::registerShardcPasses();
  shardc::registerShardcConversionPasses();
  shardc::registerCompilePipeline();
  mlir::DialectRegistry registry;
  registry.insert<shardc::ShardcDialect, mlir::func::FuncDialect, shardc::StableHLODialect,
                  shardc::ChloDialect, shardc::SdyDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "shardc optimizer driver\n", registry));
}
