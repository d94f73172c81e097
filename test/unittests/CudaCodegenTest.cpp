//===- CudaCodegenTest.cpp - fused programs to CUDA C++ to PTX ------------===//
//
// The CUDA backend's run-time code generator, checked without a GPU: NVRTC
// needs no driver. For every elementwise op, every load mode and every
// reduction kind, the generated kernel must compile to PTX for compute_90
// (and to an sm_90 CUBIN), with the expected entry point. Also: malformed
// programs are errors, and creating the backend without a usable GPU is one
// clear error, not a crash.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/CudaBackend.h"

#include "../../lib/Runtime/Cuda/CudaFusedCodegen.h"
#include "../../lib/Runtime/Cuda/CudaNvrtc.h"

#include "OpCatalogue.h"

#include <gtest/gtest.h>

#include <string>

using namespace shardc;
using namespace shardc::cuda;

namespace {

using Instr = FusedProgram::Instruction;

/// Compiles `p`'s kernel to PTX (compute_90) and CUBIN (sm_90) and checks
/// both; returns the source for further checks.
std::string compiles(const FusedProgram &p, size_t numOutputs) {
  StatusOr<FusedKernel> k = generateFusedKernel(p, p.inputs.size(), numOutputs);
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.message());
  if (!k.ok())
    return "";
  StatusOr<std::string> ptx = compileWithNvrtc(k->source, "compute_90");
  EXPECT_TRUE(ptx.ok()) << (ptx.ok() ? "" : ptx.message()) << "\n" << k->source;
  if (ptx.ok()) {
    EXPECT_NE(ptx->find(".entry shardc_fused"), std::string::npos);
    EXPECT_NE(ptx->find(".target sm_90"), std::string::npos);
  }

  StatusOr<std::string> cubin = compileWithNvrtc(k->source, "sm_90");
  EXPECT_TRUE(cubin.ok()) << (cubin.ok() ? "" : cubin.message());
  if (cubin.ok()) {
    EXPECT_EQ(cubin->substr(0, 4), std::string("\x7f"
                                               "ELF"));
  }
  return k->source;
}

FusedProgram::Input whole() { return {FusedProgram::Whole, 0}; }

TEST(CudaCodegen, EveryUnaryOp) {
  for (const shardc::test::ElementwiseRow &row : shardc::test::elementwiseRows(1)) {
    OpCode op = row.op;
    SCOPED_TRACE(opCodeName(op));
    FusedProgram p;
    p.inputs = {whole()};
    p.instructions = {Instr{op, 0, 0, 0.0f}};
    p.outputs = {1};
    compiles(p, 1);
  }
}

TEST(CudaCodegen, EveryBinaryOpAndConstants) {
  for (const shardc::test::ElementwiseRow &row : shardc::test::elementwiseRows(2)) {
    OpCode op = row.op;
    SCOPED_TRACE(opCodeName(op));
    FusedProgram p;
    p.inputs = {whole(), whole()};
    p.instructions = {Instr{op, 0, 1, 0.0f}, Instr{OpCode::Constant, 0, 0, -0.0f},
                      Instr{op, 2, 3, 0.0f}};
    p.outputs = {2, 4};
    std::string src = compiles(p, 2);
    EXPECT_NE(src.find("__uint_as_float(0x80000000u)"), std::string::npos)
        << "a negative zero must keep its sign";
  }
}

TEST(CudaCodegen, CompareAndSelect) {
  for (int64_t direction = 0; direction <= 5; ++direction) {
    SCOPED_TRACE(direction);
    FusedProgram p;
    p.inputs = {whole(), whole()};
    p.instructions = {Instr{OpCode::Compare, 0, 1, 0.0f, 0, direction},
                      Instr{OpCode::Select, 2, 0, 0.0f, 1}};
    p.outputs = {3};
    std::string src = compiles(p, 1);
    EXPECT_NE(src.find("? 1.0f : 0.0f"), std::string::npos) << src;
  }
}

TEST(CudaCodegen, BroadcastLoadModes) {
  // relu(x + bias) * scale + column: every load mode in one program.
  FusedProgram p;
  p.inputs = {whole(),
              {FusedProgram::AlongRows, 7},
              {FusedProgram::Scalar, 7},
              {FusedProgram::AlongColumns, 7}};
  p.instructions = {Instr{OpCode::Add, 0, 1, 0}, Instr{OpCode::Constant, 0, 0, 0.0f},
                    Instr{OpCode::Max, 4, 5, 0}, Instr{OpCode::Mul, 6, 2, 0},
                    Instr{OpCode::Add, 7, 3, 0}};
  p.outputs = {8};
  std::string src = compiles(p, 1);
  EXPECT_NE(src.find("in1[i % 7LL]"), std::string::npos) << src;
  EXPECT_NE(src.find("in3[i / 7LL]"), std::string::npos) << src;
  EXPECT_NE(src.find("in2[0]"), std::string::npos) << src;
}

