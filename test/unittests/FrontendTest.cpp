//===- FrontendTest.cpp - tracing, jit and value_and_grad from C++ --------===//
//
// The frontend as a user sees it (only shardc/shardc.h): traced functions
// give the numbers a direct host computation gives, on one device and on
// several; errors in a traced function name the user's line; jit traces
// once per signature; value_and_grad matches finite differences; a jitted
// training step learns.
//
//===----------------------------------------------------------------------===//

#include <shardc/Runtime/PlanCost.h>
#include <shardc/shardc.h>

#include "TempDir.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <thread>

using namespace shardc;

namespace {

Array randomArray(Shape shape, uint32_t seed, double scale = 1.0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  std::vector<double> v(numElements(shape));
  for (double &x : v)
    x = normal(rng);
  return Array::fromDoubles(DType::F32, shape, v);
}

Client cpuClient() {
  StatusOr<Client> c = Client::create("cpu", "");
  EXPECT_TRUE(c.ok()) << c.message();
  return std::move(*c);
}

void expectNear(const Array &got, const std::vector<double> &want, double tol) {
  ASSERT_EQ(got.numElements(), (int64_t)want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got.getDouble(i), want[i], tol * (1 + std::fabs(want[i]))) << "element " << i;
}

std::vector<Array> run(Client &client, TracedFn fn, const std::vector<Array> &args,
                       JitOptions options = {}) {
  Jitted f = client.jit(std::move(fn), std::move(options));
  StatusOr<std::vector<Array>> out = f.call(args);
  EXPECT_TRUE(out.ok()) << out.message();
  return out.ok() ? *out : std::vector<Array>{};
}

// ---- Numbers -----------------------------------------------------------------

/// libm's value of the frontend's unary function `name`, written out here
/// independently of OpCodes.def's formulas.
std::optional<double> libmUnary(const std::string &name, double x) {
  if (name == "neg")
    return -x;
  if (name == "abs")
    return std::fabs(x);
  if (name == "exp")
    return std::exp(x);
  if (name == "log")
    return std::log(x);
  if (name == "tanh")
    return std::tanh(x);
  if (name == "sqrt")
    return std::sqrt(x);
  if (name == "rsqrt")
    return 1 / std::sqrt(x);
  if (name == "erf")
    return std::erf(x);
  if (name == "log1p")
    return std::log1p(x);
  if (name == "expm1")
    return std::expm1(x);
  if (name == "sin")
    return std::sin(x);
  if (name == "cos")
    return std::cos(x);
  if (name == "floor")
    return std::floor(x);
  if (name == "ceil")
    return std::ceil(x);
  if (name == "round_even")
    return std::nearbyint(x);
  if (name == "round_afz")
    return std::round(x);
  if (name == "tan")
    return std::tan(x);
  if (name == "cbrt")
    return std::cbrt(x);
  return std::nullopt;
}

// Every unary function the frontend has (one per SHARDC_UNARY row of
// OpCodes.def) traces, compiles and runs, against libm.
TEST(Frontend, EveryUnaryFunctionMatchesLibm) {
  Client client = cpuClient();
  Array x = Array::fromDoubles(DType::F32, {4}, {0.3, 0.7, 1.1, 1.9});
  using Fn = Tensor (*)(const Tensor &, CallSite);
  std::vector<std::pair<std::string, Fn>> functions = {
#define SHARDC_UNARY(Name, name, ...) {#name, &name},
#include "shardc/Common/OpCodes.def"
  };
  for (auto [name, fn] : functions) {
    SCOPED_TRACE(name);
    std::vector<Array> out =
        run(client,
            [fn = fn](const std::vector<Tensor> &in) { return std::vector<Tensor>{fn(in[0], {})}; },
            {x});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> want;
    for (int64_t i = 0; i < 4; ++i) {
      std::optional<double> v = libmUnary(name, x.getDouble(i));
      ASSERT_TRUE(v) << "no libm value for the frontend's " << name << " in this test";
      want.push_back(*v);
    }
    expectNear(out[0], want, 1e-6);
  }
}

TEST(Frontend, DenseLayerMatchesHost) {
  Client client = cpuClient();
  Array x = randomArray({5, 7}, 1), w = randomArray({7, 3}, 2), b = randomArray({3}, 3);
  auto out = run(client,
                 [](const std::vector<Tensor> &in) {
                   return std::vector<Tensor>{relu(matmul(in[0], in[1]) + in[2]) * 2.0 - 1.0};
                 },
                 {x, w, b});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{5, 3}));
  std::vector<double> want;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      double acc = b.getDouble(j);
      for (int k = 0; k < 7; ++k)
        acc += x.getDouble(i * 7 + k) * w.getDouble(k * 3 + j);
      want.push_back(std::max(acc, 0.0) * 2 - 1);
    }
  expectNear(out[0], want, 1e-5);
}

TEST(Frontend, CompositesMatchHost) {
  Client client = cpuClient();
  const int rows = 3, cols = 5;
  Array x = randomArray({rows, cols}, 4, 2.0), g = randomArray({cols}, 5),
        b = randomArray({cols}, 6);
  Array labels = Array::fromInts(DType::I32, {rows}, {4, 0, 2});
  auto out = run(client,
                 [](const std::vector<Tensor> &in) {
                   const Tensor &x = in[0];
                   return std::vector<Tensor>{softmax(x),
                                              log_softmax(x),
                                              gelu(x),
                                              gelu(x, /*approximate=*/true),
                                              layer_norm(x, in[1], in[2]),
                                              softmax_cross_entropy(x, in[3]),
                                              mean(x, {0}),
                                              sum(x, {-1}, /*keepdims=*/true)};
                 },
                 {x, g, b, labels});
  ASSERT_EQ(out.size(), 8u);
  std::vector<double> sm, lsm, ge, gea, ln, colMean(cols, 0), rowSum;
  double ce = 0;
  for (int r = 0; r < rows; ++r) {
    std::vector<double> v(cols);
    double mx = -1e30, s = 0, mu = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mx = std::max(mx, v[c] = x.getDouble(r * cols + c));
    for (int c = 0; c < cols; ++c)
      s += std::exp(v[c] - mx), mu += v[c] / cols;
    for (int c = 0; c < cols; ++c)
      var += (v[c] - mu) * (v[c] - mu) / cols;
    double rs = 0;
    for (int c = 0; c < cols; ++c) {
      sm.push_back(std::exp(v[c] - mx) / s);
      lsm.push_back(v[c] - mx - std::log(s));
      ge.push_back(0.5 * v[c] * (1 + std::erf(v[c] / std::sqrt(2.0))));
      gea.push_back(0.5 * v[c] *
                    (1 + std::tanh(std::sqrt(2 / M_PI) * (v[c] + 0.044715 * v[c] * v[c] * v[c]))));
      ln.push_back((v[c] - mu) / std::sqrt(var + 1e-5) * g.getDouble(c) + b.getDouble(c));
      colMean[c] += v[c] / rows;
      rs += v[c];
    }
    rowSum.push_back(rs);
    ce -= (v[labels.getInt(r)] - mx - std::log(s)) / rows;
  }
  expectNear(out[0], sm, 1e-5);
  expectNear(out[1], lsm, 1e-5);
  expectNear(out[2], ge, 1e-5);
  expectNear(out[3], gea, 1e-5);
  expectNear(out[4], ln, 1e-4);
  expectNear(out[5], {ce}, 1e-5);
  expectNear(out[6], colMean, 1e-5);
  EXPECT_EQ(out[7].shape(), (Shape{rows, 1}));
  expectNear(out[7], rowSum, 1e-5);
}

