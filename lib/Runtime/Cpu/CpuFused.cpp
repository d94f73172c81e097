//===- CpuFused.cpp - running a Fused step tile by tile -------------------===//
//
// The program of a Fused step runs over tiles of kTile elements: inputs are
// loaded (or broadcast) into registers, each instruction computes a register
// from others with a tight loop the compiler vectorizes, and the output
// registers are stored. Intermediates live only in the registers, which stay
// in L1; nothing between the inputs and the outputs touches memory.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "shardc/Runtime/FusedKernel.h"
#include "shardc/Runtime/ScalarMath.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace shardc::cpu {

namespace {
constexpr int64_t kTile = 512;

template <typename Fn> void unary(const float *x, float *y, int64_t n, Fn fn) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = fn(x[i]);
}
template <typename Fn> void binary(const float *x, const float *z, float *y, int64_t n, Fn fn) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = fn(x[i], z[i]);
}

// Compiled for AVX2+FMA and for the baseline; the loader picks the clone the
// CPU supports.
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void elementwiseF32Impl(OpCode op, const float *a, const float *b, float *y, int64_t n) {
  switch (op) {
#define SHARDC_UNARY(Name, ...)                                                                    \
  case OpCode::Name:                                                                               \
    unary(a, y, n, [](float x) { return scalar::Name(x); });                                       \
    break;
#define SHARDC_BINARY(Name, ...)                                                                   \
  case OpCode::Name:                                                                               \
    binary(a, b, y, n, [](float x, float z) { return scalar::Name(x, z); });                       \
    break;
#include "shardc/Common/OpCodes.def"
  default:
    break;
  }
}
} // namespace

void elementwiseF32(OpCode op, const float *a, const float *b, float *y, int64_t n) {
  parallelRange(n, [&](int64_t begin, int64_t end) {
    elementwiseF32Impl(op, a + begin, b + begin, y + begin, end - begin);
  });
}

/// A comparison as 1.0 or 0.0 (NaN compares unequal to everything).
static void compareF32(int64_t direction, const float *a, const float *b, float *y, int64_t n) {
  switch (direction) {
  case 0:
    binary(a, b, y, n, [](float x, float z) { return x == z ? 1.0f : 0.0f; });
    break;
  case 1:
    binary(a, b, y, n, [](float x, float z) { return x != z ? 1.0f : 0.0f; });
    break;
  case 2:
    binary(a, b, y, n, [](float x, float z) { return x < z ? 1.0f : 0.0f; });
    break;
  case 3:
    binary(a, b, y, n, [](float x, float z) { return x <= z ? 1.0f : 0.0f; });
    break;
  case 4:
    binary(a, b, y, n, [](float x, float z) { return x > z ? 1.0f : 0.0f; });
    break;
  default:
    binary(a, b, y, n, [](float x, float z) { return x >= z ? 1.0f : 0.0f; });
    break;
  }
}

static void selectF32(const float *p, const float *a, const float *b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = p[i] != 0.0f ? a[i] : b[i];
}

