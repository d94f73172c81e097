//===- RandomProductTest.cpp - random dot_generals against float64 --------===//
//
// Random dot_general steps run on the CPU backend and checked against a
// product in double precision computed here, from the dimension numbers
// alone (no code of the backend's products). Each draw picks:
//   - 0 to 3 batch, 0 to 2 contracting and 0 to 2 free dimensions per side,
//     each operand's dimensions in a random order (batch dimensions held
//     out of memory order, contracting ones interleaved with free ones),
//     sizes of 1 included, and now and then sizes large enough for oneDNN;
//   - f32, bf16 or tf32 precision, at bf16 with f32 or bf16 operands (the
//     reference rounds the inputs first, as the precision does);
//   - one device, or a mesh of 2 with a batch, free or contracting
//     dimension split over it (then the partial sums are all_reduced).
// Each draw runs with the backend's own choice of library (the product
// wisdom on and off) and with oneDNN and OpenBLAS forced, so the
// matrix-vector and tiny kernels, both libraries and the wisdom all see
// every layout. An element may differ from the reference by the rounding
// of an f32 sum: (K + 2) * 2^-24 * sum |a b| over its terms.
//
// Every plan is also validated (validatePlan), which checks the views the
// backend reads the operands through.
//
// SHARDC_RANDOM_PRODUCTS=N sets the draws per test (default 12, over 25
// seeds: 300 draws; N=800 is a sweep of 20,000);
// SHARDC_RANDOM_PRODUCTS_SEED=S runs seed S alone;
// SHARDC_RANDOM_PRODUCTS_PRECISION=f32|bf16|tf32 draws that precision
// alone. A failure prints the draw.
//
//===----------------------------------------------------------------------===//

#include "Cpu/CpuKernels.h"

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Sharding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace shardc;
using namespace shardc::cpu;

namespace {

/// Which dimension a 2-device mesh splits.
enum class Split { None, Batch, LhsFree, RhsFree, Contracting };

struct Draw {
  Shape lhs, rhs;
  std::vector<int64_t> lb, rb, lc, rc; // batching and contracting dims
  MatmulPrecision precision = MatmulPrecision::F32;
  DType lhsType = DType::F32, rhsType = DType::F32;
  Split split = Split::None;
  int64_t splitIndex = 0; // which batch/free/contracting dimension