TEST(Frontend, DataMovementAndIntegers) {
  Client client = cpuClient();
  Array x = randomArray({4, 6}, 7);
  Array idx = Array::fromInts(DType::I32, {3}, {3, 0, 3});
  auto out = run(client,
                 [](const std::vector<Tensor> &in) {
                   const Tensor &x = in[0];
                   Tensor t = transpose(x, {1, 0});             // 6x4
                   Tensor s = slice(t, {1, 0}, {6, 4}, {2, 1}); // rows 1,3,5
                   Tensor c = concatenate({s, s}, 0);           // 6x4
                   Tensor r = reshape(c, {-1});                 // 24
                   Tensor rows = take(x, in[1]);                // 3x6
                   Tensor big = where(greater(x, 0.0), x, full_like(x, -1.0));
                   Tensor ids = astype(iota({2, 3}, 1), DType::F32);
                   return std::vector<Tensor>{r, rows, big, ids, maximum(x, minimum(x, 0.5))};
                 },
                 {x, idx});
  ASSERT_EQ(out.size(), 5u);
  std::vector<double> r, rows, big, ids, clip;
  for (int rep = 0; rep < 2; ++rep)
    for (int i : {1, 3, 5})
      for (int j = 0; j < 4; ++j)
        r.push_back(x.getDouble(j * 6 + i));
  for (int i : {3, 0, 3})
    for (int j = 0; j < 6; ++j)
      rows.push_back(x.getDouble(i * 6 + j));
  for (int64_t i = 0; i < 24; ++i) {
    double v = x.getDouble(i);
    big.push_back(v > 0 ? v : -1);
    clip.push_back(std::max(v, std::min(v, 0.5)));
  }
  ids = {0, 1, 2, 0, 1, 2};
  expectNear(out[0], r, 0);
  expectNear(out[1], rows, 0);
  expectNear(out[2], big, 0);
  expectNear(out[3], ids, 0);
  expectNear(out[4], clip, 0);
}

TEST(Frontend, BatchedMatmulAndNegativeSlices) {
  Client client = cpuClient();
  Array a = randomArray({2, 3, 4, 5}, 11), b = randomArray({2, 3, 5, 6}, 12),
        c = randomArray({3, 5, 6}, 13);
  auto out = run(client,
                 [](const std::vector<Tensor> &in) {
                   Tensor ab = matmul(in[0], in[1]); // [2,3,4,6]
                   Tensor ac = matmul(in[0], in[2]); // [2,3,4,6], c broadcast
                   Tensor tail = slice(in[0], {0, 0, -2, 1}, {2, 3, 4, -1}); // rows 2..3, cols 1..3
                   return std::vector<Tensor>{ab, ac, tail};
                 },
                 {a, b, c});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 3, 4, 6}));
  EXPECT_EQ(out[2].shape(), (Shape{2, 3, 2, 3}));
  std::vector<double> ab, ac, tail;
  for (int i = 0; i < 2; ++i)
    for (int h = 0; h < 3; ++h) {
      for (int m = 0; m < 4; ++m)
        for (int n = 0; n < 6; ++n) {
          double s = 0, t = 0;
          for (int k = 0; k < 5; ++k) {
            double av = a.getDouble(((i * 3 + h) * 4 + m) * 5 + k);
            s += av * b.getDouble(((i * 3 + h) * 5 + k) * 6 + n);
            t += av * c.getDouble((h * 5 + k) * 6 + n);
          }
          ab.push_back(s);
          ac.push_back(t);
        }
      for (int m = 2; m < 4; ++m)
        for (int k = 1; k < 4; ++k)
          tail.push_back(a.getDouble(((i * 3 + h) * 4 + m) * 5 + k));
    }
  expectNear(out[0], ab, 1e-5);
  expectNear(out[1], ac, 1e-5);
  expectNear(out[2], tail, 0);
}

// ---- Errors at trace time ----------------------------------------------------

