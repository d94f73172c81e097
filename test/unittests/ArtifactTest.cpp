//===- ArtifactTest.cpp - artifacts are untrusted input -------------------===//
//
// A valid plan, edited one field at a time the way someone crafting an
// artifact would (the checksum recomputed, so only validation stands in the
// way), must be rejected with an error that names the step and the field,
// before anything runs.
//
//===----------------------------------------------------------------------===//

#include "shardc/Common/CompileOptions.h"
#include "shardc/Runtime/Artifact.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/Plan.h"

#include <gtest/gtest.h>

#include <functional>

using namespace shardc;

namespace {

/// main(x: f32[4x8] split over "data", w: f32[8x2]) on data=2:
///   v2 = dot_general x, w; v3 = all_reduce sum v2 over "data";
///   v4 = fused(v3 * v3); v5 = reduce sum v4 dims [1]; returns v3, v5.
Plan validPlan() {
  Plan p;
  p.entry = "main";
  p.mesh = Mesh{{"data"}, {2}};
  p.values = {{DType::F32, {2, 8}, kArgument}, {DType::F32, {8, 2}, kArgument},
              {DType::F32, {2, 2}, 0},         {DType::F32, {2, 2}, 64},
              {DType::F32, {2, 2}, 128},       {DType::F32, {2}, 192}};
  p.args = {0, 1};
  p.results = {3, 5};
  p.argNames = {"x", "w"};
  p.donated = {false, false};
  p.argShardings = {{p.mesh, {{"data"}, {}}}, {p.mesh, {{}, {}}}};
  p.argGlobalShapes = {{4, 8}, {8, 2}};
  p.resultShardings = {{p.mesh, {{}, {}}}, {p.mesh, {{}}}};
  p.resultGlobalShapes = {{2, 2}, {2}};
  PlanStep dot{OpCode::DotGeneral, {0, 1}, {2}, {0, 1, 1, 0}, {}, {}, "m.mlir:3:8"};
  PlanStep reduce{OpCode::AllReduce, {2}, {3}, {0}, {"data"}, {}, "m.mlir:4:8"};
  FusedProgram square;
  square.inputs = {{FusedProgram::Whole, 0}};
  square.instructions = {{OpCode::Mul, 0, 0, 0.0f, 0}};
  square.outputs = {1};
  PlanStep fused{OpCode::Fused, {3}, {4}, square.encode(), {}, {}, "m.mlir:5:8"};
  PlanStep sum{OpCode::Reduce, {4}, {5}, {0, 1}, {}, {}, "m.mlir:6:8"};
  p.steps = {dot, reduce, fused, sum};
  p.arenaBytes = 256;
  p.unsharedBytes = 256;
  return p;
}

/// The edited plan through the artifact format: the error, or "" if it
/// loads.
std::string load(const std::function<void(Plan &)> &edit) {
  Plan p = validPlan();
  edit(p);
  StatusOr<Plan> back = deserializePlan(serializePlan(p), "crafted.shardc");
  return back.ok() ? "" : back.message();
}

void expectRejected(const std::function<void(Plan &)> &edit, const std::string &what) {
  std::string error = load(edit);
  EXPECT_NE(error.find(what), std::string::npos) << "got: '" << error << "'";
}

} // namespace

TEST(Artifact, TheValidPlanLoadsAndRuns) {
  EXPECT_EQ(load([](Plan &) {}), "");
  Plan p = validPlan();
  std::unique_ptr<Backend> cpu = createCpuBackend();
  Array x = Array::fromDoubles(DType::F32, {4, 8}, std::vector<double>(32, 1.0));
  Array w = Array::fromDoubles(DType::F32, {8, 2}, std::vector<double>(16, 0.5));
  StatusOr<std::vector<Array>> r = runPlan(*cpu, p, {x, w});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ((*r)[0].getDouble(0), 8.0); // two halves of 4 each, summed
  EXPECT_EQ((*r)[1].getDouble(0), 128.0);
}

