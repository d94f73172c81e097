//===- TransformerTest.cpp - the Tiny Transformer, end to end -------------===//
//
// The model (models/transformer) at small sizes: its gradients against
// finite differences in f64; data-parallel, tensor-parallel and 2-D layouts
// against the 1-device run over 10 steps; checkpoints round-tripped bit for
// bit, resumed (also onto another mesh) on the same loss curve, rejected
// with a clear message when corrupt, and kept intact by an interrupted save;
// the data loader's errors.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Data.h"
#include "Generate.h"
#include "Model.h"
#include "Trainer.h"
#include "TempDir.h"

#include <shardc/Runtime/Safetensors.h>
#include <shardc/shardc.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

using namespace shardc;
using shardc::test::TempDir;
namespace fs = std::filesystem;

namespace {

Client cpuClient() {
  StatusOr<Client> c = Client::create("cpu", "");
  EXPECT_TRUE(c.ok()) << c.message();
  return std::move(*c);
}

gpt::Config smallConfig() {
  gpt::Config c;
  c.dModel = 32;
  c.heads = 4;
  c.dFF = 64;
  c.layers = 2;
  c.context = 16;
  return c;
}

/// Text-like bytes: words from a small vocabulary, deterministic.
gpt::Dataset syntheticData() {
  const char *words[] = {"the ", "king ", "and ", "queen ", "of ", "rome ", "speak, ", "thou\n"};
  std::mt19937 rng(7);
  std::string text;
  while (text.size() < 20000)
    text += words[rng() % 8];
  gpt::Dataset d;
  size_t n = text.size() * 9 / 10;
  d.train.assign(text.begin(), text.begin() + n);
  d.val.assign(text.begin() + n, text.end());
  return d;
}

gpt::TrainOptions smallOptions(int64_t data, int64_t model) {
  gpt::TrainOptions o;
  o.config = smallConfig();
  o.data = data;
  o.model = model;
  o.steps = 10;
  o.batch = 8;
  o.warmup = 2;
  o.lr = 3e-3;
  o.evalBatches = 2;
  return o;
}

std::vector<double> train(gpt::Trainer &t, const gpt::Dataset &d, int64_t steps) {
  std::vector<double> losses;
  for (int64_t s = 0; s < steps; ++s) {
    StatusOr<double> l = t.trainStep(d);
    EXPECT_TRUE(l.ok()) << l.message();
    if (!l.ok())
      break;
    losses.push_back(*l);
  }
  return losses;
}

bool sameBits(const Array &a, const Array &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.bytes(), b.bytes(), a.sizeInBytes()) == 0;
}

} // namespace

// ---- The model's numbers -------------------------------------------------------

