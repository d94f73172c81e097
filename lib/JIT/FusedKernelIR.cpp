//===- FusedKernelIR.cpp - LLVM IR for one fused program ------------------===//
//
// The kernel walks [begin, end) in segments that never cross a row (rows
// matter to broadcasts and reductions; a program without them is one
// segment). A segment runs the whole program on vectors of `width` floats,
// then once more under a mask for its last partial vector, so every element
// computes the same instructions and there is no scalar tail. Each register
// is an SSA vector: intermediates never leave the vector registers. A row
// program (one that reads its reductions back) walks row by row instead,
// one pass over the row per reduction it reads: registers a later pass
// needs again wait in a row buffer on the stack. A bf16 output is stored
// rounded by integer arithmetic on the bits.
//
// Results match the tile-program interpreter (CpuFused.cpp): the same IEEE
// operations in the same order, no fast-math, no contraction into FMAs, max
// and min with its NaN and signed-zero rules; exp, log, tanh, erf and pow
// come from libmvec (within a few ulp of libm's). Sums accumulate in double
// like the interpreter's, but lane by lane, so they may round differently in
// the last place; max and min reductions are exact, down to which signed
// zero wins (the first in the row, as the interpreter's std::max picks).
//
//===----------------------------------------------------------------------===//

#include "shardc/JIT/FusedKernelIR.h"
#include "shardc/Runtime/ScalarMath.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <cassert>
#include <map>

using namespace llvm;

namespace shardc::jit {

namespace {

/// The row length a kernel walks segments of: the shortest row length of
/// the broadcasts and reductions, when every other is a multiple of it (so
/// no segment crosses a row of any of them, e.g. a [T,T] mask over
/// [B,H,T,T] scores reduced by rows of T); 0 when none has rows, -1 when
/// they do not nest.
int64_t commonCols(const FusedProgram &p) {
  std::vector<int64_t> all;
  for (const auto &in : p.inputs)
    if (in.mode == FusedProgram::AlongRows || in.mode == FusedProgram::AlongColumns)
      all.push_back(in.cols);
  for (const auto &red : p.reductions)
    all.push_back(red.cols);
  if (all.empty())
    return 0;
  int64_t cols = *std::min_element(all.begin(), all.end());
  for (int64_t c : all)
    if (cols <= 0 || c % cols != 0)
      return -1;
  return cols;
}

class KernelBuilder;

/// What the formulas of OpCodes.def compute with when the JIT instantiates
/// them (scalar::Tanh<JitValue>): a vector of the kernel, or a constant
/// T(c), made a vector when it meets one.
struct JitValue {
  KernelBuilder *k = nullptr;
  Value *v = nullptr;
  double constant = 0;
  explicit JitValue(double c) : constant(c) {}
  JitValue(KernelBuilder *k, Value *v) : k(k), v(v) {}
};
// The vocabulary of ScalarMath.h on vectors; found by argument-dependent
// lookup from the formulas.
JitValue operator-(JitValue x);
JitValue operator+(JitValue x, JitValue y);
JitValue operator-(JitValue x, JitValue y);
JitValue operator*(JitValue x, JitValue y);
JitValue operator/(JitValue x, JitValue y);
JitValue maximum(JitValue x, JitValue y);
JitValue minimum(JitValue x, JitValue y);
#define SHARDC_JIT_DECLARE(fn, ...) JitValue fn(JitValue x);
SHARDC_SCALAR_CALLS(SHARDC_JIT_DECLARE)
SHARDC_SCALAR_INTRINSICS(SHARDC_JIT_DECLARE)
#undef SHARDC_JIT_DECLARE
#define SHARDC_JIT_DECLARE2(fn, ...) JitValue fn(JitValue x, JitValue y);
SHARDC_SCALAR_CALLS2(SHARDC_JIT_DECLARE2)
#undef SHARDC_JIT_DECLARE2
JitValue fmod(JitValue x, JitValue y);

class KernelBuilder {
public:
  KernelBuilder(const FusedProgram &p, const VectorTarget &t, Module &m)
      : p(p), t(t), m(m), ctx(m.getContext()), b(ctx) {
    f32 = b.getFloatTy();
    f64 = b.getDoubleTy();
    i64 = b.getInt64Ty();
    ptr = PointerType::getUnqual(ctx);
    vf = FixedVectorType::get(f32, t.width);
    vd = FixedVectorType::get(f64, t.width);
    cols = commonCols(p);
  }