namespace {

/// Folds v[0, len) into a row's accumulator in element order: the sum in
/// double; max and min with NaN propagating and the first of equal values
/// (the first zero of either sign) kept.
void foldInto(Reduction kind, const float *v, int64_t len, double &a) {
  for (int64_t i = 0; i < len; ++i) {
    double x = v[i];
    if (kind == Reduction::Sum)
      a += x;
    else if (x != x || a != a)
      a = NAN;
    else
      a = kind == Reduction::Max ? std::max(a, x) : std::min(a, x);
  }
}

/// A Fused step's program, decoded and validated once per thread and step:
/// a decode step runs some twenty fused steps of a few hundred elements,
/// and decoding each at every call (a dozen allocations) cost about as much
/// as its kernel. A step at the same address is decoded again when its
/// attributes or operand counts differ (another plan).
struct KnownProgram {
  std::vector<int64_t> attrs;
  size_t inputs = 0, outputs = 0;
  FusedProgram program;
  Status valid = Status::success();
};

const KnownProgram &programOf(const PlanStep &step) {
  static thread_local std::unordered_map<const PlanStep *, KnownProgram> known;
  return keptForStep(
      known, step,
      [&](const KnownProgram &k) {
        return k.attrs == step.attrs && k.inputs == step.inputs.size() &&
               k.outputs == step.outputs.size();
      },
      [&] {
        KnownProgram k{step.attrs, step.inputs.size(), step.outputs.size(),
                       FusedProgram::decode(step.attrs)};
        k.valid = k.program.validate(step.inputs.size(), step.outputs.size());
        return k;
      });
}

/// The addresses of a Fused step's inputs and of its first `outputs`
/// outputs, as its native kernel takes them, in per-thread lists that only
/// grow (a fused step does not run inside another). Other threads that run
/// ranges of the kernel read these lists through the pointers returned, not
/// their own thread_local ones.
struct KernelOperands {
  const float *const *in;
  float *const *out;
};
KernelOperands kernelOperands(const PlanStep &step, const DeviceBuffers &buffers, size_t outputs) {
  static thread_local std::vector<const float *> in;
  static thread_local std::vector<float *> out;
  in.clear();
  for (int32_t id : step.inputs)
    in.push_back((const float *)buffers.ptr[id]);
  out.clear();
  for (size_t o = 0; o < outputs; ++o)
    out.push_back((float *)buffers.ptr[step.outputs[o]]);
  return {in.data(), out.data()};
}

/// Runs a native kernel over the step's n elements. Ranges split over the
/// shared OpenMP pool like the tile program's, but at row boundaries when
/// the program reduces rows, so each row's accumulator has one writer.
Status runCompiled(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                   const FusedProgram &p, FusedKernelFn kernel, int64_t n) {
  KernelOperands operands = kernelOperands(step, buffers, p.outputs.size());
  // The accumulators live in per-thread buffers that only grow too.
  static thread_local std::vector<std::vector<double>> acc;
  static thread_local std::vector<double *> accPtr;
  // Accumulate in double, like the interpreter.
  if (acc.size() < p.reductions.size())
    acc.resize(p.reductions.size());
  accPtr.clear();
  for (size_t k = 0; k < p.reductions.size(); ++k) {
    const auto &red = p.reductions[k];
    acc[k].assign(n / red.cols, reductionIdentity(red.kind));
    accPtr.push_back(acc[k].data());
  }
  int64_t align = 1;
  for (const auto &red : p.reductions)
    align = align == 1 ? red.cols : align == red.cols ? align : 0;
  // Other threads run ranges too: they get this thread's buffers.
  const float *const *ins = operands.in;
  float *const *outs = operands.out;
  auto accs = accPtr.data();
  if (align <= 0) { // rows of different lengths: one writer for every accumulator
    kernel(ins, outs, accs, 0, n);
  } else {
    parallelRange(
        n / align, [&](int64_t u0, int64_t u1) { kernel(ins, outs, accs, u0 * align, u1 * align); },
        n);
  }
  for (size_t k = 0; k < p.reductions.size(); ++k) {
    float *o = (float *)buffers.ptr[step.outputs[p.outputs.size() + k]];
    for (size_t r = 0; r < acc[k].size(); ++r)
      o[r] = (float)acc[k][r];
  }
  (void)plan;
  return Status::success();
}
} // namespace

/// The element count a Fused step's kernel walks.
static int64_t fusedElements(const Plan &plan, const PlanStep &step, const FusedProgram &p) {
  return p.outputs.empty() ? numElements(plan.values[step.outputs[0]].shape) * p.reductions[0].cols
                           : numElements(plan.values[step.outputs[0]].shape);
}

std::vector<FusedKernelFn> fusedKernelsFor(const Plan &plan) {
  std::vector<FusedKernelFn> kernels(plan.steps.size(), nullptr);
  FusedKernelCompiler *compiler = fusedKernelCompiler();
  for (size_t s = 0; compiler && s < plan.steps.size(); ++s) {
    const PlanStep &step = plan.steps[s];
    if (step.op != OpCode::Fused)
      continue;
    FusedProgram p = FusedProgram::decode(step.attrs);
    if (p.validate(step.inputs.size(), step.outputs.size()).ok())
      kernels[s] = compiler->kernelFor(p, step.attrs, fusedElements(plan, step, p));
  }
  return kernels;
}

