//===- RuntimeTargets.cpp - fuzz targets of the runtime's file readers ----===//
//
// The readers of what users and other programs hand the runtime: .npy
// arrays, .shardc artifacts (a plan that loads is also run, on zero inputs,
// so that a plan validation accepts can be executed), and safetensors
// checkpoints. None needs the compiler.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/Npy.h"
#include "shardc/Runtime/Safetensors.h"

namespace shardc::fuzz {

namespace {

Array counting(DType dtype, Shape shape) {
  Array a(dtype, std::move(shape));
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setDouble(i, (double)(i % 7) - 3);
  return a;
}

/// A small plan with a dot, a collective, a fused chain, a reduction and a
/// dynamic update of a donated argument, on a 2-device mesh.
Plan seedPlan() {
  Plan p;
  p.entry = "main";
  p.mesh = Mesh{{"data"}, {2}};
  p.values = {{DType::F32, {2, 8}, kArgument},  {DType::F32, {8, 2}, kArgument},
              {DType::F32, {4, 2}, kArgument},  {DType::I32, {}, kArgument},
              {DType::F32, {2, 2}, 0},          {DType::F32, {2, 2}, 64},
              {DType::F32, {2, 2}, 128},        {DType::F32, {2}, 192},
              {DType::F32, {4, 2}, kInArgument, 2}};
  p.args = {0, 1, 2, 3};
  p.results = {5, 7, 8};
  p.argNames = {"x", "w", "cache", "pos"};
  p.donated = {false, false, true, false};
  NamedSharding replicated2{p.mesh, {{}, {}}};
  p.argShardings = {{p.mesh, {{"data"}, {}}}, replicated2, replicated2, {p.mesh, {}}};
  p.argGlobalShapes = {{4, 8}, {8, 2}, {4, 2}, {}};
  p.resultShardings = {replicated2, {p.mesh, {{}}}, replicated2};
  p.resultGlobalShapes = {{2, 2}, {2}, {4, 2}};
  FusedProgram square;
  square.inputs = {{FusedProgram::Whole, 0}};
  square.instructions = {{OpCode::Mul, 0, 0, 0.0f, 0}};
  square.outputs = {1};
  p.steps = {{OpCode::DotGeneral, {0, 1}, {4}, {0, 1, 1, 0}, {}, {}, "seed:1"},
             {OpCode::AllReduce, {4}, {5}, {0}, {"data"}, {}, "seed:2"},
             {OpCode::Fused, {5}, {6}, square.encode(), {}, {}, "seed:3"},
             {OpCode::Reduce, {6}, {7}, {0, 1}, {}, {}, "seed:4"},
             {OpCode::DynamicUpdateSlice, {2, 5, 3, 3}, {8}, {}, {}, {}, "seed:5"}};
  p.arenaBytes = 256;
  p.unsharedBytes = 320;
  return p;
}

} // namespace

void runLoadedPlan(const Plan &plan) {
  if (plan.numDevices() > 8 || plan.arenaBytes > (int64_t(1) << 26))
    return;
  int64_t bytes = 0;
  std::vector<Array> args;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    int64_t n = numElements(plan.argGlobalShapes[i]);
    bytes += n * (int64_t)dtypeSize(plan.values[plan.args[i]].dtype);
    if (bytes > (int64_t(1) << 26))
      return;
    args.emplace_back(plan.values[plan.args[i]].dtype, plan.argGlobalShapes[i]);
  }
  static std::unique_ptr<Backend> cpu = createCpuBackend();
  (void)runPlan(*cpu, plan, args); // an error is fine; a crash is not
}

std::vector<Target> runtimeTargets() {
  Target npy{"npy", ".npy arrays (parseNpy)",
             [] {
               std::vector<std::string> seeds;
               for (Array a : {counting(DType::F32, {2, 3}), counting(DType::I64, {}),
                               counting(DType::I1, {4}), counting(DType::F16, {3, 1, 2}),
                               counting(DType::I32, {0, 5}), counting(DType::F64, {17})})
                 seeds.push_back(serializeNpy(a));
               return seeds;
             },
             [](const std::string &bytes) { return parseNpy(bytes, "fuzz.npy").ok(); },
             {".npy"}};
  Target artifact{"artifact", ".shardc artifacts (deserializePlan), run when they load",
                  [] { return std::vector<std::string>{serializePlan(seedPlan())}; },
                  [](const std::string &bytes) {
                    StatusOr<Plan> plan = deserializePlan(bytes, "fuzz.shardc");
                    if (plan.ok())
                      runLoadedPlan(*plan);
                    return plan.ok();
                  },
                  {".shardc"}};
  Target safetensors{
      "safetensors", "safetensors checkpoints (parseSafetensors)",
      [] {
        std::vector<std::string> seeds;
        NamedArrays tensors{{"tok_emb.weight", counting(DType::F32, {4, 3})},
                            {"blocks.0.ln1.bias", counting(DType::F32, {3})},
                            {"optimizer.step", counting(DType::I64, {})}};
        StatusOr<std::string> a = serializeSafetensors(tensors, {{"step", "300"}, {"mesh", "data=2"}});
        StatusOr<std::string> b = serializeSafetensors({{"x", counting(DType::F64, {2, 2})}});
        for (auto *s : {&a, &b})
          if (s->ok())
            seeds.push_back(**s);
        return seeds;
      },
      [](const std::string &bytes) { return parseSafetensors(bytes, "fuzz.safetensors").ok(); },
      {".safetensors"}};
  Target index{
      "safetensors-index", "sharded checkpoints' index files (parseSafetensorsIndex)",
      [] {
        SafetensorsIndex i;
        i.totalSize = 1234;
        i.metadata = {{"step", "300"}, {"format", "shardc-gpt"}};
        i.weightMap = {{"tok_emb.weight", "step-00000300-00001-of-00002.safetensors"},
                       {"optimizer.step", "step-00000300-00002-of-00002.safetensors"}};
        StatusOr<std::string> a = serializeSafetensorsIndex(i);
        return a.ok() ? std::vector<std::string>{*a} : std::vector<std::string>{};
      },
      [](const std::string &bytes) {
        StatusOr<SafetensorsIndex> i = parseSafetensorsIndex(bytes, "fuzz.index.json");
        if (i.ok()) // what parses writes back and parses alike
          if (StatusOr<std::string> again = serializeSafetensorsIndex(*i); again.ok()) {
            StatusOr<SafetensorsIndex> back = parseSafetensorsIndex(*again, "again.index.json");
            if (!back.ok() || back->weightMap != i->weightMap || back->totalSize != i->totalSize)
              std::abort();
          }
        return i.ok();
      },
      {".json"}};
  return {npy, artifact, safetensors, index};
}

} // namespace shardc::fuzz
