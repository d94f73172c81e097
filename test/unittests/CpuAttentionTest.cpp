//===- CpuAttentionTest.cpp - attention in one pass, against doubles ------===//
//
// cpu::attentionForward and attentionBackward against attention computed
// in double precision the long way (scores, softmax, products, each stored
// whole), whose gradients are checked in turn by central differences of
// its own loss (of the output and of the log-sum-exp). Shapes cover causal
// and not, lengths per batch item (including one that sees no key), heads
// narrower than a vector, rows not a multiple of the kernels' blocks, q, k
// and v packed in one tensor, and the gradients packed per batch item.
//
//===----------------------------------------------------------------------===//

#include "Cpu/CpuKernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

using namespace shardc::cpu;

namespace {

struct Case {
  const char *name;
  int64_t B, T, S, N, H;
  bool causal;
  std::vector<int32_t> lengths; // empty: no lengths
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

using Vec = std::vector<double>;

struct Inputs {
  Vec q, k, v, gout, glse; // glse: the loss's weights on lse
};

int64_t at(int64_t b, int64_t t, int64_t n, int64_t h, int64_t T, int64_t N, int64_t H) {
  return ((b * T + t) * N + n) * H + h;
}

bool sees(const Case &c, int64_t b, int64_t t, int64_t s) {
  if (!c.lengths.empty() && s >= c.lengths[b])
    return false;
  return !c.causal || s <= t;
}

/// out and lse in doubles.
void reference(const Case &c, double scale, const Inputs &in, Vec &out, Vec &lse) {
  out.assign(c.B * c.T * c.N * c.H, 0);
  lse.assign(c.B * c.N * c.T, -INFINITY);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t t = 0; t < c.T; ++t) {
        Vec score(c.S, -INFINITY);
        double top = -INFINITY;
        for (int64_t s = 0; s < c.S; ++s) {
          if (!sees(c, b, t, s))
            continue;
          double x = 0;
          for (int64_t h = 0; h < c.H; ++h)
            x += in.q[at(b, t, n, h, c.T, c.N, c.H)] * in.k[at(b, s, n, h, c.S, c.N, c.H)];
          score[s] = x * scale;
          top = std::max(top, score[s]);
        }
        if (top == -INFINITY)
          continue;
        double sum = 0;
        for (int64_t s = 0; s < c.S; ++s)
          sum += score[s] == -INFINITY ? 0 : std::exp(score[s] - top);
        lse[(b * c.N + n) * c.T + t] = top + std::log(sum);
        for (int64_t s = 0; s < c.S; ++s) {
          if (score[s] == -INFINITY)
            continue;
          double p = std::exp(score[s] - top) / sum;
          for (int64_t h = 0; h < c.H; ++h)
            out[at(b, t, n, h, c.T, c.N, c.H)] += p * in.v[at(b, s, n, h, c.S, c.N, c.H)];
        }
      }
}

/// The loss the gradients are of: sum(out * gout) + sum(lse * glse) over
/// rows that see a key.
double loss(const Case &c, double scale, const Inputs &in) {
  Vec out, lse;
  reference(c, scale, in, out, lse);
  double l = 0;
  for (size_t i = 0; i < out.size(); ++i)
    l += out[i] * in.gout[i];
  for (size_t i = 0; i < lse.size(); ++i)
    if (std::isfinite(lse[i]))
      l += lse[i] * in.glse[i];
  return l;
}

/// The gradients of loss() in doubles, by the chain rule.
void referenceGrad(const Case &c, double scale, const Inputs &in, Vec &dq, Vec &dk, Vec &dv) {
  dq.assign(in.q.size(), 0);
  dk.assign(in.k.size(), 0);
  dv.assign(in.v.size(), 0);
  Vec out, lse;
  reference(c, scale, in, out, lse);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t t = 0; t < c.T; ++t) {
        double l = lse[(b * c.N + n) * c.T + t];
        if (!std::isfinite(l))
          continue;
        Vec p(c.S, 0), dp(c.S, 0);
        double D = -in.glse[(b * c.N + n) * c.T + t];
        for (int64_t h = 0; h < c.H; ++h)
          D += in.gout[at(b, t, n, h, c.T, c.N, c.H)] * out[at(b, t, n, h, c.T, c.N, c.H)];
        for (int64_t s = 0; s < c.S; ++s) {
          if (!sees(c, b, t, s))
            continue;
          double x = 0, g = 0;
          for (int64_t h = 0; h < c.H; ++h) {
            x += in.q[at(b, t, n, h, c.T, c.N, c.H)] * in.k[at(b, s, n, h, c.S, c.N, c.H)];
            g += in.gout[at(b, t, n, h, c.T, c.N, c.H)] * in.v[at(b, s, n, h, c.S, c.N, c.H)];
          }
          p[s] = std::exp(x * scale - l);
          dp[s] = g;
        }
        for (int64_t s = 0; s < c.S; ++s) {
          double ds = p[s] * (dp[s] - D);
          for (int64_t h = 0; h < c.H; ++h) {
            dv[at(b, s, n, h, c.S, c.N, c.H)] += p[s] * in.gout[at(b, t, n, h, c.T, c.N, c.H)];
            dq[at(b, t, n, h, c.T, c.N, c.H)] += scale * ds * in.k[at(b, s, n, h, c.S, c.N, c.H)];
            dk[at(b, s, n, h, c.S, c.N, c.H)] += scale * ds * in.q[at(b, t, n, h, c.T, c.N, c.H)];
          }
        }
      }
}

