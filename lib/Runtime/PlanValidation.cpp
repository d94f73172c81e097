//===- PlanValidation.cpp - what every plan must satisfy before it runs ---===//
//
// A plan read from an artifact or the compile cache is untrusted input: its
// checksum catches accidents, not intent. The kernels index buffers by the
// plan's shapes, offsets and attributes without checking them again, so
// every fact they rely on is checked here, once, before anything runs: the
// mesh and the signature, each value's shape against its buffer, and each
// step's operand counts, dtypes, shapes and attributes against its opcode.
// An error names the step (its index, opcode and source location) and the
// field.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/ProductViews.h"
#include "shardc/Runtime/StructuredOps.h"

#include <algorithm>
#include <set>
#include <string>

namespace shardc {

namespace {

/// Devices and bytes beyond any real machine: a plan that asks for more is
/// crafted (or corrupted), and would only fail later in an allocation.
constexpr int64_t kMaxDevices = 1 << 16;
constexpr int64_t kMaxValueBytes = int64_t(1) << 40;
constexpr int64_t kAlignment = 64;

class Validator {
public:
  explicit Validator(const Plan &plan) : plan(plan) {}

  Status run() {
    auto valid = [&](int32_t id) { return id >= 0 && (size_t)id < plan.values.size(); };
    for (const PlanStep &st : plan.steps)
      for (const auto *ids : {&st.inputs, &st.outputs})
        for (int32_t id : *ids)
          if (!valid(id))
            return fail("a step names value v" + std::to_string(id) + ", past the " +
                        std::to_string(plan.values.size()) + " values");
    for (const auto *ids : {&plan.args, &plan.results})
      for (int32_t id : *ids)
        if (!valid(id))
          return fail("the signature names value v" + std::to_string(id) + ", past the " +
                      std::to_string(plan.values.size()) + " values");
    if (plan.argShardings.size() != plan.args.size() ||
        plan.resultShardings.size() != plan.results.size() ||
        plan.argGlobalShapes.size() != plan.args.size() ||
        plan.resultGlobalShapes.size() != plan.results.size() ||
        plan.argNames.size() != plan.args.size() ||
        (!plan.donated.empty() && plan.donated.size() != plan.args.size()))
      return fail("the signature's lists disagree in length");
    for (const PlanStep &st : plan.steps)
      if (!isOpCode((uint64_t)st.op))
        return fail("opcode " + std::to_string((int)st.op) + " is unknown");
    if (Status s = mesh(); !s.ok())
      return s;
    if (Status s = values(); !s.ok())
      return s;
    if (Status s = signature(); !s.ok())
      return s;
    std::vector<bool> defined(plan.values.size(), false);
    for (int32_t id : plan.args)
      defined[id] = true;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const PlanStep &s = plan.steps[i];
      where = "step " + std::to_string(i) + " (" + opName(s.op) +
              (s.location.empty() ? "" : " at " + s.location) + "): ";
      for (int32_t id : s.inputs)
        if (!defined[id])
          return fail("input v" + std::to_string(id) + " is read before it is computed");
      for (int32_t id : s.outputs) {
        if (defined[id])
          return fail("output v" + std::to_string(id) + " is already defined");
        defined[id] = true;
      }
      for (const auto *ids : {&s.inputs, &s.outputs})
        for (int32_t id : *ids)
          if (plan.values[id].offset == kNotMaterialized)
            return fail("v" + std::to_string(id) + " has no buffer");
      for (int32_t id : s.outputs)
        if (plan.values[id].offset == kArgument)
          return fail("output v" + std::to_string(id) + " would be written over an argument");
      if (Status st = step(s); !st.ok())
        return st;
    }
    where.clear();
    // Buffers are reused, so a plan's arena is never larger than all its
    // buffers side by side.
    if (plan.arenaBytes < 0 || plan.arenaBytes > arenaLimit)
      return fail("the arena of " + std::to_string(plan.arenaBytes) +
                  " bytes is larger than all the plan's buffers together (" +
                  std::to_string(arenaLimit) + ")");
    for (int32_t id : plan.results)
      if (!defined[id] || plan.values[id].offset == kNotMaterialized)
        return fail("result v" + std::to_string(id) + " is never computed");
    return Status::success();
  }

private:
  const Plan &plan;
  std::string where;
  int64_t arenaLimit = 0; // the plan's buffers side by side