TEST(Transformer, GradientsMatchFiniteDifferencesInF64) {
  Client client = cpuClient();
  gpt::Config c;
  c.vocab = 11;
  c.dModel = 8;
  c.heads = 2;
  c.dFF = 12;
  c.layers = 2;
  c.context = 5;
  c.dtype = DType::F64;
  std::vector<Array> params = gpt::initParameters(c, 3);
  // Larger weights than the init's 0.02 and non-trivial LayerNorm and bias
  // values, so that every path carries gradient well above rounding.
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 0.4);
  for (Array &p : params)
    for (int64_t i = 0; i < p.numElements(); ++i)
      p.setDouble(i, p.getDouble(i) + normal(rng));
  const int64_t B = 2;
  Array tokens = Array::fromInts(DType::I32, {B, c.context}, {1, 4, 2, 9, 0, 3, 3, 10, 7, 5});
  Array targets = Array::fromInts(DType::I32, {B, c.context}, {4, 2, 9, 0, 6, 3, 10, 7, 5, 1});
  std::vector<Array> args{tokens, targets};
  args.insert(args.end(), params.begin(), params.end());

  JitOptions options;
  options.transform = JitOptions::Transform::ValueAndGrad;
  for (unsigned i = 2; i < args.size(); ++i)
    options.wrt.push_back(i);
  Jitted grad = client.jit(gpt::lossFunction(c), options);
  StatusOr<std::vector<Array>> out = grad.call(args);
  ASSERT_TRUE(out.ok()) << out.message();
  ASSERT_EQ(out->size(), args.size() - 1);
  Jitted value = client.jit(gpt::lossFunction(c));
  auto loss = [&](const std::vector<Array> &a) { return (*value.call(a))[0].getDouble(0); };
  EXPECT_NEAR((*out)[0].getDouble(0), loss(args), 1e-12);

  std::vector<gpt::ParamInfo> infos = gpt::parameters(c);
  const double h = 1e-5;
  int checked = 0;
  for (size_t k = 0; k < infos.size(); ++k) {
    const Array &p = args[2 + k];
    // Every element of small parameters, a spread of the larger ones.
    int64_t stride = std::max<int64_t>(1, p.numElements() / 12);
    for (int64_t i = 0; i < p.numElements(); i += stride) {
      std::vector<Array> plus = args, minus = args;
      plus[2 + k].setDouble(i, p.getDouble(i) + h);
      minus[2 + k].setDouble(i, p.getDouble(i) - h);
      double fd = (loss(plus) - loss(minus)) / (2 * h);
      double g = (*out)[1 + k].getDouble(i);
      ASSERT_NEAR(g, fd, 1e-7 + 1e-5 * std::fabs(fd)) << infos[k].name << " element " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(Transformer, LayoutsReproduceOneDevice) {
  Client client = cpuClient();
  gpt::Dataset data = syntheticData();
  gpt::Trainer one(client, smallOptions(1, 1));
  ASSERT_TRUE(one.initialize().ok());
  std::vector<double> want = train(one, data, 10);
  ASSERT_EQ(want.size(), 10u);
  EXPECT_LT(want.back(), want.front()); // it learns
  gpt::TrainState ref = one.state();
  for (auto [d, m] : {std::pair<int64_t, int64_t>{2, 1}, {1, 2}, {2, 2}}) {
    SCOPED_TRACE("data=" + std::to_string(d) + " model=" + std::to_string(m));
    gpt::Trainer t(client, smallOptions(d, m));
    ASSERT_TRUE(t.initialize().ok());
    std::vector<double> got = train(t, data, 10);
    ASSERT_EQ(got.size(), want.size());
    for (size_t s = 0; s < want.size(); ++s)
      EXPECT_NEAR(got[s], want[s], 2e-5 * std::fabs(want[s])) << "step " << s + 1;
    gpt::TrainState st = t.state();
    for (size_t k = 0; k < ref.params.size(); ++k)
      for (int64_t i = 0; i < ref.params[k].numElements(); i += 7)
        ASSERT_NEAR(st.params[k].getDouble(i), ref.params[k].getDouble(i), 2e-5)
            << gpt::parameters(smallConfig())[k].name << " element " << i;
  }
}

TEST(Transformer, EvaluationIsDeterministicAndLayoutIndependent) {
  Client client = cpuClient();
  gpt::Dataset data = syntheticData();
  gpt::Trainer a(client, smallOptions(1, 1)), b(client, smallOptions(2, 2));
  ASSERT_TRUE(a.initialize().ok());
  ASSERT_TRUE(b.initialize().ok());
  StatusOr<double> va = a.evaluate(data.val), va2 = a.evaluate(data.val), vb = b.evaluate(data.val);
  ASSERT_TRUE(va.ok() && va2.ok() && vb.ok());
  EXPECT_EQ(*va, *va2);
  EXPECT_NEAR(*va, *vb, 1e-5 * *va);
  // Freshly initialized, the model predicts bytes about uniformly.
  EXPECT_NEAR(*va, std::log(256.0), 0.1);
}

// The next-token logits are row `pos` of the full window's logits, for
// every item of a batch, whatever follows the position: at the first row,
// inside the window and at its last row, where the last block computes
// that row alone.
TEST(Transformer, NextTokenLogitsIgnoreThePaddingAfterThePosition) {
  Client client = cpuClient();
  gpt::Config c = smallConfig();
  std::vector<Array> params = gpt::initParameters(c, 9);
  const int64_t T = c.context, B = 2;
  Jitted next = client.jit(gpt::nextTokenLogitsFunction(c));
  Jitted logits = client.jit(gpt::logitsFunction(c));
  for (int64_t pos : {int64_t(0), int64_t(6), T - 1}) {
    SCOPED_TRACE("pos " + std::to_string(pos));
    Array tokens = Array::fromInts(DType::I32, {B, T}, std::vector<int64_t>(B * T, 0));
    Array noisy = tokens;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < T; ++i) {
        int64_t real = 'a' + (i * (b + 2)) % 26;
        tokens.setInt(b * T + i, i <= pos ? real : 0);      // zero padding after pos
        noisy.setInt(b * T + i, i <= pos ? real : 200 - i); // anything after pos
      }
    auto args = [&](const Array &x, int64_t at) {
      std::vector<Array> a{x, Array::fromInts(DType::I32, {}, {at})};
      a.insert(a.end(), params.begin(), params.end());
      return a;
    };
    StatusOr<std::vector<Array>> a = next.call(args(tokens, pos)), b = next.call(args(noisy, pos));
    ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.message() : a.message());
    EXPECT_EQ((*a)[0].shape(), (Shape{B, c.vocab}));
    // The same as row `pos` of the full logits.
    std::vector<Array> full{tokens};
    full.insert(full.end(), params.begin(), params.end());
    StatusOr<std::vector<Array>> all = logits.call(full);
    ASSERT_TRUE(all.ok()) << all.message();
    for (int64_t i = 0; i < B; ++i)
      for (int64_t v = 0; v < c.vocab; ++v) {
        double got = (*a)[0].getDouble(i * c.vocab + v);
        EXPECT_NEAR(got, (*b)[0].getDouble(i * c.vocab + v), 1e-6) << i << " " << v;
        EXPECT_NEAR(got, (*all)[0].getDouble((i * T + pos) * c.vocab + v), 1e-6) << i << " " << v;
      }
  }
  EXPECT_EQ(next.traceCount(), 1); // one executable for every position
}