TEST(Artifact, CraftedEnumsAreRejected) {
  expectRejected([](Plan &p) { p.steps[1].attrs = {7}; },
                 "step 1 (all_reduce at m.mlir:4:8): reduction kind 7 is not 0..3");
  expectRejected(
      [](Plan &p) {
        p.steps[3].attrs = {9, 1};
      },
      "step 3 (reduce at m.mlir:6:8): reduction kind is not 0..3");
  expectRejected(
      [](Plan &p) {
        p.values[5] = {DType::I1, {2, 2}, 192};
        p.steps[3] = {OpCode::Compare, {4, 4}, {5}, {6}, {}, {}, "m.mlir:6:8"};
        p.resultShardings[1] = {p.mesh, {{}, {}}};
        p.resultGlobalShapes[1] = {2, 2};
      },
      "compare direction 6 is not 0..5");
  expectRejected([](Plan &p) { p.steps[0].op = (OpCode)999; }, "opcode 999 is unknown");
  expectRejected(
      [](Plan &p) {
        p.steps[0].attrs = {0, 1, 1, 0, 3};
      },
      "step 0 (dot_general at m.mlir:3:8): its precision 3 is none of 0 (f32), "
      "1 (bf16), 2 (tf32)");
  expectRejected([](Plan &p) { p.steps[0].attrs = {0, 1, 1, 0, -1}; }, "its precision -1");
  expectRejected(
      [](Plan &p) {
        p.values[0].dtype = p.values[1].dtype = p.values[2].dtype = DType::F64;
        p.steps[0].attrs = {0, 1, 1, 0, 1};
      },
      "its precision rounds f32 operands, not f64");
  // A precision the plan's products may have: bf16 loads.
  EXPECT_EQ(load([](Plan &p) { p.steps[0].attrs = {0, 1, 1, 0, 1}; }), "");
  // A bf16 product may read bf16 operands (rounded already); its result is
  // f32, and tf32 takes f32 operands only.
  EXPECT_EQ(load([](Plan &p) {
              p.values[0].dtype = DType::BF16;
              p.steps[0].attrs = {0, 1, 1, 0, 1};
            }),
            "");
  expectRejected(
      [](Plan &p) {
        p.values[1].dtype = DType::BF16;
        p.steps[0].attrs = {0, 1, 1, 0, 2};
      },
      "its precision rounds f32 operands, not bf16");
  expectRejected(
      [](Plan &p) {
        p.values[0].dtype = DType::BF16;
        p.steps[0].attrs = {0, 1, 1, 0, 1};
        p.values[2].dtype = DType::BF16;
      },
      "a bf16 product's result is f32, not bf16");
  expectRejected([](Plan &p) { p.values[0].dtype = DType::BF16; },
                 "its operands and result differ in element type");
}

TEST(Artifact, CraftedDimensionsAndIdsAreRejected) {
  expectRejected(
      [](Plan &p) {
        p.steps[3].attrs = {0, 2};
      },
      "step 3 (reduce at m.mlir:6:8): dims has dimension 2, out of range for rank 2");
  expectRejected(
      [](Plan &p) {
        p.steps[0].attrs = {0, 1, 5, 0};
      },
      "step 0 (dot_general at m.mlir:3:8): the lhs has dimension 5");
  expectRejected([](Plan &p) { p.steps[2].inputs = {40}; }, "names value v40, past the 6 values");
  expectRejected([](Plan &p) { p.results = {3, 99}; }, "the signature names value v99");
  expectRejected([](Plan &p) { p.steps[1].axes = {"model"}; },
                 "mesh axis 'model' is unknown or repeated");
  expectRejected([](Plan &p) { std::swap(p.steps[0], p.steps[1]); },
                 "input v2 is read before it is computed");
}

TEST(Artifact, CraftedShapesAndBuffersAreRejected) {
  // A shape that no longer matches its buffer.
  expectRejected(
      [](Plan &p) {
        p.values[4].shape = {64, 64};
      },
      "v4's buffer (16384 bytes at 128) lies outside the arena of 256 bytes");
  expectRejected(
      [](Plan &p) {
        p.values[2].shape = {3, 2};
      },
      "step 0 (dot_general at m.mlir:3:8): the output has shape 3x2, expected 2x2");
  // A huge arena: rejected before any allocation.
  expectRejected([](Plan &p) { p.arenaBytes = int64_t(1) << 50; },
                 "the arena of 1125899906842624 bytes is larger than all the plan's buffers");
  expectRejected([](Plan &p) { p.values[3].offset = -7; }, "v3 has an invalid buffer offset -7");
  expectRejected([](Plan &p) { p.values[2].offset = kNotMaterialized; }, "v2 has no buffer");
  expectRejected([](Plan &p) { p.values[3].offset = kInArgument, p.values[3].inArgument = 0; },
                 "v3 lies in an argument that is not donated");
}