  Status fail(const std::string &what) const { return Status::error(where + what); }

  static std::string opName(OpCode op) {
    return isOpCode((uint64_t)op) ? opCodeName(op) : "opcode " + std::to_string((int)op);
  }
  const PlanValue &value(int32_t id) const { return plan.values[id]; }
  /// "f32[4x8]", as describePlan writes a value.
  std::string typeOf(int32_t id) const {
    return std::string(dtypeName(value(id).dtype)) + "[" + shapeString(value(id).shape) + "]";
  }

  Status mesh() {
    const Mesh &m = plan.mesh;
    if (m.axisNames.size() != m.axisSizes.size())
      return fail("the mesh has " + std::to_string(m.axisNames.size()) + " axis names and " +
                  std::to_string(m.axisSizes.size()) + " sizes");
    int64_t devices = 1;
    std::set<std::string> seen;
    for (size_t a = 0; a < m.axisNames.size(); ++a) {
      if (m.axisNames[a].empty() || !seen.insert(m.axisNames[a]).second)
        return fail("mesh axis " + std::to_string(a) + " has an empty or repeated name");
      if (m.axisSizes[a] < 1 || m.axisSizes[a] > kMaxDevices ||
          (devices *= m.axisSizes[a]) > kMaxDevices)
        return fail("the mesh has more than " + std::to_string(kMaxDevices) +
                    " devices (or an axis of size < 1)");
    }
    return Status::success();
  }

  Status values() {
    int64_t total = 0;
    for (size_t v = 0; v < plan.values.size(); ++v) {
      const PlanValue &pv = plan.values[v];
      std::string name = "v" + std::to_string(v);
      if ((int)pv.dtype > (int)DType::I64)
        return fail(name + " has an unknown element type");
      if (pv.shape.size() > 16)
        return fail(name + " has rank " + std::to_string(pv.shape.size()) + " (at most 16)");
      int64_t bytes = (int64_t)dtypeSize(pv.dtype);
      for (int64_t d : pv.shape) {
        if (d < 0)
          return fail(name + " has a negative dimension");
        if (d > 0 && bytes > kMaxValueBytes / d)
          return fail(name + " is larger than " + std::to_string(kMaxValueBytes) + " bytes");
        bytes *= d;
      }
      if (pv.offset >= 0) {
        if (pv.offset % kAlignment || pv.offset > plan.arenaBytes ||
            bytes > plan.arenaBytes - pv.offset)
          return fail(name + "'s buffer (" + std::to_string(bytes) + " bytes at " +
                      std::to_string(pv.offset) + ") lies outside the arena of " +
                      std::to_string(plan.arenaBytes) + " bytes");
        total += (bytes + kAlignment - 1) / kAlignment * kAlignment;
      } else if (pv.offset == kInArgument) {
        if (pv.inArgument < 0 || (size_t)pv.inArgument >= plan.args.size() ||
            (size_t)pv.inArgument >= plan.donated.size() || !plan.donated[pv.inArgument])
          return fail(name + " lies in an argument that is not donated");
        const PlanValue &arg = plan.values[plan.args[pv.inArgument]];
        if (arg.dtype != pv.dtype || arg.shape != pv.shape)
          return fail(name + " does not have the type of the argument it lies in");
      } else if (pv.offset != kArgument && pv.offset != kNotMaterialized) {
        return fail(name + " has an invalid buffer offset " + std::to_string(pv.offset));
      }
    }
    arenaLimit = total;
    return Status::success();
  }