/// The native kernel of Fused step `step` (null: the interpreter runs it).
static FusedKernelFn kernelOf(const Plan &plan, const PlanStep &step, const DeviceBuffers &buffers,
                              const FusedProgram &p, int64_t n) {
  if (buffers.kernels) {
    size_t index = (size_t)(&step - plan.steps.data());
    return index < buffers.kernels->size() ? (*buffers.kernels)[index] : nullptr;
  }
  if (FusedKernelCompiler *compiler = fusedKernelCompiler())
    return compiler->kernelFor(p, step.attrs, n);
  return nullptr;
}

namespace {
/// A block's size: it is still in the last-level cache when its reader
/// runs, beside the other devices' blocks, where a whole result of a
/// training step's products (8-16 MB a device) goes to memory and comes
/// back. Smaller blocks would run the product as more, smaller products:
/// measured on AMD Zen 5 at 2 x 8 MB per device, blocks of 256 KB made
/// the step 2% slower, of 1-4 MB 1-2% faster.
constexpr int64_t kBlockBytes = int64_t(4) << 20;
/// Results of fewer than two blocks run as two steps.
constexpr int64_t kMinBlockedBytes = 2 * kBlockBytes;

bool overlap(const void *a, int64_t aBytes, const void *b, int64_t bBytes) {
  auto x = (const uint8_t *)a, y = (const uint8_t *)b;
  return x < y + bBytes && y < x + aBytes;
}
} // namespace

bool runProductAndReader(const Plan &plan, const PlanStep &dot, const PlanStep &reader,
                         DeviceBuffers &buffers) {
  if (dot.op != OpCode::DotGeneral || reader.op != OpCode::Fused)
    return false;
  int32_t product = dot.outputs[0];
  const PlanValue &pv = plan.values[product];
  if (pv.dtype != DType::F32 || (int64_t)pv.bytes() < kMinBlockedBytes)
    return false;
  const KnownProgram &known = programOf(reader);
  if (!known.valid.ok())
    return false;
  const FusedProgram &p = known.program;
  // Elementwise over the product's elements: any range of it runs alone.
  if (!p.reductions.empty() || p.outputs.empty())
    return false;
  int64_t n = fusedElements(plan, reader, p);
  if (n != numElements(pv.shape))
    return false;
  bool reads = false;
  for (size_t r = 0; r < reader.inputs.size(); ++r)
    if (reader.inputs[r] == product) {
      if (p.inputs[r].mode != FusedProgram::Whole)
        return false;
      reads = true;
    }
  FusedKernelFn kernel = reads ? kernelOf(plan, reader, buffers, p, n) : nullptr;
  if (!kernel)
    return false;
  // A block's outputs must not land where a later block is read from: on
  // the product's operands, or on the product's result other than element
  // over element.
  const uint8_t *result = buffers.ptr[product];
  for (int32_t out : reader.outputs) {
    const uint8_t *o = buffers.ptr[out];
    int64_t bytes = (int64_t)plan.values[out].bytes();
    for (int32_t in : dot.inputs)
      if (overlap(o, bytes, buffers.ptr[in], (int64_t)plan.values[in].bytes()))
        return false;
    if (overlap(o, bytes, result, (int64_t)pv.bytes()) &&
        (o != result || plan.values[out].dtype != DType::F32))
      return false;
  }
  KernelOperands operands = kernelOperands(reader, buffers, reader.outputs.size());
  auto afterBlock = [&](int64_t e0, int64_t e1) {
    parallelRange(
        e1 - e0,
        [&](int64_t b0, int64_t b1) {
          kernel(operands.in, operands.out, nullptr, e0 + b0, e0 + b1);
        },
        e1 - e0);
  };
  return dotGeneralInBlocks(plan, dot, buffers, kBlockBytes, afterBlock);
}