TEST(Artifact, CraftedMeshesAndSignaturesAreRejected) {
  // 2^16 x 2^4 devices: the reader takes each axis, validation the product.
  expectRejected(
      [](Plan &p) {
        p.mesh = Mesh{{"data", "model"}, {1 << 16, 16}};
        for (NamedSharding *s :
             {&p.argShardings[0], &p.argShardings[1], &p.resultShardings[0], &p.resultShardings[1]})
          s->mesh = p.mesh;
      },
      "the mesh has more than 65536 devices");
  expectRejected(
      [](Plan &p) {
        p.argGlobalShapes[0] = {8, 8};
      },
      "argument 'x': global dimension 0 is not split into its local size");
}

TEST(Artifact, CraftedOpcodesAndProgramsAreRejected) {
  // An opcode swapped for another with a different arity.
  expectRejected([](Plan &p) { p.steps[0].op = OpCode::Neg; },
                 "step 0 (neg at m.mlir:3:8): takes 1 inputs and 1 outputs, has 2 and 1");
  expectRejected([](Plan &p) { p.steps[1].op = OpCode::AllGather; },
                 "step 1 (all_gather at m.mlir:4:8): the output has shape 2x2, expected 4x2");
  // A fused program whose instruction reads a register not yet defined,
  // and one whose counts run past its numbers.
  expectRejected([](Plan &p) { p.steps[2].attrs[5] = 5; },
                 "step 2 (fused at m.mlir:5:8): malformed fused program: instruction 0 (mul) "
                 "reads register x = 5, not defined before it");
  expectRejected([](Plan &p) { p.steps[2].attrs[0] = int64_t(1) << 60; },
                 "step 2 (fused at m.mlir:5:8): its program is malformed");
  // A program that stores its output at bf16, over an f32 value.
  expectRejected(
      [](Plan &p) {
        FusedProgram f = FusedProgram::decode(p.steps[2].attrs);
        f.outputTypes.assign(f.outputs.size(), DType::BF16);
        p.steps[2].attrs = f.encode();
      },
      "step 2 (fused at m.mlir:5:8): output v");
}

// A constant of no elements has no buffer: reading one copies nothing (the
// fuzzer found a copy into the null buffer under UBSan).
TEST(Artifact, EmptyConstantsReadBack) {
  std::string error = load([](Plan &p) {
    p.values.push_back({DType::F32, {0, 3}, kNotMaterialized});
    PlanStep c{OpCode::Constant, {}, {(int32_t)p.values.size() - 1}, {}, {}, {}, "m.mlir:7:8"};
    c.constant = Array(DType::F32, {0, 3});
    p.steps.push_back(c);
  });
  // Loads, or is rejected by validation; either way after reading it whole.
  EXPECT_TRUE(error.empty() || error.find("step 4") != std::string::npos) << error;
}

// The kernels read only the fields an op uses, but every field is input:
// one an op does not read must be zero, so a stray register is an error
// rather than a read out of bounds (the fuzzer found that crash).
TEST(Artifact, FusedFieldsAnOpDoesNotReadMustBeZero) {
  // The program's encoding: {1 input: mode, cols}, {1 instruction: op, x, y,
  // value bits, z}, {1 output: register}, {0 reductions}.
  auto neg = [](Plan &p) { p.steps[2].attrs[4] = (int64_t)OpCode::Neg; };
  EXPECT_EQ(load(neg), "");
  expectRejected(
      [&](Plan &p) {
        neg(p);
        p.steps[2].attrs[6] = 1 << 20;
      },
      "instruction 0 (neg) has y = 1048576, a field its op does not read (must be 0)");
  expectRejected([](Plan &p) { p.steps[2].attrs[8] = 3; },
                 "instruction 0 (mul) has z = 3, a field its op does not read (must be 0)");
  expectRejected([](Plan &p) { p.steps[2].attrs[7] = 1; },
                 "instruction 0 (mul) has a value, a field its op does not read (must be 0)");
  expectRejected(
      [](Plan &p) {
        p.steps[2].attrs[1] = FusedProgram::AlongRows;
        p.steps[2].attrs[2] = -4;
      },
      "input 0 has row length -4");
  expectRejected([](Plan &p) { p.steps[2].attrs[4] = (int64_t)OpCode::DotGeneral; },
                 "instruction 0 has opcode");
}