/// Greedy bytes by full recomputation: the logits of the unpadded sequence
/// (one executable per length), the last row's argmax.
std::vector<uint8_t> greedyByRecomputation(Client &client, const gpt::Config &c,
                                           const std::vector<Array> &params,
                                           const std::string &prompt, int64_t tokens) {
  Jitted logits = client.jit(gpt::logitsFunction(c));
  std::vector<int64_t> seq(prompt.begin(), prompt.end());
  std::vector<uint8_t> out;
  for (int64_t n = 0; n < tokens; ++n) {
    int64_t T = (int64_t)seq.size();
    std::vector<Array> args{Array::fromInts(DType::I32, {1, T}, seq)};
    args.insert(args.end(), params.begin(), params.end());
    StatusOr<std::vector<Array>> r = logits.call(args);
    EXPECT_TRUE(r.ok()) << r.message();
    if (!r.ok())
      return out;
    const Array &l = (*r)[0]; // [1,T,V]
    int64_t best = 0;
    for (int64_t v = 1; v < c.vocab; ++v)
      if (l.getDouble((T - 1) * c.vocab + v) > l.getDouble((T - 1) * c.vocab + best))
        best = v;
    seq.push_back(best);
    out.push_back((uint8_t)best);
  }
  return out;
}

TEST(Transformer, KvCachePaddedAndRecomputationGiveTheSameGreedyBytes) {
  gpt::Dataset data = syntheticData();
  Client client = cpuClient();
  gpt::Trainer trainer(client, smallOptions(1, 1));
  ASSERT_TRUE(trainer.initialize().ok());
  ASSERT_TRUE(trainer.compile().ok());
  train(trainer, data, 30);
  std::vector<Array> params = trainer.state().params;
  gpt::Config c = smallConfig();
  const std::string prompt = "the k";
  const int64_t tokens = c.context - (int64_t)prompt.size(); // fills the window
  std::vector<uint8_t> reference = greedyByRecomputation(client, c, params, prompt, tokens);
  ASSERT_EQ((int64_t)reference.size(), tokens);
  for (int64_t model : {1, 2}) {
    for (gpt::Mode mode : {gpt::Mode::Padded, gpt::Mode::KvCache}) {
      Client fresh = cpuClient(); // its own cache counters
      gpt::Generator g(fresh, c, params, Mesh{{"data", "model"}, {1, model}}, mode);
      ASSERT_TRUE(g.initialize().ok());
      StatusOr<gpt::Generator::Result> r = g.generate(prompt, tokens, {}, nullptr);
      ASSERT_TRUE(r.ok()) << r.message();
      EXPECT_EQ(r->bytes[0], reference) << gpt::modeName(mode) << " on model=" << model;
      // One executable per kind, whatever the length: padded needs one,
      // kv-cache a prefill and a decode step.
      EXPECT_EQ(fresh.cacheStats().misses, mode == gpt::Mode::Padded ? 1 : 2);
      EXPECT_EQ(r->prefills, mode == gpt::Mode::KvCache ? 1 : 0);
    }
  }
}

TEST(Transformer, KvCacheSlidesByHalfAWindowWhenFull) {
  Client client = cpuClient();
  gpt::Config c = smallConfig();
  std::vector<Array> params = gpt::initParameters(c, 5);
  gpt::Generator g(client, c, params, Mesh{{"data", "model"}, {1, 1}}, gpt::Mode::KvCache);
  ASSERT_TRUE(g.initialize().ok());
  // The prefill of the 4 prompt bytes gives byte 1; 12 decode steps fill
  // positions 4..15. Then each slide prefills the last 8 bytes (one byte
  // out) and 8 decode steps fill positions 8..15 again.
  StatusOr<gpt::Generator::Result> r = g.generate("abcd", (1 + 12) + (1 + 8) + 1, {}, nullptr);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->prefills, 3);
  EXPECT_EQ(client.cacheStats().misses, 2); // still one prefill and one decode executable
}

