//===- CompilerTargets.cpp - the fuzz target of the compiler --------------===//
//
// MLIR text through everything a user's program goes through: the parser
// and the dialect's verifiers, propagation (with the provenance shardc
// explain reports), partitioning, lowering (whose plan is validated as an
// artifact would be; half the inputs lowered as the CPU backend's runs
// lower them) and, when it is small, a run on the CPU backend.
// Diagnostics are the expected answer to most inputs; a plan that lowering
// makes but validation rejects is a finding.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "Commands.h" // the shardc driver's commands

#include "shardc/Pipeline/Pipeline.h"
#include "shardc/Runtime/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <unistd.h>

namespace shardc::fuzz {

std::vector<Target> compilerTargets() {
  Target mlir{"mlir",
              "MLIR text: parse, verify, propagate, partition, lower, validate, run",
              [] {
                return std::vector<std::string>{
                    R"(shardc.mesh @mesh = <["data"=2]>
func.func @main(%x: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>},
                %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %z = shardc.tanh %y : tensor<4x2xf32>
  return %z : tensor<4x2xf32>
}
)",
                    // Six axes, four of them on one padded dimension
                    // (of each operand and of the result).
                    R"(shardc.mesh @m = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2]>
func.func @main(%x: tensor<24x8xf32> {shardc.sharding = #shardc.sharding<@m, [{"a", "b", "c", "d"}, {"e"}]>, shardc.pad_uneven},
                %w: tensor<8x6xf32> {shardc.pad_uneven}) -> (tensor<24x6xf32> {shardc.sharding = #shardc.sharding<@m, [{"f"}, {"a", "b", "c", "d"}]>}) {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<24x8xf32>, tensor<8x6xf32>) -> tensor<24x6xf32>
  %z = shardc.tanh %y : tensor<24x6xf32>
  return %z : tensor<24x6xf32>
}
)"};
              },
              [](const std::string &text) {
                std::string error;
                std::unique_ptr<LoadedModule> loaded =
                    loadModuleFromText(text, "fuzz.mlir", error, /*captureDiagnostics=*/true);
                if (!loaded)
                  return false;
                std::vector<std::string> names;
                for (auto fn : loaded->module->getOps<mlir::func::FuncOp>())
                  names.push_back(fn.getSymName().str());
                for (const std::string &name : names) {
                  auto fn = loaded->module->lookupSymbol<mlir::func::FuncOp>(name);
                  if (!fn)
                    continue;
                  // Half the inputs (by their text's hash) compile as the
                  // CPU backend's runs do (row programs, bf16 outputs and
                  // operands): the plans shardc run and the API run there.
                  CompileOptions options;
                  if (std::hash<std::string>{}(text)&1)
                    options.useBackend("cpu");
                  mlir::FailureOr<Plan> plan = compileToPlan(*loaded->module, fn, "", options);
                  if (loaded->diagnostics.find("lowering made an invalid plan") !=
                      std::string::npos) {
                    std::fprintf(stderr, "%s", loaded->diagnostics.c_str());
                    std::abort(); // the compiler broke the plan's invariants
                  }
                  if (mlir::succeeded(plan)) {
                    reached();
                    runLoadedPlan(*plan);
                  }
                }
                return true;
              },
              {".mlir"},
              "lowered"};
  Target explain{
      "explain",
      "MLIR text through shardc explain (its entry and up to two more functions)",
      mlir.seeds,
      [](const std::string &text) {
        static const std::string path = [] {
          const char *dir = std::getenv("TMPDIR");
          return std::string(dir && *dir ? dir : "/tmp") + "/shardc-fuzz-explain-" +
                 std::to_string(::getpid()) + ".mlir";
        }();
        {
          std::ofstream out(path, std::ios::binary | std::ios::trunc);
          out << text;
        }
        bool ok = driver::explainCommand({path}) == driver::kOk;
        // Other functions: the names after "func.func @", as written.
        size_t at = 0;
        for (int k = 0; k < 2 && (at = text.find("func.func @", at)) != std::string::npos; ++k) {
          at += 11;
          size_t end = at;
          while (end < text.size() && (std::isalnum((unsigned char)text[end]) || text[end] == '_'))
            ++end;
          if (end > at)
            ok |=
                driver::explainCommand({path, "--entry", text.substr(at, end - at)}) == driver::kOk;
        }
        llvm::outs().flush(); // into /dev/null while fuzzing, not after
        if (ok)
          reached();
        return ok;
      },
      {".mlir"},
      "explained"};
  // The StableHLO importer: JAX's printed modules through the same path
  // (the loader imports them before propagation).
  Target stablehlo = mlir;
  stablehlo.name = "stablehlo";
  stablehlo.description = "StableHLO text as JAX prints it: import, then as mlir";
  stablehlo.seeds = [] {
    return std::vector<std::string>{R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                         %arg1: tensor<4x2xf32>) -> (tensor<8xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<8x2xf32>
    %3 = stablehlo.compare  GT, %2, %1,  FLOAT : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xi1>
    %4 = stablehlo.select %3, %2, %1 : tensor<8x2xi1>, tensor<8x2xf32>
    %5 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<8xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{"data"}]> : tensor<8xf32>
    return %6 : tensor<8xf32>
  }
}
)",
                                    // Older JAX: GSPMD strings.
                                    R"(module @jit_g attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"},
                         %arg1: tensor<8x8xf32> {mhlo.sharding = "{replicated}"}) -> tensor<8x8xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %2 = stablehlo.logistic %1 : tensor<8x8xf32>
    return %2 : tensor<8x8xf32>
  }
}
)"};
  };
  return {mlir, explain, stablehlo};
}

} // namespace shardc::fuzz