  /// Whether `axis` shares devices' coordinates with one of `axes` (the
  /// same axis, or overlapping sub-axes of one).
  bool overlapsAny(const std::vector<std::string> &axes, const std::string &axis) {
    for (const std::string &a : axes)
      if (plan.mesh.overlap(a, axis))
        return true;
    return false;
  }

  Status sharding(const NamedSharding &s, const Shape &local, const Shape &global,
                  const std::string &name) {
    if (s.mesh.axisNames != plan.mesh.axisNames || s.mesh.axisSizes != plan.mesh.axisSizes)
      return fail(name + " is laid out on another mesh than the plan's");
    if (s.spec.size() != local.size() || global.size() != local.size())
      return fail(name + ": its layout, local and global shapes have different ranks");
    std::vector<std::string> used;
    for (size_t d = 0; d < local.size(); ++d) {
      for (const std::string &axis : s.spec[d]) {
        if (plan.mesh.axisIndex(axis) < 0 || overlapsAny(used, axis))
          return fail(name + ": axis '" + axis + "' is unknown or used twice");
        used.push_back(axis);
      }
      // A dimension the devices do not divide is padded to the next multiple.
      int64_t n = plan.mesh.groupSize(s.spec[d]);
      if (local[d] != (global[d] + n - 1) / n)
        return fail(name + ": global dimension " + std::to_string(d) + " is not split " +
                    "into its local size over the devices it is split over");
    }
    return Status::success();
  }

  Status signature() {
    std::set<int32_t> args;
    for (size_t i = 0; i < plan.args.size(); ++i) {
      int32_t id = plan.args[i];
      if (!args.insert(id).second || value(id).offset != kArgument)
        return fail("argument " + std::to_string(i) + " (v" + std::to_string(id) +
                    ") is repeated or has a buffer in the arena");
      if (Status s = sharding(plan.argShardings[i], value(id).shape, plan.argGlobalShapes[i],
                              "argument '" + plan.argNames[i] + "'");
          !s.ok())
        return s;
    }
    for (size_t v = 0; v < plan.values.size(); ++v)
      if (plan.values[v].offset == kArgument && !args.count((int32_t)v))
        return fail("v" + std::to_string(v) + " is neither an argument nor has a buffer");
    for (size_t r = 0; r < plan.results.size(); ++r)
      if (Status s = sharding(plan.resultShardings[r], value(plan.results[r]).shape,
                              plan.resultGlobalShapes[r], "result " + std::to_string(r));
          !s.ok())
        return s;
    return Status::success();
  }

  // ---- One step -------------------------------------------------------------

  Status counts(const PlanStep &s, size_t in, size_t out) const {
    if (s.inputs.size() != in || s.outputs.size() != out)
      return fail("takes " + std::to_string(in) + " inputs and " + std::to_string(out) +
                  " outputs, has " + std::to_string(s.inputs.size()) + " and " +
                  std::to_string(s.outputs.size()));
    return Status::success();
  }
  Status ints(const PlanStep &s, size_t n) const {
    if (s.attrs.size() != n)
      return fail("has " + std::to_string(s.attrs.size()) + " attribute numbers, expected " +
                  std::to_string(n));
    return Status::success();
  }
  Status sameType(int32_t a, int32_t b, const char *what) const {
    if (value(a).dtype != value(b).dtype || value(a).shape != value(b).shape)
      return fail(std::string(what) + " has the type " + typeOf(b) + ", expected " + typeOf(a));
    return Status::success();
  }
  Status shapeIs(int32_t id, const Shape &want, const char *what) const {
    if (value(id).shape != want)
      return fail(std::string(what) + " has shape " + shapeString(value(id).shape) + ", expected " +
                  shapeString(want));
    return Status::success();
  }
  Status dims(const std::vector<int64_t> &list, int64_t rank, const char *what) const {
    std::set<int64_t> seen;
    for (int64_t d : list)
      if (d < 0 || d >= rank || !seen.insert(d).second)
        return fail(std::string(what) + " has dimension " + std::to_string(d) +
                    ", out of range for rank " + std::to_string(rank) + " or repeated");
    return Status::success();
  }
  bool isInt(int32_t id) const {
    return value(id).dtype == DType::I32 || value(id).dtype == DType::I64;
  }

#define SHARDC_CHECK(expr)                                                                         \
  if (Status st_ = (expr); !st_.ok())                                                              \
  return st_