TEST(Transformer, KvCachePrefillsTheShortestWindowThatHoldsThePrompt) {
  // Context 16: prompts of up to 8 bytes prefill a window of 8, longer ones
  // the whole context; each window length compiles once, and either gives
  // the bytes of padded decoding.
  Client client = cpuClient();
  gpt::Config c = smallConfig();
  ASSERT_EQ(c.context, 16);
  std::vector<Array> params = gpt::initParameters(c, 7);
  gpt::Generator kv(client, c, params, Mesh{{"data", "model"}, {1, 1}}, gpt::Mode::KvCache);
  ASSERT_TRUE(kv.initialize().ok());
  EXPECT_EQ(client.cacheStats().misses, 1); // the decode step; no window yet
  Client other = cpuClient();
  gpt::Generator padded(other, c, params, Mesh{{"data", "model"}, {1, 1}}, gpt::Mode::Padded);
  ASSERT_TRUE(padded.initialize().ok());
  int64_t misses = 1;
  for (const char *prompt : {"abc", "abcdefgh", "abcdefghi", "ab"}) {
    std::string p = prompt;
    StatusOr<gpt::Generator::Result> a = kv.generate(p, c.context - (int64_t)p.size(), {}, nullptr);
    StatusOr<gpt::Generator::Result> b =
        padded.generate(p, c.context - (int64_t)p.size(), {}, nullptr);
    ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.message() : a.message());
    EXPECT_EQ(a->bytes[0], b->bytes[0]) << "prompt " << p;
    misses += p == "abc" || p == "abcdefghi"; // the first of windows 8 and 16
    EXPECT_EQ(client.cacheStats().misses, misses) << "prompt " << p;
  }
}

TEST(Transformer, GenerationAtBf16ReadsItsWeightsAtBf16) {
  // At bf16 the decode step takes the product weights as bf16 arguments and
  // states bf16 products; kv-cache and padded decoding agree at bf16 too.
  Client client = cpuClient();
  gpt::Config c = smallConfig();
  std::vector<Array> params = gpt::initParameters(c, 8);
  Mesh mesh{{"data", "model"}, {1, 1}};
  gpt::Generator kv(client, c, params, mesh, gpt::Mode::KvCache, 1, MatmulPrecision::BF16);
  gpt::Generator padded(client, c, params, mesh, gpt::Mode::Padded, 1, MatmulPrecision::BF16);
  ASSERT_TRUE(kv.initialize().ok() && padded.initialize().ok());
  StatusOr<std::string> text = kv.traceStep();
  ASSERT_TRUE(text.ok()) << text.message();
  // qkv, ff1 and the head's weights (the embeddings stay f32).
  for (const char *want : {"tensor<3x4x8x32xbf16>", "tensor<64x32xbf16>", "tensor<256x32xbf16>",
                           "precision = \"bf16\""})
    EXPECT_NE(text->find(want), std::string::npos) << want;
  StatusOr<gpt::Generator::Result> a = kv.generate("abc", 13, {}, nullptr);
  StatusOr<gpt::Generator::Result> b = padded.generate("abc", 13, {}, nullptr);
  ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.message() : a.message());
  EXPECT_EQ(a->bytes[0], b->bytes[0]);
}

TEST(Transformer, BatchedDecodingAtBf16GivesEachSequenceItsOwnBytes) {
  // A batch of 6 at bf16 on one device: its products take 6 rows against
  // each weight matrix (four per load of it, then two); every sequence is
  // the one-sequence one, whichever group its row fell in.
  Client client = cpuClient();
  gpt::Config c = smallConfig();
  std::vector<Array> params = gpt::initParameters(c, 9);
  Mesh mesh{{"data", "model"}, {1, 1}};
  gpt::Generator one(client, c, params, mesh, gpt::Mode::KvCache, 1, MatmulPrecision::BF16);
  gpt::Generator six(client, c, params, mesh, gpt::Mode::KvCache, 6, MatmulPrecision::BF16);
  ASSERT_TRUE(one.initialize().ok() && six.initialize().ok());
  StatusOr<gpt::Generator::Result> a = one.generate("xy", 12, {}, nullptr);
  StatusOr<gpt::Generator::Result> b = six.generate("xy", 12, {}, nullptr);
  ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.message() : a.message());
  ASSERT_EQ(b->bytes.size(), 6u);
  for (const auto &bytes : b->bytes)
    EXPECT_EQ(bytes, a->bytes[0]);
}