Inputs randomInputs(const Case &c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  auto fill = [&](int64_t n) {
    Vec x(n);
    for (double &e : x) // values f32 holds exactly
      e = (double)(float)normal(rng);
    return x;
  };
  Inputs in;
  in.q = fill(c.B * c.T * c.N * c.H);
  in.k = fill(c.B * c.S * c.N * c.H);
  in.v = fill(c.B * c.S * c.N * c.H);
  in.gout = fill(c.B * c.T * c.N * c.H);
  in.glse = fill(c.B * c.N * c.T);
  return in;
}

std::vector<float> toF32(const Vec &x) { return std::vector<float>(x.begin(), x.end()); }

/// max |got - want| / (1 + max |want|).
double error(const std::vector<float> &got, const Vec &want) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (std::isfinite(want[i]))
      scale = std::max(scale, std::fabs(want[i]));
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(want[i])) {
      if (got[i] != want[i])
        return INFINITY;
      continue;
    }
    worst = std::max(worst, std::fabs(got[i] - want[i]));
  }
  return worst / (1 + scale);
}

class AttentionKernel : public testing::TestWithParam<Case> {};

TEST_P(AttentionKernel, MatchesDoubles) {
  const Case &c = GetParam();
  double scale = 1 / std::sqrt((double)std::max<int64_t>(c.H, 1));
  Inputs in = randomInputs(c, 7);
  std::fill(in.glse.begin(), in.glse.end(), 0.0); // the gradients are of the output's
  AttentionDims d{c.B, c.T, c.S, c.N, c.H, scale, c.causal};
  const int32_t *lengths = c.lengths.empty() ? nullptr : c.lengths.data();
  std::vector<float> q = toF32(in.q), k = toF32(in.k), v = toF32(in.v);
  std::vector<float> out(c.B * c.T * c.N * c.H, NAN), lse(c.B * c.N * c.T, NAN);
  attentionForward(d, q.data(), k.data(), v.data(), lengths, out.data(), lse.data());
  Vec wantOut, wantLse;
  reference(c, scale, in, wantOut, wantLse);
  EXPECT_LT(error(out, wantOut), 2e-6) << "out";
  EXPECT_LT(error(lse, wantLse), 2e-6) << "lse";
  std::vector<float> again(out.size(), NAN);
  attentionForward(d, q.data(), k.data(), v.data(), lengths, again.data());
  EXPECT_EQ(again, out) << "without lse";

  std::vector<float> gout = toF32(in.gout);
  std::vector<float> dq(q.size(), NAN), dk(k.size(), NAN), dv(v.size(), NAN);
  attentionBackward(d, q.data(), k.data(), v.data(), lengths, gout.data(), dq.data(), dk.data(),
                    dv.data());
  Vec wq, wk, wv;
  referenceGrad(c, scale, in, wq, wk, wv);
  EXPECT_LT(error(dq, wq), 1e-5) << "dq";
  EXPECT_LT(error(dk, wk), 1e-5) << "dk";
  EXPECT_LT(error(dv, wv), 1e-5) << "dv";

  // attention_grad's layout: dq, dk and dv of a batch item one after
  // another ([B, T + 2 S, N, H]), with the same bits.
  {
    int64_t NH = c.N * c.H, item = (c.T + 2 * c.S) * NH;
    AttentionDims grads = d;
    grads.gradBatch = item;
    std::vector<float> all(c.B * item, NAN);
    attentionBackward(grads, q.data(), k.data(), v.data(), lengths, gout.data(), all.data(),
                      all.data() + c.T * NH, all.data() + (c.T + c.S) * NH);
    for (int64_t b = 0; b < c.B; ++b) {
      const float *at = all.data() + b * item;
      EXPECT_TRUE(std::equal(at, at + c.T * NH, dq.data() + b * c.T * NH)) << "dq of " << b;
      EXPECT_TRUE(std::equal(at + c.T * NH, at + (c.T + c.S) * NH, dk.data() + b * c.S * NH))
          << "dk of " << b;
      EXPECT_TRUE(std::equal(at + (c.T + c.S) * NH, at + item, dv.data() + b * c.S * NH))
          << "dv of " << b;
    }
  }

  // Self-attention reads q, k and v from one packed [B,T,3,N,H] tensor
  // and writes its gradient alike, with the same bits.
  if (c.S != c.T)
    return;
  int64_t NH = c.N * c.H, rows = c.B * c.T;
  std::vector<float> qkv(rows * 3 * NH);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < NH; ++i) {
      qkv[r * 3 * NH + i] = q[r * NH + i];
      qkv[r * 3 * NH + NH + i] = k[r * NH + i];
      qkv[r * 3 * NH + 2 * NH + i] = v[r * NH + i];
    }
  AttentionDims packed = d;
  packed.qRow = packed.kRow = packed.vRow = 3 * NH;
  std::vector<float> packedOut(out.size(), NAN), dqkv(qkv.size(), NAN);
  attentionForward(packed, qkv.data(), qkv.data() + NH, qkv.data() + 2 * NH, lengths,
                   packedOut.data());
  EXPECT_EQ(packedOut, out) << "packed";
  attentionBackward(packed, qkv.data(), qkv.data() + NH, qkv.data() + 2 * NH, lengths, gout.data(),
                    dqkv.data(), dqkv.data() + NH, dqkv.data() + 2 * NH);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < NH; ++i) {
      ASSERT_EQ(dqkv[r * 3 * NH + i], dq[r * NH + i]) << "packed dq row " << r;
      ASSERT_EQ(dqkv[r * 3 * NH + NH + i], dk[r * NH + i]) << "packed dk row " << r;
      ASSERT_EQ(dqkv[r * 3 * NH + 2 * NH + i], dv[r * NH + i]) << "packed dv row " << r;
    }
}