  void build(const std::string &name) {
    auto *fnTy = FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, i64, i64}, false);
    fn = Function::Create(fnTy, Function::ExternalLinkage, name, m);
    fn->addFnAttr(Attribute::NoUnwind);
    // 512-bit vectors must stay whole: libmvec's AVX-512 variants take zmm
    // registers.
    std::string bits = std::to_string(32 * t.width);
    fn->addFnAttr("min-legal-vector-width", bits);
    fn->addFnAttr("prefer-vector-width", bits);
    Argument *inputs = fn->getArg(0), *outputs = fn->getArg(1), *accs = fn->getArg(2);
    Value *begin = fn->getArg(3), *end = fn->getArg(4);
    for (unsigned a = 0; a < 3; ++a)
      fn->addParamAttr(a, Attribute::ReadOnly);

    BasicBlock *entry = BasicBlock::Create(ctx, "entry", fn);
    b.SetInsertPoint(entry);
    // Buffers, scalar inputs and splat constants: loaded once.
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      Value *base = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, inputs, k), "in");
      inBase.push_back(base);
      inScalar.push_back(p.inputs[k].mode == FusedProgram::Scalar
                             ? b.CreateVectorSplat(t.width, b.CreateLoad(f32, base), "scalar")
                             : nullptr);
    }
    for (size_t o = 0; o < p.outputs.size(); ++o)
      outBase.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, outputs, o), "out"));
    for (size_t k = 0; k < p.reductions.size(); ++k)
      accBase.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, accs, k), "acc"));

    planPhases();
    if (lastPhase < 0) {
      emitRange(begin, end, -1);
      b.CreateRetVoid();
      return;
    }
    // A row program: row by row, one pass over the row per phase; a phase
    // reads the reductions the phases before it completed for the row.
    int64_t rowLen = p.reductions[0].cols;
    rowBuffer.assign(carried.size(), nullptr);
    for (size_t r = 0; r < carried.size(); ++r)
      if (carried[r])
        rowBuffer[r] = b.CreateAlloca(ArrayType::get(f32, rowLen), nullptr, "row.buffer");
    BasicBlock *rowBody = BasicBlock::Create(ctx, "row.body", fn);
    BasicBlock *done = BasicBlock::Create(ctx, "exit", fn);
    PHINode *at = openLoop("row", begin, end, rowBody, done);
    Value *rowEnd = b.CreateAdd(at, b.getInt64(rowLen), "row.end");
    Value *row = b.CreateUDiv(at, b.getInt64(rowLen), "row.index");
    for (int phase = 0; phase <= lastPhase; ++phase) {
      rowValue.assign(p.reductions.size(), nullptr);
      for (size_t k = 0; k < p.reductions.size(); ++k)
        if (phaseOf[p.reductions[k].reg] < phase) { // complete for this row
          Value *a = b.CreateLoad(f64, b.CreateGEP(f64, accBase[k], row));
          rowValue[k] = b.CreateVectorSplat(t.width, b.CreateFPTrunc(a, f32), "row.value");
        }
      emitRange(at, rowEnd, phase);
    }
    at->addIncoming(rowEnd, b.GetInsertBlock());
    b.CreateBr(at->getParent());
    b.SetInsertPoint(done);
    b.CreateRetVoid();
  }