// A product at a stated precision: at bf16 it reads a weight kept at bf16
// as it is, next to an f32 operand, and gives the f32 sums of the rounded
// operands' products; a stated f32 stands when the executable's default is
// bf16, as a stated bf16 does under an f32 default.
TEST(Frontend, DotGeneralAtAStatedPrecision) {
  Client client = cpuClient();
  Array x = randomArray({3, 40}, 4), w = randomArray({6, 40}, 5); // w as [out, in]
  Array wHalf(DType::BF16, w.shape());
  for (int64_t i = 0; i < w.numElements(); ++i)
    wHalf.setDouble(i, w.getDouble(i)); // rounded to nearest even
  auto product = [](MatmulPrecision p) {
    return [p](const std::vector<Tensor> &in) {
      return std::vector<Tensor>{dot_general(in[0], in[1], {{}, {}, {1}, {1}}, p)};
    };
  };
  auto want = [&](bool rounded) {
    std::vector<double> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j) {
        double acc = 0;
        for (int k = 0; k < 40; ++k) {
          float a = (float)x.getDouble(i * 40 + k), b = (float)w.getDouble(j * 40 + k);
          acc += rounded ? (double)bf16ToFloat(floatToBF16(a)) * bf16ToFloat(floatToBF16(b))
                         : (double)a * b;
        }
        out.push_back(acc);
      }
    return out;
  };
  std::vector<double> exact = want(false), rounded = want(true);
  JitOptions bf16Default;
  bf16Default.compile.precision = MatmulPrecision::BF16;
  for (const Array &weight : {w, wHalf}) {
    std::vector<Array> out = run(client, product(MatmulPrecision::BF16), {x, weight});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dtype(), DType::F32);
    expectNear(out[0], rounded, 1e-5);
  }
  std::vector<Array> f32 = run(client, product(MatmulPrecision::F32), {x, w}, bf16Default);
  ASSERT_EQ(f32.size(), 1u);
  expectNear(f32[0], exact, 1e-5);
  // The two differ by far more than the tolerance: the test tells them apart.
  double apart = 0;
  for (size_t i = 0; i < exact.size(); ++i)
    apart = std::max(apart, std::fabs(exact[i] - rounded[i]));
  EXPECT_GT(apart, 1e-3);
  // The attribute is in the program.
  std::string text =
      traceToModule(product(MatmulPrecision::BF16),
                    {{"x", DType::F32, {3, 40}, {}}, {"w", DType::BF16, {6, 40}, {}}});
  EXPECT_NE(text.find("precision = \"bf16\""), std::string::npos) << text;
  // Operands a precision does not take.
  auto expectError = [&](MatmulPrecision p, DType a, DType b, const std::string &what) {
    try {
      traceToModule(product(p), {{"x", a, {3, 40}, {}}, {"w", b, {6, 40}, {}}});
      ADD_FAILURE() << "no error, expected: " << what;
    } catch (const TraceError &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expectError(MatmulPrecision::F32, DType::F32, DType::BF16,
              "dot_general: at f32 precision needs f32 operands, got f32[3x40] and bf16[6x40]");
  expectError(MatmulPrecision::BF16, DType::F32, DType::I32,
              "dot_general: at bf16 precision needs f32 or bf16 operands, got i32[6x40]");
  expectError(MatmulPrecision::TF32, DType::BF16, DType::BF16,
              "at tf32 precision needs f32 operands");
}

TEST(Frontend, ShapeErrorNamesTheCallSite) {
  Client client = cpuClient();
  int line = 0;
  Jitted f = client.jit([&](const std::vector<Tensor> &in) {
    line = __LINE__ + 1;
    return std::vector<Tensor>{in[0] + in[1]};
  });
  StatusOr<std::vector<Array>> out = f.call({Array(DType::F32, {4, 8}), Array(DType::F32, {4, 9})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("FrontendTest.cpp:" + std::to_string(line) + ": error: add"),
            std::string::npos)
      << out.message();
  EXPECT_NE(out.message().find("f32[4x8] and f32[4x9]"), std::string::npos) << out.message();
}

TEST(Frontend, TraceErrorsAreClear) {
  auto expectError = [](const TracedFn &fn, std::vector<ArgSpec> args, const std::string &what) {
    try {
      traceToModule(fn, args);
      ADD_FAILURE() << "no error, expected: " << what;
    } catch (const TraceError &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  ArgSpec m{"m", DType::F32, {4, 8}, {}}, v{"v", DType::F32, {5}, {}},
      i{"i", DType::I32, {4, 8}, {}};
  expectError([](auto &in) { return std::vector<Tensor>{matmul(in[0], in[1])}; }, {m, v},
              "matmul: needs operands of rank >= 2");
  expectError([](auto &in) { return std::vector<Tensor>{in[0] + in[1]}; }, {m, i},
              "operand dtypes differ: f32[4x8] and i32[4x8]");
  expectError([](auto &in) { return std::vector<Tensor>{exp(in[0])}; }, {i},
              "exp: needs a float operand");
  expectError(
      [](auto &in) {
        return std::vector<Tensor>{reshape(in[0], {3, -1})};
      },
      {m}, "cannot infer the -1 dimension");
  expectError([](auto &in) { return std::vector<Tensor>{sum(in[0], {2})}; }, {m},
              "dimension 2 out of range");
  expectError([](auto &in) { return std::vector<Tensor>{argmax(in[0], 1)}; }, {i},
              "argmax: takes floating-point values, not i32[4x8]");
  ArgSpec packed{"qkv", DType::F32, {2, 4, 3, 2, 8}, {}};
  expectError([](auto &in) { return std::vector<Tensor>{qkv_attention(in[0], true, 0.5)}; }, {m},
              "qkv_attention: qkv must be [B, T, 3, N, H] of f32 or f64 (queries, keys and values "
              "along dimension 2), got f32[4x8]");
  expectError([](auto &in) { return std::vector<Tensor>{qkv_attention(in[0], true, -1.0)}; },
              {packed}, "qkv_attention: scale must be positive and finite");
  ArgSpec rows{"rows", DType::F32, {2, 4, 2, 8}, {}}, keys{"keys", DType::F32, {2, 6, 4, 8}, {}};
  expectError(
      [](auto &in) { return std::vector<Tensor>{dot_product_attention(in[0], in[1], in[1], 0.5)}; },
      {rows, keys},
      "dot_product_attention: k must be [B, S, N, H] with q's B, N, H and dtype, got "
      "f32[2x6x4x8] for q f32[2x4x2x8]");
  expectError(
      [](auto &in) {
        return std::vector<Tensor>{dot_product_attention(in[0], in[0], in[0], 0.5, false, in[1])};
      },
      {rows, i}, "dot_product_attention: kv_lengths must be i32[2], got i32[4x8]");
  expectError([](auto &in) { return std::vector<Tensor>{argmax(in[0], 2)}; }, {m},
              "dimension 2 out of range");
  expectError([](auto &in) { return std::vector<Tensor>{psum(in[0], {"data"})}; }, {m},
              "psum: is only available inside a shard_map body");
  expectError([](auto &in) { return std::vector<Tensor>{softmax_cross_entropy(in[0], in[1])}; },
              {m, v}, "labels must be i32 or i64");
  expectError([](auto &in) { return std::vector<Tensor>{in[0] * 0.5}; }, {i},
              "the number 0.5 is not a value of i32");
  expectError([](auto &in) { return std::vector<Tensor>{in[0] + 3e9}; }, {i},
              "the number 3000000000 is not a value of i32");
  expectError(
      [](auto &in) { return std::vector<Tensor>{equal(less(in[0], 0.0), less(in[0], 1.0))}; }, {m},
      "compare: is not defined on i1");
  expectError(
      [](auto &in) {
        return std::vector<Tensor>{with_sharding_constraint(in[0], {{}, {}})};
      },
      {m}, "with_sharding_constraint: needs a mesh");
  expectError(
      [](auto &in) {
        return std::vector<Tensor>{iota({-1, 2}, 0)};
      },
      {m}, "iota: negative dimension");
  expectError([](auto &in) { return std::vector<Tensor>{sum(in[0], {0})}; },
              {{"e", DType::F32, {0, 3}, {}}}, "reduces dimension 0 of f32[0x3], which is empty");
  // A collective naming an axis the mesh does not have: caught before its
  // shape is computed.
  Mesh mesh{{"data"}, {2}};
  try {
    traceToModule(
        [](auto &in) {
          return shard_map(
              [](auto &l) { return std::vector<Tensor>{psum_scatter(l[0], {"model"}, 0)}; },
              {in[0]}, {{{"data"}, {}}}, {{{"data"}, {}}});
        },
        {{"x", DType::F32, {8, 4}, {mesh, {{"data"}, {}}}}});
    ADD_FAILURE() << "no error for an unknown axis";
  } catch (const TraceError &e) {
    EXPECT_NE(std::string(e.what()).find("psum_scatter: the mesh has no axis 'model'"),
              std::string::npos)
        << e.what();
  }
  // Another op's shape passed in, while ops are being recorded.
  std::string ok = traceToModule(
      [](auto &in) {
        Tensor b;
        for (int k = 0; k < 64; ++k)
          b = broadcast_to(reshape(in[1], {1, 8}), in[0].shape());
        return std::vector<Tensor>{b};
      },
      {m, {"b", DType::F32, {8}, {}}});
  EXPECT_NE(ok.find("tensor<4x8xf32>"), std::string::npos);
  // A Tensor kept from another trace.
  Tensor stale;
  traceToModule(
      [&](auto &in) {
        stale = in[0];
        return std::vector<Tensor>{in[0]};
      },
      {m});
  expectError([&](auto &in) { return std::vector<Tensor>{in[0] + stale}; }, {m},
              "belongs to another trace");
  // Outside a trace.
  EXPECT_THROW(full({2}, 1.0), TraceError);
}

TEST(Frontend, CompilerDiagnosticsNameTheUsersLine) {
  // The trace records the call site as each op's location.
  auto body = [](auto &in) { return std::vector<Tensor>{exp(in[0])}; };
  const int line = __LINE__ - 1; // the line of the call of exp
  std::string text = traceToModule(body, {{"x", DType::F32, {2}, {}}});
  EXPECT_NE(text.find("\"shardc.exp\"(%v0)"), std::string::npos) << text;
  EXPECT_NE(text.find("FrontendTest.cpp\":" + std::to_string(line)), std::string::npos) << text;
  EXPECT_NE(text.find("{shardc.name = \"x\"}"), std::string::npos) << text;
}

// ---- jit -----------------------------------------------------------------------

TEST(Frontend, JitTracesOncePerSignature) {
  Client client = cpuClient();
  TracedFn fn = [](const std::vector<Tensor> &in) {
    return std::vector<Tensor>{sum(in[0] * in[0], {1})};
  };
  Jitted f = client.jit(fn);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(f.call({randomArray({4, 3}, i)}).ok());
  EXPECT_EQ(f.traceCount(), 1);
  EXPECT_EQ(client.cacheStats().misses, 1);
  StatusOr<std::vector<Array>> other = f.call({randomArray({8, 3}, 9)}); // another batch
  ASSERT_TRUE(other.ok()) << other.message();
  EXPECT_EQ(other->at(0).shape(), (Shape{8}));
  EXPECT_EQ(f.traceCount(), 2);
  EXPECT_EQ(client.cacheStats().misses, 2);
  // A second jit of the same function traces again, to the same program
  // text (locations included), which the compile cache has.
  Jitted g = client.jit(fn);
  ASSERT_TRUE(g.call({randomArray({4, 3}, 0)}).ok());
  EXPECT_EQ(client.cacheStats().misses, 2);
  EXPECT_EQ(client.cacheStats().memoryHits, 1);
}

TEST(Frontend, ShardedArgumentsGiveTheSameNumbers) {
  Client client = cpuClient();
  Mesh mesh{{"data"}, {2}};
  Array x = randomArray({8, 6}, 11), w = randomArray({6, 4}, 12);
  TracedFn fn = [](const std::vector<Tensor> &in) {
    Tensor h = tanh(matmul(in[0], in[1]));
    return std::vector<Tensor>{h, mean(h)};
  };
  std::vector<Array> single = run(client, fn, {x, w});
  Jitted f = client.jit(fn);
  StatusOr<DeviceArray> xs = client.device_put(x, {mesh, {{"data"}, {}}});
  StatusOr<DeviceArray> ws = client.device_put(w, {mesh, {{}, {}}});
  ASSERT_TRUE(xs.ok() && ws.ok());
  StatusOr<std::vector<DeviceArray>> out = f.call({*xs, *ws});
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->at(0).shards().size(), 2u);
  EXPECT_EQ(out->at(0).shards()[0].shape(), (Shape{4, 4})); // stays split over "data"
  expectNear(out->at(0).fetch(), single[0].toDoubles(), 1e-6);
  expectNear(out->at(1).fetch(), single[1].toDoubles(), 1e-6);
}

/// A cache updated at a run-time row, as a decode step updates its keys:
/// dynamic_update_slice of a donated argument.
TracedFn cacheUpdate() {
  return [](const std::vector<Tensor> &in) {
    Tensor zero = astype(constant(Array::fromInts(DType::I32, {}, {0})), DType::I32);
    Tensor cache = dynamic_update_slice(in[0], in[1], {in[2], zero});
    Tensor row = dynamic_slice(cache, {in[2], zero}, {1, 6});
    return std::vector<Tensor>{cache, row * 2.0};
  };
}

TEST(Frontend, DonatedCacheIsUpdatedInPlace) {
  Client client = cpuClient();
  Mesh mesh{{"data"}, {2}};
  JitOptions options;
  options.donate = {0};
  Jitted f = client.jit(cacheUpdate(), options);
  Array cache0 = randomArray({8, 6}, 21);
  StatusOr<DeviceArray> cache = client.device_put(cache0, {mesh, {{}, {"data"}}});
  ASSERT_TRUE(cache.ok());
  std::vector<Array> want = {cache0};
  for (int32_t pos : {3, 0, 7, 11}) { // 11 is clamped to the last row
    Array update = randomArray({1, 6}, 30 + pos);
    StatusOr<DeviceArray> u = client.device_put(update, {mesh, {{}, {"data"}}});
    StatusOr<DeviceArray> p = client.device_put(Array::fromInts(DType::I32, {}, {pos}), {mesh, {}});
    ASSERT_TRUE(u.ok() && p.ok());
    const uint8_t *before = cache->shards()[1].bytes();
    std::vector<DeviceArray> args{std::move(*cache), *u, *p};
    StatusOr<std::vector<DeviceArray>> out = f.call(std::move(args));
    ASSERT_TRUE(out.ok()) << out.message();
    // The cache came back in the buffers it went in with: no copy.
    EXPECT_EQ(out->at(0).shards()[1].bytes(), before);
    int64_t row = std::min<int64_t>(pos, 7);
    Array expect = want.back();
    for (int64_t j = 0; j < 6; ++j)
      expect.setDouble(row * 6 + j, update.getDouble(j));
    EXPECT_EQ(out->at(0).fetch(), expect) << "position " << pos;
    expectNear(out->at(1).fetch(),
               {2 * update.getDouble(0), 2 * update.getDouble(1), 2 * update.getDouble(2),
                2 * update.getDouble(3), 2 * update.getDouble(4), 2 * update.getDouble(5)},
               1e-6);
    want.push_back(expect);
    cache = std::move(out->at(0));
  }
}

TEST(Frontend, KeptDonatedArgumentIsNotWritten) {
  // A caller that keeps its reference gets the same results, and its array
  // is left as it was (the backend copies it first).
  Client client = cpuClient();
  JitOptions options;
  options.donate = {0};
  Jitted f = client.jit(cacheUpdate(), options);
  Mesh mesh{{"data"}, {2}};
  Array cache0 = randomArray({8, 6}, 22), update = randomArray({1, 6}, 23);
  StatusOr<DeviceArray> cache = client.device_put(cache0, {mesh, {{}, {}}});
  StatusOr<DeviceArray> u = client.device_put(update, {mesh, {{}, {}}});
  StatusOr<DeviceArray> p = client.device_put(Array::fromInts(DType::I32, {}, {2}), {mesh, {}});
  ASSERT_TRUE(cache.ok() && u.ok() && p.ok());
  for (int moved = 0; moved < 2; ++moved) {
    StatusOr<std::vector<DeviceArray>> out =
        moved ? f.call(std::vector<DeviceArray>{*cache, *u, *p}) // a copy: shared
              : f.call({*cache, *u, *p});
    ASSERT_TRUE(out.ok()) << out.message();
    EXPECT_NE(out->at(0).shards()[0].bytes(), cache->shards()[0].bytes());
    EXPECT_EQ(cache->fetch(), cache0);
    Array expect = cache0;
    for (int64_t j = 0; j < 6; ++j)
      expect.setDouble(2 * 6 + j, update.getDouble(j));
    EXPECT_EQ(out->at(0).fetch(), expect);
  }
}

TEST(Frontend, ACopiedDeviceArrayIsAHandleToTheSameArray) {
  // Passing the same parameters to every call copies handles: the copy
  // shares the shards and the layout, and outlives the original.
  Client client = cpuClient();
  Mesh mesh{{"data"}, {2}};
  Array x = randomArray({4, 6}, 31);
  StatusOr<DeviceArray> a = client.device_put(x, {mesh, {{"data"}, {}}});
  ASSERT_TRUE(a.ok()) << a.message();
  std::optional<DeviceArray> original(*a);
  DeviceArray copy = *original;
  EXPECT_EQ(&copy.shards(), &original->shards());
  EXPECT_EQ(&copy.sharding(), &original->sharding());
  EXPECT_EQ(&copy.shape(), &original->shape());
  original.reset();
  EXPECT_EQ(copy.shape(), (Shape{4, 6}));
  EXPECT_EQ(copy.dtype(), DType::F32);
  EXPECT_EQ(copy.sharding().spec, (PartitionSpec{{"data"}, {}}));
  EXPECT_EQ(copy.fetch(), x);
  ASSERT_EQ(copy.shards().size(), 2u);
  EXPECT_EQ(copy.shards()[1].shape(), (Shape{2, 6}));
}

TEST(Frontend, DynamicSliceErrorsNameTheProblem) {
  Client client = cpuClient();
  Jitted f = client.jit([](const std::vector<Tensor> &in) {
    return std::vector<Tensor>{dynamic_slice(in[0], {in[1]}, {1, 2})};
  });
  StatusOr<std::vector<Array>> out =
      f.call({randomArray({4, 3}, 1), Array::fromInts(DType::I32, {}, {0})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("dynamic_slice: needs 2 start indices for f32[4x3], got 1"),
            std::string::npos)
      << out.message();
  Jitted g = client.jit([](const std::vector<Tensor> &in) {
    return std::vector<Tensor>{dynamic_update_slice(in[0], in[0], {in[1], in[1]})};
  });
  out = g.call({randomArray({4, 3}, 1), randomArray({}, 2)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("start indices must be i32 or i64 scalars"), std::string::npos)
      << out.message();
}

TEST(Frontend, ExecutablesAndJittedOutliveTheirClient) {
  std::shared_ptr<Executable> exe;
  std::optional<Jitted> f;
  {
    Client client = cpuClient();
    f.emplace(
        client.jit([](const std::vector<Tensor> &in) { return std::vector<Tensor>{in[0] * 2.0}; }));
    StatusOr<std::shared_ptr<Executable>> lowered = f->lower({ArgSpec{"x", DType::F32, {3}, {}}});
    ASSERT_TRUE(lowered.ok()) << lowered.message();
    exe = *lowered;
  } // the client is gone; its backend lives on in what it made
  Array x = Array::fromDoubles(DType::F32, {3}, {1, 2, 3});
  StatusOr<std::vector<Array>> a = exe->call(std::vector<Array>{x});
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ((*a)[0].toDoubles(), (std::vector<double>{2, 4, 6}));
  StatusOr<std::vector<Array>> b = f->call(std::vector<Array>{randomArray({5}, 3)}); // a new trace
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(f->traceCount(), 2);
}

TEST(Frontend, ConcurrentCallsOnOneClientAreSafe) {
  // Threads share one client, one Jitted (tracing new signatures as they
  // go) and its executables on a 2-device mesh; every result is right.
  Client client = cpuClient();
  Mesh mesh{{"data"}, {2}};
  JitOptions options;
  options.mesh = mesh;
  Jitted f = client.jit(
      [](const std::vector<Tensor> &in) {
        return std::vector<Tensor>{sum(tanh(in[0]) * in[0], {1})};
      },
      options);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        int64_t rows = 2 + 2 * ((t + i) % 3); // three signatures, traced once each
        Array x = randomArray({rows, 5}, 100 * t + i);
        StatusOr<DeviceArray> xd = client.device_put(x, {mesh, {{"data"}, {}}});
        StatusOr<std::vector<DeviceArray>> out =
            xd.ok() ? f.call({*xd}) : StatusOr<std::vector<DeviceArray>>(xd.status());
        if (!out.ok()) {
          ++failures;
          continue;
        }
        Array y = (*out)[0].fetch();
        for (int64_t r = 0; r < rows; ++r) {
          double want = 0;
          for (int64_t c = 0; c < 5; ++c) {
            double v = x.getDouble(r * 5 + c);
            want += std::tanh(v) * v;
          }
          if (std::abs(y.getDouble(r) - want) > 1e-5)
            ++failures;
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(f.traceCount(), 3);
}

TEST(Frontend, ShardMapWithCollectives) {
  Client client = cpuClient();
  Mesh mesh{{"data"}, {2}};
  Array x = randomArray({8, 3}, 13);
  JitOptions options;
  options.mesh = mesh;
  auto out = run(
      client,
      [](const std::vector<Tensor> &in) {
        return shard_map(
            [](const std::vector<Tensor> &local) {
              Tensor partial = sum(local[0], {0}); // this device's rows
              return std::vector<Tensor>{psum(partial, {"data"}), pmean(partial, {"data"}),
                                         all_gather(local[0], {"data"}, 0)};
            },
            {in[0]}, {{{"data"}, {}}}, {{{}}, {{}}, {{}, {}}});
      },
      {x}, options);
  ASSERT_EQ(out.size(), 3u);
  std::vector<double> total(3, 0);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 3; ++j)
      total[j] += x.getDouble(i * 3 + j);
  expectNear(out[0], total, 1e-5);
  for (double &t : total)
    t /= 2;
  expectNear(out[1], total, 1e-5);
  expectNear(out[2], x.toDoubles(), 0);
}

// all_to_all on the CPU backend's device threads, for groups of 2, 3 and 4
// and every pair of split and concatenation dimensions (the same one
// included), against its definition: device r's result is block r along
// the split dimension of each member's operand, in member order along the
// concatenation dimension.
// argmax traced, on one device and with the rows split over two and the
// searched dimension split over two (gathered first): the index of the
// first largest element of each row, as the host finds it.
TEST(Frontend, ArgMaxFindsEachRowsFirstLargest) {
  Client client = cpuClient();
  Array x = randomArray({6, 40}, 17);
  x.setDouble(2 * 40 + 31, 10.0); // row 2: a tie of two maxima, the first wins
  x.setDouble(2 * 40 + 35, 10.0);
  std::vector<double> want;
  for (int64_t r = 0; r < 6; ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < 40; ++c)
      if (x.getDouble(r * 40 + c) > x.getDouble(r * 40 + best))
        best = c;
    want.push_back((double)best);
  }
  EXPECT_EQ(want[2], 31);
  for (PartitionSpec spec :
       {PartitionSpec{{}, {}}, PartitionSpec{{"x"}, {}}, PartitionSpec{{}, {"x"}}}) {
    JitOptions options;
    options.mesh = Mesh{{"x"}, {2}};
    options.inShardings = {{options.mesh, spec}};
    auto out = run(
        client,
        [](const std::vector<Tensor> &in) { return std::vector<Tensor>{argmax(in[0], -1)}; }, {x},
        options);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dtype(), DType::I32);
    expectNear(out[0], want, 0);
  }
}

TEST(Frontend, AllToAllMovesBlocksBetweenDevices) {
  Client client = cpuClient();
  const Shape local{2, 12, 12};
  for (int64_t n : {2, 3, 4})
    for (int64_t split = 0; split < 3; ++split)
      for (int64_t concat = 0; concat < 3; ++concat) {
        if (local[split] % n)
          continue;
        SCOPED_TRACE("n=" + std::to_string(n) + " split=" + std::to_string(split) +
                     " concat=" + std::to_string(concat));
        Mesh mesh{{"x"}, {n}};
        Array x = randomArray({n * local[0], local[1], local[2]}, 90 + (uint32_t)n);
        JitOptions options;
        options.mesh = mesh;
        auto out = run(
            client,
            [&](const std::vector<Tensor> &in) {
              return shard_map(
                  [&](const std::vector<Tensor> &l) {
                    return std::vector<Tensor>{all_to_all(l[0], {"x"}, split, concat)};
                  },
                  {in[0]}, {{{"x"}, {}, {}}}, {{{"x"}, {}, {}}});
            },
            {x}, options);
        ASSERT_EQ(out.size(), 1u);
        Shape box = local, result = local;
        box[split] /= n;
        result[split] /= n;
        result[concat] *= n;
        int64_t perDevice = numElements(result);
        std::vector<double> want(out[0].numElements());
        for (int64_t r = 0; r < n; ++r)
          for (int64_t m = 0; m < n; ++m)
            for (int64_t i = 0; i < box[0]; ++i)
              for (int64_t j = 0; j < box[1]; ++j)
                for (int64_t k = 0; k < box[2]; ++k) {
                  std::vector<int64_t> src{i, j, k}, dst{i, j, k};
                  src[split] += r * box[split];
                  dst[concat] += m * box[concat];
                  double v = x.getDouble(((m * local[0] + src[0]) * local[1] + src[1]) * local[2] +
                                         src[2]);
                  want[r * perDevice + (dst[0] * result[1] + dst[1]) * result[2] + dst[2]] = v;
                }
        expectNear(out[0], want, 0);
      }
}

// ---- value_and_grad and training -------------------------------------------------

TEST(Frontend, ValueAndGradMatchesFiniteDifferences) {
  Client client = cpuClient();
  TracedFn loss = [](const std::vector<Tensor> &in) {
    Tensor h = gelu(matmul(in[0], in[1]));
    Tensor logits = matmul(layer_norm(h, in[2], in[3]), in[4]);
    return std::vector<Tensor>{softmax_cross_entropy(logits, in[5])};
  };
  std::vector<Array> args{randomArray({4, 5}, 21), randomArray({5, 6}, 22, 0.5),
                          randomArray({6}, 23),    randomArray({6}, 24),
                          randomArray({6, 3}, 25), Array::fromInts(DType::I32, {4}, {0, 2, 1, 2})};
  JitOptions options;
  options.transform = JitOptions::Transform::ValueAndGrad;
  options.wrt = {1, 2, 3, 4};
  Jitted grad = client.jit(loss, options);
  StatusOr<std::vector<Array>> out = grad.call(args);
  ASSERT_TRUE(out.ok()) << out.message();
  ASSERT_EQ(out->size(), 5u);
  Jitted value = client.jit(loss);
  double base = (*value.call(args))[0].getDouble(0);
  EXPECT_NEAR(out->at(0).getDouble(0), base, 1e-6);
  const double h = 1e-2;
  for (unsigned k = 0; k < options.wrt.size(); ++k) {
    unsigned a = options.wrt[k];
    for (int64_t i = 0; i < args[a].numElements(); i += 3) {
      std::vector<Array> plus = args, minus = args;
      plus[a].setDouble(i, args[a].getDouble(i) + h);
      minus[a].setDouble(i, args[a].getDouble(i) - h);
      double fd =
          ((*value.call(plus))[0].getDouble(0) - (*value.call(minus))[0].getDouble(0)) / (2 * h);
      EXPECT_NEAR(out->at(1 + k).getDouble(i), fd, 2e-3 + 2e-2 * std::fabs(fd))
          << "argument " << a << " element " << i;
    }
  }
}

/// Attention spelled out of the dialect's other ops, as the Tiny
/// Transformer had it: q k^T per head, a -1e9 causal mask, softmax, times
/// v; qkv [B,T,3,N,H] -> [B,T,N,H].
static Tensor composedAttention(const Tensor &qkv, bool causal, double scale) {
  const Shape &s = qkv.shape();
  int64_t B = s[0], T = s[1], N = s[3], H = s[4];
  auto part = [&](int64_t i) {
    return reshape(slice(qkv, {0, 0, i, 0, 0}, {B, T, i + 1, N, H}), {B, T, N, H});
  };
  Tensor scores = dot_general(part(0), part(1), {{0, 2}, {0, 2}, {3}, {3}}) * scale; // [B,N,T,T]
  if (causal) {
    Array mask(DType::F32, {T, T});
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = i + 1; j < T; ++j)
        mask.setDouble(i * T + j, -1e9);
    scores = scores + constant(mask);
  }
  Tensor y = dot_general(softmax(scores, -1), part(2), {{0, 1}, {0, 2}, {3}, {1}}); // [B,N,T,H]
  return transpose(y, {0, 2, 1, 3});
}

// qkv_attention and its gradient (one op each) give what the composed
// attention gives, value and gradient, on one device and split by batch
// items and heads over a 2x2 mesh (the CPU backend's one-pass kernels).
TEST(Frontend, QkvAttentionMatchesComposedAttention) {
  Client client = cpuClient();
  std::vector<Array> args{randomArray({4, 12, 3, 2, 8}, 41), randomArray({4, 12, 2, 8}, 42)};
  for (bool causal : {true, false}) {
    auto loss = [causal](bool fused) -> TracedFn {
      return [causal, fused](const std::vector<Tensor> &in) {
        Tensor y =
            fused ? qkv_attention(in[0], causal, 0.35) : composedAttention(in[0], causal, 0.35);
        return std::vector<Tensor>{sum(y * in[1])};
      };
    };
    for (bool split : {false, true}) {
      SCOPED_TRACE(std::string(causal ? "causal" : "not causal") + (split ? ", split" : ""));
      JitOptions options;
      options.transform = JitOptions::Transform::ValueAndGrad;
      options.wrt = {0};
      if (split) {
        options.mesh = Mesh{{"data", "model"}, {2, 2}};
        options.inShardings = {{options.mesh, {{"data"}, {}, {}, {"model"}, {}}},
                               {options.mesh, {{"data"}, {}, {"model"}, {}}}};
      }
      std::vector<Array> fused = run(client, loss(true), args, options);
      std::vector<Array> composed = run(client, loss(false), args, options);
      ASSERT_EQ(fused.size(), 2u);
      ASSERT_EQ(composed.size(), 2u);
      expectNear(fused[0], composed[0].toDoubles(), 1e-5);
      expectNear(fused[1], composed[1].toDoubles(), 1e-5);
    }
  }
}

// dot_product_attention with per-item lengths against the same attention
// composed with a -1e9 mask past each item's length, on one device and
// split by batch items and heads (the CPU backend's one-pass kernels): the
// value, and the gradients of q, k and v (attention_grad) of a weighed sum.
TEST(Frontend, DotProductAttentionMatchesComposedAttention) {
  Client client = cpuClient();
  const int64_t B = 2, T = 3, S = 10, N = 2, H = 8;
  std::vector<int64_t> lengths{4, 10};
  std::vector<Array> args{
      randomArray({B, T, N, H}, 51), randomArray({B, S, N, H}, 52), randomArray({B, S, N, H}, 53),
      Array::fromInts(DType::I32, {B}, {lengths[0], lengths[1]}), randomArray({B, T, N, H}, 54)};
  Array mask(DType::F32, {B, N, T, S});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < N * T; ++i)
      for (int64_t s = lengths[b]; s < S; ++s)
        mask.setDouble((b * N * T + i) * S + s, -1e9);
  for (bool grad : {false, true}) {
    // The attention, or with `grad` its sum weighed by the last argument.
    auto result = [grad](const std::vector<Tensor> &in, const Tensor &y) {
      return std::vector<Tensor>{grad ? sum(y * in[4]) : y};
    };
    TracedFn fused = [&](const std::vector<Tensor> &in) {
      return result(in, dot_product_attention(in[0], in[1], in[2], 0.3, false, in[3]));
    };
    TracedFn composed = [&](const std::vector<Tensor> &in) {
      Tensor scores = dot_general(in[0], in[1], {{0, 2}, {0, 2}, {3}, {3}}) * 0.3; // [B,N,T,S]
      Tensor y = dot_general(softmax(scores + constant(mask), -1), in[2],
                             {{0, 1}, {0, 2}, {3}, {1}}); // [B,N,T,H]
      return result(in, transpose(y, {0, 2, 1, 3}));
    };
    for (bool split : {false, true}) {
      SCOPED_TRACE(std::string(split ? "split" : "one device") + (grad ? ", gradients" : ""));
      JitOptions options;
      if (grad) {
        options.transform = JitOptions::Transform::ValueAndGrad;
        options.wrt = {0, 1, 2};
      }
      if (split) {
        options.mesh = Mesh{{"data", "model"}, {2, 2}};
        PartitionSpec rows{{"data"}, {}, {"model"}, {}};
        options.inShardings = {{options.mesh, rows},
                               {options.mesh, rows},
                               {options.mesh, rows},
                               {options.mesh, {{"data"}}},
                               {options.mesh, rows}};
      }
      std::vector<Array> got = run(client, fused, args, options);
      std::vector<Array> want = run(client, composed, args, options);
      ASSERT_EQ(got.size(), grad ? 4u : 1u);
      ASSERT_EQ(want.size(), got.size());
      for (size_t r = 0; r < got.size(); ++r)
        expectNear(got[r], want[r].toDoubles(), 1e-5);
      if (grad) // keys past an item's length get no gradient
        for (int64_t s = lengths[0]; s < S; ++s)
          for (int64_t i = 0; i < N * H; ++i)
            ASSERT_EQ(got[2].getDouble(s * N * H + i), 0.0) << "dk at key " << s;
    }
  }
}

TEST(Frontend, NoGradientFlowsThroughStopGradient) {
  Client client = cpuClient();
  // d/dx sum(x * stop_gradient(x)) = x, not 2x.
  Array x = randomArray({3, 5}, 31);
  JitOptions options;
  options.transform = JitOptions::Transform::ValueAndGrad;
  auto out = run(
      client,
      [](const std::vector<Tensor> &in) {
        return std::vector<Tensor>{sum(in[0] * stop_gradient(in[0]))};
      },
      {x}, options);
  ASSERT_EQ(out.size(), 2u);
  expectNear(out[1], x.toDoubles(), 1e-6);
  double sq = 0;
  for (double v : x.toDoubles())
    sq += v * v;
  expectNear(out[0], {sq}, 1e-5);
}

/// A residual MLP of `blocks` blocks on x [32, 64], each block wrapped by
/// `wrap`; the loss is a mean square.
static TracedFn residualMlp(int blocks, const std::function<TracedFn(TracedFn)> &wrap) {
  return [blocks, wrap](const std::vector<Tensor> &in) {
    Tensor x = in[0];
    for (int l = 0; l < blocks; ++l) {
      TracedFn block = [](const std::vector<Tensor> &b) {
        Tensor h = checkpoint_name(gelu(matmul(b[0], b[1]), true), "hidden");
        return std::vector<Tensor>{b[0] + tanh(matmul(h, b[2]))};
      };
      x = wrap(block)({x, in[1 + 2 * l], in[2 + 2 * l]})[0];
    }
    return std::vector<Tensor>{mean(x * x)};
  };
}

// Checkpointed blocks give the gradients of the plain program under every
// policy, and saving nothing holds fewer bytes per device than saving
// everything. The recomputed values are those of the forward pass, but
// the LLVM-compiled fused kernels take tanh from libmvec, within a few ulp
// of libm's that unfused steps use, so a chain recomputed inside another
// fusion may round differently (under SHARDC_FUSED_JIT=0 the gradients
// agree bit for bit, as in AutodiffTest): each gradient is compared to
// 1e-5 of its largest element.
TEST(Frontend, CheckpointKeepsTheGradientsAndHoldsLess) {
  Client client = cpuClient();
  const int blocks = 4;
  std::vector<Array> args{randomArray({32, 64}, 41)};
  std::vector<ArgSpec> specs{{"x", DType::F32, {32, 64}, {}}};
  for (int l = 0; l < blocks; ++l) {
    args.push_back(randomArray({64, 256}, 42 + 2 * l, 0.2));
    args.push_back(randomArray({256, 64}, 43 + 2 * l, 0.1));
    specs.push_back({"w" + std::to_string(2 * l), DType::F32, {64, 256}, {}});
    specs.push_back({"w" + std::to_string(2 * l + 1), DType::F32, {256, 64}, {}});
  }
  JitOptions options;
  options.transform = JitOptions::Transform::ValueAndGrad;
  auto plain = [](TracedFn f) { return f; };
  Jitted reference = client.jit(residualMlp(blocks, plain), options);
  StatusOr<std::vector<Array>> want = reference.call(args);
  ASSERT_TRUE(want.ok()) << want.message();
  int64_t plainBytes = (*reference.lower(specs))->bufferBytesPerDevice();

  std::map<std::string, int64_t> bytes;
  for (auto [name, policy] :
       {std::pair{"nothing", CheckpointPolicy::nothing()},
        std::pair{"dots", CheckpointPolicy::dots()},
        std::pair{"names", CheckpointPolicy::onlyNames({"hidden"})},
        std::pair{"all_but_names", CheckpointPolicy::allButNames({"hidden"})}}) {
    SCOPED_TRACE(name);
    Jitted jitted = client.jit(
        residualMlp(blocks, [policy = policy](TracedFn f) { return checkpoint(f, policy); }),
        options);
    StatusOr<std::string> text = jitted.trace(specs);
    ASSERT_TRUE(text.ok()) << text.message();
    EXPECT_NE(
        text->find("shardc.checkpoint = {group = 3 : i64, policy = \"" + std::string(name) + "\""),
        std::string::npos)
        << *text;
    EXPECT_NE(text->find("shardc.checkpoint_name = \"hidden\""), std::string::npos);
    StatusOr<std::vector<Array>> got = jitted.call(args);
    ASSERT_TRUE(got.ok()) << got.message();
    ASSERT_EQ(got->size(), want->size());
    for (size_t r = 0; r < want->size(); ++r) {
      std::vector<double> g = (*got)[r].toDoubles(), w = (*want)[r].toDoubles();
      ASSERT_EQ(g.size(), w.size());
      double largest = 0, worst = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        largest = std::max(largest, std::fabs(w[i]));
        worst = std::max(worst, std::fabs(g[i] - w[i]));
      }
      EXPECT_LE(worst, 1e-5 * largest) << "result #" << r;
    }
    bytes[name] = (*jitted.lower(specs))->bufferBytesPerDevice();
  }
  EXPECT_LT(bytes["nothing"], plainBytes);
  EXPECT_LE(bytes["nothing"], bytes["dots"]);
}

