//===- RuntimeTargets.cpp - fuzz targets of the runtime's file readers ----===//
//
// The readers of what users and other programs hand the runtime: .npy
// arrays, .shardc artifacts (a plan that loads is also run, on zero inputs,
// so that a plan validation accepts can be executed), and safetensors
// checkpoints. None needs the compiler.
//
// An artifact's checksum would stop nearly every mutant at the header, so
// a mutant that fails it is sealed again (sealArtifact) and read once more:
// the mutations reach the payload's reader, validation and the kernels.
// Half of the artifact mutants change one field of a decoded plan instead
// (a step's attributes, the fused programs' encodings among them, or its
// value ids).
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/DeviceProfile.h"
#include "shardc/Runtime/Npy.h"
#include "shardc/Runtime/Safetensors.h"

#include "ProductWisdom.h"

#include <cmath>

namespace shardc::fuzz {

namespace {

Array counting(DType dtype, Shape shape) {
  Array a(dtype, std::move(shape));
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setDouble(i, (double)(i % 7) - 3);
  return a;
}

/// A small plan with a dot, a collective, a fused chain, a reduction, a
/// dynamic update of a donated argument, a fused program with every kind
/// of instruction, load mode and a row reduction, and a row program that
/// reads its reduction back and stores a bf16 output, on a 2-device mesh.
Plan seedPlan() {
  Plan p;
  p.entry = "main";
  p.mesh = Mesh{{"data"}, {2}};
  p.values = {{DType::F32, {2, 8}, kArgument},
              {DType::F32, {8, 2}, kArgument},
              {DType::F32, {4, 2}, kArgument},
              {DType::I32, {}, kArgument},
              {DType::F32, {2, 2}, 0},
              {DType::F32, {2, 2}, 64},
              {DType::F32, {2, 2}, 128},
              {DType::F32, {2}, 192},
              {DType::F32, {4, 2}, kInArgument, 2},
              {DType::F32, {2, 2}, 256},
              {DType::F32, {2}, 320},
              {DType::BF16, {2, 2}, 384},
              {DType::F32, {2}, 448}};
  p.args = {0, 1, 2, 3};
  p.results = {5, 7, 8, 9, 10, 11, 12};
  p.argNames = {"x", "w", "cache", "pos"};
  p.donated = {false, false, true, false};
  NamedSharding replicated2{p.mesh, {{}, {}}};
  p.argShardings = {{p.mesh, {{"data"}, {}}}, replicated2, replicated2, {p.mesh, {}}};
  p.argGlobalShapes = {{4, 8}, {8, 2}, {4, 2}, {}};
  p.resultShardings = {replicated2,    {p.mesh, {{}}}, replicated2,   replicated2,
                       {p.mesh, {{}}}, replicated2,    {p.mesh, {{}}}};
  p.resultGlobalShapes = {{2, 2}, {2}, {4, 2}, {2, 2}, {2}, {2, 2}, {2}};
  FusedProgram square;
  square.inputs = {{FusedProgram::Whole, 0}};
  square.instructions = {{OpCode::Mul, 0, 0, 0.0f, 0}};
  square.outputs = {1};
  // r0 = v5, r1 = v7 along columns, r2 = v7 along rows, r3 = v6[0];
  // r4 = 0.5, r5 = -r0, r6 = r5 + r1, r7 = r6 > r4, r8 = r7 ? r6 : r2;
  // outputs r8 and the row sums of r6 * r3.
  FusedProgram every;
  every.inputs = {{FusedProgram::Whole, 0},
                  {FusedProgram::AlongColumns, 2},
                  {FusedProgram::AlongRows, 2},
                  {FusedProgram::Scalar, 1}};
  every.instructions = {{OpCode::Constant, 0, 0, 0.5f, 0}, {OpCode::Neg, 0, 0, 0.0f, 0},
                        {OpCode::Add, 5, 1, 0.0f, 0},      {OpCode::Compare, 6, 4, 0.0f, 0},
                        {OpCode::Select, 7, 6, 0.0f, 2},   {OpCode::Mul, 6, 3, 0.0f, 0}};
  every.instructions[3].direction = 4; // gt
  every.outputs = {8};
  every.reductions = {{9, Reduction::Sum, 2}};
  // r0 = v5; r1 = its row's max, r2 = r0 - r1, r3 = exp(r2): stored at bf16,
  // with the row maxima.
  FusedProgram rows;
  rows.inputs = {{FusedProgram::Whole, 0}};
  rows.instructions = {
      {OpCode::Reduce, 0, 0, 0.0f, 0}, {OpCode::Sub, 0, 1, 0.0f, 0}, {OpCode::Exp, 2, 0, 0.0f, 0}};
  rows.outputs = {3};
  rows.outputTypes = {DType::BF16};
  rows.reductions = {{0, Reduction::Max, 2}};
  p.steps = {{OpCode::DotGeneral, {0, 1}, {4}, {0, 1, 1, 0}, {}, {}, "seed:1"},
             {OpCode::AllReduce, {4}, {5}, {0}, {"data"}, {}, "seed:2"},
             {OpCode::Fused, {5}, {6}, square.encode(), {}, {}, "seed:3"},
             {OpCode::Reduce, {6}, {7}, {0, 1}, {}, {}, "seed:4"},
             {OpCode::DynamicUpdateSlice, {2, 5, 3, 3}, {8}, {}, {}, {}, "seed:5"},
             {OpCode::Fused, {5, 7, 7, 6}, {9, 10}, every.encode(), {}, {}, "seed:6"},
             {OpCode::Fused, {5}, {11, 12}, rows.encode(), {}, {}, "seed:7"}};
  p.arenaBytes = 512;
  p.unsharedBytes = 576;
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
  reached();
  (void)runPlan(*cpu, plan, args); // an error is fine; a crash is not
}

namespace {

/// Reads an artifact, sealed again when its checksum fails, and runs it.
bool runArtifact(const std::string &bytes) {
  StatusOr<Plan> plan = deserializePlan(bytes, "fuzz.shardc");
  if (!plan.ok()) {
    std::string sealed = bytes;
    if (!sealArtifact(sealed) || sealed == bytes)
      return false;
    plan = deserializePlan(sealed, "fuzz.shardc");
  }
  if (plan.ok())
    runLoadedPlan(*plan);
  return plan.ok();
}

/// One field of one step of a decoded artifact: an attribute (a fused
/// step's, more often than not), or an input or output id.
std::string mutateArtifactFields(const std::string &bytes, std::mt19937_64 &rng) {
  std::string sealed = bytes;
  sealArtifact(sealed);
  StatusOr<Plan> decoded = deserializePlan(sealed, "fuzz.shardc");
  if (!decoded.ok() || decoded->steps.empty())
    return mutate(bytes, {}, rng);
  Plan plan = std::move(*decoded);
  std::vector<size_t> fused;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].op == OpCode::Fused)
      fused.push_back(i);
  PlanStep &step = !fused.empty() && rng() % 4 != 0 ? plan.steps[fused[rng() % fused.size()]]
                                                    : plan.steps[rng() % plan.steps.size()];
  auto change = [&](int64_t old) -> int64_t {
    switch (rng() % 4) {
    case 0:
      return (int64_t)((uint64_t)old + 1); // wraps, as a mutation may
    case 1:
      return (int64_t)((uint64_t)old - 1);
    case 2:
      return (int64_t)(rng() % 16);
    default:
      return interestingValue(rng);
    }
  };
  int rounds = 1 + (int)(rng() % 2);
  for (int r = 0; r < rounds; ++r) {
    unsigned which = (unsigned)(rng() % 8);
    if (which < 6 && !step.attrs.empty()) {
      int64_t &a = step.attrs[rng() % step.attrs.size()];
      a = change(a);
    } else if (which == 6 && !step.inputs.empty()) {
      int32_t &v = step.inputs[rng() % step.inputs.size()];
      v = (int32_t)change(v);
    } else if (!step.outputs.empty()) {
      int32_t &v = step.outputs[rng() % step.outputs.size()];
      v = (int32_t)change(v);
    }
  }
  return serializePlan(plan);
}

/// A reader's target: the input reaches its stage when it parses.
bool parsed(bool ok) {
  if (ok)
    reached();
  return ok;
}

} // namespace

