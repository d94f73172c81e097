//===- PartitionCorpus.h - the partitioner's lit corpus as test input --------===//
//
// The tests that run every function of test/Partition (the lit corpus of
// the partitioner) share these: the corpus files, a parsed module with its
// diagnostics, and test names from file names.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TEST_UNITTESTS_PARTITIONCORPUS_H
#define SHARDC_TEST_UNITTESTS_PARTITIONCORPUS_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace shardc::testing_corpus {

/// The corpus files, sorted, without the `-invalid` ones (diagnostics).
inline std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  for (auto &entry : std::filesystem::directory_iterator(SHARDC_PARTITION_CORPUS_DIR)) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".mlir" && name.find("-invalid") == std::string::npos)
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// One corpus file (or program text) parsed, with every diagnostic
/// collected in `diagnostics`.
struct CorpusModule {
  struct Text {
    std::string text;
  };
  mlir::MLIRContext ctx;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler{&ctx, [this](mlir::Diagnostic &d) {
                                          diagnostics += d.str() + "\n";
                                          return mlir::success();
                                        }};
  mlir::OwningOpRef<mlir::ModuleOp> module;

  explicit CorpusModule(const std::string &path) {
    ctx.loadDialect<ShardcDialect, mlir::func::FuncDialect>();
    module = mlir::parseSourceFile<mlir::ModuleOp>(path, &ctx);
  }
  explicit CorpusModule(const Text &program) {
    ctx.loadDialect<ShardcDialect, mlir::func::FuncDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(program.text, &ctx);
  }
};

/// "partition-mlp.mlir" -> "partition_mlp".
inline std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char &c : name)
    if (!isalnum((unsigned char)c))
      c = '_';
  return name;
}

} // namespace shardc::testing_corpus

#endif // SHARDC_TEST_UNITTESTS_PARTITIONCORPUS_H