  std::string str() const {
    auto list = [](const std::vector<int64_t> &v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    };
    static const char *splits[] = {"one device", "batch", "lhs free", "rhs free", "contracting"};
    std::ostringstream os;
    os << "lhs " << list(lhs) << " " << dtypeName(lhsType) << ", rhs " << list(rhs) << " "
       << dtypeName(rhsType) << ", batching_dims = " << list(lb) << " x " << list(rb)
       << ", contracting_dims = " << list(lc) << " x " << list(rc) << ", precision "
       << matmulPrecisionName(precision) << ", " << splits[(int)split];
    if (split != Split::None)
      os << " dimension " << splitIndex << " over 2 devices";
    return os.str();
  }
};

int64_t pick(std::mt19937 &rng, std::vector<int64_t> from) {
  return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
}

/// The free dimensions of an operand of `rank` with batch `b` and
/// contracting `c` dimensions, in order (as the result lists them).
std::vector<int64_t> freeDims(size_t rank, const std::vector<int64_t> &b,
                              const std::vector<int64_t> &c) {
  std::vector<int64_t> f;
  for (int64_t d = 0; d < (int64_t)rank; ++d)
    if (std::find(b.begin(), b.end(), d) == b.end() && std::find(c.begin(), c.end(), d) == c.end())
      f.push_back(d);
  return f;
}

Draw randomDraw(std::mt19937 &rng) {
  Draw d;
  // Two batch dimensions half the time: the layouts that failed.
  int64_t nb = pick(rng, {0, 1, 2, 2, 2, 3}), nc = pick(rng, {0, 1, 1, 1, 2});
  int64_t nlf = pick(rng, {0, 1, 1, 2}), nrf = pick(rng, {0, 1, 1, 2});
  bool large = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
  auto sizes = [&](int64_t n, bool matrix) {
    std::vector<int64_t> s;
    for (int64_t i = 0; i < n; ++i)
      s.push_back(large && matrix ? pick(rng, {1, 8, 24, 32, 64, 96, 128})
                                  : pick(rng, {1, 1, 2, 3, 4, 5, 7, 8, 13, 16}));
    return s;
  };
  std::vector<int64_t> bs = sizes(nb, false), cs = sizes(nc, true), lfs = sizes(nlf, true),
                       rfs = sizes(nrf, true);
  // A large draw keeps its product under about 16M multiply-adds.
  auto total = [](const std::vector<int64_t> &v) {
    return std::accumulate(v.begin(), v.end(), int64_t(1), std::multiplies<int64_t>());
  };
  while (total(bs) * total(cs) * total(lfs) * total(rfs) > (int64_t(1) << 24)) {
    std::vector<int64_t> *biggest = &cs;
    for (std::vector<int64_t> *v : {&bs, &lfs, &rfs})
      if (total(*v) > total(*biggest))
        biggest = v;
    int64_t &s = *std::max_element(biggest->begin(), biggest->end());
    s = std::max<int64_t>(1, s / 2);
  }
  // Each operand's dimensions by role, then shuffled into positions.
  auto place = [&](const std::vector<int64_t> &free, Shape &shape, std::vector<int64_t> &batch,
                   std::vector<int64_t> &contracting) {
    size_t rank = nb + nc + free.size();
    std::vector<int64_t> pos(rank);
    std::iota(pos.begin(), pos.end(), 0);
    std::shuffle(pos.begin(), pos.end(), rng);
    shape.assign(rank, 0);
    size_t k = 0;
    for (int64_t i = 0; i < nb; ++i)
      batch.push_back(pos[k]), shape[pos[k++]] = bs[i];
    for (int64_t i = 0; i < nc; ++i)
      contracting.push_back(pos[k]), shape[pos[k++]] = cs[i];
    // The free dimensions fill the rest in order of position.
    std::vector<int64_t> rest(pos.begin() + k, pos.end());
    std::sort(rest.begin(), rest.end());
    for (size_t i = 0; i < free.size(); ++i)
      shape[rest[i]] = free[i];
  };
  place(lfs, d.lhs, d.lb, d.lc);
  place(rfs, d.rhs, d.rb, d.rc);
  int p = std::uniform_int_distribution<int>(0, 5)(rng);
  d.precision = p < 3   ? MatmulPrecision::F32
                : p < 5 ? MatmulPrecision::BF16
                        : MatmulPrecision::TF32;
  if (const char *only = std::getenv("SHARDC_RANDOM_PRODUCTS_PRECISION"))
    d.precision = std::string(only) == "bf16"   ? MatmulPrecision::BF16
                  : std::string(only) == "tf32" ? MatmulPrecision::TF32
                                                : MatmulPrecision::F32;
  if (d.precision == MatmulPrecision::BF16) {
    int t = std::uniform_int_distribution<int>(0, 3)(rng);
    d.lhsType = t & 1 ? DType::BF16 : DType::F32;
    d.rhsType = t & 2 ? DType::BF16 : DType::F32;
  }
  // Half the draws run on two devices, splitting a dimension of even size.
  if (std::uniform_int_distribution<int>(0, 1)(rng)) {
    Split kind = (Split)std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<int64_t> candidates;
    std::vector<int64_t> lf = freeDims(d.lhs.size(), d.lb, d.lc),
                         rf = freeDims(d.rhs.size(), d.rb, d.rc);
    auto even = [&](const Shape &s, const std::vector<int64_t> &dims) {
      std::vector<int64_t> out;
      for (size_t i = 0; i < dims.size(); ++i)
        if (s[dims[i]] % 2 == 0)
          out.push_back((int64_t)i);
      return out;
    };
    candidates = kind == Split::Batch     ? even(d.lhs, d.lb)
                 : kind == Split::LhsFree ? even(d.lhs, lf)
                 : kind == Split::RhsFree ? even(d.rhs, rf)
                                          : even(d.lhs, d.lc);
    if (!candidates.empty()) {
      d.split = kind;
      d.splitIndex = pick(rng, candidates);
    }
  }
  return d;
}

/// An array of `shape` with elements uniform in [-1, 1], of type `type`
/// (bf16: the f32 values rounded).
Array randomArray(DType type, const Shape &shape, std::mt19937 &rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(numElements(shape));
  for (double &x : v)
    x = u(rng);
  return Array::fromDoubles(type, shape, v);
}

double valueAt(const Array &a, int64_t i, MatmulPrecision p) {
  float x = a.dtype() == DType::BF16 ? bf16ToFloat(a.data<uint16_t>()[i]) : a.data<float>()[i];
  if (p == MatmulPrecision::BF16)
    x = bf16ToFloat(floatToBF16(x));
  else if (p == MatmulPrecision::TF32)
    x = roundToTF32(x);
  return x;
}

/// The product in double precision, and for each element the sum of the
/// magnitudes of its terms (what an f32 sum's rounding error scales with).
struct Reference {
  Shape shape;
  std::vector<double> value, magnitude;
  int64_t K = 1;
};

Reference reference(const Draw &d, const Array &lhs, const Array &rhs) {
  std::vector<int64_t> lf = freeDims(d.lhs.size(), d.lb, d.lc),
                       rf = freeDims(d.rhs.size(), d.rb, d.rc);
  std::vector<int64_t> ls = stridesOf(d.lhs), rs = stridesOf(d.rhs);
  // The result's dimensions, each with its strides in the operands.
  struct Dim {
    int64_t size, lstride, rstride;
  };
  std::vector<Dim> out, sum;
  for (size_t i = 0; i < d.lb.size(); ++i)
    out.push_back({d.lhs[d.lb[i]], ls[d.lb[i]], rs[d.rb[i]]});
  for (int64_t f : lf)
    out.push_back({d.lhs[f], ls[f], 0});
  for (int64_t f : rf)
    out.push_back({d.rhs[f], 0, rs[f]});
  for (size_t i = 0; i < d.lc.size(); ++i)
    sum.push_back({d.lhs[d.lc[i]], ls[d.lc[i]], rs[d.rc[i]]});
  // Offsets of every index of a list of dimensions, row-major.
  auto offsets = [](const std::vector<Dim> &dims) {
    std::vector<std::pair<int64_t, int64_t>> o = {{0, 0}};
    for (const Dim &dim : dims) {
      std::vector<std::pair<int64_t, int64_t>> next;
      for (auto [l, r] : o)
        for (int64_t i = 0; i < dim.size; ++i)
          next.push_back({l + i * dim.lstride, r + i * dim.rstride});
      o = std::move(next);
    }
    return o;
  };
  Reference ref;
  for (const Dim &dim : out)
    ref.shape.push_back(dim.size);
  std::vector<std::pair<int64_t, int64_t>> at = offsets(out), terms = offsets(sum);
  ref.K = (int64_t)terms.size();
  std::vector<double> a(lhs.numElements()), b(rhs.numElements());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = valueAt(lhs, i, d.precision);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = valueAt(rhs, i, d.precision);
  for (auto [l, r] : at) {
    double v = 0, m = 0;
    for (auto [tl, tr] : terms) {
      double t = a[l + tl] * b[r + tr];
      v += t;
      m += std::abs(t);
    }
    ref.value.push_back(v);
    ref.magnitude.push_back(m);
  }
  return ref;
}

/// The plan of one dot_general step on the draw's devices: each operand
/// split as the draw says, the result split alike, or all_reduced where the
/// contracting dimension is split.
Plan productPlan(const Draw &d, const Shape &resultShape) {
  Plan p;
  p.entry = "main";
  Mesh mesh;
  if (d.split != Split::None)
    mesh = Mesh{{"x"}, {2}};
  PartitionSpec ls(d.lhs.size()), rs(d.rhs.size()), os(resultShape.size());
  std::vector<int64_t> lf = freeDims(d.lhs.size(), d.lb, d.lc),
                       rf = freeDims(d.rhs.size(), d.rb, d.rc);
  int64_t i = d.splitIndex, nb = (int64_t)d.lb.size(), nlf = (int64_t)lf.size();
  switch (d.split) {
  case Split::None:
    break;
  case Split::Batch:
    ls[d.lb[i]] = rs[d.rb[i]] = os[i] = {"x"};
    break;
  case Split::LhsFree:
    ls[lf[i]] = os[nb + i] = {"x"};
    break;
  case Split::RhsFree:
    rs[rf[i]] = os[nb + nlf + i] = {"x"};
    break;
  case Split::Contracting:
    ls[d.lc[i]] = rs[d.rc[i]] = {"x"};
    break;
  }
  NamedSharding lsh{mesh, ls}, rsh{mesh, rs}, osh{mesh, os};
  Shape lLocal = lsh.localShape(d.lhs), rLocal = rsh.localShape(d.rhs);
  Shape oLocal = osh.localShape(resultShape);
  auto aligned = [](int64_t bytes) { return (bytes + 63) / 64 * 64; };
  int64_t outBytes = aligned(numElements(oLocal) * 4);
  p.values = {PlanValue{d.lhsType, lLocal, kArgument}, PlanValue{d.rhsType, rLocal, kArgument},
              PlanValue{DType::F32, oLocal, 0}};
  PlanStep dot;
  dot.op = OpCode::DotGeneral;
  dot.inputs = {0, 1};
  dot.outputs = {2};
  dot.attrs = {(int64_t)d.lb.size(), (int64_t)d.lc.size()};
  for (const std::vector<int64_t> *v : {&d.lb, &d.rb, &d.lc, &d.rc})
    dot.attrs.insert(dot.attrs.end(), v->begin(), v->end());
  if (d.precision != MatmulPrecision::F32)
    dot.attrs.push_back((int64_t)d.precision);
  dot.location = "random.mlir:1:1";
  p.steps = {dot};
  p.results = {2};
  p.arenaBytes = outBytes;
  if (d.split == Split::Contracting) { // partial sums, reduced
    p.values.push_back(PlanValue{DType::F32, oLocal, outBytes});
    PlanStep reduce;
    reduce.op = OpCode::AllReduce;
    reduce.inputs = {2};
    reduce.outputs = {3};
    reduce.attrs = {(int64_t)Reduction::Sum};
    reduce.axes = {"x"};
    reduce.location = "random.mlir:2:1";
    p.steps.push_back(reduce);
    p.results = {3};
    p.arenaBytes = 2 * outBytes;
  }
  p.args = {0, 1};
  p.argNames = {"a", "b"};
  p.donated = {false, false};
  p.mesh = mesh;
  p.argShardings = {lsh, rsh};
  p.resultShardings = {osh};
  p.argGlobalShapes = {d.lhs, d.rhs};
  p.resultGlobalShapes = {resultShape};
  return p;
}

struct Choice {
  const char *name;
  GemmLibrary library;
  bool wisdom;
};
const Choice kChoices[] = {{"the backend's choice", GemmLibrary::Auto, true},
                           {"the rule without the wisdom", GemmLibrary::Auto, false},
                           {"oneDNN", GemmLibrary::OneDnn, false},
                           {"OpenBLAS", GemmLibrary::OpenBlas, false}};

/// Runs draw `d` with every choice of library; an empty string when every
/// run matches the reference, else what differed.
std::string check(const Draw &d, std::mt19937 &rng, Backend &cpu) {
  Array lhs = randomArray(d.lhsType, d.lhs, rng), rhs = randomArray(d.rhsType, d.rhs, rng);
  Reference ref = reference(d, lhs, rhs);
  Plan plan = productPlan(d, ref.shape);
  if (Status s = validatePlan(plan); !s.ok())
    return "the plan is invalid: " + s.message();
  std::string failures;
  for (const Choice &c : kChoices) {
    if (!gemmLibraryAvailable(c.library))
      continue;
    forceGemmLibrary(c.library);
    allowProductWisdom(c.wisdom);
    StatusOr<std::vector<Array>> got = runPlan(cpu, plan, {lhs, rhs});
    forceGemmLibrary(GemmLibrary::Auto);
    allowProductWisdom(true);
    if (!got.ok()) {
      failures += std::string("\n  ") + c.name + ": " + got.status().message();
      continue;
    }
    const Array &out = (*got)[0];
    if (out.shape() != ref.shape) {
      failures += std::string("\n  ") + c.name + ": the result has another shape";
      continue;
    }
    for (int64_t i = 0; i < (int64_t)ref.value.size(); ++i) {
      double g = out.data<float>()[i], want = ref.value[i];
      double bound = (ref.K + 2) * std::ldexp(1.0, -24) * ref.magnitude[i] + 1e-30;
      if (!(std::abs(g - want) <= bound)) {
        failures += std::string("\n  ") + c.name + ": element " + std::to_string(i) + " is " +
                    std::to_string(g) + ", not " + std::to_string(want) + " (within " +
                    std::to_string(bound) + ")";
        break;
      }
    }
  }
  return failures;
}

int64_t drawsPerSeed() {
  const char *n = std::getenv("SHARDC_RANDOM_PRODUCTS");
  return n ? std::max(1, std::atoi(n)) : 12;
}

class RandomProductTest : public testing::TestWithParam<int> {};

TEST_P(RandomProductTest, MatchesFloat64) {
  int seed = GetParam();
  if (const char *only = std::getenv("SHARDC_RANDOM_PRODUCTS_SEED");
      only && std::atoi(only) != seed)
    GTEST_SKIP() << "SHARDC_RANDOM_PRODUCTS_SEED=" << only;
  std::mt19937 rng(1000 + seed);
  std::unique_ptr<Backend> cpu = createCpuBackend();
  for (int64_t i = 0, n = drawsPerSeed(); i < n; ++i) {
    Draw d = randomDraw(rng);
    std::string failures = check(d, rng, *cpu);
    ASSERT_TRUE(failures.empty()) << "draw " << i << " of seed " << seed << ": " << d.str()
                                  << failures;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomProductTest, testing::Range(0, 25));

/// A draw written by hand: the layouts the random ones were found by.
Draw fixedDraw(Shape lhs, Shape rhs, std::vector<int64_t> lb, std::vector<int64_t> rb,
               std::vector<int64_t> lc, std::vector<int64_t> rc) {
  Draw d;
  d.lhs = std::move(lhs), d.rhs = std::move(rhs);
  d.lb = std::move(lb), d.rb = std::move(rb), d.lc = std::move(lc), d.rc = std::move(rc);
  return d;
}

// Two batch dimensions the lhs holds out of memory order, with a packed
// lhs and an rhs read in place: the crash, at each precision.
TEST(RandomProduct, BatchDimensionsOutOfMemoryOrder) {
  std::mt19937 rng(3);
  std::unique_ptr<Backend> cpu = createCpuBackend();
  for (MatmulPrecision p : {MatmulPrecision::F32, MatmulPrecision::BF16, MatmulPrecision::TF32}) {
    Draw d = fixedDraw({8, 128, 7, 32}, {32, 7, 8, 128}, {3, 2}, {0, 1}, {0}, {2});
    d.precision = p;
    std::string failures = check(d, rng, *cpu);
    EXPECT_TRUE(failures.empty()) << d.str() << failures;
  }
  // The wrong values: batch [2, 1] x [0, 1] split over 2 devices.
  Draw d = fixedDraw({3, 5, 16, 8, 10}, {16, 5, 64, 3}, {2, 1}, {0, 1}, {0}, {3});
  for (int64_t i : {0, 1}) {
    d.split = Split::Batch, d.splitIndex = i;
    if (d.lhs[d.lb[i]] % 2 == 0) {
      std::string failures = check(d, rng, *cpu);
      EXPECT_TRUE(failures.empty()) << d.str() << failures;
    }
  }
  d.split = Split::LhsFree, d.splitIndex = 1;
  std::string failures = check(d, rng, *cpu);
  EXPECT_TRUE(failures.empty()) << d.str() << failures;
}

} // namespace
