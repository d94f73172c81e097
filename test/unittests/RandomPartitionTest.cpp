//===- RandomPartitionTest.cpp - random programs through propagate+partition ===//
//
// For each seed, generates a small random program in the shardc dialect (a
// random mesh, sharded arguments, a chain of tensor ops with shapes tracked so
// every op is valid, sharding constraints, sometimes a result sharding), runs
// it on one device with the reference interpreter, then propagates shardings,
// partitions it, verifies the module and runs the per-device program on the
// devices of the mesh, in the interpreter and, lowered to a plan, on the CPU
// backend: lowered plainly, and as the CPU backend's compiles lower it (row
// programs: a softmax's or layer norm's rows in one step), by the fused
// kernels and by the interpreter. The gathered results must match the
// global run.
//
// Two suites draw from different meshes: RandomPartitionTest from meshes of
// 1 or 2 axes, RandomManyAxesPartitionTest from meshes of 4 to 6 axes whose
// shardings often put 4 or more axes on one dimension.
//
// Every seed is its own test (`Seeds/RandomPartitionTest.MatchesGlobalRun/17`)
// and is reproducible: the program and its inputs come from std::mt19937
// seeded with the seed. A failure prints the program, the partitioned program
// and the diagnostics. SHARDC_RANDOM_SEEDS=N changes the number of seeds;
// SHARDC_RANDOM_PRINT=1 prints every program.
//
//===----------------------------------------------------------------------===//

#include "OpCatalogue.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Reference/Kernels.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/FusedKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;

