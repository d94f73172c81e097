//===- Plan.cpp - the executable plan -------------------------------------===//

#include "shardc/Runtime/Plan.h"

#include "PlanFields.h"

#include <algorithm>
#include <atomic>
#include <tuple>

#include <cstring>
#include <string>

namespace shardc {

std::vector<int64_t> DotGeneralDims::encode(const std::vector<int64_t> &lhsBatching,
                                            const std::vector<int64_t> &rhsBatching,
                                            const std::vector<int64_t> &lhsContracting,
                                            const std::vector<int64_t> &rhsContracting,
                                            MatmulPrecision precision) {
  std::vector<int64_t> ints = {(int64_t)lhsBatching.size(), (int64_t)lhsContracting.size()};
  for (const std::vector<int64_t> *list :
       {&lhsBatching, &rhsBatching, &lhsContracting, &rhsContracting})
    ints.insert(ints.end(), list->begin(), list->end());
  if (precision != MatmulPrecision::F32)
    ints.push_back((int64_t)precision);
  return ints;
}

std::string DotGeneralDims::check(const std::vector<int64_t> &ints, const Shape &lhs,
                                  const Shape &rhs) {
  if (ints.size() < 2 || ints[0] < 0 || ints[1] < 0 || (size_t)ints[0] > ints.size() ||
      (size_t)ints[1] > ints.size())
    return "its attribute numbers do not encode batching and contracting dims";
  size_t nb = (size_t)ints[0], nc = (size_t)ints[1], lists = 2 + 2 * nb + 2 * nc;
  if (ints.size() != lists && ints.size() != lists + 1)
    return "its attribute numbers do not encode batching and contracting dims";
  // An optional last number: the products' precision.
  int64_t precision = ints.size() == lists + 1 ? ints.back() : 0;
  if (precision < 0 || precision > (int64_t)MatmulPrecision::TF32)
    return "its precision " + std::to_string(precision) + " is none of 0 (f32), 1 (bf16), 2 (tf32)";
  auto list = [&](size_t from, size_t n) {
    return std::vector<int64_t>(ints.begin() + from, ints.begin() + from + n);
  };
  // Each operand's batching, then contracting dimensions: in range, none
  // twice, each paired with one of the other operand's size.
  std::vector<int64_t> l = list(2, nb), r = list(2 + nb, nb), lc = list(2 + 2 * nb, nc),
                       rc = list(2 + 2 * nb + nc, nc);
  l.insert(l.end(), lc.begin(), lc.end());
  r.insert(r.end(), rc.begin(), rc.end());
  for (auto [dims, shape, what] : {std::tuple{&l, &lhs, "the lhs"}, {&r, &rhs, "the rhs"}}) {
    std::vector<int64_t> seen;
    for (int64_t d : *dims) {
      if (d < 0 || d >= (int64_t)shape->size() ||
          std::find(seen.begin(), seen.end(), d) != seen.end())
        return std::string(what) + " has dimension " + std::to_string(d) +
               ", out of range for rank " + std::to_string(shape->size()) + " or repeated";
      seen.push_back(d);
    }
  }
  for (size_t i = 0; i < l.size(); ++i)
    if (lhs[l[i]] != rhs[r[i]])
      return "lhs dimension " + std::to_string(l[i]) + " and rhs dimension " +
             std::to_string(r[i]) + " differ in size";
  return "";
}

DotGeneralDims DotGeneralDims::decode(const std::vector<int64_t> &ints, const Shape &lhs,
                                      const Shape &rhs) {
  DotGeneralDims d;
  size_t nb = ints[0], nc = ints[1];
  auto range = [&](size_t from, size_t n) {
    return std::vector<int64_t>(ints.begin() + from, ints.begin() + from + n);
  };
  d.lhsBatching = range(2, nb);
  d.rhsBatching = range(2 + nb, nb);
  d.lhsContracting = range(2 + 2 * nb, nc);
  d.rhsContracting = range(2 + 2 * nb + nc, nc);
  auto freeDims = [](int64_t rank, const std::vector<int64_t> &a, const std::vector<int64_t> &c) {
    std::vector<int64_t> f;
    for (int64_t i = 0; i < rank; ++i)
      if (std::find(a.begin(), a.end(), i) == a.end() &&
          std::find(c.begin(), c.end(), i) == c.end())
        f.push_back(i);
    return f;
  };
  d.lhsFree = freeDims((int64_t)lhs.size(), d.lhsBatching, d.lhsContracting);
  d.rhsFree = freeDims((int64_t)rhs.size(), d.rhsBatching, d.rhsContracting);
  for (int64_t i : d.lhsBatching)
    d.B *= lhs[i];
  for (int64_t i : d.lhsFree)
    d.M *= lhs[i];
  for (int64_t i : d.rhsFree)
    d.N *= rhs[i];
  for (int64_t i : d.lhsContracting)
    d.K *= lhs[i];
  if (ints.size() > 2 + 2 * nb + 2 * nc)
    d.precision = (MatmulPrecision)ints.back();
  return d;
}

uint64_t Plan::newId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

std::vector<int64_t> FusedProgram::encode() const {
  std::vector<int64_t> ints = {(int64_t)inputs.size()};
  for (const Input &in : inputs) {
    ints.push_back(in.mode);
    ints.push_back(in.cols);
  }
  ints.push_back((int64_t)instructions.size());
  for (const Instruction &i : instructions) {
    uint32_t bits;
    std::memcpy(&bits, &i.value, 4);
    ints.insert(ints.end(), {(int64_t)i.op, i.x, i.y, (int64_t)bits,
                             i.op == OpCode::Compare ? i.direction : i.z});
  }
  ints.push_back((int64_t)outputs.size());
  ints.insert(ints.end(), outputs.begin(), outputs.end());
  ints.push_back((int64_t)reductions.size());
  for (const RowReduction &r : reductions)
    ints.insert(ints.end(), {r.reg, (int64_t)r.kind, r.cols});
  if (!outputTypes.empty()) {
    ints.push_back((int64_t)outputTypes.size());
    for (DType t : outputTypes)
      ints.push_back((int64_t)t);
  }
  return ints;
}

Status FusedProgram::validate(size_t numInputs, size_t numOutputs) const {
  auto bad = [](const std::string &why) {
    return Status::error("malformed fused program: " + why);
  };
  if (inputs.size() != numInputs)
    return bad("it loads " + std::to_string(inputs.size()) + " inputs, the step has " +
               std::to_string(numInputs));
  if (outputs.size() + reductions.size() != numOutputs || numOutputs == 0)
    return bad("it makes " + std::to_string(outputs.size() + reductions.size()) +
               " outputs, the step has " + std::to_string(numOutputs));
  // A broadcast input's row length divides the elements; whole and scalar
  // loads never read theirs.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input &in = inputs[i];
    if (in.mode < Whole || in.mode > Scalar)
      return bad("input " + std::to_string(i) + " has load mode " + std::to_string(in.mode));
    if ((in.mode == AlongRows || in.mode == AlongColumns) && in.cols <= 0)
      return bad("input " + std::to_string(i) + " has row length " + std::to_string(in.cols));
  }
  // Every field is input: those an op does not read must be zero, so no
  // kernel (interpreted, JIT-compiled or CUDA) meets a stray register.
  for (size_t i = 0; i < instructions.size(); ++i) {
    int64_t defined = (int64_t)(inputs.size() + i);
    const Instruction &in = instructions[i];
    bool unary = isUnary(in.op), binary = isBinary(in.op), compare = in.op == OpCode::Compare,
         select = in.op == OpCode::Select, constant = in.op == OpCode::Constant,
         reduce = in.op == OpCode::Reduce;
    // Named only on the way to an error: validation runs before every
    // fused step, and a well-formed program builds no strings.
    auto what = [&] {
      std::string named = "instruction " + std::to_string(i);
      if (unary || binary || compare || select || constant || reduce)
        named += " (" + std::string(opCodeName(in.op)) + ")";
      return named;
    };
    if (!unary && !binary && !compare && !select && !constant && !reduce)
      return bad(what() + " has opcode " + std::to_string((int64_t)in.op) +
                 ", not an elementwise op");
    if (reduce) {
      // x names a reduction, whose register is computed before.
      if (in.x < 0 || in.x >= (int64_t)reductions.size())
        return bad(what() + " reads reduction " + std::to_string(in.x) + ", of " +
                   std::to_string(reductions.size()));
      if (reductions[in.x].reg < 0 || reductions[in.x].reg >= defined)
        return bad(what() + " reads reduction " + std::to_string(in.x) +
                   ", which reduces register " + std::to_string(reductions[in.x].reg) +
                   ", not defined before it");
      if (in.y != 0 || in.z != 0)
        return bad(what() + " has y or z set, fields its op does not read (must be 0)");
      uint32_t bits;
      std::memcpy(&bits, &in.value, 4);
      if (bits != 0)
        return bad(what() + " has a value, a field its op does not read (must be 0)");
      continue;
    }
    auto fieldWrong = [&](const char *name, int64_t r, bool read) {
      if (read && (r < 0 || r >= defined))
        return bad(what() + " reads register " + std::string(name) + " = " + std::to_string(r) +
                   ", not defined before it");
      return bad(what() + " has " + name + " = " + std::to_string(r) +
                 ", a field its op does not read (must be 0)");
    };
    auto fieldOk = [&](int64_t r, bool read) { return read ? r >= 0 && r < defined : r == 0; };
    if (!fieldOk(in.x, !constant))
      return fieldWrong("x", in.x, !constant);
    if (!fieldOk(in.y, binary || compare || select))
      return fieldWrong("y", in.y, binary || compare || select);
    if (!fieldOk(in.z, select))
      return fieldWrong("z", in.z, select);
    if (compare && (in.direction < 0 || in.direction > 5))
      return bad(what() + " has comparison direction " + std::to_string(in.direction));
    uint32_t bits;
    std::memcpy(&bits, &in.value, 4);
    if (!constant && bits != 0)
      return bad(what() + " has a value, a field its op does not read (must be 0)");
  }
  int64_t numRegs = (int64_t)(inputs.size() + instructions.size());
  if (!outputTypes.empty() && outputTypes.size() != outputs.size())
    return bad("it types " + std::to_string(outputTypes.size()) + " outputs, of " +
               std::to_string(outputs.size()));
  for (size_t o = 0; o < outputTypes.size(); ++o)
    if (outputTypes[o] != DType::F32 && outputTypes[o] != DType::BF16)
      return bad("output " + std::to_string(o) + " has element type " +
                 std::to_string((int64_t)outputTypes[o]) + " (f32 or bf16)");
  for (size_t o = 0; o < outputs.size(); ++o)
    if (outputs[o] < 0 || outputs[o] >= numRegs)
      return bad("output " + std::to_string(o) + " is register " + std::to_string(outputs[o]) +
                 ", of " + std::to_string(numRegs));
  for (size_t k = 0; k < reductions.size(); ++k) {
    const RowReduction &red = reductions[k];
    if (red.reg < 0 || red.reg >= numRegs)
      return bad("reduction " + std::to_string(k) + " reads register " + std::to_string(red.reg) +
                 ", of " + std::to_string(numRegs));
    if ((int64_t)red.kind < 0 || (int64_t)red.kind > 2)
      return bad("reduction " + std::to_string(k) + " has kind " +
                 std::to_string((int64_t)red.kind) + " (sum, max or min: 0 to 2)");
    if (red.cols <= 0)
      return bad("reduction " + std::to_string(k) + " has row length " + std::to_string(red.cols));
    // A row program's kernels hold each of its registers for a whole row.
    if (readsReductions() && red.cols > kMaxRowProgramCols)
      return bad("reduction " + std::to_string(k) + " has rows of " + std::to_string(red.cols) +
                 ", longer than a row program's " + std::to_string(kMaxRowProgramCols));
    if (readsReductions() && red.cols != reductions[0].cols)
      return bad("reduction " + std::to_string(k) + " has row length " + std::to_string(red.cols) +
                 ", and reduction 0 " + std::to_string(reductions[0].cols) +
                 ": the reductions of a row program share one row length");
  }
  return Status::success();
}