namespace {

/// The tile-program interpreter: runs a Fused step's program tile by tile
/// (or row by row, for a row program) on device buffers, what a step runs
/// before (or without) its compiled kernel.
class TileInterpreter {
public:
  TileInterpreter(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers,
                  const FusedProgram &p, int64_t n)
      : plan(plan), step(step), buffers(buffers), p(p), n(n),
        numRegs((int64_t)(p.inputs.size() + p.instructions.size())),
        rowProgram(p.readsReductions()), tileLen(rowProgram ? p.reductions[0].cols : kTile) {
    // Row reductions accumulate in double, one accumulator per row.
    for (const auto &red : p.reductions)
      acc.emplace_back(n / red.cols, reductionIdentity(red.kind));
    chooseDirectOutput();
    readBy.assign(p.reductions.size(), 0);
    for (const auto &in : p.instructions)
      if (in.op == OpCode::Reduce)
        readBy[in.x] = 1;
    chooseCopiesFirst();
  }

  Status run() {
    // Large chains use the OpenMP threads when OpenBLAS runs on the same
    // OpenMP pool; other threads would fight the BLAS threads that spin
    // between matmuls (measured: slower than one thread).
    int64_t tiles = (n + tileLen - 1) / tileLen;
    auto range = [this](int64_t first, int64_t last) { runTiles(first, last); };
    // Reductions accumulate across tiles: they run on one thread, unless the
    // tiles are rows (a row program), each with its own accumulators.
    if (p.reductions.empty() || rowProgram)
      parallelRange(tiles, range, n);
    else
      runTiles(0, tiles);
    for (size_t k = 0; k < p.reductions.size(); ++k) {
      float *out = (float *)buffers.ptr[step.outputs[p.outputs.size() + k]];
      for (size_t r = 0; r < acc[k].size(); ++r)
        out[r] = (float)acc[k][r];
    }
    return Status::success();
  }

private:
  /// What one thread's tiles work in: scratch registers for broadcast
  /// loads and instruction results, and where each register's values are.
  struct Tile {
    std::vector<float> scratch;
    std::vector<const float *> src;
    /// Per reduction, the register of its first read in this row: a second
    /// read of it takes that value, not a second fold.
    std::vector<int64_t> firstRead;
    float *reg(int64_t r, int64_t tileLen) { return &scratch[r * tileLen]; }
  };

  /// The last instruction, when it is an output, is computed straight into
  /// the output buffer. Only the last: the output may share its buffer with
  /// an input (buffer assignment reuses dying inputs), and no later
  /// instruction of the tile may read that input after it is overwritten.
  /// Only one that computes into a destination: a splat constant stays in
  /// its register, and a reduction's read is filled there, to be copied out
  /// like any other output.
  void chooseDirectOutput() {
    direct.assign(numRegs, -1);
    if (p.instructions.empty() || p.instructions.back().op == OpCode::Constant ||
        p.instructions.back().op == OpCode::Reduce)
      return;
    int64_t last = numRegs - 1;
    for (size_t o = 0; o < p.outputs.size(); ++o)
      if (p.outputs[o] == last && direct[last] < 0 && p.outputType(o) == DType::F32)
        direct[last] = o;
  }

  /// A tile stores its outputs one after another, after its instructions,
  /// then folds the reductions no instruction read. An input read in place
  /// then (an output that is an input as it is, a reduction of one) is
  /// copied first where an output's buffer overlaps it: buffer assignment
  /// gives an output the buffer of an input that dies at the step, and the
  /// output stored before would have overwritten it.
  void chooseCopiesFirst() {
    copyFirst.assign(p.inputs.size(), 0);
    for (size_t r = 0; r < p.inputs.size(); ++r) {
      if (p.inputs[r].mode != FusedProgram::Whole && p.inputs[r].mode != FusedProgram::AlongRows)
        continue; // already copied into its register
      bool readAfter = std::find(p.outputs.begin(), p.outputs.end(), (int64_t)r) != p.outputs.end();
      for (size_t k = 0; k < p.reductions.size(); ++k)
        readAfter |= !readBy[k] && p.reductions[k].reg == (int64_t)r;
      const void *in = buffers.ptr[step.inputs[r]];
      int64_t inBytes = (int64_t)plan.values[step.inputs[r]].bytes();
      for (size_t o = 0; readAfter && o < p.outputs.size(); ++o)
        if (overlap(in, inBytes, buffers.ptr[step.outputs[o]],
                    (int64_t)plan.values[step.outputs[o]].bytes()))
          copyFirst[r] = 1;
    }
  }