const Case kCases[] = {
    {"causal", 2, 37, 37, 3, 20, true, {}},
    {"causal_model_head", 1, 128, 128, 2, 64, true, {}},
    {"cross", 2, 5, 23, 2, 16, false, {}},
    {"decode_lengths", 3, 1, 40, 2, 64, false, {1, 40, 17}},
    {"causal_lengths_empty", 3, 9, 9, 1, 8, true, {0, 4, 9}},
    {"wide_keys_tail", 1, 6, 70, 1, 33, false, {}},
    {"few_queries_lengths", 2, 3, 37, 2, 32, false, {37, 20}},
    {"few_queries_causal", 1, 4, 4, 3, 16, true, {}},
};

INSTANTIATE_TEST_SUITE_P(Cases, AttentionKernel, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case> &i) { return i.param.name; });

/// The reference's gradients are those of its loss, by central
/// differences, so the kernel is held to the derivative itself.
TEST(AttentionReference, GradientsMatchFiniteDifferences) {
  for (const Case &c :
       {Case{"causal", 2, 5, 5, 2, 3, true, {}}, Case{"lengths", 2, 3, 6, 1, 4, false, {2, 6}}}) {
    double scale = 0.7;
    Inputs in = randomInputs(c, 11);
    Vec dq, dk, dv;
    referenceGrad(c, scale, in, dq, dk, dv);
    auto check = [&](Vec Inputs::*field, const Vec &grad, const char *what) {
      for (size_t i = 0; i < grad.size(); ++i) {
        Inputs up = in, down = in;
        const double h = 1e-5;
        (up.*field)[i] += h;
        (down.*field)[i] -= h;
        double fd = (loss(c, scale, up) - loss(c, scale, down)) / (2 * h);
        EXPECT_NEAR(grad[i], fd, 1e-6 * (1 + std::fabs(fd))) << c.name << " " << what << i;
      }
    };
    check(&Inputs::q, dq, "dq");
    check(&Inputs::k, dk, "dk");
    check(&Inputs::v, dv, "dv");
  }
}