namespace {
// Processes compare this hash before running a plan together: a plan read
// back from its artifact hashes alike, and any change to what the
// processes exchange (mesh, shapes, steps, attributes) changes it.
TEST(PlanShapeHash, SeesEveryPartProcessesMustAgreeOn) {
  Plan p = validPlan();
  uint64_t h = planShapeHash(p);
  StatusOr<Plan> back = deserializePlan(serializePlan(p), "plan.shardc");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(planShapeHash(*back), h);
  std::vector<std::function<void(Plan &)>> edits = {
      [](Plan &q) { q.entry = "other"; },
      [](Plan &q) { q.mesh.axisSizes = {4}; },
      [](Plan &q) { q.mesh.axisNames = {"model"}; },
      [](Plan &q) {
        q.values[0].shape = {2, 4};
      },
      [](Plan &q) { q.values[2].dtype = DType::F64; },
      [](Plan &q) { q.steps[1].attrs = {1}; },
      [](Plan &q) { q.steps[1].axes = {}; },
      [](Plan &q) { q.steps[3].op = OpCode::AllReduce; },
      [](Plan &q) { std::swap(q.steps[0].inputs[0], q.steps[0].inputs[1]); },
      [](Plan &q) {
        q.results = {5, 3};
      },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    Plan q = validPlan();
    edits[i](q);
    EXPECT_NE(planShapeHash(q), h) << "edit " << i;
  }
  // What processes may differ in (PlanFields.h marks it not hashed): names,
  // locations, sizes reported, and the global view they each check their
  // own arguments against.
  std::vector<std::function<void(Plan &)>> local = {
      [](Plan &q) {
        q.argNames = {"a", "b"};
      },
      [](Plan &q) { q.steps[0].location = "elsewhere.mlir:1:1"; },
      [](Plan &q) { q.unsharedBytes = 4096; },
      [](Plan &q) {
        q.argGlobalShapes[0] = {8, 8};
      },
      [](Plan &q) {
        q.donated = {true, false};
      },
  };
  for (size_t i = 0; i < local.size(); ++i) {
    Plan q = validPlan();
    local[i](q);
    EXPECT_EQ(planShapeHash(q), h) << "local edit " << i;
  }
}

// serializePlan and deserializePlan walk the one field list
// (PlanFields.h): a plan read back writes the same bytes, and holds the
// fields the hash leaves out too.
TEST(Artifact, EveryFieldReadsBack) {
  Plan p = validPlan();
  p.donated = {true, false};
  p.argNames = {"activations", "weights"};
  p.steps[2].location = "model.mlir:40:2";
  p.unsharedBytes = 1024;
  std::string bytes = serializePlan(p);
  StatusOr<Plan> back = deserializePlan(bytes, "plan.shardc");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(serializePlan(*back), bytes);
  EXPECT_EQ(back->donated, p.donated);
  EXPECT_EQ(back->argNames, p.argNames);
  EXPECT_EQ(back->steps[2].location, p.steps[2].location);
  EXPECT_EQ(back->unsharedBytes, 1024);
  EXPECT_EQ(back->argShardings[0].spec, p.argShardings[0].spec);
  EXPECT_EQ(back->resultGlobalShapes, p.resultGlobalShapes);
}
// Version 4 records the compile's options; a version-3 file (the same
// payload without them) still reads, with none recorded.
TEST(Artifact, RecordsTheCompileOptionsAndReadsVersion3) {
  Plan p = validPlan();
  p.compileOptions = "pad-uneven=1 precision=bf16";
  StatusOr<Plan> back = deserializePlan(serializePlan(p), "v4.shardc");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->compileOptions, p.compileOptions);
  EXPECT_EQ(CompileOptions::describeRecord(back->compileOptions),
            "compiled with pad-uneven=1 precision=bf16");

  p.compileOptions = "";
  std::string v3 = serializePlan(p);
  v3.resize(v3.size() - 8); // the options' length, 0
  v3[8] = 3;
  ASSERT_TRUE(sealArtifact(v3));
  back = deserializePlan(v3, "v3.shardc");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->compileOptions, "");
  EXPECT_EQ(CompileOptions::describeRecord(back->compileOptions), "its options are not recorded");
  EXPECT_EQ(planShapeHash(*back), planShapeHash(p));

  std::string v2 = v3;
  v2[8] = 2;
  ASSERT_TRUE(sealArtifact(v2));
  back = deserializePlan(v2, "v2.shardc");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.message(),
            "v2.shardc: artifact format version 2, but this shardc reads version 4 (recompile it)");
}

} // namespace