TEST(Frontend, CheckpointErrorsNameTheProblem) {
  auto traced = [](TracedFn fn) {
    try {
      traceToModule(fn, {{"x", DType::F32, {4, 4}, {}}});
    } catch (const TraceError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TracedFn identity = [](const std::vector<Tensor> &in) { return in; };
  EXPECT_NE(traced([&](const std::vector<Tensor> &in) {
              return checkpoint(identity, CheckpointPolicy::onlyNames({}))(in);
            }).find("checkpoint: a policy that reads names needs at least one name"),
            std::string::npos);
  EXPECT_NE(traced([&](const std::vector<Tensor> &in) {
              return std::vector<Tensor>{checkpoint_name(in[0] * 2.0, "")};
            }).find("checkpoint_name: the name is empty"),
            std::string::npos);
  EXPECT_NE(traced([&](const std::vector<Tensor> &in) {
              Tensor y = checkpoint_name(in[0] * 2.0, "a");
              return std::vector<Tensor>{checkpoint_name(y, "b")};
            }).find("is already named 'a'"),
            std::string::npos);
  Mesh mesh{{"x"}, {2}};
  try {
    traceToModule(
        [&](const std::vector<Tensor> &in) {
          return shard_map(
              [&](const std::vector<Tensor> &local) { return checkpoint(identity)(local); }, in,
              {PartitionSpec{{"x"}, {}}}, {PartitionSpec{{"x"}, {}}});
        },
        {{"x", DType::F32, {4, 4}, {mesh, {{"x"}, {}}}}});
    ADD_FAILURE() << "no error";
  } catch (const TraceError &e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint: is not available inside a shard_map body"),
              std::string::npos)
        << e.what();
  }
}

// A layer norm compiles for the CPU to one fused step, both of its row sums
// inside and nothing left of its statistics' reshapes: over many rows, and
// over one (a decode step's, whose statistics are scalars).
TEST(Frontend, LayerNormIsOneStepOnTheCpu) {
  Client client = cpuClient();
  Mesh mesh{{"data"}, {1}};
  for (Shape shape : {Shape{4, 6}, Shape{1, 1, 6}}) {
    Jitted f = client.jit([](const std::vector<Tensor> &in) {
      return std::vector<Tensor>{layer_norm(in[0], in[1], in[2])};
    });
    PartitionSpec none(shape.size());
    StatusOr<std::shared_ptr<Executable>> exe = f.lower({{"x", DType::F32, shape, {mesh, none}},
                                                         {"gamma", DType::F32, {6}, {mesh, {{}}}},
                                                         {"beta", DType::F32, {6}, {mesh, {{}}}}});
    ASSERT_TRUE(exe.ok()) << exe.message();
    std::string ops;
    for (const PlanStep &step : (*exe)->plan().steps)
      ops += std::string(opCodeName(step.op)) + " ";
    EXPECT_EQ(ops, "fused ") << shape.size();
  }
}

// What one device of a compiled program computes and sends: the local
// product's 2 M N K operations, and the ring all_reduce of the scalar sum.
TEST(Frontend, PlanCostCountsProductsAndCollectives) {
  Client client = cpuClient();
  Mesh mesh{{"data"}, {2}};
  Jitted f = client.jit(
      [](const std::vector<Tensor> &in) { return std::vector<Tensor>{sum(matmul(in[0], in[1]))}; });
  StatusOr<std::shared_ptr<Executable>> exe =
      f.lower({{"x", DType::F32, {8, 16}, {mesh, {{"data"}, {}}}},
               {"w", DType::F32, {16, 4}, {mesh, {{}, {}}}}});
  ASSERT_TRUE(exe.ok()) << exe.message();
  PlanCost cost = analyzePlanCost((*exe)->plan());
  EXPECT_EQ(cost.productFlops, 2.0 * 4 * 4 * 16); // [4,16] x [16,4] on each device
  ASSERT_EQ(cost.collectives.size(), 1u);
  const CollectiveTraffic &c = cost.collectives[0];
  EXPECT_EQ(c.op, OpCode::AllReduce);
  EXPECT_EQ(c.axes, std::vector<std::string>{"data"});
  EXPECT_EQ(c.groupSize, 2);
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(c.bytesSent, 4); // 2 (n-1)/n of 4 bytes
  EXPECT_EQ(cost.collectiveBytes(), 4);
  // Reads the arguments' blocks at least once.
  EXPECT_GE(cost.memoryBytes, (8 / 2 * 16 + 16 * 4) * 4);
  EXPECT_EQ(collectiveBytesSent(OpCode::AllGather, 100, 4), 300);
  EXPECT_EQ(collectiveBytesSent(OpCode::ReduceScatter, 100, 4), 75);
  EXPECT_EQ(collectiveBytesSent(OpCode::AllSlice, 100, 4), 0);
  EXPECT_EQ(collectiveBytesSent(OpCode::AllReduce, 100, 1), 0);
}

TEST(CollectiveCost, LinkModelRanksByTimeThenBytesThenCollectives) {
  CommCost threeSmall{384, 3}, twoLarge{768, 2}, threeLarge{768, 3};
  // No link: bytes first, collectives break ties.
  LinkModel none;
  EXPECT_FALSE(none.timed());
  EXPECT_TRUE(none.cheaper(threeSmall, twoLarge));
  EXPECT_TRUE(none.cheaper(twoLarge, threeLarge));
  EXPECT_FALSE(none.cheaper(twoLarge, twoLarge));
  EXPECT_EQ(none.seconds(threeSmall), 0);
  // 1 GB/s: 300 ns per collective keeps the smaller sends, 500 ns does not.
  LinkModel fast{300e-9, 1e9}, slowStart{500e-9, 1e9};
  EXPECT_DOUBLE_EQ(fast.seconds(threeSmall), 1284e-9);
  EXPECT_DOUBLE_EQ(slowStart.seconds(twoLarge), 1768e-9);
  EXPECT_TRUE(fast.cheaper(threeSmall, twoLarge));
  EXPECT_TRUE(slowStart.cheaper(twoLarge, threeSmall));
  // Equal times fall back to bytes: 2 bytes in 1 collective against 1 byte
  // in 2, where a collective costs what 1 byte does (1.5 s each).
  LinkModel even{0.5, 2};
  EXPECT_EQ(even.seconds({2, 1}), even.seconds({1, 2}));
  EXPECT_TRUE(even.cheaper({1, 2}, {2, 1}));
  CommCost sum = threeSmall;
  sum += twoLarge;
  EXPECT_EQ(sum, (CommCost{1152, 5}));
}

TEST(Frontend, JittedTrainStepLearns) {
  Client client = cpuClient();
  // Linear regression onto a fixed target: Adam drives the loss down.
  TracedFn loss = [](const std::vector<Tensor> &in) {
    Tensor err = matmul(in[0], in[2]) - in[1];
    return std::vector<Tensor>{mean(err * err)};
  };
  JitOptions options;
  options.transform = JitOptions::Transform::TrainStep;
  options.wrt = {2};
  options.train.optimizer = "adam";
  Jitted step = client.jit(loss, options);
  Array x = randomArray({16, 4}, 31), target = randomArray({4, 2}, 32);
  Array y(DType::F32, {16, 2});
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 2; ++j) {
      double acc = 0;
      for (int k = 0; k < 4; ++k)
        acc += x.getDouble(i * 4 + k) * target.getDouble(k * 2 + j);
      y.setDouble(i * 2 + j, acc);
    }
  Array w(DType::F32, {4, 2}), m(DType::F32, {4, 2}), v(DType::F32, {4, 2}), t(DType::F32, {});
  Array lr = Array::fromDoubles(DType::F32, {}, {0.05});
  double first = 0, last = 0;
  for (int s = 0; s < 200; ++s) {
    StatusOr<std::vector<Array>> out = step.call({x, y, w, m, v, t, lr});
    ASSERT_TRUE(out.ok()) << out.message();
    (s == 0 ? first : last) = out->at(0).getDouble(0);
    w = out->at(1), m = out->at(2), v = out->at(3), t = out->at(4);
  }
  EXPECT_EQ(step.traceCount(), 1);
  EXPECT_LT(last, 0.01 * first) << first << " -> " << last;
}