TEST(AttentionKernel, RowWithoutKeysIsZeroAndMinusInfinity) {
  AttentionDims d{1, 2, 3, 1, 4, 0.5, false};
  std::vector<float> q(8, 1), k(12, 1), v(12, 2), out(8, NAN), lse(2, NAN);
  int32_t none = 0;
  attentionForward(d, q.data(), k.data(), v.data(), &none, out.data(), lse.data());
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(lse[0], -std::numeric_limits<float>::infinity());
  std::vector<float> g(8, 1), dq(8, NAN), dk(12, NAN), dv(12, NAN);
  attentionBackward(d, q.data(), k.data(), v.data(), &none, g.data(), dq.data(), dk.data(),
                    dv.data());
  for (float x : dq)
    EXPECT_EQ(x, 0.0f);
  for (size_t i = 0; i < dk.size(); ++i)
    EXPECT_EQ(dk[i] + dv[i], 0.0f);
}

/// Keys and values past an item's length (a cache's unwritten positions)
/// may hold anything: NaN and infinities there change nothing, forward or
/// backward, whatever the layout of the row's last partial vector.
TEST(AttentionKernel, KeysPastTheLengthsAreNeverRead) {
  for (int64_t T : {1, 3, 9}) {
    Case c{"lengths", 2, T, 40, 2, 16, false, {21, 5}};
    AttentionDims d{c.B, c.T, c.S, c.N, c.H, 0.25, false};
    Inputs in = randomInputs(c, 5);
    std::vector<float> q = toF32(in.q), k = toF32(in.k), v = toF32(in.v), g = toF32(in.gout);
    auto run = [&](const std::vector<float> &kk, const std::vector<float> &vv) {
      std::vector<float> out(q.size()), dq(q.size()), dk(k.size()), dv(v.size());
      attentionForward(d, q.data(), kk.data(), vv.data(), c.lengths.data(), out.data());
      attentionBackward(d, q.data(), kk.data(), vv.data(), c.lengths.data(), g.data(), dq.data(),
                        dk.data(), dv.data());
      return std::vector<std::vector<float>>{out, dq};
    };
    auto clean = run(k, v);
    std::vector<float> kBad = k, vBad = v;
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t s = c.lengths[b]; s < c.S; ++s)
        for (int64_t i = 0; i < c.N * c.H; ++i) {
          float bad = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
          kBad[(b * c.S + s) * c.N * c.H + i] = bad;
          vBad[(b * c.S + s) * c.N * c.H + i] = bad;
        }
    auto dirty = run(kBad, vBad);
    EXPECT_EQ(dirty[0], clean[0]) << "out, T = " << T;
    EXPECT_EQ(dirty[1], clean[1]) << "dq, T = " << T;
  }
}

/// A causal row computes scores past its own keys (its block's other rows
/// see them), which its softmax must leave out: an infinite score there
/// changes nothing in the rows before it.
TEST(AttentionKernel, ScoresPastARowsKeysAreLeftOut) {
  Case c{"causal", 1, 12, 12, 1, 16, true, {}};
  AttentionDims d{c.B, c.T, c.S, c.N, c.H, 0.25, true};
  Inputs in = randomInputs(c, 9);
  std::vector<float> q = toF32(in.q), k = toF32(in.k), v = toF32(in.v);
  for (float &x : q)
    x = std::fabs(x) + 0.1f;
  std::vector<float> clean(q.size()), dirty(q.size());
  attentionForward(d, q.data(), k.data(), v.data(), nullptr, clean.data());
  for (int64_t h = 0; h < c.H; ++h)
    k[5 * c.H + h] = INFINITY; // key 5's score is +inf for every query
  attentionForward(d, q.data(), k.data(), v.data(), nullptr, dirty.data());
  for (int64_t i = 0; i < 5 * c.H; ++i)
    ASSERT_EQ(dirty[i], clean[i]) << "query " << i / c.H;
}

/// Scores far apart: the largest key dominates without overflow.
TEST(AttentionKernel, LargeScoresStayFinite) {
  AttentionDims d{1, 1, 2, 1, 1, 1.0, false};
  std::vector<float> q{100}, k{10, -10}, v{3, 5}, out(1), lse(1);
  attentionForward(d, q.data(), k.data(), v.data(), nullptr, out.data(), lse.data());
  EXPECT_FLOAT_EQ(out[0], 3.0f);
  EXPECT_FLOAT_EQ(lse[0], 1000.0f);
}

} // namespace