namespace {

//===----------------------------------------------------------------------===//
// Generation options
//===----------------------------------------------------------------------===//

/// Which op families the generator may emit. Every family is on unless a
/// known partitioner bug makes it fail; the reason is then given here.
struct OpFamilies {
  bool elementwiseUnary = true;
  bool elementwiseBinary = true;
  bool dotGeneral = true;
  bool reduce = true;
  bool transpose = true;
  bool broadcastInDim = true;
  bool reshape = true;
  bool slice = true;
  /// Slices that take some dimensions whole (start 0, stride 1, full limit),
  /// which may stay sharded through the slice.
  bool sliceWithWholeDims = true;
  bool concatenate = true;
  bool shardingConstraint = true;
  /// A statistic of the trailing dimensions used against them, as softmax
  /// and layer norm do (genRowStatistic).
  bool rowStatistic = true;
};

/// The meshes the generator draws from: small ones (1 or 2 axes, up to 8
/// devices), or 4 to 6 axes (up to 64 devices) whose shardings often put 4
/// or more axes on one dimension, padded and not.
enum class MeshFamily { Small, ManyAxes };

/// Limits that keep programs small and the interpreter fast.
constexpr int kMaxRank = 4;
constexpr int64_t kMaxElements = 2048;
constexpr int kMaxArgs = 3;
/// Values whose magnitude may exceed this bound are passed through tanh
/// before arithmetic uses them, so that a different summation order (partial
/// sums on devices) stays within the comparison tolerance.
constexpr double kMaxOperandBound = 4.0;
/// Largest number of terms a dot_general contraction may sum.
constexpr int64_t kMaxContraction = 64;
constexpr double kRelTol = 1e-4;

using Shape = std::vector<int64_t>;

int64_t product(const Shape &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
}

std::string typeStr(const Shape &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

std::string intList(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// The program generator
//===----------------------------------------------------------------------===//

struct MeshAxis {
  std::string name;
  int64_t size;
};

/// A value of the program: its SSA name, its shape and a bound on the
/// magnitude of its elements.
struct Val {
  std::string name;
  Shape shape;
  double bound;
};

/// A generated program: MLIR text and the shapes of its arguments.
struct Program {
  std::string text;
  std::vector<Shape> argShapes;
  /// Shardings may leave dimensions their axes do not divide: partitioned
  /// with pad-uneven.
  bool padded = false;
};

/// How the generator feeds a unary op of the catalogue: tanh of a value
/// (in [-1, 1]), or exp of that (in [1/e, e]), whichever lies inside the
/// op's smooth range; and a bound on the op's magnitude there, from its
/// reference kernel on a fine grid (with a margin).
struct UnaryFeed {
  bool throughExp;
  double bound;
};

/// floor, ceil and rounding jump by 1 where their operand crosses an
/// integer (or a half). The partitioned program sums in another order than
/// the global one, and a value that is 0 in exact arithmetic (x - x^T of a
/// symmetric product) comes out a rounding error either side of it: no
/// tolerance absorbs the jump. Random programs leave them out;
/// BackendConformanceTest checks them exactly.
bool jumps(OpCode op) {
  return op == OpCode::Floor || op == OpCode::Ceil || op == OpCode::RoundEven ||
         op == OpCode::RoundAfz;
}

std::optional<UnaryFeed> unaryFeed(const test::ElementwiseRow &row) {
  for (bool throughExp : {false, true}) {
    double lo = throughExp ? std::exp(-1.0) : -1, hi = throughExp ? std::exp(1.0) : 1;
    if (lo < row.lo || hi > row.hi)
      continue;
    Array grid(DType::F64, {1025});
    for (int64_t i = 0; i < 1025; ++i)
      grid.setDouble(i, lo + (hi - lo) * i / 1024);
    Array y = ref::unary(row.op, grid);
    double bound = 0;
    for (int64_t i = 0; i < 1025; ++i)
      bound = std::max(bound, std::fabs(y.getDouble(i)));
    return UnaryFeed{throughExp, 1.01 * bound + 0.01};
  }
  return std::nullopt;
}

class ProgramGenerator {
public:
  ProgramGenerator(uint32_t seed, OpFamilies families, MeshFamily meshFamily = MeshFamily::Small)
      : rng(seed), families(families), meshFamily(meshFamily) {}

  Program generate() {
    // One program in four has sizes the mesh does not divide, sharded with
    // padding.
    padded = chance(0.25);
    chooseMesh();
    int numInitialArgs = chance(0.35) ? 2 : 1;
    for (int i = 0; i < numInitialArgs; ++i)
      addArgument(randomShape());

    int chainLength = uniform(3, 10);
    for (int i = 0; i < chainLength; ++i)
      emitRandomOp();

    // Results: the last value, sometimes with another one.
    std::vector<size_t> results = {vals.size() - 1};
    if (vals.size() > 2 && chance(0.2))
      results.push_back(uniform(0, (int)vals.size() - 2));
    std::vector<std::string> resultShardings;
    for (size_t r : results)
      resultShardings.push_back(chance(0.35) ? randomSharding(vals[r].shape) : "");

    ensureMeshIsReferenced(resultShardings);
    return print(results, resultShardings);
  }

private:
  std::mt19937 rng;
  OpFamilies families;
  MeshFamily meshFamily;
  std::vector<MeshAxis> mesh;
  std::vector<Val> args;
  std::vector<std::string> argShardings; // "" when not annotated
  std::vector<Val> vals;                 // every value, arguments first
  std::string body;
  int nextValue = 0; // %v<N> names
  bool anyConstraint = false;
  bool padded = false;

  //--- randomness ---------------------------------------------------------//

  /// Uniform integer in [lo, hi].
  int uniform(int lo, int hi) { return lo + (int)(rng() % (uint32_t)(hi - lo + 1)); }
  bool chance(double p) { return (rng() >> 8) * (1.0 / (1u << 24)) < p; }
  template <typename T> const T &pick(const std::vector<T> &from) {
    return from[uniform(0, (int)from.size() - 1)];
  }
  template <typename T> void shuffle(std::vector<T> &v) {
    for (size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[uniform(0, (int)i - 1)]);
  }

  int64_t randomDim() {
    // Many axes need long dimensions to split over 16 or 32 devices
    // without padding, and short ones to pad over them.
    if (meshFamily == MeshFamily::ManyAxes)
      return padded ? pick<int64_t>({3, 5, 6, 8, 10, 12, 24}) : pick<int64_t>({4, 8, 16, 16, 32});
    return padded ? pick<int64_t>({3, 5, 6, 8, 10, 12}) : pick<int64_t>({4, 8, 12, 16});
  }

  Shape randomShape() {
    Shape shape(uniform(1, 3));
    for (int64_t &d : shape)
      d = randomDim();
    while (product(shape) > kMaxElements / 2)
      shape.pop_back();
    return shape;
  }

  //--- mesh and shardings -------------------------------------------------//

  void chooseMesh() {
    if (meshFamily == MeshFamily::ManyAxes) {
      // 4 to 6 axes of 2, one of them sometimes 4 (at most 64 devices).
      int n = uniform(4, 6);
      mesh.clear();
      for (int i = 0; i < n; ++i)
        mesh.push_back({std::string(1, char('a' + i)), 2});
      if (n < 6 && chance(0.5))
        mesh[uniform(0, n - 1)].size = 4;
      return;
    }
    switch (uniform(0, 3)) {
    case 0:
      mesh = {{"a", 2}};
      break;
    case 1:
      mesh = {{"a", 4}};
      break;
    case 2:
      mesh = {{"a", 2}, {"b", 2}};
      break;
    default:
      mesh = {{"a", 2}, {"b", 4}};
      break;
    }
  }

  /// A random valid sharding of `shape`, as the list of dimension shardings
  /// (`[{"a"}, {?}]`): every axis at most once, the product of a dimension's
  /// axes divides it, some dimensions split over two axes, some open.
  std::string randomSharding(const Shape &shape) {
    std::vector<std::vector<std::string>> dimAxes(shape.size());
    std::vector<int64_t> split(shape.size(), 1);
    // An axis of 4 is sometimes used as its two halves, sub-axes placed
    // apart ("b":(1)2 and "b":(2)2).
    std::vector<MeshAxis> order;
    for (const MeshAxis &axis : mesh) {
      if (axis.size == 4 && chance(0.25)) {
        order.push_back({"\"" + axis.name + "\":(1)2", 2});
        order.push_back({"\"" + axis.name + "\":(2)2", 2});
      } else {
        order.push_back({"\"" + axis.name + "\"", axis.size});
      }
    }
    shuffle(order);
    // Sometimes aim every axis at one dimension (on many axes, more often).
    int preferred = shape.empty() ? -1 : uniform(0, (int)shape.size() - 1);
    bool stack = order.size() > 1 && chance(meshFamily == MeshFamily::ManyAxes ? 0.5 : 0.3);
    for (const MeshAxis &axis : order) {
      if (!chance(stack ? 0.9 : 0.6))
        continue;
      std::vector<int> fits;
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] % (split[d] * axis.size) == 0 || (padded && shape[d] > 1))
          fits.push_back((int)d);
      if (fits.empty())
        continue;
      int d = (stack && llvm::is_contained(fits, preferred)) ? preferred : pick(fits);
      dimAxes[d].push_back(axis.name);
      split[d] *= axis.size;
    }
    std::string s = "[";
    for (size_t d = 0; d < shape.size(); ++d) {
      s += d ? ", {" : "{";
      for (size_t k = 0; k < dimAxes[d].size(); ++k)
        s += (k ? ", " : "") + dimAxes[d][k];
      if (chance(0.25))
        s += dimAxes[d].empty() ? "?" : ", ?";
      s += "}";
    }
    return s + "]";
  }

  std::string shardingAttr(const std::string &dims) {
    return "#shardc.sharding<@mesh, " + dims + ">";
  }

  /// partitionFunction leaves a function whose shardings name no mesh
  /// unchanged; annotate the first argument so that every program is
  /// partitioned.
  void ensureMeshIsReferenced(const std::vector<std::string> &resultShardings) {
    bool referenced = anyConstraint;
    for (const std::string &s : argShardings)
      referenced |= !s.empty();
    for (const std::string &s : resultShardings)
      referenced |= !s.empty();
    if (!referenced)
      argShardings[0] = randomSharding(args[0].shape);
  }

  //--- values -------------------------------------------------------------//

  const Val &addArgument(const Shape &shape) {
    Val v{"%arg" + std::to_string(args.size()), shape, 1.0};
    args.push_back(v);
    argShardings.push_back(chance(0.6) ? randomSharding(shape) : "");
    vals.push_back(v);
    return vals.back();
  }

  bool canAddArgument() const { return (int)args.size() < kMaxArgs; }

  /// Appends `op` (the text after `%vN = `) and returns the new value.
  Val emit(const std::string &op, const Shape &shape, double bound) {
    Val v{"%v" + std::to_string(nextValue++), shape, bound};
    body += "    " + v.name + " = " + op + "\n";
    vals.push_back(v);
    return v;
  }

  /// The operand of the next op: usually the latest value (a chain),
  /// sometimes an earlier one.
  Val pickOperand() { return chance(0.7) ? vals.back() : pick(vals); }

  /// `v`, or tanh(v) when `v` may be too large for arithmetic.
  Val bounded(const Val &v) {
    if (v.bound <= kMaxOperandBound)
      return v;
    return emit("shardc.tanh " + v.name + " : " + typeStr(v.shape), v.shape, 1.0);
  }

  std::vector<Val> valuesOfShape(const Shape &shape) {
    std::vector<Val> out;
    for (const Val &v : vals)
      if (v.shape == shape)
        out.push_back(v);
    return out;
  }

  //--- ops ----------------------------------------------------------------//

  void emitRandomOp() {
    using Gen = bool (ProgramGenerator::*)();
    std::vector<Gen> gens;
    auto add = [&](bool on, Gen g, int weight) {
      for (int i = 0; on && i < weight; ++i)
        gens.push_back(g);
    };
    add(families.elementwiseUnary, &ProgramGenerator::genUnary, 2);
    add(families.elementwiseBinary, &ProgramGenerator::genBinary, 3);
    add(families.dotGeneral, &ProgramGenerator::genDotGeneral, 3);
    add(families.reduce, &ProgramGenerator::genReduce, 2);
    add(families.transpose, &ProgramGenerator::genTranspose, 2);
    add(families.broadcastInDim, &ProgramGenerator::genBroadcastInDim, 2);
    add(families.reshape, &ProgramGenerator::genReshape, 2);
    add(families.slice, &ProgramGenerator::genSlice, 2);
    add(families.concatenate, &ProgramGenerator::genConcatenate, 2);
    add(families.shardingConstraint, &ProgramGenerator::genShardingConstraint, 3);
    add(families.rowStatistic, &ProgramGenerator::genRowStatistic, 3);
    // A generator may find nothing valid for its operand; try others.
    for (int attempt = 0; attempt < 20 && !gens.empty(); ++attempt)
      if ((this->*pick(gens))())
        return;
    genUnary();
  }

  /// neg / exp / tanh / abs, or any unary op of OpCodes.def fed from the
  /// interval the catalogue says it is smooth on (unaryFeed).
  bool genUnary() {
    Val x = pickOperand();
    if (chance(0.3)) {
      test::ElementwiseRow row = pick(test::elementwiseRows(1));
      if (jumps(row.op))
        return false;
      std::optional<UnaryFeed> feed = unaryFeed(row);
      if (!feed)
        return false; // UnaryFeeds.EveryUnaryRowCanBeFed names it
      std::string t = typeStr(x.shape);
      Val in = emit("shardc.tanh " + x.name + " : " + t, x.shape, 1.0);
      if (feed->throughExp)
        in = emit("shardc.exp " + in.name + " : " + t, x.shape, std::exp(1.0));
      emit("shardc." + row.name + " " + in.name + " : " + t, x.shape, feed->bound);
      return true;
    }
    std::string op = pick<std::string>({"neg", "exp", "tanh", "abs"});
    double bound = x.bound;
    if (op == "exp") {
      x = bounded(x);
      bound = std::exp(x.bound);
    } else if (op == "tanh") {
      bound = 1.0;
    }
    emit("shardc." + op + " " + x.name + " : " + typeStr(x.shape), x.shape, bound);
    return true;
  }

  /// add / sub / mul / max / min with a partner of the same shape: another
  /// value, a new argument, or the operand itself.
  bool genBinary() {
    Val x = pickOperand();
    std::vector<Val> partners = valuesOfShape(x.shape);
    Val y = x;
    if (canAddArgument() && chance(partners.size() > 1 ? 0.2 : 0.5))
      y = addArgument(x.shape);
    else
      y = pick(partners);
    std::string op = pick<std::string>({"add", "sub", "mul", "max", "min"});
    bool same = x.name == y.name;
    x = bounded(x);
    y = same ? x : bounded(y);
    double bound = op == "mul"                    ? x.bound * y.bound
                   : (op == "add" || op == "sub") ? x.bound + y.bound
                                                  : std::max(x.bound, y.bound);
    emit("shardc." + op + " " + x.name + ", " + y.name + " : " + typeStr(x.shape), x.shape, bound);
    return true;
  }

  /// The result shape of a dot_general (batching dims, lhs free dims, rhs
  /// free dims), if it is within the generator's limits.
  static std::optional<Shape> dotResultShape(const Shape &lhs, const Shape &rhs,
                                             const std::vector<int64_t> &lb,
                                             const std::vector<int64_t> &rb,
                                             const std::vector<int64_t> &lc,
                                             const std::vector<int64_t> &rc) {
    Shape out;
    int64_t contraction = 1;
    for (int64_t d : lb)
      out.push_back(lhs[d]);
    for (int64_t d = 0; d < (int64_t)lhs.size(); ++d)
      if (!llvm::is_contained(lb, d) && !llvm::is_contained(lc, d))
        out.push_back(lhs[d]);
    for (int64_t d = 0; d < (int64_t)rhs.size(); ++d)
      if (!llvm::is_contained(rb, d) && !llvm::is_contained(rc, d))
        out.push_back(rhs[d]);
    for (int64_t d : lc)
      contraction *= lhs[d];
    if (out.empty() || (int)out.size() > kMaxRank || product(out) > kMaxElements ||
        contraction > kMaxContraction)
      return std::nullopt;
    return out;
  }

  /// dot_general of the operand with a new argument (plain or batched matmul,
  /// contracting any dimension) or with an existing value whose dimensions
  /// match (including the operand itself).
  bool genDotGeneral() {
    Val lhs = pickOperand();
    int lr = (int)lhs.shape.size();
    std::vector<int64_t> lb, rb, lc, rc;
    Val rhs;
    if (canAddArgument() && chance(0.6)) {
      // Choose the lhs dims: at most one batching, one or two contracting.
      std::vector<int64_t> dims(lr);
      std::iota(dims.begin(), dims.end(), 0);
      shuffle(dims);
      int nb = (lr >= 2 && chance(0.4)) ? 1 : 0;
      int nc = (lr - nb >= 2 && chance(0.2)) ? 2 : 1;
      if (nb + nc > lr)
        return false;
      lb.assign(dims.begin(), dims.begin() + nb);
      lc.assign(dims.begin() + nb, dims.begin() + nb + nc);
      // The rhs: the paired dims plus zero to two free dims, in random order.
      std::vector<int64_t> sizes;
      std::vector<int> role; // 0: batching i, 1: contracting i, 2: free
      std::vector<int> index;
      for (int i = 0; i < nb; ++i)
        sizes.push_back(lhs.shape[lb[i]]), role.push_back(0), index.push_back(i);
      for (int i = 0; i < nc; ++i)
        sizes.push_back(lhs.shape[lc[i]]), role.push_back(1), index.push_back(i);
      int nfree = uniform(lr - nb - nc == 0 ? 1 : 0, 2);
      for (int i = 0; i < nfree; ++i)
        sizes.push_back(randomDim()), role.push_back(2), index.push_back(i);
      std::vector<int> order(sizes.size());
      std::iota(order.begin(), order.end(), 0);
      shuffle(order);
      Shape rhsShape;
      rb.assign(nb, 0);
      rc.assign(nc, 0);
      for (size_t pos = 0; pos < order.size(); ++pos) {
        int k = order[pos];
        rhsShape.push_back(sizes[k]);
        if (role[k] == 0)
          rb[index[k]] = (int64_t)pos;
        else if (role[k] == 1)
          rc[index[k]] = (int64_t)pos;
      }
      if ((int)rhsShape.size() > kMaxRank || product(rhsShape) > kMaxElements ||
          !dotResultShape(lhs.shape, rhsShape, lb, rb, lc, rc))
        return false;
      rhs = addArgument(rhsShape);
    } else {
      rhs = pick(vals);
      // Pair dims of equal size at random: maybe one batching pair, then one
      // or two contracting pairs.
      std::vector<int64_t> ld(lr), rd(rhs.shape.size());
      std::iota(ld.begin(), ld.end(), 0);
      std::iota(rd.begin(), rd.end(), 0);
      shuffle(ld);
      shuffle(rd);
      std::vector<bool> lused(lr), rused(rd.size());
      auto pair = [&](std::vector<int64_t> &l, std::vector<int64_t> &r) {
        for (int64_t i : ld)
          for (int64_t j : rd)
            if (!lused[i] && !rused[j] && lhs.shape[i] == rhs.shape[j]) {
              lused[i] = rused[j] = true;
              l.push_back(i);
              r.push_back(j);
              return true;
            }
        return false;
      };
      if (chance(0.3))
        pair(lb, rb);
      if (!pair(lc, rc))
        return false;
      if (chance(0.15))
        pair(lc, rc);
    }
    std::optional<Shape> out = dotResultShape(lhs.shape, rhs.shape, lb, rb, lc, rc);
    if (!out)
      return false;
    int64_t contraction = 1;
    for (int64_t d : lc)
      contraction *= lhs.shape[d];
    bool same = lhs.name == rhs.name;
    lhs = bounded(lhs);
    rhs = same ? lhs : bounded(rhs);
    std::string op = "shardc.dot_general " + lhs.name + ", " + rhs.name + " ";
    if (!lb.empty())
      op += "batching_dims = " + intList(lb) + " x " + intList(rb) + ", ";
    op += "contracting_dims = " + intList(lc) + " x " + intList(rc) + " : (" + typeStr(lhs.shape) +
          ", " + typeStr(rhs.shape) + ") -> " + typeStr(*out);
    emit(op, *out, lhs.bound * rhs.bound * (double)contraction);
    return true;
  }

  /// reduce sum / max / min over a random non-empty set of dimensions; all
  /// of them now and then (a scalar result).
  bool genReduce() {
    Val x = pickOperand();
    int rank = (int)x.shape.size();
    if (rank < 1)
      return false;
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d)
      if (chance(0.4))
        dims.push_back(d);
    if (dims.empty())
      dims.push_back(uniform(0, rank - 1));
    if ((int)dims.size() == rank && !chance(0.15))
      dims.erase(dims.begin() + uniform(0, rank - 1));
    if (dims.empty())
      return false;
    Shape out;
    int64_t n = 1;
    for (int d = 0; d < rank; ++d)
      if (llvm::is_contained(dims, (int64_t)d))
        n *= x.shape[d];
      else
        out.push_back(x.shape[d]);
    std::string kind = pick<std::string>({"sum", "max", "min"});
    if (kind == "sum")
      x = bounded(x);
    emit("shardc.reduce " + kind + " " + x.name + " dims = " + intList(dims) + " : (" +
             typeStr(x.shape) + ") -> " + typeStr(out),
         out, kind == "sum" ? x.bound * (double)n : x.bound);
    return true;
  }