TEST(Transformer, BatchedDecodingSplitsSequencesOverData) {
  // Each sequence of a batch decodes as it would alone: greedy bytes of a
  // batch of 4 on data=2, model=2 equal the single-sequence ones.
  Client client = cpuClient();
  gpt::Config c = smallConfig();
  std::vector<Array> params = gpt::initParameters(c, 6);
  gpt::Generator one(client, c, params, Mesh{{"data", "model"}, {1, 1}}, gpt::Mode::KvCache);
  gpt::Generator four(client, c, params, Mesh{{"data", "model"}, {2, 2}}, gpt::Mode::KvCache, 4);
  ASSERT_TRUE(one.initialize().ok() && four.initialize().ok());
  StatusOr<gpt::Generator::Result> a = one.generate("xy", 10, {}, nullptr);
  StatusOr<gpt::Generator::Result> b = four.generate("xy", 10, {}, nullptr);
  ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.message() : a.message());
  ASSERT_EQ(b->bytes.size(), 4u);
  for (const auto &bytes : b->bytes)
    EXPECT_EQ(bytes, a->bytes[0]);
}

TEST(Transformer, SamplingIsGreedyAtZeroTemperatureAndSeededOtherwise) {
  std::vector<float> logits{0.1f, 2.0f, -1.0f, 1.9f, 0.0f};
  std::mt19937_64 rng(1);
  EXPECT_EQ(gpt::sampleToken(logits.data(), 5, {}, rng), 1);
  gpt::Sampling top2{1.0, 2, 0};
  std::mt19937_64 r1(3), r2(3);
  int counts[5] = {0};
  for (int i = 0; i < 2000; ++i) {
    int64_t t = gpt::sampleToken(logits.data(), 5, top2, r1);
    EXPECT_EQ(t, gpt::sampleToken(logits.data(), 5, top2, r2));
    ++counts[t];
  }
  EXPECT_EQ(counts[0] + counts[2] + counts[4], 0); // only the top 2
  // p(1) / p(3) = e^0.1: about 1052 of 2000.
  EXPECT_NEAR(counts[1], 2000 / (1 + std::exp(-0.1)), 80);
}

// ---- Checkpoints -------------------------------------------------------------------

TEST(Transformer, CheckpointRoundTripIsBitIdentical) {
  Client client = cpuClient();
  gpt::Dataset data = syntheticData();
  TempDir tmp("shardc-gpt-roundtrip");
  std::string dir = tmp.path();
  gpt::Trainer t(client, smallOptions(2, 1));
  ASSERT_TRUE(t.initialize().ok());
  train(t, data, 3);
  std::string path = dir + "/a.safetensors";
  ASSERT_TRUE(t.save(path).ok());
  gpt::TrainState saved = t.state();
  StatusOr<gpt::TrainState> back = gpt::loadCheckpoint(path, smallConfig());
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->step, 3);
  EXPECT_EQ(back->metadata.at("mesh"), "data=2,model=1");
  EXPECT_EQ(back->metadata.at("config"), smallConfig().toString());
  ASSERT_EQ(back->params.size(), saved.params.size());
  for (size_t k = 0; k < saved.params.size(); ++k) {
    EXPECT_TRUE(sameBits(back->params[k], saved.params[k])) << k;
    EXPECT_TRUE(sameBits(back->m[k], saved.m[k])) << k;
    EXPECT_TRUE(sameBits(back->v[k], saved.v[k])) << k;
  }
  EXPECT_TRUE(sameBits(back->adamStep, saved.adamStep));
  // The file holds the PyTorch state_dict's names and shapes.
  StatusOr<SafetensorsFile> raw = readSafetensors(path);
  ASSERT_TRUE(raw.ok());
  const Array *qkv = raw->find("blocks.1.qkv.weight");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->shape(), (Shape{96, 32}));
  ASSERT_NE(raw->find("blocks.0.proj.weight"), nullptr);
  EXPECT_EQ(raw->find("blocks.0.proj.weight")->shape(), (Shape{32, 32}));
  ASSERT_NE(raw->find("optimizer.head.weight.exp_avg_sq"), nullptr);
}