private:
  /// Per register, the pass over a row that can compute it: inputs 0, an
  /// instruction the latest of its operands', a Reduce instruction one past
  /// its reduction's register. lastPhase: -1 for a program that reads no
  /// reduction (one pass over [begin, end)).
  std::vector<int> phaseOf;
  int lastPhase = -1;
  std::vector<Value *> rowValue; // per reduction: its row's result, in this phase
  std::vector<char> needed;      // per register: computed in this phase's pass
  std::vector<size_t> active;    // the reductions this pass accumulates
  bool storeOutputs = true;      // whether this pass stores the outputs
  int currentPhase = -1;
  std::vector<std::vector<char>> neededIn; // per pass, per register
  std::vector<int> computedIn;             // per register: the pass that computes it, or -1
  std::vector<char> carried;               // per register: kept in a row buffer for later passes
  std::vector<Value *> rowBuffer;          // per register: its buffer (carried ones)
  Value *rowOffset = nullptr;              // the segment's first element, from the row's
  /// Row buffers of one kernel call, on its stack.
  static constexpr int64_t kMaxCarriedBytes = int64_t(1) << 17;

  void planPhases() {
    if (!p.readsReductions())
      return;
    phaseOf.assign(p.inputs.size(), 0);
    for (const auto &in : p.instructions) {
      int ph = 0;
      if (in.op == OpCode::Reduce)
        ph = phaseOf[p.reductions[in.x].reg] + 1;
      else if (in.op != OpCode::Constant) {
        ph = phaseOf[in.x];
        if (isBinary(in.op) || in.op == OpCode::Compare || in.op == OpCode::Select)
          ph = std::max(ph, phaseOf[in.y]);
        if (in.op == OpCode::Select)
          ph = std::max(ph, phaseOf[in.z]);
      }
      phaseOf.push_back(ph);
    }
    lastPhase = 0;
    for (int ph : phaseOf)
      lastPhase = std::max(lastPhase, ph);
    planPasses();
  }

  /// Branches to a new loop head, whose index starts at `from` (and takes
  /// its later values from the back edges the caller adds); continues in
  /// `body` while the index is below `to`, else in `exit`. The builder is
  /// left in `body`.
  PHINode *openLoop(const char *name, Value *from, Value *to, BasicBlock *body, BasicBlock *exit) {
    BasicBlock *before = b.GetInsertBlock();
    BasicBlock *head = BasicBlock::Create(ctx, name, fn, body);
    b.CreateBr(head);
    b.SetInsertPoint(head);
    PHINode *at = b.CreatePHI(i64, 2, name);
    at->addIncoming(from, before);
    b.CreateCondBr(b.CreateICmpSLT(at, to), body, exit);
    b.SetInsertPoint(body);
    return at;
  }

  /// Which registers the pass of `phase` computes: those its reductions and
  /// (in the last pass, which stores every output, after every read of the
  /// inputs) its outputs need; a Reduce instruction's register is the row's
  /// result, not computed again. Phase -1: everything.
  void selectPhase(int phase) {
    size_t numRegs = p.inputs.size() + p.instructions.size();
    active.clear();
    storeOutputs = phase < 0 || phase == lastPhase;
    currentPhase = phase;
    if (phase < 0) {
      needed.assign(numRegs, 1);
      for (size_t k = 0; k < p.reductions.size(); ++k)
        active.push_back(k);
      return;
    }
    needed = neededIn[phase];
    for (size_t k = 0; k < p.reductions.size(); ++k)
      if (phaseOf[p.reductions[k].reg] == phase)
        active.push_back(k);
  }

  /// Per pass, the registers it computes (or reads back): those its
  /// reductions and (in the last pass, which stores every output, after
  /// every read of the inputs) its outputs need. A register an earlier pass
  /// computed is kept in a row buffer rather than computed again (an exp is
  /// dear), while the buffers stay small; Reduce instructions' registers
  /// are the row's results.
  void planPasses() {
    size_t numRegs = p.inputs.size() + p.instructions.size(), nIn = p.inputs.size();
    int64_t rowLen = p.reductions[0].cols;
    computedIn.assign(numRegs, -1);
    carried.assign(numRegs, 0);
    int64_t carriedBytes = 0;
    neededIn.assign(lastPhase + 1, std::vector<char>(numRegs, 0));
    for (int phase = 0; phase <= lastPhase; ++phase) {
      std::vector<char> &need = neededIn[phase];
      std::vector<int64_t> work;
      for (const auto &red : p.reductions)
        if (phaseOf[red.reg] == phase)
          work.push_back(red.reg);
      if (phase == lastPhase)
        work.insert(work.end(), p.outputs.begin(), p.outputs.end());
      while (!work.empty()) {
        int64_t r = work.back();
        work.pop_back();
        if (need[r])
          continue;
        need[r] = 1;
        if (r < (int64_t)nIn)
          continue;
        const auto &in = p.instructions[r - nIn];
        if (in.op == OpCode::Constant || in.op == OpCode::Reduce)
          continue;
        if (computedIn[r] >= 0 && (carried[r] || carriedBytes + rowLen * 4 <= kMaxCarriedBytes)) {
          carriedBytes += carried[r] ? 0 : rowLen * 4;
          carried[r] = 1; // read back from the pass that computed it
          continue;
        }
        work.push_back(in.x);
        if (isBinary(in.op) || in.op == OpCode::Compare || in.op == OpCode::Select)
          work.push_back(in.y);
        if (in.op == OpCode::Select)
          work.push_back(in.z);
      }
      for (size_t r = nIn; r < numRegs; ++r)
        if (need[r] && computedIn[r] < 0)
          computedIn[r] = phase;
    }
  }

  /// The program over elements [begin, end) in segments that never cross a
  /// row, for the pass of `phase` (-1: the whole program); leaves the
  /// builder after it.
  void emitRange(Value *begin, Value *end, int phase) {
    selectPhase(phase);
    BasicBlock *segBody = BasicBlock::Create(ctx, "segment.body", fn);
    BasicBlock *vecHead = BasicBlock::Create(ctx, "vector", fn);
    BasicBlock *vecBody = BasicBlock::Create(ctx, "vector.body", fn);
    BasicBlock *tailCheck = BasicBlock::Create(ctx, "tail.check", fn);
    BasicBlock *tailBody = BasicBlock::Create(ctx, "tail", fn);
    BasicBlock *segDone = BasicBlock::Create(ctx, "segment.done", fn);
    BasicBlock *exit = BasicBlock::Create(ctx, "range.done", fn);
    // segment: i = begin, then the previous segment's end.
    PHINode *i = openLoop("segment", begin, end, segBody, exit);

    // segment.body: the row of i and where the segment ends.
    Value *segEnd = end;
    rowOf.clear();
    colOf.clear();
    if (cols > 0) {
      Value *row = b.CreateUDiv(i, b.getInt64(cols), "row");
      Value *rowEnd = b.CreateMul(b.CreateAdd(row, b.getInt64(1)), b.getInt64(cols));
      segEnd = b.CreateSelect(b.CreateICmpSLT(rowEnd, end), rowEnd, end, "segment.end");
    }
    // Rows of every length in use: the segment lies inside one of each.
    auto rowFor = [&](int64_t c) {
      auto it = rowOf.find(c);
      if (it != rowOf.end())
        return it->second;
      Value *r = b.CreateUDiv(i, b.getInt64(c), "row");
      colOf[c] = b.CreateSub(i, b.CreateMul(r, b.getInt64(c)), "col");
      return rowOf[c] = r;
    };
    Value *len = b.CreateSub(segEnd, i, "len");
    rowOffset =
        b.CreateSub(i, begin, "row.offset"); // for row buffers (a row program's range is a row)
    // Per input: where the segment's elements start, or its one value.
    seg.assign(p.inputs.size(), nullptr);
    segSplat.assign(p.inputs.size(), nullptr);
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      switch (p.inputs[k].mode) {
      case FusedProgram::Whole:
        seg[k] = b.CreateGEP(f32, inBase[k], i);
        break;
      case FusedProgram::AlongRows:
        rowFor(p.inputs[k].cols);
        seg[k] = b.CreateGEP(f32, inBase[k], colOf[p.inputs[k].cols]);
        break;
      case FusedProgram::AlongColumns:
        segSplat[k] = b.CreateVectorSplat(
            t.width, b.CreateLoad(f32, b.CreateGEP(f32, inBase[k], rowFor(p.inputs[k].cols))),
            "column");
        break;
      case FusedProgram::Scalar:
        segSplat[k] = inScalar[k];
        break;
      }
    }
    std::vector<Value *> redRow;
    for (size_t k : active)
      redRow.push_back(rowFor(p.reductions[k].cols));
    outSeg.clear();
    for (size_t o = 0; o < outBase.size(); ++o)
      outSeg.push_back(
          b.CreateGEP(p.outputType(o) == DType::BF16 ? b.getInt16Ty() : f32, outBase[o], i));
    b.CreateBr(vecHead);

    // vector: j steps by width while a whole vector fits.
    b.SetInsertPoint(vecHead);
    PHINode *j = b.CreatePHI(i64, 2, "j");
    j->addIncoming(b.getInt64(0), segBody);
    std::vector<PHINode *> accPhi, zeroPhi;
    for (size_t k : active) {
      const auto &red = p.reductions[k];
      accPhi.push_back(b.CreatePHI(red.kind == Reduction::Sum ? (Type *)vd : vf, 2, "lanes"));
      accPhi.back()->addIncoming(identityVector(red.kind), segBody);
      zeroPhi.push_back(b.CreatePHI(b.getInt32Ty(), 2, "first.zero"));
      zeroPhi.back()->addIncoming(b.getInt32(0), segBody);
    }
    Value *next = b.CreateAdd(j, b.getInt64(t.width), "j.next");
    b.CreateCondBr(b.CreateICmpSLE(next, len), vecBody, tailCheck);

    b.SetInsertPoint(vecBody);
    std::vector<Value *> accIn(accPhi.begin(), accPhi.end()),
        zeroIn(zeroPhi.begin(), zeroPhi.end());
    State full = body(j, nullptr, accIn, zeroIn);
    j->addIncoming(next, b.GetInsertBlock());
    for (size_t k = 0; k < accPhi.size(); ++k) {
      accPhi[k]->addIncoming(full.lanes[k], b.GetInsertBlock());
      zeroPhi[k]->addIncoming(full.firstZero[k], b.GetInsertBlock());
    }
    b.CreateBr(vecHead);

    // tail: the last partial vector, masked.
    b.SetInsertPoint(tailCheck);
    Value *rem = b.CreateSub(len, j, "rem");
    b.CreateCondBr(b.CreateICmpSGT(rem, b.getInt64(0)), tailBody, segDone);
    b.SetInsertPoint(tailBody);
    std::vector<Constant *> lanes;
    for (int l = 0; l < t.width; ++l)
      lanes.push_back(b.getInt64(l));
    Value *mask =
        b.CreateICmpSLT(ConstantVector::get(lanes), b.CreateVectorSplat(t.width, rem), "mask");
    State tail = body(j, mask, accIn, zeroIn);
    BasicBlock *tailEnd = b.GetInsertBlock();
    b.CreateBr(segDone);

    // segment.done: fold the lanes and combine them into the row's
    // accumulator, in element order.
    b.SetInsertPoint(segDone);
    std::vector<PHINode *> lanesDone, zeroDone;
    for (size_t k = 0; k < active.size(); ++k) {
      lanesDone.push_back(b.CreatePHI(accPhi[k]->getType(), 2));
      lanesDone.back()->addIncoming(accPhi[k], tailCheck);
      lanesDone.back()->addIncoming(tail.lanes[k], tailEnd);
      zeroDone.push_back(b.CreatePHI(b.getInt32Ty(), 2));
      zeroDone.back()->addIncoming(zeroPhi[k], tailCheck);
      zeroDone.back()->addIncoming(tail.firstZero[k], tailEnd);
    }
    for (size_t k = 0; k < active.size(); ++k) {
      const auto &red = p.reductions[active[k]];
      Value *l = lanesDone[k], *z = zeroDone[k];
      Value *slot = b.CreateGEP(f64, accBase[active[k]], redRow[k]);
      Value *old = b.CreateLoad(f64, slot);
      Value *updated;
      if (red.kind == Reduction::Sum) {
        Value *sum = b.CreateFAddReduce(ConstantFP::getNegativeZero(f64), l);
        updated = b.CreateFAdd(old, sum);
      } else {
        Value *v = b.CreateExtractElement(l, (uint64_t)0);
        for (int lane = 1; lane < t.width; ++lane)
          v = combine(red.kind, v, b.CreateExtractElement(l, (uint64_t)lane));
        // A zero result is the row's first zero: +0 (1) or -0 (2).
        Value *isZero = b.CreateFCmpOEQ(v, ConstantFP::get(f32, 0.0));
        Value *zero = b.CreateSelect(b.CreateICmpEQ(z, b.getInt32(2)),
                                     ConstantFP::getNegativeZero(f32), ConstantFP::get(f32, 0.0));
        v = b.CreateSelect(isZero, zero, v);
        updated = combine(red.kind, old, b.CreateFPExt(v, f64));
      }
      b.CreateStore(updated, slot);
    }
    i->addIncoming(segEnd, segDone);
    b.CreateBr(i->getParent());

    b.SetInsertPoint(exit);
  }

  // The vocabulary of the formulas builds with the builder's instructions.
  friend JitValue operator-(JitValue);
  friend JitValue operator+(JitValue, JitValue);
  friend JitValue operator-(JitValue, JitValue);
  friend JitValue operator*(JitValue, JitValue);
  friend JitValue operator/(JitValue, JitValue);
  friend JitValue maximum(JitValue, JitValue);
  friend JitValue minimum(JitValue, JitValue);