  /// A thread's registers: splat constants and scalar inputs are the same
  /// in every tile, filled once.
  Tile newTile() const {
    Tile t{std::vector<float>(numRegs * tileLen), std::vector<const float *>(numRegs),
           std::vector<int64_t>(p.reductions.size())};
    for (size_t k = 0; k < p.instructions.size(); ++k) {
      int64_t r = p.inputs.size() + k;
      t.src[r] = t.reg(r, tileLen);
      if (p.instructions[k].op == OpCode::Constant)
        std::fill(t.reg(r, tileLen), t.reg(r + 1, tileLen), p.instructions[k].value);
    }
    for (size_t r = 0; r < p.inputs.size(); ++r)
      if (p.inputs[r].mode == FusedProgram::Scalar) {
        float v = *(const float *)buffers.ptr[step.inputs[r]];
        std::fill(t.reg(r, tileLen), t.reg(r + 1, tileLen), v);
        t.src[r] = t.reg(r, tileLen);
      }
    return t;
  }

  /// Points each input register at elements [t0, t0 + len) of its input:
  /// in place where they lie in one run, else copied or broadcast into the
  /// register; then copies those an output would overwrite.
  void loadInputs(Tile &t, int64_t t0, int64_t len) const {
    for (size_t r = 0; r < p.inputs.size(); ++r) {
      const float *x = (const float *)buffers.ptr[step.inputs[r]];
      const FusedProgram::Input &in = p.inputs[r];
      if (in.mode == FusedProgram::Scalar)
        continue;
      if (in.mode == FusedProgram::Whole) {
        t.src[r] = x + t0;
        continue;
      }
      float *reg = t.reg(r, tileLen);
      t.src[r] = reg;
      if (in.mode == FusedProgram::AlongRows && t0 % in.cols + len <= in.cols) {
        t.src[r] = x + t0 % in.cols; // the tile lies within one row: no copy
      } else if (in.mode == FusedProgram::AlongRows) {
        // Walk the columns, wrapping at the row's end (no division per element).
        int64_t c = t0 % in.cols;
        for (int64_t i = 0; i < len;) {
          int64_t run = std::min(len - i, in.cols - c);
          std::memcpy(reg + i, x + c, run * sizeof(float));
          i += run;
          c = 0;
        }
      } else {
        int64_t row = t0 / in.cols, c = t0 % in.cols;
        for (int64_t i = 0; i < len;) {
          int64_t run = std::min(len - i, in.cols - c);
          std::fill(reg + i, reg + i + run, x[row]);
          i += run;
          c = 0;
          ++row;
        }
      }
    }
    for (size_t r = 0; r < p.inputs.size(); ++r)
      if (copyFirst[r] && t.src[r] != t.reg(r, tileLen)) {
        std::memcpy(t.reg(r, tileLen), t.src[r], len * sizeof(float));
        t.src[r] = t.reg(r, tileLen);
      }
  }

  /// The instructions on one tile; a Reduce reads its reduction folded
  /// over the tile, which in a row program is one row.
  void runInstructions(Tile &t, int64_t tile, int64_t t0, int64_t len) {
    std::fill(t.firstRead.begin(), t.firstRead.end(), -1);
    for (size_t k = 0; k < p.instructions.size(); ++k) {
      const auto &in = p.instructions[k];
      if (in.op == OpCode::Constant)
        continue;
      int64_t r = p.inputs.size() + k;
      if (in.op == OpCode::Reduce) {
        if (t.firstRead[in.x] >= 0) {
          t.src[r] = t.src[t.firstRead[in.x]];
          continue;
        }
        const auto &red = p.reductions[in.x];
        double &a = acc[in.x][tile];
        foldInto(red.kind, t.src[red.reg], len, a);
        std::fill(t.reg(r, tileLen), t.reg(r, tileLen) + len, (float)a);
        t.src[r] = t.reg(r, tileLen);
        t.firstRead[in.x] = r;
        continue;
      }
      // An output register is computed straight into the output buffer.
      float *dst =
          direct[r] >= 0 ? (float *)buffers.ptr[step.outputs[direct[r]]] + t0 : t.reg(r, tileLen);
      if (in.op == OpCode::Compare)
        compareF32(in.direction, t.src[in.x], t.src[in.y], dst, len);
      else if (in.op == OpCode::Select)
        selectF32(t.src[in.x], t.src[in.y], t.src[in.z], dst, len);
      else
        elementwiseF32(in.op, t.src[in.x], isBinary(in.op) ? t.src[in.y] : t.src[in.x], dst, len);
      t.src[r] = dst;
    }
  }