// The parameters' order in wrt does not matter, nor does listing one twice.
TEST(Frontend, TrainStepParametersInAnyOrder) {
  Client client = cpuClient();
  TracedFn loss = [](const std::vector<Tensor> &in) {
    return std::vector<Tensor>{sum((in[1] * 2.0 + in[2]) * in[0])};
  };
  Array x = randomArray({4}, 41), a = randomArray({4}, 42), b = randomArray({4}, 43);
  Array lr = Array::fromDoubles(DType::F32, {}, {1.0});
  auto stepWith = [&](std::vector<unsigned> wrt) {
    JitOptions o;
    o.transform = JitOptions::Transform::TrainStep;
    o.train.optimizer = "sgd";
    o.wrt = wrt;
    Jitted step = client.jit(loss, o);
    StatusOr<std::vector<Array>> out =
        step.call({x, a, b, Array(DType::F32, {4}), Array(DType::F32, {4}), lr});
    EXPECT_TRUE(out.ok()) << out.message();
    return out.ok() ? *out : std::vector<Array>{};
  };
  std::vector<Array> inOrder = stepWith({1, 2}), reversed = stepWith({2, 1}),
                     twice = stepWith({2, 1, 2});
  ASSERT_EQ(inOrder.size(), 5u);
  // sgd, lr 1: a - 2x, b - x.
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(inOrder[1].getDouble(i), a.getDouble(i) - 2 * x.getDouble(i), 1e-6);
    EXPECT_NEAR(inOrder[2].getDouble(i), b.getDouble(i) - x.getDouble(i), 1e-6);
  }
  EXPECT_EQ(reversed, inOrder);
  EXPECT_EQ(twice, inOrder);
}

