//===- Plan.h - the executable plan of one per-device program ---*- C++ -*-===//
//
// What the compiler hands the runtime: the per-device program as a list of
// steps over numbered values, with every intermediate value placed in one
// arena per device (offsets chosen by liveness, so buffers are reused), the
// mesh it runs on, and how its global inputs and outputs are laid out on the
// devices. Every backend executes the same plan. A plan serializes to the
// `.shardc` artifact format (see Artifact.h). Plain data; no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_PLAN_H
#define SHARDC_RUNTIME_PLAN_H

#include "shardc/Common/MatmulPrecision.h"
#include "shardc/Common/OpCode.h"
#include "shardc/Common/Reduction.h"
#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Sharding.h"
#include "shardc/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

/// The program of a Fused step. Registers 0..inputs-1 hold the inputs (each
/// loaded whole, or broadcast from a rank-1 value along the rows or the
/// columns of the rank-2 result); each instruction defines the next
/// register; outputs name the registers stored to the step's first outputs;
/// each reduction sums (or maxes, mins) the rows of a register into one of
/// the step's last outputs, so a row reduction of the chain never needs the
/// chain's values in memory.
struct FusedProgram {
  enum LoadMode : int64_t { Whole = 0, AlongRows = 1, AlongColumns = 2, Scalar = 3 };
  struct Input {
    LoadMode mode; // AlongRows: x[i % cols]; AlongColumns: x[i / cols];
                   // Scalar: x[0] everywhere
    int64_t cols;  // columns of the rank-2 result (broadcast inputs)
  };
  /// Defines the next register. In the encoding (5 ints) `z` and
  /// `direction` share the last slot, as no op has both.
  struct Instruction {
    OpCode op;             // a unary or binary elementwise op, Constant (a splat),
                           // Compare, Select, or Reduce (a row's reduction)
    int64_t x = 0, y = 0;  // operand registers: x for a unary op, x and y for
                           // a binary op or Compare; Select is x ? y : z;
                           // Reduce: x is the index of a reduction, whose
                           // result for the element's row (rounded to f32)
                           // every element of the row reads
    float value = 0;       // Constant: the splat value
    int64_t z = 0;         // Select: the register read where x is 0
    int64_t direction = 0; // Compare: eq ne lt le gt ge = 0..5; the result
                           // is 1.0 or 0.0
  };
  std::vector<Input> inputs;
  std::vector<Instruction> instructions;
  std::vector<int64_t> outputs; // registers, one per step output
  struct RowReduction {
    int64_t reg;            // the register reduced
    shardc::Reduction kind; // Sum, Max or Min
    int64_t cols;           // row length: element i belongs to row i / cols
  };
  std::vector<RowReduction> reductions; // after `outputs` in the step's outputs
  /// The element type each output is stored as: empty (every one f32), or
  /// one per output, F32 or BF16. A bf16 output is its register rounded to
  /// nearest even, as `convert` rounds (a convert fused into the chain that
  /// makes its operand: the f32 value is never stored). Encoded after the
  /// reductions, only when not empty.
  std::vector<DType> outputTypes;
  DType outputType(size_t o) const { return outputTypes.empty() ? DType::F32 : outputTypes[o]; }
  /// Whether an instruction reads a reduction (Reduce): the program is then
  /// a row program. Its reductions share one row length, and it runs row by
  /// row: a row's reduction is complete before any instruction reads it (a
  /// softmax or a layer norm in one pass over memory). Every result is the
  /// one the program would give split into a chain of programs at its
  /// Reduce instructions, each reading the reductions before it as
  /// AlongColumns inputs.
  bool readsReductions() const;
  /// The longest row a row program may have: its kernels hold each
  /// register for a whole row.
  static constexpr int64_t kMaxRowProgramCols = int64_t(1) << 16;

  std::vector<int64_t> encode() const;
  static FusedProgram decode(const std::vector<int64_t> &ints);
  /// Checks that the program is well formed for a step with these numbers
  /// of inputs and outputs: every register read is defined before, every
  /// opcode and mode is known.
  Status validate(size_t numInputs, size_t numOutputs) const;
};
/// The dimensions of a DotGeneral step, decoded from its ints, with the
/// free (neither batching nor contracting) dimensions of each side and the
/// sizes of the product seen as B batched [M, K] x [K, N] matrices.
struct DotGeneralDims {
  std::vector<int64_t> lhsBatching, rhsBatching, lhsContracting, rhsContracting;
  std::vector<int64_t> lhsFree, rhsFree;
  int64_t B = 1, M = 1, N = 1, K = 1;
  MatmulPrecision precision = MatmulPrecision::F32;