#define SHARDC_JIT_FRIEND(fn, ...) friend JitValue fn(JitValue);
  SHARDC_SCALAR_CALLS(SHARDC_JIT_FRIEND)
  SHARDC_SCALAR_INTRINSICS(SHARDC_JIT_FRIEND)
#undef SHARDC_JIT_FRIEND
#define SHARDC_JIT_FRIEND2(fn, ...) friend JitValue fn(JitValue, JitValue);
  SHARDC_SCALAR_CALLS2(SHARDC_JIT_FRIEND2)
#undef SHARDC_JIT_FRIEND2
  friend JitValue fmod(JitValue, JitValue);

  struct State {
    std::vector<Value *> lanes, firstZero;
  };

  const FusedProgram &p;
  VectorTarget t;
  Module &m;
  LLVMContext &ctx;
  IRBuilder<> b;
  Type *f32, *f64, *i64, *ptr;
  FixedVectorType *vf, *vd;
  int64_t cols;
  Function *fn = nullptr;
  std::vector<Value *> inBase, inScalar, outBase, accBase, seg, segSplat, outSeg;
  std::map<int64_t, Value *> rowOf, colOf; // per row length, in the current segment

  Constant *splat(Type *elem, double v) {
    return ConstantVector::getSplat(ElementCount::getFixed(t.width), ConstantFP::get(elem, v));
  }

  Constant *identityVector(Reduction kind) {
    if (kind == Reduction::Sum)
      return splat(f64, 0.0);
    return ConstantVector::getSplat(
        ElementCount::getFixed(t.width),
        ConstantFP::getInfinity(f32, /*Negative=*/kind == Reduction::Max));
  }

  /// The interpreter's max / min: NaN if either is NaN, else the new value
  /// only when strictly greater (smaller), so ties keep the first.
  Value *combine(Reduction kind, Value *acc, Value *x) {
    Value *nan = ConstantFP::getNaN(acc->getType());
    Value *better = kind == Reduction::Max ? b.CreateFCmpOGT(x, acc) : b.CreateFCmpOLT(x, acc);
    return b.CreateSelect(b.CreateFCmpUNO(acc, x), nan, b.CreateSelect(better, x, acc));
  }

  /// `x` as a vector of the kernel (a constant splat).
  Value *vector(const JitValue &x);

  Value *maxMin(OpCode op, Value *x, Value *z) {
    Value *nan = ConstantFP::getNaN(x->getType());
    Value *pick = op == OpCode::Max ? b.CreateFCmpOGT(x, z) : b.CreateFCmpOLT(x, z);
    return b.CreateSelect(b.CreateFCmpUNO(x, z), nan, b.CreateSelect(pick, x, z));
  }

  /// `v` rounded to bf16 (nearest even; a NaN stays a quiet NaN), as the
  /// runtime's floatToBF16 rounds: integer arithmetic on the bits, so that
  /// subnormals round as they are (vcvtneps2bf16 would flush them).
  Value *toBf16(Value *v) {
    auto *vi = FixedVectorType::get(b.getInt32Ty(), t.width);
    auto ints = [&](uint32_t c) {
      return ConstantVector::getSplat(ElementCount::getFixed(t.width), b.getInt32(c));
    };
    Value *bits = b.CreateBitCast(v, vi);
    Value *high = b.CreateLShr(bits, ints(16));
    Value *even = b.CreateAnd(high, ints(1));
    Value *rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(bits, ints(0x7fff)), even), ints(16));
    Value *nan = b.CreateOr(high, ints(0x40));
    Value *r = b.CreateSelect(b.CreateFCmpUNO(v, v), nan, rounded);
    return b.CreateTrunc(r, FixedVectorType::get(b.getInt16Ty(), t.width));
  }

  /// libmvec's variant of `fn` for this width, e.g. _ZGVeN16v_expf. exp
  /// below -104 is 0 (exp(-104) < 2^-150, half the least subnormal, rounds
  /// to 0): those lanes skip libmvec, whose vector exp takes a scalar path
  /// for a whole vector when a lane is out of its range, as a causal mask's
  /// -1e9 is (five times slower). NaN is below nothing: it still reaches expf.
  Value *vectorCall(const char *fnName, std::vector<Value *> args) {
    if (std::string(fnName) != "expf")
      return libmvecCall(fnName, std::move(args));
    Value *under = b.CreateFCmpOLT(args[0], splat(f32, -104.0));
    Value *r = libmvecCall(fnName, {b.CreateSelect(under, splat(f32, 0.0), args[0])});
    return b.CreateSelect(under, splat(f32, 0.0), r);
  }

  Value *libmvecCall(const char *fnName, std::vector<Value *> args) {
    std::string name = std::string("_ZGV") + t.isa + "N" + std::to_string(t.width) +
                       std::string(args.size(), 'v') + "_" + fnName;
    std::vector<Type *> params(args.size(), vf);
    FunctionCallee callee = m.getOrInsertFunction(name, FunctionType::get(vf, params, false));
    if (auto *f = dyn_cast<Function>(callee.getCallee())) {
      f->addFnAttr(Attribute::NoUnwind);
      f->setDoesNotAccessMemory();
      f->addFnAttr("min-legal-vector-width", std::to_string(32 * t.width));
    }
    CallInst *call = b.CreateCall(callee, args);
    call->setDoesNotAccessMemory();
    return call;
  }

  Value *load(size_t k, Value *j, Value *mask) {
    if (segSplat[k])
      return segSplat[k];
    Value *at = b.CreateGEP(f32, seg[k], j);
    if (!mask)
      return b.CreateAlignedLoad(vf, at, Align(4));
    // Lanes past the segment read 1.0: harmless for every op.
    return b.CreateMaskedLoad(vf, at, Align(4), mask, splat(f32, 1.0));
  }

  /// One vector of the program at segment offset j (masked when `mask`).
  State body(Value *j, Value *mask, const std::vector<Value *> &accIn,
             const std::vector<Value *> &zeroIn) {
    std::vector<Value *> reg;
    for (size_t k = 0; k < p.inputs.size(); ++k)
      reg.push_back(needed[k] ? load(k, j, mask) : nullptr);
    for (const auto &in : p.instructions) {
      if (!needed[reg.size()]) {
        reg.push_back(nullptr);
        continue;
      }
      if (in.op == OpCode::Reduce) {
        reg.push_back(rowValue[in.x]);
        continue;
      }
      size_t self = reg.size();
      if (currentPhase >= 0 && carried[self] && computedIn[self] < currentPhase) {
        Value *at = b.CreateGEP(f32, rowBuffer[self], b.CreateAdd(rowOffset, j));
        reg.push_back(mask ? (Value *)b.CreateMaskedLoad(vf, at, Align(4), mask, splat(f32, 1.0))
                           : (Value *)b.CreateAlignedLoad(vf, at, Align(4)));
        continue;
      }
      Value *x = in.op == OpCode::Constant ? nullptr : reg[in.x];
      Value *z = isBinary(in.op) || in.op == OpCode::Compare || in.op == OpCode::Select ? reg[in.y]
                                                                                        : nullptr;
      Value *r = nullptr;
      switch (in.op) {
      case OpCode::Constant:
        r = splat(f32, in.value);
        break;
#define SHARDC_UNARY(Name, ...)                                                                    \
  case OpCode::Name:                                                                               \
    r = scalar::Name(JitValue(this, x)).v;                                                         \
    break;
#define SHARDC_BINARY(Name, ...)                                                                   \
  case OpCode::Name:                                                                               \
    r = scalar::Name(JitValue(this, x), JitValue(this, z)).v;                                      \
    break;
#include "shardc/Common/OpCodes.def"
      case OpCode::Compare: {
        // Ordered compares, except != (true when either is NaN), as in C.
        static const CmpInst::Predicate preds[] = {CmpInst::FCMP_OEQ, CmpInst::FCMP_UNE,
                                                   CmpInst::FCMP_OLT, CmpInst::FCMP_OLE,
                                                   CmpInst::FCMP_OGT, CmpInst::FCMP_OGE};
        r = b.CreateSelect(b.CreateFCmp(preds[in.direction], x, z), splat(f32, 1.0),
                           splat(f32, 0.0));
        break;
      }
      case OpCode::Select:
        r = b.CreateSelect(b.CreateFCmpUNE(x, splat(f32, 0.0)), z, reg[in.z]);
        break;
      default:
        r = splat(f32, 0.0);
        break; // excluded by unsupportedReason
      }
      if (currentPhase >= 0 && carried[reg.size()] && computedIn[reg.size()] == currentPhase) {
        Value *at = b.CreateGEP(f32, rowBuffer[reg.size()], b.CreateAdd(rowOffset, j));
        if (mask)
          b.CreateMaskedStore(r, at, Align(4), mask);
        else
          b.CreateAlignedStore(r, at, Align(4));
      }
      reg.push_back(r);
    }
    for (size_t o = 0; storeOutputs && o < p.outputs.size(); ++o) {
      if (p.outputType(o) == DType::BF16) {
        Value *at = b.CreateGEP(b.getInt16Ty(), outSeg[o], j);
        Value *h = toBf16(reg[p.outputs[o]]);
        if (mask)
          b.CreateMaskedStore(h, at, Align(2), mask);
        else
          b.CreateAlignedStore(h, at, Align(2));
        continue;
      }
      Value *at = b.CreateGEP(f32, outSeg[o], j);
      if (mask)
        b.CreateMaskedStore(reg[p.outputs[o]], at, Align(4), mask);
      else
        b.CreateAlignedStore(reg[p.outputs[o]], at, Align(4));
    }
    State s;
    for (size_t a = 0; a < active.size(); ++a) {
      size_t k = a;
      const auto &red = p.reductions[active[a]];
      Value *v = reg[red.reg];
      if (mask)
        v = b.CreateSelect(mask, v,
                           red.kind == Reduction::Sum ? splat(f32, 0.0) : identityVector(red.kind));
      if (red.kind == Reduction::Sum) {
        s.lanes.push_back(b.CreateFAdd(accIn[k], b.CreateFPExt(v, vd)));
        s.firstZero.push_back(zeroIn[k]);
        continue;
      }
      s.lanes.push_back(combine(red.kind, accIn[k], v));
      // The first zero of the segment, should the row's max (min) be zero.
      Value *zeros = b.CreateFCmpOEQ(v, splat(f32, 0.0));
      Value *bits = b.CreateBitCast(zeros, b.getIntNTy(t.width));
      Value *lane = b.CreateIntrinsic(Intrinsic::cttz, {bits->getType()}, {bits, b.getTrue()});
      Value *first = b.CreateExtractElement(v, lane);
      Value *sign = b.CreateICmpSLT(b.CreateBitCast(first, b.getInt32Ty()), b.getInt32(0));
      Value *code = b.CreateSelect(sign, b.getInt32(2), b.getInt32(1));
      Value *none = b.CreateICmpEQ(zeroIn[k], b.getInt32(0));
      Value *found = b.CreateICmpNE(bits, ConstantInt::get(bits->getType(), 0));
      s.firstZero.push_back(b.CreateSelect(b.CreateAnd(none, found), code, zeroIn[k]));
    }
    return s;
  }
};