TEST(CudaCodegen, RowReductions) {
  // Softmax's pieces: exp(x - rowmax) stored, and its row sum, max and min.
  for (int64_t kind : {0, 1, 2}) {
    SCOPED_TRACE(kind);
    FusedProgram p;
    p.inputs = {whole(), {FusedProgram::AlongColumns, 13}};
    p.instructions = {Instr{OpCode::Sub, 0, 1, 0}, Instr{OpCode::Exp, 2, 0, 0}};
    p.outputs = {3};
    p.reductions = {{3, (Reduction)kind, 13}, {2, Reduction::Sum, 13}};
    FusedProgram decoded = FusedProgram::decode(p.encode());
    std::string src = compiles(decoded, 3);
    StatusOr<FusedKernel> k = generateFusedKernel(decoded, 2, 3);
    ASSERT_TRUE(k.ok());
    EXPECT_TRUE(k->rowKernel);
    EXPECT_EQ(k->rowCols, 13);
  }
  // A reduction alone (no stored output).
  FusedProgram p;
  p.inputs = {whole()};
  p.instructions = {Instr{OpCode::Mul, 0, 0, 0}};
  p.reductions = {{1, Reduction::Sum, 5}};
  compiles(p, 1);
}

TEST(CudaCodegen, MalformedProgramsAreErrors) {
  FusedProgram p;
  p.inputs = {whole()};
  p.instructions = {Instr{OpCode::Add, 0, 3, 0}}; // register 3 is not defined yet
  p.outputs = {1};
  StatusOr<FusedKernel> k = generateFusedKernel(p, 1, 1);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.message(), "malformed fused program: instruction 0 (add) reads register y = 3, "
                         "not defined before it");
  p.instructions = {Instr{OpCode::DotGeneral, 0, 0, 0}}; // not elementwise
  EXPECT_FALSE(generateFusedKernel(p, 1, 1).ok());
  p.instructions = {Instr{OpCode::Neg, 0, 0, 0}};
  EXPECT_FALSE(generateFusedKernel(p, 2, 1).ok()) << "input count must match the step";
}

// A program that reads its own reductions (x / sum(x) by rows) validates,
// and reads them only where they are complete; the CUDA backend says it
// does not run it.
// A bf16 output (a fused convert) validates; the CUDA backend says it does
// not run it.
TEST(CudaCodegen, Bf16OutputsAreDeclined) {
  FusedProgram p;
  p.inputs = {whole()};
  p.instructions = {Instr{OpCode::Neg, 0, 0, 0}};
  p.outputs = {1};
  p.outputTypes = {DType::BF16};
  ASSERT_TRUE(p.validate(1, 1).ok()) << p.validate(1, 1).message();
  EXPECT_EQ(FusedProgram::decode(p.encode()).outputTypes, p.outputTypes);
  StatusOr<FusedKernel> k = generateFusedKernel(p, 1, 1);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.message().find("runs on the CPU backend only"), std::string::npos) << k.message();
}

TEST(CudaCodegen, RowProgramsAreValidatedAndDeclined) {
  FusedProgram p;
  p.inputs = {whole()};
  p.instructions = {Instr{OpCode::Reduce, 0, 0, 0}, Instr{OpCode::Div, 0, 1, 0}};
  p.outputs = {2};
  p.reductions = {{0, Reduction::Sum, 7}};
  ASSERT_TRUE(p.validate(1, 2).ok()) << p.validate(1, 2).message();
  EXPECT_TRUE(p.readsReductions());
  StatusOr<FusedKernel> k = generateFusedKernel(p, 1, 2);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.message().find("runs on the CPU backend only"), std::string::npos) << k.message();

  FusedProgram bad = p;
  bad.instructions[0].x = 1;
  EXPECT_EQ(bad.validate(1, 2).message(),
            "malformed fused program: instruction 0 (reduce) reads reduction 1, of 1");
  bad = p; // reads the reduction of its own register
  bad.reductions[0].reg = 1;
  EXPECT_EQ(bad.validate(1, 2).message(),
            "malformed fused program: instruction 0 (reduce) reads reduction 0, which reduces "
            "register 1, not defined before it");
  bad = p;
  bad.instructions[0].y = 1;
  EXPECT_FALSE(bad.validate(1, 2).ok());
  bad = p; // an output type for every output, f32 or bf16
  bad.outputTypes = {DType::F32, DType::F32};
  EXPECT_EQ(bad.validate(1, 2).message(), "malformed fused program: it types 2 outputs, of 1");
  bad.outputTypes = {DType::I32};
  EXPECT_EQ(bad.validate(1, 2).message(),
            "malformed fused program: output 0 has element type 5 (f32 or bf16)");
  bad = p; // rows no longer than its kernels hold
  bad.reductions[0].cols = FusedProgram::kMaxRowProgramCols + 1;
  EXPECT_EQ(bad.validate(1, 2).message(),
            "malformed fused program: reduction 0 has rows of 65537, longer than a row program's "
            "65536");
  bad = p; // the reductions of a row program share their row length
  bad.reductions.push_back({2, Reduction::Max, 5});
  EXPECT_EQ(bad.validate(1, 3).message(),
            "malformed fused program: reduction 1 has row length 5, and reduction 0 7: the "
            "reductions of a row program share one row length");
}

TEST(CudaCodegen, NvrtcErrorsCarryTheLog) {
  StatusOr<std::string> r =
      compileWithNvrtc("__global__ void k() { undefined_thing(); }", "compute_90");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("undefined_thing"), std::string::npos) << r.message();
}

TEST(CudaBackend, IsBuiltAndFailsCleanlyWithoutAGpu) {
  EXPECT_TRUE(cudaBackendBuilt());
  StatusOr<std::unique_ptr<Backend>> backend = createCudaBackend();
  if (backend.ok())
    GTEST_SKIP() << "a GPU is usable here; the no-GPU error path cannot be seen";
  EXPECT_EQ(backend.message().rfind("no usable CUDA device (", 0), 0u) << backend.message();
  EXPECT_EQ(backend.message().find('\n'), std::string::npos) << "one line";
}

} // namespace