bool FusedProgram::readsReductions() const {
  for (const Instruction &in : instructions)
    if (in.op == OpCode::Reduce)
      return true;
  return false;
}

FusedProgram FusedProgram::decode(const std::vector<int64_t> &ints) {
  FusedProgram p;
  size_t k = 0;
  // Counts are trusted no further than the numbers that follow them: a
  // malformed encoding decodes to a program that encodes differently.
  auto next = [&]() { return k < ints.size() ? ints[k++] : 0; };
  auto more = [&] { return k < ints.size(); };
  for (int64_t n = next(), i = 0; i < n && more(); ++i) {
    LoadMode mode = (LoadMode)next();
    p.inputs.push_back({mode, next()});
  }
  for (int64_t n = next(), i = 0; i < n && more(); ++i) {
    Instruction in;
    in.op = (OpCode)next();
    in.x = next();
    in.y = next();
    uint32_t bits = (uint32_t)next();
    std::memcpy(&in.value, &bits, 4);
    (in.op == OpCode::Compare ? in.direction : in.z) = next();
    p.instructions.push_back(in);
  }
  for (int64_t n = next(), i = 0; i < n && more(); ++i)
    p.outputs.push_back(next());
  for (int64_t n = next(), i = 0; i < n && more(); ++i) {
    int64_t reg = next(), kind = next();
    p.reductions.push_back({reg, (Reduction)kind, next()});
  }
  if (more())
    for (int64_t n = next(), i = 0; i < n && more(); ++i)
      p.outputTypes.push_back((DType)next());
  return p;
}