  const Shape &shape(int32_t id) const { return value(id).shape; }
  int64_t rank(int32_t id) const { return (int64_t)value(id).shape.size(); }

  Status step(const PlanStep &s) {
    bool unary = isUnary(s.op), binary = isBinary(s.op);
    if (unary || binary) {
      SHARDC_CHECK(counts(s, unary ? 1 : 2, 1));
      SHARDC_CHECK(sameType(s.outputs[0], s.inputs[0], "input 0"));
      if (binary)
        SHARDC_CHECK(sameType(s.outputs[0], s.inputs[1], "input 1"));
      if (!acceptsIntegers(s.op) && !isFloat(value(s.outputs[0]).dtype))
        return fail("it takes floating-point values, not " + typeOf(s.outputs[0]));
      return Status::success();
    }
    if (isCollective(s.op))
      return collective(s);
    if (const StructuredOpEntry *entry = structuredOp(s.op)) {
      StepSignature sig;
      for (int32_t id : s.inputs)
        sig.inputs.push_back({value(id).dtype, value(id).shape});
      for (int32_t id : s.outputs)
        sig.outputs.push_back({value(id).dtype, value(id).shape});
      sig.attrs = s.attrs;
      std::string wrong = entry->check(sig);
      return wrong.empty() ? Status::success() : fail(wrong);
    }
    switch (s.op) {
    case OpCode::Constant:
    case OpCode::Iota:
    case OpCode::Compare:
    case OpCode::Select:
    case OpCode::Convert:
      return valueStep(s);
    case OpCode::DotGeneral:
      return dotGeneral(s);
    case OpCode::Reshape:
    case OpCode::Reduce:
    case OpCode::BroadcastInDim:
    case OpCode::Transpose:
    case OpCode::Slice:
    case OpCode::Concatenate:
    case OpCode::DynamicSlice:
    case OpCode::DynamicUpdateSlice:
      return layoutStep(s);
    case OpCode::Fused:
      return fused(s);
    default:
      return fail("is not a kernel");
    }
  }

  /// Steps that make a value or map one elementwise: constant, iota,
  /// compare, select, convert.
  Status valueStep(const PlanStep &s) const {
    switch (s.op) {
    case OpCode::Constant:
      SHARDC_CHECK(counts(s, 0, 1));
      if (s.constant.dtype() != value(s.outputs[0]).dtype ||
          s.constant.shape() != shape(s.outputs[0]) ||
          s.constant.sizeInBytes() != value(s.outputs[0]).bytes())
        return fail("its value does not have the output's type " + typeOf(s.outputs[0]));
      return Status::success();
    case OpCode::Iota:
      SHARDC_CHECK(counts(s, 0, 1));
      SHARDC_CHECK(ints(s, 1));
      return dims({s.attrs[0]}, rank(s.outputs[0]), "dim");
    case OpCode::Compare:
      SHARDC_CHECK(counts(s, 2, 1));
      SHARDC_CHECK(ints(s, 1));
      if (s.attrs[0] < 0 || s.attrs[0] > 5)
        return fail("compare direction " + std::to_string(s.attrs[0]) + " is not 0..5");
      SHARDC_CHECK(sameType(s.inputs[0], s.inputs[1], "input 1"));
      if (value(s.outputs[0]).dtype != DType::I1 || shape(s.outputs[0]) != shape(s.inputs[0]))
        return fail("the output must be i1 of the inputs' shape");
      return Status::success();
    case OpCode::Select:
      SHARDC_CHECK(counts(s, 3, 1));
      if (value(s.inputs[0]).dtype != DType::I1 || shape(s.inputs[0]) != shape(s.outputs[0]))
        return fail("the predicate must be i1 of the output's shape");
      SHARDC_CHECK(sameType(s.outputs[0], s.inputs[1], "input 1"));
      return sameType(s.outputs[0], s.inputs[2], "input 2");
    case OpCode::Convert:
      SHARDC_CHECK(counts(s, 1, 1));
      return shapeIs(s.outputs[0], shape(s.inputs[0]), "the output");
    default:
      return fail("is not a kernel");
    }
  }