// --keep-checkpoints: the latest N up to the newest stay; an index goes
// before its shards; names shardc-gpt does not write, and later steps, stay.
TEST(Transformer, PruneCheckpointsKeepsTheLatestAndDeletesAnIndexFirst) {
  TempDir tmp("shardc-gpt-prune");
  std::vector<std::string> names = {
      "step-00000001.safetensors",
      "step-00000002-00001-of-00002.safetensors",
      "step-00000002-00002-of-00002.safetensors",
      "step-00000002.safetensors.index.json",
      "step-00000003.safetensors",
      "step-00000004.safetensors",
      "step-00000009.safetensors",     // a later step: stays
      "step-00000001.safetensors.tmp", // not a checkpoint name
      "step-x.safetensors",
      "step-00000001-1-of-2.safetensors",
      "notes.txt",
  };
  for (const std::string &n : names)
    std::ofstream(tmp.file(n)) << "x";
  StatusOr<std::vector<std::string>> gone = gpt::pruneCheckpoints(tmp.path(), 4, 2);
  ASSERT_TRUE(gone.ok()) << gone.message();
  ASSERT_EQ(gone->size(), 4u);
  EXPECT_EQ((*gone)[0], tmp.file("step-00000001.safetensors"));
  EXPECT_EQ((*gone)[1], tmp.file("step-00000002.safetensors.index.json"));
  EXPECT_EQ(tmp.entries(),
            (std::vector<std::string>{"notes.txt", "step-00000001-1-of-2.safetensors",
                                      "step-00000001.safetensors.tmp", "step-00000003.safetensors",
                                      "step-00000004.safetensors", "step-00000009.safetensors",
                                      "step-x.safetensors"}));
  // keep 1: the newest alone, even when its file is not there yet.
  gone = gpt::pruneCheckpoints(tmp.path(), 5, 1);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->size(), 2u);
  StatusOr<std::vector<std::string>> missing = gpt::pruneCheckpoints(tmp.file("absent"), 5, 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("absent"), std::string::npos) << missing.message();
}

TEST(Transformer, ResumeContinuesTheSameCurveOnAnyMesh) {
  Client client = cpuClient();
  gpt::Dataset data = syntheticData();
  TempDir tmp("shardc-gpt-resume");
  std::string dir = tmp.path();
  gpt::Trainer whole(client, smallOptions(2, 1));
  ASSERT_TRUE(whole.initialize().ok());
  std::vector<double> want = train(whole, data, 8);

  gpt::Trainer first(client, smallOptions(2, 1));
  ASSERT_TRUE(first.initialize().ok());
  std::vector<double> head = train(first, data, 4);
  std::string path = dir + "/step4.safetensors";
  ASSERT_TRUE(first.save(path).ok());
  for (size_t s = 0; s < head.size(); ++s)
    EXPECT_EQ(head[s], want[s]);

  // Same mesh: bit for bit. Other meshes: to float tolerance.
  for (auto [d, m] : {std::pair<int64_t, int64_t>{2, 1}, {1, 1}, {1, 2}}) {
    SCOPED_TRACE("resumed on data=" + std::to_string(d) + " model=" + std::to_string(m));
    gpt::Trainer t(client, smallOptions(d, m));
    Status r = t.restore(path);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(t.step(), 4);
    std::vector<double> tail = train(t, data, 4);
    ASSERT_EQ(tail.size(), 4u);
    for (size_t s = 0; s < tail.size(); ++s) {
      if (d == 2 && m == 1)
        EXPECT_EQ(tail[s], want[4 + s]) << "step " << 5 + s;
      else
        EXPECT_NEAR(tail[s], want[4 + s], 2e-5 * want[4 + s]) << "step " << 5 + s;
    }
  }
}

// Mixed precision changes the products only: bf16 losses follow the f32
// curve closely without being it, the checkpoint stays f32, and it resumes
// at either precision.
TEST(Transformer, Bf16FollowsTheF32CurveAndResumesAtEitherPrecision) {
  Client client = cpuClient();
  gpt::Dataset data = syntheticData();
  TempDir tmp("shardc-gpt-precision");
  gpt::TrainOptions f32 = smallOptions(1, 1), bf16 = f32;
  bf16.precision = "bf16";
  gpt::Trainer whole(client, f32);
  ASSERT_TRUE(whole.initialize().ok());
  std::vector<double> want = train(whole, data, 8);

  gpt::Trainer mixed(client, bf16);
  ASSERT_TRUE(mixed.initialize().ok());
  std::vector<double> head = train(mixed, data, 4);
  ASSERT_EQ(head.size(), 4u);
  bool differs = false;
  for (size_t s = 0; s < head.size(); ++s) {
    EXPECT_NEAR(head[s], want[s], 1e-2 * want[s]) << "step " << s + 1;
    differs = differs || head[s] != want[s];
  }
  EXPECT_TRUE(differs) << "bf16 products gave the f32 losses bit for bit";
  std::string path = tmp.path() + "/bf16.safetensors";
  ASSERT_TRUE(mixed.save(path).ok());
  StatusOr<SafetensorsFile> saved = readSafetensors(path);
  ASSERT_TRUE(saved.ok()) << saved.message();
  for (const auto &[name, array] : saved->tensors)
    EXPECT_EQ(array.dtype(), DType::F32) << name;

  for (const gpt::TrainOptions &o : {f32, bf16}) {
    SCOPED_TRACE("resumed at " + o.precision);
    gpt::Trainer t(client, o);
    Status r = t.restore(path);
    ASSERT_TRUE(r.ok()) << r.message();
    std::vector<double> tail = train(t, data, 4);
    ASSERT_EQ(tail.size(), 4u);
    for (size_t s = 0; s < tail.size(); ++s)
      EXPECT_NEAR(tail[s], want[4 + s], 2e-2 * want[4 + s]) << "step " << 5 + s;
  }
}