  /// A reduction over the trailing dimension, or two, broadcast back along
  /// them and used against the operand, as softmax and layer norm use their
  /// rows' statistics: x op broadcast(reduce(x)) for op add, sub, mul, max
  /// or min, or a whole softmax, exp(x - max) / sum(exp(x - max)). The CPU
  /// backend's lowering makes each a row program (FuseOptions::rowPrograms),
  /// which the others make a chain of steps.
  bool genRowStatistic() {
    Val x = bounded(pickOperand());
    int rank = (int)x.shape.size();
    if (rank < 1)
      return false;
    int trailing = rank >= 2 && chance(0.3) ? 2 : 1;
    std::vector<int64_t> reduced, kept;
    Shape rows;
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) {
      if (d >= rank - trailing) {
        reduced.push_back(d);
        n *= x.shape[d];
      } else {
        kept.push_back(d);
        rows.push_back(x.shape[d]);
      }
    }
    std::string t = typeStr(x.shape);
    auto statistic = [&](const std::string &kind, const Val &v, double bound) {
      Val r = emit("shardc.reduce " + kind + " " + v.name + " dims = " + intList(reduced) + " : (" +
                       t + ") -> " + typeStr(rows),
                   rows, bound);
      return emit("shardc.broadcast_in_dim " + r.name + ", dims = " + intList(kept) + " : (" +
                      typeStr(rows) + ") -> " + t,
                  x.shape, bound);
    };
    if (chance(0.3)) { // softmax over the trailing dimensions
      Val m = statistic("max", x, x.bound);
      Val d = emit("shardc.sub " + x.name + ", " + m.name + " : " + t, x.shape, 2 * x.bound);
      Val e = emit("shardc.exp " + d.name + " : " + t, x.shape, 1.0);
      Val s = statistic("sum", e, (double)n);
      emit("shardc.div " + e.name + ", " + s.name + " : " + t, x.shape, 1.0);
      return true;
    }
    std::string kind = pick<std::string>({"sum", "max", "min"});
    Val b = statistic(kind, x, kind == "sum" ? x.bound * (double)n : x.bound);
    b = bounded(b);
    std::string op = pick<std::string>({"add", "sub", "mul", "max", "min"});
    double bound = op == "mul"                    ? x.bound * b.bound
                   : (op == "add" || op == "sub") ? x.bound + b.bound
                                                  : std::max(x.bound, b.bound);
    bool flip = chance(0.5); // the statistic on either side
    emit("shardc." + op + " " + (flip ? b.name + ", " + x.name : x.name + ", " + b.name) + " : " +
             t,
         x.shape, bound);
    return true;
  }

  /// transpose by a random non-identity permutation.
  bool genTranspose() {
    Val x = pickOperand();
    int rank = (int)x.shape.size();
    if (rank < 2)
      return false;
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    while (std::is_sorted(perm.begin(), perm.end()))
      shuffle(perm);
    Shape out;
    for (int64_t p : perm)
      out.push_back(x.shape[p]);
    emit("shardc.transpose " + x.name + ", permutation = " + intList(perm) + " : (" +
             typeStr(x.shape) + ") -> " + typeStr(out),
         out, x.bound);
    return true;
  }

  /// broadcast_in_dim adding one new dimension, usually the leading one.
  bool genBroadcastInDim() {
    Val x = pickOperand();
    int rank = (int)x.shape.size();
    int64_t size = pick<int64_t>({2, 4, 8});
    if (rank + 1 > kMaxRank || product(x.shape) * size > kMaxElements)
      return false;
    int at = chance(0.6) ? 0 : uniform(0, rank);
    Shape out = x.shape;
    out.insert(out.begin() + at, size);
    std::vector<int64_t> dims;
    for (int d = 0; d <= rank; ++d)
      if (d != at)
        dims.push_back(d);
    emit("shardc.broadcast_in_dim " + x.name + ", dims = " + intList(dims) + " : (" +
             typeStr(x.shape) + ") -> " + typeStr(out),
         out, x.bound);
    return true;
  }

  /// reshape merging two adjacent dimensions, splitting one in two, or
  /// regrouping two adjacent dimensions into two others of the same product
  /// (8x6 -> 4x12).
  bool genReshape() {
    Val x = pickOperand();
    int rank = (int)x.shape.size();
    if (rank == 0)
      return false;
    Shape out = x.shape;
    int kind = uniform(0, 2);
    if (rank >= 2 && kind == 0) {
      int d = uniform(0, rank - 2);
      out[d] *= out[d + 1];
      out.erase(out.begin() + d + 1);
    } else if (rank >= 2 && kind == 1) {
      int d = uniform(0, rank - 2);
      int64_t n = out[d] * out[d + 1];
      std::vector<int64_t> majors;
      for (int64_t f = 2; f < n; ++f)
        if (n % f == 0 && f != out[d])
          majors.push_back(f);
      if (majors.empty())
        return false;
      out[d] = pick(majors);
      out[d + 1] = n / out[d];
    } else {
      if (rank + 1 > kMaxRank)
        return false;
      int d = uniform(0, rank - 1);
      std::vector<int64_t> factors;
      for (int64_t f = 2; f < out[d]; ++f)
        if (out[d] % f == 0)
          factors.push_back(f);
      if (factors.empty())
        return false;
      int64_t f = pick(factors);
      out[d] /= f;
      out.insert(out.begin() + d, f);
    }
    emit("shardc.reshape " + x.name + " : (" + typeStr(x.shape) + ") -> " + typeStr(out), out,
         x.bound);
    return true;
  }

  /// slice: a strided box of the operand; with sliceWithWholeDims, some
  /// dimensions are taken whole.
  bool genSlice() {
    Val x = pickOperand();
    int rank = (int)x.shape.size();
    std::vector<int64_t> start(rank), limit(rank), strides(rank);
    Shape out(rank);
    bool any = false;
    for (int d = 0; d < rank; ++d) {
      int64_t n = x.shape[d];
      start[d] = 0, limit[d] = n, strides[d] = 1;
      bool cut = n > 1 && (!families.sliceWithWholeDims || chance(0.5));
      // Draw until the dimension is really cut.
      while (cut && start[d] == 0 && strides[d] == 1 && limit[d] == n) {
        any = true;
        switch (uniform(0, 2)) {
        case 0: // a half
          start[d] = chance(0.5) ? 0 : n / 2;
          limit[d] = start[d] + n / 2;
          break;
        case 1: // every other element
          start[d] = uniform(0, 1);
          strides[d] = 2;
          break;
        default: // anything
          start[d] = uniform(0, (int)n - 1);
          limit[d] = uniform((int)start[d] + 1, (int)n);
          strides[d] = uniform(1, 3);
          break;
        }
      }
      out[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d];
    }
    if (!any)
      return false;
    emit("shardc.slice " + x.name + ", start = " + intList(start) + ", limit = " + intList(limit) +
             ", strides = " + intList(strides) + " : (" + typeStr(x.shape) + ") -> " + typeStr(out),
         out, x.bound);
    return true;
  }

  /// concatenate of the operand with one or two values that match it in all
  /// other dimensions (the operand itself always does).
  bool genConcatenate() {
    Val x = pickOperand();
    int rank = (int)x.shape.size();
    if (rank == 0)
      return false;
    int dim = uniform(0, rank - 1);
    std::vector<Val> partners;
    for (const Val &v : vals) {
      if ((int)v.shape.size() != rank)
        continue;
      bool fits = true;
      for (int d = 0; d < rank; ++d)
        fits &= d == dim || v.shape[d] == x.shape[d];
      if (fits)
        partners.push_back(v);
    }
    std::vector<Val> inputs = {x};
    int extra = uniform(1, 2);
    for (int i = 0; i < extra; ++i)
      inputs.push_back(pick(partners));
    shuffle(inputs);
    Shape out = x.shape;
    out[dim] = 0;
    double bound = 0;
    for (const Val &v : inputs) {
      out[dim] += v.shape[dim];
      bound = std::max(bound, v.bound);
    }
    if (product(out) > kMaxElements)
      return false;
    std::string names, types;
    for (size_t i = 0; i < inputs.size(); ++i) {
      names += (i ? ", " : "") + inputs[i].name;
      types += (i ? ", " : "") + typeStr(inputs[i].shape);
    }
    emit("shardc.concatenate " + names + " dim = " + std::to_string(dim) + " : (" + types +
             ") -> " + typeStr(out),
         out, bound);
    return true;
  }

  /// sharding_constraint with a random valid sharding.
  bool genShardingConstraint() {
    Val x = pickOperand();
    anyConstraint = true;
    emit("shardc.sharding_constraint " + x.name + " <@mesh, " + randomSharding(x.shape) +
             "> : " + typeStr(x.shape),
         x.shape, x.bound);
    return true;
  }

  //--- printing -----------------------------------------------------------//

  Program print(const std::vector<size_t> &results,
                const std::vector<std::string> &resultShardings) {
    std::string s = "module {\n  shardc.mesh @mesh = <[";
    for (size_t i = 0; i < mesh.size(); ++i)
      s += (i ? ", \"" : "\"") + mesh[i].name + "\"=" + std::to_string(mesh[i].size);
    s += "]>\n  func.func @main(";
    Program program;
    for (size_t i = 0; i < args.size(); ++i) {
      s += (i ? ", " : "") + args[i].name + ": " + typeStr(args[i].shape);
      if (!argShardings[i].empty())
        s += " {shardc.sharding = " + shardingAttr(argShardings[i]) + "}";
      program.argShapes.push_back(args[i].shape);
    }
    s += ") -> (";
    std::string names, types;
    for (size_t i = 0; i < results.size(); ++i) {
      const Val &v = vals[results[i]];
      s += (i ? ", " : "") + typeStr(v.shape);
      if (!resultShardings[i].empty())
        s += " {shardc.sharding = " + shardingAttr(resultShardings[i]) + "}";
      names += (i ? ", " : "") + v.name;
      types += (i ? ", " : "") + typeStr(v.shape);
    }
    s += ") {\n" + body + "    return " + names + " : " + types + "\n  }\n}\n";
    program.text = s;
    program.padded = padded;
    return program;
  }
};