  /// Steps that move, reduce or reshape a value's elements.
  Status layoutStep(const PlanStep &s) const {
    switch (s.op) {
    case OpCode::Reshape:
      SHARDC_CHECK(counts(s, 1, 1));
      if (value(s.inputs[0]).dtype != value(s.outputs[0]).dtype ||
          value(s.inputs[0]).bytes() != value(s.outputs[0]).bytes())
        return fail("reshapes " + typeOf(s.inputs[0]) + " to " + typeOf(s.outputs[0]));
      return Status::success();
    case OpCode::Reduce: {
      SHARDC_CHECK(counts(s, 1, 1));
      if (s.attrs.empty() || s.attrs[0] < 0 || s.attrs[0] > 3)
        return fail("reduction kind is not 0..3");
      std::vector<int64_t> reduced(s.attrs.begin() + 1, s.attrs.end());
      SHARDC_CHECK(dims(reduced, rank(s.inputs[0]), "dims"));
      Shape kept;
      for (int64_t d = 0; d < rank(s.inputs[0]); ++d)
        if (std::find(reduced.begin(), reduced.end(), d) == reduced.end())
          kept.push_back(shape(s.inputs[0])[d]);
      if (value(s.outputs[0]).dtype != value(s.inputs[0]).dtype)
        return fail("the output's element type differs from the input's");
      return shapeIs(s.outputs[0], kept, "the output");
    }
    case OpCode::BroadcastInDim: {
      SHARDC_CHECK(counts(s, 1, 1));
      SHARDC_CHECK(ints(s, (size_t)rank(s.inputs[0])));
      SHARDC_CHECK(dims(s.attrs, rank(s.outputs[0]), "dims"));
      if (value(s.outputs[0]).dtype != value(s.inputs[0]).dtype)
        return fail("the output's element type differs from the input's");
      for (int64_t i = 0; i < rank(s.inputs[0]); ++i)
        if (shape(s.inputs[0])[i] != 1 && shape(s.inputs[0])[i] != shape(s.outputs[0])[s.attrs[i]])
          return fail("input dimension " + std::to_string(i) + " does not fit output dimension " +
                      std::to_string(s.attrs[i]));
      return Status::success();
    }
    case OpCode::Transpose: {
      SHARDC_CHECK(counts(s, 1, 1));
      SHARDC_CHECK(ints(s, (size_t)rank(s.inputs[0])));
      SHARDC_CHECK(dims(s.attrs, rank(s.inputs[0]), "permutation"));
      Shape permuted;
      for (int64_t p : s.attrs)
        permuted.push_back(shape(s.inputs[0])[p]);
      SHARDC_CHECK(sameElement(s));
      return shapeIs(s.outputs[0], permuted, "the output");
    }
    case OpCode::Slice: {
      SHARDC_CHECK(counts(s, 1, 1));
      int64_t r = rank(s.inputs[0]);
      SHARDC_CHECK(ints(s, 3 * (size_t)r));
      Shape sliced;
      for (int64_t d = 0; d < r; ++d) {
        int64_t start = s.attrs[d], limit = s.attrs[r + d], stride = s.attrs[2 * r + d];
        if (start < 0 || start > limit || limit > shape(s.inputs[0])[d] || stride < 1)
          return fail("dimension " + std::to_string(d) + " has bounds " + std::to_string(start) +
                      ".." + std::to_string(limit) + " step " + std::to_string(stride) +
                      " outside its size " + std::to_string(shape(s.inputs[0])[d]));
        sliced.push_back(limit == start ? 0 : (limit - start - 1) / stride + 1);
      }
      SHARDC_CHECK(sameElement(s));
      return shapeIs(s.outputs[0], sliced, "the output");
    }
    case OpCode::Concatenate: {
      if (s.inputs.empty() || s.outputs.size() != 1)
        return fail("takes at least one input and one output");
      SHARDC_CHECK(ints(s, 1));
      SHARDC_CHECK(dims({s.attrs[0]}, rank(s.outputs[0]), "dim"));
      if (rank(s.inputs[0]) != rank(s.outputs[0]))
        return fail("input 0 and the output differ in rank");
      Shape joined = shape(s.inputs[0]);
      joined[s.attrs[0]] = 0;
      for (int32_t id : s.inputs) {
        Shape a = shape(id), b = shape(s.outputs[0]);
        if (a.size() != b.size() || value(id).dtype != value(s.outputs[0]).dtype)
          return fail("input v" + std::to_string(id) + " differs in rank or element type");
        joined[s.attrs[0]] += a[s.attrs[0]];
        a[s.attrs[0]] = b[s.attrs[0]] = 0;
        if (a != b)
          return fail("input v" + std::to_string(id) + " differs outside dimension " +
                      std::to_string(s.attrs[0]));
      }
      return shapeIs(s.outputs[0], joined, "the output");
    }
    case OpCode::DynamicSlice:
    case OpCode::DynamicUpdateSlice: {
      bool update = s.op == OpCode::DynamicUpdateSlice;
      size_t first = update ? 2 : 1;
      if (s.inputs.size() < first || s.outputs.size() != 1)
        return fail("has too few inputs");
      int32_t operand = s.inputs[0], box = update ? s.inputs[1] : s.outputs[0];
      if (s.inputs.size() != first + (size_t)rank(operand))
        return fail("needs one start index per operand dimension");
      for (size_t i = first; i < s.inputs.size(); ++i)
        if (!isInt(s.inputs[i]) || rank(s.inputs[i]) != 0)
          return fail("start index " + std::to_string(i - first) + " is not an integer scalar");
      if (rank(box) != rank(operand) || value(box).dtype != value(operand).dtype)
        return fail("the box does not have the operand's rank and element type");
      for (int64_t d = 0; d < rank(operand); ++d)
        if (shape(box)[d] > shape(operand)[d])
          return fail("the box is larger than the operand in dimension " + std::to_string(d));
      return update ? sameType(operand, s.outputs[0], "the output") : Status::success();
    }
    default:
      return fail("is not a kernel");
    }
  }