  /// The one description of a product step's attributes, which the
  /// lowering writes (encode), validation checks (check) and the backends
  /// read (decode): {nb, nc, lhs batching[nb], rhs batching[nb], lhs
  /// contracting[nc], rhs contracting[nc], precision}, the precision left
  /// out for f32 so that f32 plans read as they always have.
  static std::vector<int64_t> encode(const std::vector<int64_t> &lhsBatching,
                                     const std::vector<int64_t> &rhsBatching,
                                     const std::vector<int64_t> &lhsContracting,
                                     const std::vector<int64_t> &rhsContracting,
                                     MatmulPrecision precision);
  /// What is wrong with `ints` as the attributes of a product of operands
  /// of shapes `lhs` and `rhs` ("" when nothing): the counts, each list's
  /// dimensions (in range, none twice), the paired sizes and the precision.
  static std::string check(const std::vector<int64_t> &ints, const Shape &lhs, const Shape &rhs);
  /// The dimensions `ints` encodes (which check() has accepted).
  static DotGeneralDims decode(const std::vector<int64_t> &ints, const Shape &lhs,
                               const Shape &rhs);
};

struct Plan;
/// Checks everything the backends rely on without checking again: the mesh
/// (at most 65536 devices), the signature, every value's shape against its
/// buffer and the arena, and every step's inputs, outputs, dtypes, shapes
/// and attributes against its opcode (fused programs included). Plans from
/// artifacts and the compile cache are untrusted input. The error names the
/// step (index, opcode, location) and the field.
Status validatePlan(const Plan &plan);

/// A hash of what every process of a run must agree on to run a plan
/// together: its mesh, signature, values and steps, with each constant's
/// type but not its contents. Not a cryptographic hash.
uint64_t planShapeHash(const Plan &plan);

/// A readable listing of a plan: devices, arena, and one line per step with
/// its values' types and arena offsets.
std::string describePlan(const Plan &plan);

/// Values without an arena offset: arguments (supplied by the caller),
/// values that live only inside a Fused step, and values written over a
/// donated argument's buffer (PlanValue::inArgument).
constexpr int64_t kArgument = -1;
constexpr int64_t kNotMaterialized = -2;
constexpr int64_t kInArgument = -3;

/// A value of the program on one device. Intermediates live at `offset` in
/// the device's arena; arguments (offset -1) are supplied by the caller.
struct PlanValue {
  DType dtype;
  Shape shape;         // local (per-device) shape, e.g. {256, 1024}
  int64_t offset = -1; // kArgument, kNotMaterialized, kInArgument or an
                       // arena offset
  /// kInArgument: the position (in Plan::args) of the donated argument
  /// whose buffer holds this value. The value's step is the argument's
  /// last use, and writes in place (a dynamic_update_slice of a cache).
  int32_t inArgument = -1;
  size_t bytes() const { return (size_t)numElements(shape) * dtypeSize(dtype); }
};

struct PlanStep {
  OpCode op;
  std::vector<int32_t> inputs;   // value ids
  std::vector<int32_t> outputs;  // value ids
  std::vector<int64_t> attrs;    // the op's attributes as integers, per opcode
                                 // as OpCodes.def documents
  std::vector<std::string> axes; // collectives: mesh axes of the groups
  Array constant;                // Constant: the (local) value
  std::string location;          // "model.mlir:12:8", for runtime errors

  /// Buffer k of a merged all_reduce (inputs[k] -> outputs[k]) as a step of
  /// its own, for what reduces one buffer at a time.
  PlanStep part(size_t k) const {
    PlanStep one = *this;
    one.inputs = {inputs[k]};
    one.outputs = {outputs[k]};
    return one;
  }
};

struct Plan {
  std::string entry; // e.g. "main"
  Mesh mesh;         // no axes: one device
  std::vector<PlanValue> values;
  std::vector<int32_t> args;         // value ids of the arguments
  std::vector<int32_t> results;      // value ids of the results
  std::vector<std::string> argNames; // driver names: shardc.name or argN
  /// Arguments the caller gives up (shardc.donated, like JAX's
  /// donate_argnums): the plan may write results over their buffers (see
  /// PlanValue::inArgument). A caller that keeps such an argument gets the
  /// same results; the backend then copies it first.
  std::vector<bool> donated;
  /// Global layout of each argument and result (replicated when the
  /// function is not sharded).
  std::vector<NamedSharding> argShardings, resultShardings;
  std::vector<Shape> argGlobalShapes, resultGlobalShapes;
  std::vector<PlanStep> steps;
  int64_t arenaBytes = 0;    // per device, after buffer reuse
  int64_t unsharedBytes = 0; // per device, without reuse (for reports)
  /// The options of the compile that made it, as CompileOptions::key()
  /// writes them ("pad-uneven=0 precision=bf16 ..."); empty for a plan built
  /// by hand or read from a version-3 artifact.
  std::string compileOptions;

  /// Names this plan's contents for backends that prepare a plan once and
  /// keep it (the CUDA backend's uploaded constants and compiled kernels):
  /// a new number each time a plan is built or loaded, kept by copies; 0
  /// for plans assembled by hand, which such backends then compare by
  /// content. Not serialized.
  uint64_t id = 0;
  static uint64_t newId();

  int64_t numDevices() const { return mesh.numDevices(); }
};

} // namespace shardc

#endif // SHARDC_RUNTIME_PLAN_H