//===----------------------------------------------------------------------===//
// Running a program both ways
//===----------------------------------------------------------------------===//

/// Uniform values in [-1, 1], from a generator seeded with the test's seed.
Array randomInput(const Shape &shape, std::mt19937 &rng) {
  std::vector<double> values(product(shape));
  for (double &v : values)
    v = (double)rng() / 4294967295.0 * 2.0 - 1.0;
  return Array::fromDoubles(DType::F32, shape, values);
}

/// Same shape, and |actual - expected| <= kRelTol * max(1, |expected|)
/// everywhere.
::testing::AssertionResult close(const Array &actual, const Array &expected) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "got " << actual.typeString() << ", want " << expected.typeString();
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < actual.numElements(); ++i) {
    double a = actual.getDouble(i), e = expected.getDouble(i);
    if ((std::isnan(a) && std::isnan(e)) || a == e)
      continue;
    double err = std::fabs(a - e);
    if (err <= kRelTol * std::max(1.0, std::fabs(e)))
      continue;
    if (first < 0)
      first = i;
    ++bad;
    worst = std::max(worst, std::isnan(err) ? INFINITY : err);
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << actual.numElements() << " elements differ (largest error " << worst
         << "); first at " << first << ": got " << actual.getDouble(first) << ", want "
         << expected.getDouble(first);
}

