//===- CompileOptionsTest.cpp - every compile option reaches every user ---===//
//
// CompileOptions.def declares each option once; this walks the table and
// checks that each option, set to a value other than its default, reaches
// everything that derives from the table: CompileOptions::set/get, the
// compile-cache key, the driver's flags (`shardc compile --FLAG VALUE`)
// and shardc-opt's `--shardc-compile` pipeline. A field of CompileOptions
// outside the table does not compile (a static_assert in
// CompileOptions.cpp).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Common/CompileOptions.h"
#include "shardc/Pipeline/Pipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace shardc;

namespace {

TEST(CompileOptions, EveryOptionReadsBackAndChangesTheKey) {
  const CompileOptions defaults;
  std::set<std::string> keys = {defaults.key()};
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    CompileOptions options;
    EXPECT_EQ(options.set(o.flag, o.example), "") << o.flag;
    EXPECT_EQ(options.get(o.flag), o.example) << o.flag;
    EXPECT_EQ(options.changed(), std::string(o.flag) + "=" + o.example) << o.flag;
    EXPECT_TRUE(keys.insert(options.key()).second) << o.flag << " leaves the key as it was";
    EXPECT_NE(defaults.key().find(std::string(o.flag) + "="), std::string::npos)
        << o.flag << " is not in the key";
  }
  EXPECT_EQ(defaults.changed(), "");
}

TEST(CompileOptions, BadValuesNameTheOptionAndChangeNothing) {
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    CompileOptions options;
    std::string before = options.key();
    std::string problem = options.set(o.flag, "nonsense");
    EXPECT_EQ(problem.rfind(std::string("--") + o.flag + ": ", 0), 0u) << problem;
    EXPECT_EQ(options.key(), before) << o.flag;
  }
  CompileOptions options;
  EXPECT_EQ(options.set("precision", "fp8"),
            "--precision: unknown precision 'fp8' (choices: f32, bf16, tf32)");
  EXPECT_EQ(options.set("allreduce-bucket-bytes", "-1"),
            "--allreduce-bucket-bytes: expected a number of bytes (0 or more), got '-1'");
  EXPECT_EQ(options.set("no-such-option", "1"), "no compile option --no-such-option");
  EXPECT_EQ(options.set("link-latency-ns", "500"), "");
  EXPECT_EQ(options.check(),
            "--link-latency-ns and --link-bytes-per-s go together: give both or neither");
  EXPECT_EQ(options.set("link-bytes-per-s", "1e9"), "");
  EXPECT_EQ(options.check(), "");
  EXPECT_DOUBLE_EQ(options.link().latencySeconds, 500e-9);
}

// `shardc compile|run|explain --FLAG VALUE` (or `--FLAG` alone for an
// on/off option) sets the option; a backend's options are not flags.
TEST(CompileOptions, EveryDriverOptionIsAFlagOfTheCommandsThatCompile) {
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    std::vector<std::string> args = {"model.mlir", std::string("--") + o.flag};
    if (!o.isFlag)
      args.push_back(o.example);
    // The link's two numbers go together: the other one is given too.
    if (std::string(o.flag) == "link-latency-ns")
      args.insert(args.end(), {"--link-bytes-per-s", "250"});
    if (std::string(o.flag) == "link-bytes-per-s")
      args.insert(args.end(), {"--link-latency-ns", "250"});
    driver::CommandLine cl;
    std::optional<int> code =
        driver::parseCommandLine(args, "compile", driver::withCompileFlags({"-o"}, false),
                                 driver::withCompileFlags({}, true), "", cl);
    if (o.scope == CompileOptions::Scope::Backend) {
      EXPECT_EQ(code, std::optional<int>(driver::kUsage)) << o.flag << " is a driver flag";
      continue;
    }
    ASSERT_EQ(code, std::nullopt) << o.flag;
    CompileOptions options;
    ASSERT_TRUE(driver::readCompileOptions(cl, options)) << o.flag;
    EXPECT_EQ(options.get(o.flag), o.example) << o.flag;
    std::string usage = driver::compileOptionsUsage(0), help = driver::compileOptionsHelp("");
    EXPECT_NE(usage.find(std::string("[--") + o.flag), std::string::npos) << usage;
    EXPECT_NE(help.find(std::string("  --") + o.flag), std::string::npos) << help;
  }
}

// `--shardc-compile="FLAG=VALUE"` parses for every option.
TEST(CompileOptions, EveryOptionIsAnOptionOfTheCompilePipeline) {
  registerCompilePipeline();
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    mlir::MLIRContext context;
    mlir::OpPassManager pm("builtin.module");
    std::string text = std::string("shardc-compile{") + o.flag + "=" + o.example + "}", error;
    llvm::raw_string_ostream errors(error);
    EXPECT_TRUE(mlir::succeeded(mlir::parsePassPipeline(text, pm, errors)))
        << text << ": " << error;
  }
}

// A plan records key(); setFromKey reads it back, and conflictWith says
// which option a caller asks of an artifact compiled otherwise.
TEST(CompileOptions, TheRecordReadsBackAndNamesConflicts) {
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    CompileOptions options;
    ASSERT_EQ(options.set(o.flag, o.example), "") << o.flag;
    CompileOptions back;
    EXPECT_EQ(back.setFromKey(options.key()), "") << options.key();
    EXPECT_EQ(back.key(), options.key());
    EXPECT_EQ(options.conflictWith(options.key()), "") << o.flag;
    EXPECT_EQ(options.conflictWith(CompileOptions().key()), o.flag);
    EXPECT_EQ(options.conflictWith(""), o.flag) << "an artifact without a record";
  }
  EXPECT_EQ(CompileOptions().conflictWith(""), "");
  EXPECT_EQ(CompileOptions::describeRecord(CompileOptions().key()),
            "compiled with the default options");
  EXPECT_EQ(CompileOptions().setFromKey("precision"), "'precision' is no option=value");
}

} // namespace