namespace {
/// FNV-1a, 64 bits.
struct Fnv {
  uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void *p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      h = (h ^ static_cast<const uint8_t *>(p)[i]) * 0x100000001b3ull;
  }
  void i64(int64_t v) { bytes(&v, sizeof v); }
  void str(const std::string &s) {
    i64((int64_t)s.size());
    bytes(s.data(), s.size());
  }
  template <typename T> void numbers(const std::vector<T> &v) {
    i64((int64_t)v.size());
    for (const T &x : v)
      i64((int64_t)x);
  }

  // As a visitor of visitPlanFields: the hashed fields only.
  void text(const std::string &s, bool hashed) {
    if (hashed)
      str(s);
  }
  void textSince(uint32_t, const std::string &s, bool hashed) { text(s, hashed); }
  void texts(const std::vector<std::string> &v, bool hashed) {
    if (!hashed)
      return;
    i64((int64_t)v.size());
    for (const std::string &s : v)
      str(s);
  }
  void ints(const std::vector<int64_t> &v, bool hashed) {
    if (hashed)
      numbers(v);
  }
  void ids(const std::vector<int32_t> &v, bool hashed) {
    if (hashed)
      numbers(v);
  }
  void i64(int64_t v, bool hashed) {
    if (hashed)
      i64(v);
  }
  void i32(int32_t v, bool hashed) { i64(v, hashed); }
  void dtype(DType d, bool hashed) { i64((int64_t)d, hashed); }
  void shape(const Shape &s, bool hashed) { ints(s, hashed); }
  void shapes(const std::vector<Shape> &v, bool hashed) {
    for (const Shape &s : v)
      shape(s, hashed);
  }
  void mesh(const Mesh &m, bool hashed) {
    texts(m.axisNames, hashed);
    ints(m.axisSizes, hashed);
  }
  void shardings(const std::vector<NamedSharding> &v, const Mesh &, bool hashed) {
    for (const NamedSharding &s : v)
      for (const std::vector<std::string> &dim : s.spec)
        texts(dim, hashed);
  }
  void flags(const std::vector<bool> &v, bool hashed) {
    for (bool b : v)
      i64(b, hashed);
  }
  template <class T, class F> void list(const std::vector<T> &v, size_t, bool hashed, F each) {
    if (!hashed)
      return;
    i64((int64_t)v.size());
    for (size_t i = 0; i < v.size(); ++i)
      each(v[i], i);
  }
  void opcode(OpCode op, size_t, bool hashed) { i64((int64_t)op, hashed); }
  void constant(const Array &a, bool, bool hashed) {
    dtype(a.dtype(), hashed);
    shape(a.shape(), hashed);
  }
};
} // namespace