Value *KernelBuilder::vector(const JitValue &x) {
  return x.v ? x.v : splat(f32, (float)x.constant);
}

KernelBuilder &builderOf(const JitValue &x, const JitValue &y) {
  assert((x.k || y.k) && "a formula of constants only");
  return *(x.k ? x.k : y.k);
}

JitValue operator-(JitValue x) { return {x.k, x.k->b.CreateFNeg(x.k->vector(x))}; }
#define SHARDC_JIT_OPERATOR(op, create)                                                            \
  JitValue operator op(JitValue x, JitValue y) {                                                   \
    KernelBuilder &k = builderOf(x, y);                                                            \
    return {&k, k.b.create(k.vector(x), k.vector(y))};                                             \
  }
SHARDC_JIT_OPERATOR(+, CreateFAdd)
SHARDC_JIT_OPERATOR(-, CreateFSub)
SHARDC_JIT_OPERATOR(*, CreateFMul)
SHARDC_JIT_OPERATOR(/, CreateFDiv)
#undef SHARDC_JIT_OPERATOR
JitValue maximum(JitValue x, JitValue y) {
  KernelBuilder &k = builderOf(x, y);
  return {&k, k.maxMin(OpCode::Max, k.vector(x), k.vector(y))};
}
JitValue minimum(JitValue x, JitValue y) {
  KernelBuilder &k = builderOf(x, y);
  return {&k, k.maxMin(OpCode::Min, k.vector(x), k.vector(y))};
}
#define SHARDC_JIT_CALL(fn, f32, f64)                                                              \
  JitValue fn(JitValue x) { return {x.k, x.k->vectorCall(#f32, {x.k->vector(x)})}; }
SHARDC_SCALAR_CALLS(SHARDC_JIT_CALL)
#undef SHARDC_JIT_CALL
#define SHARDC_JIT_INTRINSIC(fn, f32, f64, intrinsic)                                              \
  JitValue fn(JitValue x) {                                                                        \
    return {x.k, x.k->b.CreateUnaryIntrinsic(Intrinsic::intrinsic, x.k->vector(x))};               \
  }
SHARDC_SCALAR_INTRINSICS(SHARDC_JIT_INTRINSIC)
#undef SHARDC_JIT_INTRINSIC
#define SHARDC_JIT_CALL2(fn, f32, f64)                                                             \
  JitValue fn(JitValue x, JitValue y) {                                                            \
    KernelBuilder &k = builderOf(x, y);                                                            \
    return {&k, k.vectorCall(#f32, {k.vector(x), k.vector(y)})};                                   \
  }
SHARDC_SCALAR_CALLS2(SHARDC_JIT_CALL2)
#undef SHARDC_JIT_CALL2
// frem: LLVM lowers it per lane to the C library's fmodf.
JitValue fmod(JitValue x, JitValue y) {
  KernelBuilder &k = builderOf(x, y);
  return {&k, k.b.CreateFRem(k.vector(x), k.vector(y))};
}

} // namespace

std::string unsupportedReason(const FusedProgram &program) {
  if (commonCols(program) < 0)
    return "broadcasts or reductions over rows whose lengths do not nest";
  for (const auto &in : program.instructions)
    if (in.op != OpCode::Constant && !isUnary(in.op) && !isBinary(in.op) &&
        in.op != OpCode::Compare && in.op != OpCode::Select && in.op != OpCode::Reduce)
      return std::string("opcode ") + opCodeName(in.op);
  return "";
}

std::unique_ptr<Module> buildFusedKernelIR(const FusedProgram &program, const VectorTarget &target,
                                           LLVMContext &context, const std::string &name) {
  auto module = std::make_unique<Module>("shardc.fused", context);
  KernelBuilder(program, target, *module).build(name);
  return module;
}

} // namespace shardc::jit