std::string printOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

class RandomPartitionTest : public ::testing::TestWithParam<uint32_t> {};
class RandomManyAxesPartitionTest : public ::testing::TestWithParam<uint32_t> {};

TEST(UnaryFeeds, EveryUnaryRowCanBeFed) {
  for (const test::ElementwiseRow &row : test::elementwiseRows(1))
    EXPECT_TRUE(jumps(row.op) || unaryFeed(row).has_value())
        << "shardc." << row.name << ": the random generator feeds unary ops from [-1, 1] "
        << "or [1/e, e], and neither lies in its range [" << row.lo << ", " << row.hi << "]";
}

/// A context with the shardc and func dialects whose diagnostics are
/// collected into `diagnostics` (for the failure messages).
struct CollectingContext {
  CollectingContext() { ctx.loadDialect<ShardcDialect, func::FuncDialect>(); }
  MLIRContext ctx;
  std::string diagnostics;
  ScopedDiagnosticHandler handler{&ctx, [this](Diagnostic &diag) {
                                    diagnostics += diag.str() + "\n";
                                    return success();
                                  }};
};

/// Generates the program of `seed`, runs it globally, propagates,
/// partitions, and runs it on the mesh's devices in the interpreter and on
/// the CPU backend: the results must match.
void checkSeed(uint32_t seed, MeshFamily meshFamily) {
  Program program = ProgramGenerator(seed, OpFamilies(), meshFamily).generate();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", program:\n" + program.text);
  if (std::getenv("SHARDC_RANDOM_PRINT"))
    (llvm::outs() << "// seed " << seed << "\n" << program.text).flush();

  CollectingContext collecting;
  MLIRContext &ctx = collecting.ctx;
  std::string &diagnostics = collecting.diagnostics;

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(program.text, &ctx);
  ASSERT_TRUE(module) << "the generated program does not parse:\n" << diagnostics;
  auto fn = module->lookupSymbol<func::FuncOp>("main");
  ASSERT_TRUE(fn);

  std::mt19937 inputRng(seed ^ 0x5eed5eedu);
  std::vector<Array> inputs;
  for (const Shape &shape : program.argShapes)
    inputs.push_back(randomInput(shape, inputRng));

  FailureOr<std::vector<Array>> expected = interpret(fn, inputs);
  ASSERT_TRUE(succeeded(expected)) << "the global run failed:\n" << diagnostics;

  ASSERT_TRUE(succeeded(propagateShardings(fn))) << "propagation failed:\n" << diagnostics;
  std::string propagated = printOp(*module);
  SCOPED_TRACE("propagated:\n" + propagated);
  PartitionOptions options;
  options.padUneven = program.padded;
  ASSERT_TRUE(succeeded(partitionFunction(fn, options))) << "partitioning failed:\n" << diagnostics;
  std::string partitioned = printOp(*module);
  SCOPED_TRACE("partitioned:\n" + partitioned);
  ASSERT_TRUE(succeeded(mlir::verify(*module))) << "the partitioned module does not verify:\n"
                                                << diagnostics;

  FailureOr<std::vector<Array>> got = interpretPartitioned(fn, inputs);
  ASSERT_TRUE(succeeded(got)) << "the partitioned run failed:\n" << diagnostics;
  ASSERT_EQ(got->size(), expected->size());
  for (size_t i = 0; i < got->size(); ++i)
    EXPECT_TRUE(close((*got)[i], (*expected)[i])) << "result #" << i;

  // The same per-device program, lowered to a plan, on the CPU backend's
  // threads.
  FailureOr<Plan> plan = lowerToPlan(fn);
  ASSERT_TRUE(succeeded(plan)) << "lowering failed:\n" << diagnostics;
  std::unique_ptr<Backend> cpu = createCpuBackend();
  StatusOr<std::vector<Array>> fromCpu = runPlan(*cpu, *plan, inputs);
  ASSERT_TRUE(fromCpu.ok()) << fromCpu.message();
  ASSERT_EQ(fromCpu->size(), expected->size());
  for (size_t i = 0; i < fromCpu->size(); ++i) {
    ::testing::AssertionResult same = close((*fromCpu)[i], (*expected)[i]);
    if (same)
      continue;
    // A second run tells a wrong plan or kernel (the same answer again)
    // from a race between the device threads (another answer).
    StatusOr<std::vector<Array>> again = runPlan(*cpu, *plan, inputs);
    bool repeats = again.ok() && close((*again)[i], (*fromCpu)[i]);
    ADD_FAILURE() << same.message() << "\ncpu backend, result #" << i << "; a second run "
                  << (repeats ? "gives the same wrong answer" : "gives another answer");
  }

  // The CPU backend's own lowering (CompileOptions::useBackend): chains
  // that read their rows' reductions back (row programs) and keep bf16
  // converts; run by the fused kernels and by the interpreter, which runs
  // a plan's first calls before the kernels are compiled.
  FailureOr<Plan> rowPlan = lowerToPlan(fn, kDefaultAllReduceBucketBytes,
                                        FuseOptions{/*rowPrograms=*/true, /*bf16Outputs=*/true});
  ASSERT_TRUE(succeeded(rowPlan)) << "lowering with row programs failed:\n" << diagnostics;
  FusedKernelCompiler *installed = fusedKernelCompiler();
  for (bool interpreted : {false, true}) {
    if (interpreted && !installed)
      continue; // the first pass ran the interpreter already
    if (interpreted)
      setFusedKernelCompiler(nullptr);
    StatusOr<std::vector<Array>> rows = runPlan(*createCpuBackend(), *rowPlan, inputs);
    if (interpreted) // the installed compiler back, owned where it was
      setFusedKernelCompiler(std::shared_ptr<FusedKernelCompiler>(installed, [](auto *) {}));
    ASSERT_TRUE(rows.ok()) << rows.message();
    ASSERT_EQ(rows->size(), expected->size());
    for (size_t i = 0; i < rows->size(); ++i)
      EXPECT_TRUE(close((*rows)[i], (*expected)[i]))
          << "cpu backend with row programs ("
          << (interpreted || !installed ? "interpreter" : "fused kernels") << "), result #" << i;
  }
}