  /// Stores the tile's outputs (a fused convert at bf16), then folds the
  /// reductions no instruction read into their rows' accumulators.
  void storeOutputs(const Tile &t, int64_t t0, int64_t len) {
    for (size_t o = 0; o < p.outputs.size(); ++o)
      if (p.outputType(o) == DType::BF16) // a fused convert
        toBf16(t.src[p.outputs[o]], (uint16_t *)buffers.ptr[step.outputs[o]] + t0, len);
      else if (direct[p.outputs[o]] != (int64_t)o)
        std::memcpy((float *)buffers.ptr[step.outputs[o]] + t0, t.src[p.outputs[o]],
                    len * sizeof(float));
    for (size_t k = 0; k < p.reductions.size(); ++k) {
      const auto &red = p.reductions[k];
      if (readBy[k])
        continue; // folded where an instruction read it
      const float *v = t.src[red.reg];
      std::vector<double> &a = acc[k];
      int64_t row = t0 / red.cols, c = t0 % red.cols;
      for (int64_t i = 0; i < len;) {
        int64_t run = std::min(len - i, red.cols - c);
        foldInto(red.kind, v + i, run, a[row]);
        i += run;
        c = 0;
        ++row;
      }
    }
  }

  /// Tiles [first, last).
  void runTiles(int64_t first, int64_t last) {
    Tile t = newTile();
    for (int64_t tile = first; tile < last; ++tile) {
      int64_t t0 = tile * tileLen, len = std::min(tileLen, n - t0);
      loadInputs(t, t0, len);
      runInstructions(t, tile, t0, len);
      storeOutputs(t, t0, len);
    }
  }

  const Plan &plan;
  const PlanStep &step;
  DeviceBuffers &buffers;
  const FusedProgram &p;
  const int64_t n, numRegs;
  /// A row program runs row by row: its tiles are rows, and a Reduce
  /// instruction folds its reduction over the row the moment it is read.
  const bool rowProgram;
  const int64_t tileLen;
  std::vector<std::vector<double>> acc;
  std::vector<int64_t> direct; // per register: the output it is computed into, or -1
  std::vector<char> readBy;    // per reduction: whether an instruction reads it
  std::vector<char> copyFirst; // per input: copied before a tile's outputs are stored
};

} // namespace

Status runFused(const Plan &plan, const PlanStep &step, DeviceBuffers &buffers) {
  const KnownProgram &known = programOf(step);
  if (!known.valid.ok())
    return known.valid;
  const FusedProgram &p = known.program;
  int64_t n = fusedElements(plan, step, p);
  if (FusedKernelFn kernel = kernelOf(plan, step, buffers, p, n))
    return runCompiled(plan, step, buffers, p, kernel, n);
  return TileInterpreter(plan, step, buffers, p, n).run();
}

} // namespace shardc::cpu

namespace shardc {

namespace {
std::shared_ptr<FusedKernelCompiler> &installedCompiler() {
  static std::shared_ptr<FusedKernelCompiler> compiler;
  return compiler;
}
std::atomic<FusedKernelCompiler *> currentCompiler{nullptr};
} // namespace

FusedKernelCompiler::~FusedKernelCompiler() = default;

/// Counts installations, so that kernels kept from one compiler are never
/// used after another replaces it (at whatever address).
static std::atomic<uint64_t> compilerGeneration{0};

void setFusedKernelCompiler(std::shared_ptr<FusedKernelCompiler> compiler) {
  currentCompiler.store(compiler.get());
  installedCompiler() = std::move(compiler);
  compilerGeneration.fetch_add(1);
}

FusedKernelCompiler *fusedKernelCompiler() { return currentCompiler.load(); }

uint64_t fusedKernelCompilerGeneration() { return compilerGeneration.load(); }

} // namespace shardc