  Status sameElement(const PlanStep &s) const {
    if (value(s.outputs[0]).dtype != value(s.inputs[0]).dtype)
      return fail("the output's element type differs from the input's");
    return Status::success();
  }

  Status dotGeneral(const PlanStep &s) {
    SHARDC_CHECK(counts(s, 2, 1));
    const Shape &lhs = value(s.inputs[0]).shape, &rhs = value(s.inputs[1]).shape;
    // The attributes are checked before anything indexes a shape by them
    // (DotGeneralDims::decode does).
    if (std::string problem = DotGeneralDims::check(s.attrs, lhs, rhs); !problem.empty())
      return fail(problem);
    DotGeneralDims d = DotGeneralDims::decode(s.attrs, lhs, rhs);
    // Rounding precisions take f32 operands; bf16 also bf16 ones (rounded
    // already).
    for (int32_t id : s.inputs)
      if (d.precision != MatmulPrecision::F32 && value(id).dtype != DType::F32 &&
          !(d.precision == MatmulPrecision::BF16 && value(id).dtype == DType::BF16))
        return fail("its precision rounds f32 operands, not " +
                    std::string(dtypeName(value(id).dtype)));
    Shape result;
    for (int64_t i : d.lhsBatching)
      result.push_back(lhs[i]);
    for (int64_t i : d.lhsFree)
      result.push_back(lhs[i]);
    for (int64_t i : d.rhsFree)
      result.push_back(rhs[i]);
    DType lt = value(s.inputs[0]).dtype, rt = value(s.inputs[1]).dtype,
          ot = value(s.outputs[0]).dtype;
    if (d.precision == MatmulPrecision::BF16) {
      if (ot != DType::F32)
        return fail(std::string("a bf16 product's result is f32, not ") + dtypeName(ot));
    } else if (lt != rt || ot != lt) {
      return fail("its operands and result differ in element type");
    }
    SHARDC_CHECK(shapeIs(s.outputs[0], result, "the output"));
    // The views the CPU backend reads its operands through stay inside
    // them, and walk the same items.
    ProductOperands views = productOperands(d, lhs, rhs);
    if (d.B * d.M * d.N * d.K == 0)
      return Status::success();
    if (views.a.view.batchSizes != views.b.view.batchSizes)
      return fail("its operands' views walk different batch dimensions");
    if (std::string p = viewProblem(views.a.view, d.M, d.K); !p.empty())
      return fail("its lhs view " + p);
    if (std::string p = viewProblem(views.b.view, d.K, d.N); !p.empty())
      return fail("its rhs view " + p);
    return Status::success();
  }