/// Whether `plan` has a fused step that reads a row reduction back.
bool hasRowProgram(const Plan &plan) {
  for (const PlanStep &step : plan.steps)
    if (step.op == OpCode::Fused && FusedProgram::decode(step.attrs).readsReductions())
      return true;
  return false;
}

TEST_P(RandomPartitionTest, MatchesGlobalRun) { checkSeed(GetParam(), MeshFamily::Small); }

TEST_P(RandomManyAxesPartitionTest, MatchesGlobalRun) {
  checkSeed(GetParam(), MeshFamily::ManyAxes);
}

/// Many more programs on many axes through propagation, partitioning and
/// the verifier only (no runs): none may crash or be rejected. One test, so
/// that its seeds cost no process each; SHARDC_RANDOM_COMPILE_SEEDS=N sets
/// their number and SHARDC_RANDOM_COMPILE_FIRST=K the first (long sweeps
/// run as several processes over disjoint ranges).
TEST(RandomManyAxesCompiles, PropagateAndPartition) {
  uint32_t n = 100, first = 0;
  if (const char *env = std::getenv("SHARDC_RANDOM_COMPILE_SEEDS"))
    n = (uint32_t)std::max(1, std::atoi(env));
  if (const char *env = std::getenv("SHARDC_RANDOM_COMPILE_FIRST"))
    first = (uint32_t)std::max(0, std::atoi(env));
  CollectingContext collecting;
  MLIRContext &ctx = collecting.ctx;
  std::string &diagnostics = collecting.diagnostics;
  int failures = 0;
  for (uint32_t seed = first; seed < first + n && failures < 5; ++seed) {
    // Seeds apart from the executed suite's.
    uint32_t s = 1000000 + seed;
    Program program = ProgramGenerator(s, OpFamilies(), MeshFamily::ManyAxes).generate();
    if (std::getenv("SHARDC_RANDOM_PRINT"))
      (llvm::outs() << "// seed " << s << "\n" << program.text).flush();
    diagnostics.clear();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(program.text, &ctx);
    ASSERT_TRUE(module) << "seed " << s << ": the generated program does not parse:\n"
                        << diagnostics << program.text;
    auto fn = module->lookupSymbol<func::FuncOp>("main");
    PartitionOptions options;
    options.padUneven = program.padded;
    bool ok = succeeded(propagateShardings(fn)) && succeeded(partitionFunction(fn, options)) &&
              succeeded(mlir::verify(*module));
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "seed " << s << ":\n" << diagnostics << program.text;
    }
  }
}