TEST(Frontend, ExceptionsOfTheTracedFunctionAreErrors) {
  Client client = cpuClient();
  Jitted f = client.jit([](const std::vector<Tensor> &in) {
    return std::vector<Tensor>{in.at(3)}; // throws std::out_of_range
  });
  StatusOr<std::vector<Array>> out = f.call({Array(DType::F32, {2})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("tracing @main"), std::string::npos) << out.message();
}

TEST(Frontend, TrainStepNeedsItsParameters) {
  Client client = cpuClient();
  JitOptions options;
  options.transform = JitOptions::Transform::TrainStep;
  Jitted step = client.jit([](auto &in) { return std::vector<Tensor>{sum(in[0])}; }, options);
  StatusOr<std::vector<Array>> out = step.call({Array(DType::F32, {2})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("needs JitOptions::wrt"), std::string::npos) << out.message();
}

} // namespace

// ---- StableHLO ---------------------------------------------------------------

// The embedding API takes what jax.jit(f, in_shardings=...).lower().as_text()
// prints: the module is imported, partitioned over its mesh and run.
TEST(Client, CompilesStableHLOAsJaxPrintsIt) {
  test::TempDir dir("stablehlo");
  std::string path = dir.file("step.mlir");
  {
    std::ofstream out(path);
    out << R"(module @jit_step attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                         %arg1: tensor<4x2xf32> {mhlo.layout_mode = "default"})
      -> (tensor<8x2xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<8x2xf32>
    return %2 : tensor<8x2xf32>
  }
}
)";
  }
  Client client = cpuClient();
  StatusOr<std::shared_ptr<Executable>> exe = client.compile(path);
  ASSERT_TRUE(exe.ok()) << exe.message();
  EXPECT_EQ((*exe)->numDevices(), 2);
  Array x = randomArray({8, 4}, 1), w = randomArray({4, 2}, 2);
  StatusOr<std::vector<Array>> out = (*exe)->call({x, w});
  ASSERT_TRUE(out.ok()) << out.message();
  std::vector<double> want(16);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k)
        s += x.getDouble(i * 4 + k) * w.getDouble(k * 2 + j);
      want[i * 2 + j] = std::max(s, 0.0);
    }
  expectNear((*out)[0], want, 1e-5);
}