  Status collective(const PlanStep &s) {
    // A merged all_reduce reduces several buffers: input i into output i.
    if (s.op == OpCode::AllReduce && s.inputs.size() > 1) {
      if (s.outputs.size() != s.inputs.size())
        return fail("reduces " + std::to_string(s.inputs.size()) + " buffers into " +
                    std::to_string(s.outputs.size()));
      for (size_t i = 0; i < s.inputs.size(); ++i) {
        SHARDC_CHECK(collective(s.part(i)));
        if (value(s.inputs[i]).dtype != value(s.inputs[0]).dtype)
          return fail("its buffers differ in element type");
      }
      return Status::success();
    }
    SHARDC_CHECK(counts(s, 1, 1));
    std::vector<std::string> seen;
    for (const std::string &a : s.axes) {
      if (plan.mesh.axisIndex(a) < 0 || overlapsAny(seen, a))
        return fail("mesh axis '" + a + "' is unknown or repeated");
      seen.push_back(a);
    }
    if (s.axes.empty())
      return fail("names no mesh axis");
    int64_t g = plan.mesh.groupSize(s.axes);
    int32_t in = s.inputs[0], out = s.outputs[0];
    const Shape &is = value(in).shape, &os = value(out).shape;
    int64_t r = (int64_t)is.size();
    if (value(in).dtype != value(out).dtype || os.size() != is.size())
      return fail("its input and output differ in element type or rank");
    auto kind = [&](size_t at) -> Status {
      if (s.attrs[at] < 0 || s.attrs[at] > 3)
        return fail("reduction kind " + std::to_string(s.attrs[at]) + " is not 0..3");
      return Status::success();
    };
    auto scaled = [&](int64_t dim, bool grow) {
      Shape want = is;
      if (grow)
        want[dim] *= g;
      else
        want[dim] = is[dim] % g ? -1 : is[dim] / g;
      return want;
    };
    switch (s.op) {
    case OpCode::AllReduce:
      SHARDC_CHECK(ints(s, 1));
      SHARDC_CHECK(kind(0));
      return shapeIs(out, is, "the output");
    case OpCode::AllGather:
      SHARDC_CHECK(ints(s, 1));
      SHARDC_CHECK(dims({s.attrs[0]}, r, "dim"));
      return shapeIs(out, scaled(s.attrs[0], true), "the output");
    case OpCode::AllSlice:
      SHARDC_CHECK(ints(s, 1));
      SHARDC_CHECK(dims({s.attrs[0]}, r, "dim"));
      return shapeIs(out, scaled(s.attrs[0], false), "the output");
    case OpCode::ReduceScatter:
      SHARDC_CHECK(ints(s, 2));
      SHARDC_CHECK(kind(0));
      SHARDC_CHECK(dims({s.attrs[1]}, r, "dim"));
      return shapeIs(out, scaled(s.attrs[1], false), "the output");
    case OpCode::AllToAll: {
      SHARDC_CHECK(ints(s, 2));
      SHARDC_CHECK(dims({s.attrs[0]}, r, "split dim"));
      SHARDC_CHECK(dims({s.attrs[1]}, r, "concat dim"));
      Shape want = scaled(s.attrs[0], false);
      if (want[s.attrs[0]] >= 0)
        want[s.attrs[1]] *= g;
      return shapeIs(out, want, "the output");
    }
    case OpCode::CollectivePermute: {
      if ((int64_t)s.attrs.size() != g)
        return fail("names " + std::to_string(s.attrs.size()) + " sources for a group of " +
                    std::to_string(g));
      std::vector<bool> seen(g, false);
      for (int64_t src : s.attrs) {
        if (src < 0 || src >= g || seen[src])
          return fail("its sources are not a permutation of the group's positions");
        seen[src] = true;
      }
      return shapeIs(out, is, "the output");
    }
    default:
      return fail("is not a collective");
    }
  }