uint64_t planShapeHash(const Plan &plan) {
  Fnv f;
  visitPlanFields(plan, f);
  return f.h;
}

std::string describePlan(const Plan &plan) {
  auto value = [&](int32_t id) {
    const PlanValue &v = plan.values[id];
    std::string s =
        "v" + std::to_string(id) + ":" + dtypeName(v.dtype) + "[" + shapeString(v.shape) + "]";
    return s + (v.offset >= 0                  ? "@" + std::to_string(v.offset)
                : v.offset == kNotMaterialized ? std::string("@fused")
                : v.offset == kInArgument      ? "@in-arg" + std::to_string(v.inArgument)
                                               : std::string("@arg"));
  };
  std::string out = "plan @" + plan.entry + " on " + std::to_string(plan.numDevices()) +
                    " device(s); arena " + std::to_string(plan.arenaBytes) + " bytes per device (" +
                    std::to_string(plan.unsharedBytes) + " without reuse)\n";
  out += "args:";
  for (size_t i = 0; i < plan.args.size(); ++i)
    out += " " + plan.argNames[i] + "=" + value(plan.args[i]) +
           (i < plan.donated.size() && plan.donated[i] ? "(donated)" : "");
  out += "\n";
  for (const PlanStep &s : plan.steps) {
    out += "  ";
    for (size_t i = 0; i < s.outputs.size(); ++i)
      out += (i ? ", " : "") + value(s.outputs[i]);
    out += std::string(" = ") + opCodeName(s.op);
    for (size_t i = 0; i < s.inputs.size(); ++i)
      out += (i ? ", v" : " v") + std::to_string(s.inputs[i]);
    if (s.op == OpCode::DotGeneral && s.inputs.size() == 2) {
      MatmulPrecision p = DotGeneralDims::decode(s.attrs, plan.values[s.inputs[0]].shape,
                                                 plan.values[s.inputs[1]].shape)
                              .precision;
      if (p != MatmulPrecision::F32)
        out += std::string(" precision ") + matmulPrecisionName(p);
    }
    if (!s.axes.empty()) {
      out += " over";
      for (const std::string &a : s.axes)
        out += " \"" + a + "\"";
    }
    out += "\n";
  }
  out += "results:";
  for (int32_t id : plan.results)
    out += " v" + std::to_string(id);
  return out + "\n";
}

} // namespace shardc