namespace {

/// Writes `path` as a copy of the checkpoint `from` changed by `edit`.
void rewrite(const std::string &from, const std::string &path,
             const std::function<void(SafetensorsFile &)> &edit) {
  StatusOr<SafetensorsFile> f = readSafetensors(from);
  ASSERT_TRUE(f.ok()) << f.message();
  edit(*f);
  Status s = writeSafetensors(path, f->tensors, f->metadata);
  ASSERT_TRUE(s.ok()) << s.message();
}

void expectLoadError(const std::string &path, const std::string &what) {
  StatusOr<gpt::TrainState> st = gpt::loadCheckpoint(path, smallConfig());
  ASSERT_FALSE(st.ok()) << "loaded " << path << ", expected: " << what;
  EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
}

} // namespace

TEST(Transformer, CorruptCheckpointsAreClearErrors) {
  Client client = cpuClient();
  TempDir tmp("shardc-gpt-corrupt");
  std::string dir = tmp.path();
  gpt::Trainer t(client, smallOptions(1, 1));
  ASSERT_TRUE(t.initialize().ok());
  std::string good = dir + "/good.safetensors";
  ASSERT_TRUE(t.save(good).ok());
  ASSERT_TRUE(gpt::loadCheckpoint(good, smallConfig()).ok());

  rewrite(good, dir + "/missing.safetensors", [](SafetensorsFile &f) {
    auto &ts = f.tensors;
    ts.erase(std::find_if(ts.begin(), ts.end(),
                          [](auto &p) { return p.first == "blocks.1.ff2.weight"; }));
  });
  expectLoadError(dir + "/missing.safetensors", "tensor 'blocks.1.ff2.weight' is missing");

  rewrite(good, dir + "/shape.safetensors", [](SafetensorsFile &f) {
    for (auto &[name, a] : f.tensors)
      if (name == "blocks.0.ff1.bias")
        a = Array(DType::F32, {63});
  });
  expectLoadError(dir + "/shape.safetensors",
                  "tensor 'blocks.0.ff1.bias' has shape [63], expected [64]");

  rewrite(good, dir + "/dtype.safetensors", [](SafetensorsFile &f) {
    for (auto &[name, a] : f.tensors)
      if (name == "ln_f.weight")
        a = Array(DType::F64, {32});
  });
  expectLoadError(dir + "/dtype.safetensors", "tensor 'ln_f.weight' has dtype f64, expected f32");

  rewrite(good, dir + "/config.safetensors",
          [](SafetensorsFile &f) { f.metadata["config"] = "vocab=256,d_model=64"; });
  expectLoadError(dir + "/config.safetensors", "saved for model vocab=256,d_model=64");

  rewrite(good, dir + "/optimizer.safetensors", [](SafetensorsFile &f) {
    auto &ts = f.tensors;
    ts.erase(
        std::find_if(ts.begin(), ts.end(), [](auto &p) { return p.first == "optimizer.step"; }));
  });
  expectLoadError(dir + "/optimizer.safetensors", "tensor 'optimizer.step' is missing");
  // Parameters alone still load (for generation), with the model's shape
  // from the metadata.
  EXPECT_TRUE(gpt::loadCheckpoint(dir + "/optimizer.safetensors", smallConfig(), false).ok());
  StatusOr<gpt::SavedModel> saved = gpt::loadSavedModel(dir + "/optimizer.safetensors");
  ASSERT_TRUE(saved.ok()) << saved.message();
  EXPECT_EQ(saved->config.toString(), smallConfig().toString());
  rewrite(good, dir + "/noconfig.safetensors",
          [](SafetensorsFile &f) { f.metadata.erase("config"); });
  StatusOr<gpt::SavedModel> noConfig = gpt::loadSavedModel(dir + "/noconfig.safetensors");
  ASSERT_FALSE(noConfig.ok());
  EXPECT_NE(noConfig.message().find("metadata has no 'config'"), std::string::npos)
      << noConfig.message();

  // Truncated: the file ends inside the tensor data.
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(dir + "/short.safetensors", std::ios::binary)
      .write(bytes.data(), (std::streamsize)(bytes.size() - 100));
  StatusOr<gpt::TrainState> shortFile =
      gpt::loadCheckpoint(dir + "/short.safetensors", smallConfig());
  ASSERT_FALSE(shortFile.ok());
  EXPECT_NE(shortFile.message().find("short.safetensors"), std::string::npos)
      << shortFile.message();
  // Garbage in the header.
  std::string bad = bytes;
  bad[10] = '\x01';
  std::ofstream(dir + "/garbage.safetensors", std::ios::binary)
      .write(bad.data(), (std::streamsize)bad.size());
  EXPECT_FALSE(gpt::loadCheckpoint(dir + "/garbage.safetensors", smallConfig()).ok());
  expectLoadError(dir + "/absent.safetensors", "absent.safetensors");
}