std::vector<Target> runtimeTargets() {
  Target npy{"npy",
             ".npy arrays (parseNpy)",
             [] {
               std::vector<std::string> seeds;
               for (Array a : {counting(DType::F32, {2, 3}), counting(DType::I64, {}),
                               counting(DType::I1, {4}), counting(DType::F16, {3, 1, 2}),
                               counting(DType::I32, {0, 5}), counting(DType::F64, {17})})
                 seeds.push_back(serializeNpy(a));
               return seeds;
             },
             [](const std::string &bytes) { return parsed(parseNpy(bytes, "fuzz.npy").ok()); },
             {".npy"},
             "parsed"};
  Target artifact{"artifact",
                  ".shardc artifacts (deserializePlan), run when they load",
                  [] { return std::vector<std::string>{serializePlan(seedPlan())}; },
                  runArtifact,
                  {".shardc"},
                  "ran a plan",
                  mutateArtifactFields};
  Target safetensors{
      "safetensors",
      "safetensors checkpoints (parseSafetensors)",
      [] {
        std::vector<std::string> seeds;
        NamedArrays tensors{{"tok_emb.weight", counting(DType::F32, {4, 3})},
                            {"blocks.0.ln1.bias", counting(DType::F32, {3})},
                            {"optimizer.step", counting(DType::I64, {})}};
        StatusOr<std::string> a =
            serializeSafetensors(tensors, {{"step", "300"}, {"mesh", "data=2"}});
        StatusOr<std::string> b = serializeSafetensors({{"x", counting(DType::F64, {2, 2})}});
        for (auto *s : {&a, &b})
          if (s->ok())
            seeds.push_back(**s);
        return seeds;
      },
      [](const std::string &bytes) {
        return parsed(parseSafetensors(bytes, "fuzz.safetensors").ok());
      },
      {".safetensors"},
      "parsed"};
  Target index{
      "safetensors-index",
      "sharded checkpoints' index files (parseSafetensorsIndex)",
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
        return parsed(i.ok());
      },
      {".json"},
      "parsed"};
  Target profile{
      "profile",
      "device profiles of shardc-gpt plan (parseDeviceProfile)",
      [] {
        return std::vector<std::string>{
            "{\"name\": \"a device\", \"sources\": [\"a datasheet\", \"\\u00e9\"],\n"
            " \"memory_bytes\": 80000000000, \"hbm_bytes_per_s\": 3350000000000,\n"
            " \"f32_flops_per_s\": 67000000000000, \"tf32_flops_per_s\": 494500000000000,\n"
            " \"bf16_flops_per_s\": 989500000000000, \"devices_per_node\": 8,\n"
            " \"intra_node_bytes_per_s\": 450000000000, \"inter_node_bytes_per_s\": 50000000000,\n"
            " \"intra_node_latency_ns\": 5000, \"inter_node_latency_ns\": 15000}\n"};
      },
      [](const std::string &bytes) {
        StatusOr<DeviceProfile> p = parseDeviceProfile(bytes, "fuzz.json");
        // What parses is complete and positive.
        if (p.ok() && (p->name.empty() || p->sources.empty() || p->memoryBytes <= 0 ||
                       !(p->hbmBytesPerS > 0) || !(p->interNodeLatencyS > 0)))
          std::abort();
        return parsed(p.ok());
      },
      {".json"},
      "parsed"};
  Target wisdom{
      "wisdom",
      "the CPU backend's product wisdom files (ProductWisdom::parse)",
      [] {
        return std::vector<std::string>{
            "# shardc product wisdom 1\n"
            "machine AMD EPYC | family 26 model 2 | openblas Cooperlake | onednn 2.6.3\n"
            "f32 m=128 n=64 k=128 items=128 a=n lda=128 b=n ldb=64 threads=2 use=onednn "
            "onednn_ms=0.6720 openblas_ms=1.0520\n"
            "f32 m=256 n=1024 k=4096 items=1 a=t lda=256 b=n ldb=1024 threads=2 use=openblas "
            "onednn_ms=7.1000 openblas_ms=6.9000\n"};
      },
      [](const std::string &bytes) {
        StatusOr<cpu::ProductWisdom> w = cpu::ProductWisdom::parse(bytes, "fuzz.txt");
        if (w.ok()) { // what parses writes back and parses alike
          StatusOr<cpu::ProductWisdom> back = cpu::ProductWisdom::parse(w->serialize(), "again");
          if (!back.ok() || back->machine != w->machine ||
              back->layouts.size() != w->layouts.size())
            std::abort();
          for (const auto &[layout, m] : w->layouts) {
            auto it = back->layouts.find(layout);
            // Times are written to 0.0001 ms.
            if (it == back->layouts.end() || it->second.use != m.use ||
                !(std::abs(it->second.oneDnnMs - m.oneDnnMs) <= 1e-4) ||
                !(std::abs(it->second.openBlasMs - m.openBlasMs) <= 1e-4))
              std::abort();
          }
        }
        return parsed(w.ok());
      },
      {".txt"},
      "parsed"};
  return {npy, artifact, safetensors, index, profile, wisdom};
}

} // namespace shardc::fuzz