  Status fused(const PlanStep &s) {
    // The encoding must be exactly what its decoded program encodes to:
    // no count that runs past the numbers, nothing left over.
    FusedProgram p = FusedProgram::decode(s.attrs);
    if (p.encode() != s.attrs)
      return fail("its program is malformed");
    if (Status st = p.validate(s.inputs.size(), s.outputs.size()); !st.ok())
      return fail(st.message());
    for (const FusedProgram::RowReduction &r : p.reductions)
      if (r.cols > kMaxValueBytes)
        return fail("a reduction's row length is out of range");
    for (const FusedProgram::Input &i : p.inputs)
      if (i.cols > kMaxValueBytes)
        return fail("an input's row length is out of range");
    for (int32_t id : s.inputs)
      if (value(id).dtype != DType::F32)
        return fail("input v" + std::to_string(id) + " is not f32");
    for (size_t o = 0; o < s.outputs.size(); ++o) {
      DType want = o < p.outputs.size() ? p.outputType(o) : DType::F32;
      if (value(s.outputs[o]).dtype != want)
        return fail("output v" + std::to_string(s.outputs[o]) + " is not " + dtypeName(want));
    }
    int64_t n = p.outputs.empty() ? numElements(value(s.outputs[0]).shape) * p.reductions[0].cols
                                  : numElements(value(s.outputs[0]).shape);
    for (size_t o = 0; o < p.outputs.size(); ++o)
      if (numElements(value(s.outputs[o]).shape) != n)
        return fail("output " + std::to_string(o) + " does not have the program's " +
                    std::to_string(n) + " elements");
    for (size_t k = 0; k < p.reductions.size(); ++k) {
      int64_t cols = p.reductions[k].cols;
      if (n % cols || numElements(value(s.outputs[p.outputs.size() + k]).shape) != n / cols)
        return fail("reduction " + std::to_string(k) + " does not have one output per row");
    }
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      int64_t have = numElements(value(s.inputs[i]).shape), cols = p.inputs[i].cols;
      bool fits = false;
      switch (p.inputs[i].mode) {
      case FusedProgram::Whole:
        fits = have == n;
        break;
      case FusedProgram::AlongRows:
        fits = have == cols && n % cols == 0;
        break;
      case FusedProgram::AlongColumns:
        fits = cols > 0 && n % cols == 0 && have == n / cols;
        break;
      case FusedProgram::Scalar:
        fits = have >= 1;
        break;
      }
      if (!fits)
        return fail("input " + std::to_string(i) +
                    " does not have the elements its load mode reads");
    }
    return Status::success();
  }
#undef SHARDC_CHECK
};

} // namespace

Status validatePlan(const Plan &plan) { return Validator(plan).run(); }

} // namespace shardc