TEST(Transformer, InterruptedSaveKeepsTheLastGoodCheckpoint) {
  Client client = cpuClient();
  gpt::Dataset data = syntheticData();
  TempDir tmp("shardc-gpt-kill");
  std::string dir = tmp.path();
  gpt::Trainer t(client, smallOptions(1, 1));
  ASSERT_TRUE(t.initialize().ok());
  train(t, data, 1);
  std::string path = dir + "/latest.safetensors";
  ASSERT_TRUE(t.save(path).ok());
  gpt::TrainState good = t.state();
  train(t, data, 1);
  int64_t size = (int64_t)fs::file_size(path);
  for (int64_t at : {int64_t(0), int64_t(7), int64_t(500), size / 2, size - 1}) {
    SCOPED_TRACE("failing after " + std::to_string(at) + " bytes");
    setSafetensorsWriteFailureForTesting(at);
    EXPECT_FALSE(t.save(path).ok());
    setSafetensorsWriteFailureForTesting(-1);
    StatusOr<gpt::TrainState> back = gpt::loadCheckpoint(path, smallConfig());
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->step, 1);
    for (size_t k = 0; k < good.params.size(); ++k)
      EXPECT_TRUE(sameBits(back->params[k], good.params[k]));
    // Nothing but the checkpoint is left in the directory.
    int files = 0;
    for (auto &e : fs::directory_iterator(dir))
      files += (void(e), 1);
    EXPECT_EQ(files, 1);
  }
  ASSERT_TRUE(t.save(path).ok());
  EXPECT_EQ(gpt::loadCheckpoint(path, smallConfig())->step, 2);
}

// ---- Data -------------------------------------------------------------------------------

TEST(Transformer, DataErrorsAreClear) {
  TempDir tmp("shardc-gpt-data");
  std::string dir = tmp.path();
  auto expectError = [](const std::string &path, const std::string &what) {
    StatusOr<gpt::Dataset> d = gpt::loadDataset(path, 16);
    ASSERT_FALSE(d.ok()) << path;
    EXPECT_NE(d.message().find(what), std::string::npos) << d.message();
  };
  expectError(dir + "/none.txt", "none.txt: No such file or directory");
  std::ofstream(dir + "/empty.txt").close();
  expectError(dir + "/empty.txt", "empty.txt is empty");
  std::ofstream(dir + "/short.txt") << std::string(100, 'a');
  expectError(dir + "/short.txt", "short.txt is too short");
  expectError(dir, "not a regular file");
  std::ofstream(dir + "/ok.txt") << std::string(1000, 'b');
  StatusOr<gpt::Dataset> ok = gpt::loadDataset(dir + "/ok.txt", 16);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->train.size(), 900u);
  EXPECT_EQ(ok->val.size(), 100u);
}

TEST(Transformer, BatchesAreSeededWindowsWithShiftedTargets) {
  gpt::Dataset d = syntheticData();
  gpt::Batch a = gpt::sampleBatch(d.train, 4, 16, 1, 5), b = gpt::sampleBatch(d.train, 4, 16, 1, 5);
  gpt::Batch c = gpt::sampleBatch(d.train, 4, 16, 1, 6);
  EXPECT_TRUE(a.tokens == b.tokens);
  EXPECT_FALSE(a.tokens == c.tokens);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t t = 0; t + 1 < 16; ++t)
      EXPECT_EQ(a.targets.getInt(r * 16 + t), a.tokens.getInt(r * 16 + t + 1));
}

TEST(Transformer, LearningRateWarmsUpThenDecays) {
  gpt::TrainOptions o;
  o.lr = 1e-3;
  o.warmup = 10;
  o.steps = 110;
  o.finalLrFraction = 0.1;
  EXPECT_NEAR(gpt::learningRate(o, 0), 1e-4, 1e-12);
  EXPECT_NEAR(gpt::learningRate(o, 9), 1e-3, 1e-12);
  EXPECT_NEAR(gpt::learningRate(o, 10), 1e-3, 1e-12);
  EXPECT_NEAR(gpt::learningRate(o, 60), 0.55e-3, 1e-12);
  EXPECT_NEAR(gpt::learningRate(o, 110), 1e-4, 1e-12);
}