/// The seeds of RandomPartitionTest reach row programs, so that
/// checkSeed's row-program runs check something: one in seven or more
/// lowers to a plan with one (21 of the first 100; their rows' statistics
/// come from genRowStatistic, and a statistic of a sharded row takes an
/// all_reduce, which no fused step spans).
TEST(RandomRowPrograms, ManySeedsMakeOne) {
  CollectingContext collecting;
  int withRowProgram = 0, seeds = 100;
  for (uint32_t seed = 0; seed < (uint32_t)seeds; ++seed) {
    Program program = ProgramGenerator(seed, OpFamilies(), MeshFamily::Small).generate();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(program.text, &collecting.ctx);
    ASSERT_TRUE(module) << collecting.diagnostics;
    auto fn = module->lookupSymbol<func::FuncOp>("main");
    PartitionOptions options;
    options.padUneven = program.padded;
    ASSERT_TRUE(succeeded(propagateShardings(fn)) && succeeded(partitionFunction(fn, options)))
        << "seed " << seed << ":\n"
        << collecting.diagnostics;
    FailureOr<Plan> plan = lowerToPlan(fn, kDefaultAllReduceBucketBytes, FuseOptions{true, true});
    ASSERT_TRUE(succeeded(plan)) << "seed " << seed << ":\n" << collecting.diagnostics;
    withRowProgram += hasRowProgram(*plan);
  }
  EXPECT_GE(withRowProgram, seeds / 7);
  std::printf("%d of %d seeds lower to a row program\n", withRowProgram, seeds);
}

/// SHARDC_RANDOM_SEEDS=N, else `fallback`.
uint32_t numSeeds(uint32_t fallback) {
  if (const char *n = std::getenv("SHARDC_RANDOM_SEEDS"))
    return (uint32_t)std::max(1, std::atoi(n));
  return fallback;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomPartitionTest, ::testing::Range(0u, numSeeds(400)));
INSTANTIATE_TEST_SUITE_P(Seeds, RandomManyAxesPartitionTest, ::testing::Range(0u, numSeeds(100)));

} // namespace
