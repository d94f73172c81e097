//===- Model.cpp - the Tiny Transformer's parameters and forward pass -----===//

#include "Model.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>

namespace gpt {

using shardc::Array;
using shardc::DType;
using shardc::Shape;
using shardc::Tensor;

std::string Config::toString() const {
  return "vocab=" + std::to_string(vocab) + ",d_model=" + std::to_string(dModel) +
         ",heads=" + std::to_string(heads) + ",d_ff=" + std::to_string(dFF) +
         ",layers=" + std::to_string(layers) + ",context=" + std::to_string(context) +
         (dtype == DType::F32 ? "" : ",dtype=" + std::string(shardc::dtypeName(dtype)));
}

shardc::StatusOr<Config> Config::fromString(const std::string &text) {
  Config c;
  std::map<std::string, int64_t *> fields{{"vocab", &c.vocab},   {"d_model", &c.dModel},
                                          {"heads", &c.heads},   {"d_ff", &c.dFF},
                                          {"layers", &c.layers}, {"context", &c.context}};
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string part =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = part.find('=');
    std::string key = part.substr(0, eq),
                value = eq == std::string::npos ? "" : part.substr(eq + 1);
    char *end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    auto it = fields.find(key);
    if (it == fields.end() || value.empty() || *end || v < 1)
      return shardc::Status::error("model config '" + text + "': cannot read '" + part + "'");
    *it->second = v;
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  if (c.dModel % c.heads)
    return shardc::Status::error("model config '" + text + "': d_model is not a multiple of heads");
  return c;
}

std::vector<ParamInfo> parameters(const Config &c) {
  using Init = ParamInfo::Init;
  int64_t d = c.dModel, h = c.heads, hd = c.headDim(), f = c.dFF;
  std::vector<ParamInfo> ps;
  auto add = [&](std::string name, Shape shape, Shape torch, int modelDim, Init init) {
    ps.push_back({std::move(name), std::move(shape), std::move(torch), modelDim, init});
  };
  add("tok_emb.weight", {c.vocab, d}, {c.vocab, d}, -1, Init::Normal);
  add("pos_emb.weight", {c.context, d}, {c.context, d}, -1, Init::Normal);
  for (int64_t l = 0; l < c.layers; ++l) {
    std::string b = "blocks." + std::to_string(l) + ".";
    add(b + "ln1.weight", {d}, {d}, -1, Init::Ones);
    add(b + "ln1.bias", {d}, {d}, -1, Init::Zeros);
    // Rows of qkv.weight are [q | k | v], each [head][head_dim]: the head
    // gets its own dimension, so "model" splits heads (Megatron columns).
    add(b + "qkv.weight", {3, h, hd, d}, {3 * d, d}, 1, Init::Normal);
    add(b + "qkv.bias", {3, h, hd}, {3 * d}, 1, Init::Zeros);
    // proj.weight's inputs are [head][head_dim]: split by rows in Megatron's
    // terms (its contraction), so its product is a partial sum per device.
    add(b + "proj.weight", {d, h, hd}, {d, d}, 1, Init::Normal);
    add(b + "proj.bias", {d}, {d}, -1, Init::Zeros);
    add(b + "ln2.weight", {d}, {d}, -1, Init::Ones);
    add(b + "ln2.bias", {d}, {d}, -1, Init::Zeros);
    add(b + "ff1.weight", {f, d}, {f, d}, 0, Init::Normal); // columns (outputs) split
    add(b + "ff1.bias", {f}, {f}, 0, Init::Zeros);
    add(b + "ff2.weight", {d, f}, {d, f}, 1, Init::Normal); // rows (inputs) split
    add(b + "ff2.bias", {d}, {d}, -1, Init::Zeros);
  }
  add("ln_f.weight", {d}, {d}, -1, Init::Ones);
  add("ln_f.bias", {d}, {d}, -1, Init::Zeros);
  add("head.weight", {c.vocab, d}, {c.vocab, d}, -1, Init::Normal);
  add("head.bias", {c.vocab}, {c.vocab}, -1, Init::Zeros);
  return ps;
}

bool isProductWeight(const ParamInfo &p) {
  auto endsWith = [&](const std::string &tail) {
    return p.name.size() >= tail.size() &&
           p.name.compare(p.name.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const char *w : {".qkv.weight", ".proj.weight", ".ff1.weight", ".ff2.weight"})
    if (endsWith(w))
      return true;
  return p.name == "head.weight";
}

std::vector<Array> initParameters(const Config &config, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<Array> out;
  for (const ParamInfo &p : parameters(config)) {
    Array a(config.dtype, p.shape); // zeros
    for (int64_t i = 0; i < a.numElements(); ++i)
      a.setDouble(i, p.init == ParamInfo::Init::Normal ? normal(rng)
                     : p.init == ParamInfo::Init::Ones ? 1.0
                                                       : 0.0);
    out.push_back(std::move(a));
  }
  return out;
}

shardc::PartitionSpec paramSpec(const ParamInfo &p, const shardc::Mesh &mesh, bool fsdp) {
  shardc::PartitionSpec spec((int64_t)p.shape.size()); // replicated
  int m = mesh.axisIndex("model");
  bool byModel = p.modelDim >= 0 && m >= 0 && mesh.axisSizes[m] > 1;
  if (byModel)
    spec[p.modelDim] = {"model"};
  int d = mesh.axisIndex("data");
  if (!fsdp || d < 0 || mesh.axisSizes[d] == 1)
    return spec;
  int64_t best = -1;
  for (int64_t k = 0; k < (int64_t)p.shape.size(); ++k)
    if (!(byModel && k == p.modelDim) && p.shape[k] % mesh.axisSizes[d] == 0 &&
        (best < 0 || p.shape[k] > p.shape[best]))
      best = k;
  if (best >= 0)
    spec[best] = {"data"};
  return spec;
}

std::vector<ParamInfo> keptWholeByFsdp(const Config &config, const shardc::Mesh &mesh) {
  std::vector<ParamInfo> whole;
  int d = mesh.axisIndex("data");
  if (d < 0 || mesh.axisSizes[d] == 1)
    return whole;
  for (const ParamInfo &p : parameters(config)) {
    shardc::PartitionSpec spec = paramSpec(p, mesh, /*fsdp=*/true);
    bool split = false;
    for (const auto &axes : spec)
      for (const std::string &a : axes)
        split |= a == "data";
    if (!split)
      whole.push_back(p);
  }
  return whole;
}

namespace {

/// A product with a weight: at bf16 precision where the weight is kept at
/// bf16 (generation at bf16 reads it as it is), else at the executable's.
Tensor weightProduct(const Tensor &x, const Tensor &w, const shardc::DotDims &dims,
                     shardc::CallSite site = {}) {
  if (w.dtype() == DType::BF16)
    return shardc::dot_general(x, w, dims, shardc::MatmulPrecision::BF16, site);
  return shardc::dot_general(x, w, dims, site);
}

/// x [..., in] times a PyTorch-layout weight w [out, in]: [..., out].
Tensor linear(const Tensor &x, const Tensor &w, const Tensor &b, shardc::CallSite site = {}) {
  return shardc::add(weightProduct(x, w, {{}, {}, {x.rank() - 1}, {1}}, site), b, site);
}

/// Adds 0 where a position may attend (key <= query) and -1e9 elsewhere:
/// [T,T], baked into the program.
Tensor causalMask(int64_t t, DType dtype) {
  Array mask(dtype, {t, t});
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = i + 1; j < t; ++j)
      mask.setDouble(i * t + j, -1e9);
  return shardc::constant(mask);
}

/// Where the residual stream lives between the tensor-parallel regions.
/// Without sequence parallelism nothing is said (the partitioner keeps it
/// whole on every device of "model"). With it, as in Megatron-LM's
/// sequence parallelism, the stream and the LayerNorms run split over
/// "model" along the sequence (`split`), and the column-parallel products'
/// results stay split by heads or features (`columns`), as tensor
/// parallelism lays them out. The partitioner then gathers each
/// LayerNorm's output whole where a column-parallel product reads it, and
/// the all_reduce of each row-parallel product becomes a reduce_scatter
/// into the split. As in Megatron-LM, the backward pass gathers the
/// LayerNorms' outputs again rather than holding them gathered
/// (`regathered` names them for the block's checkpoint policy).
struct Stream {
  bool sequenceParallel = false;
  static constexpr const char *kGathered = "sequence_parallel_gathered";
  Tensor regathered(const Tensor &x) const {
    return sequenceParallel ? shardc::checkpoint_name(x, kGathered) : x;
  }
  /// `x` [B, ...] split over "model" along `dim`.
  Tensor columns(const Tensor &x, int64_t dim) const {
    if (!sequenceParallel)
      return x;
    shardc::PartitionSpec spec(x.rank());
    spec[0] = {"data"};
    spec[dim] = {"model"};
    return shardc::with_sharding_constraint(x, spec);
  }
  Tensor split(const Tensor &x) const {
    return sequenceParallel ? shardc::with_sharding_constraint(x, {{"data"}, {"model"}, {}}) : x;
  }
};

/// x + ff2(gelu(ff1(ln2(x)))) for block weights `w`: [B,T,d].
Tensor feedForward(const Tensor &x, const Tensor *w, const Stream &stream) {
  Tensor h2 = stream.regathered(shardc::layer_norm(x, w[6], w[7])); // [B,T,d]
  Tensor f = shardc::gelu(stream.columns(linear(h2, w[8], w[9]), 2),
                          /*approximate=*/true);    // [B,T,F]
  return stream.split(x + linear(f, w[10], w[11])); // [B,T,d]
}

/// Part i of a block's packed qkv [B,T,3,H,hd]: q, k or v [B,T,H,hd].
Tensor qkvPart(const Tensor &qkv, int64_t i) {
  int64_t B = qkv.dim(0), T = qkv.dim(1), H = qkv.dim(3), hd = qkv.dim(4);
  return shardc::reshape(shardc::slice(qkv, {0, 0, i, 0, 0}, {B, T, i + 1, H, hd}), {B, T, H, hd});
}

/// The rest of a block for single rows x [B,1,d] (a decode step's, a
/// window's last): one query per item q [B,1,H,hd] attends over the keys
/// and values [B,S,H,hd] up to `lengths` [B], then the projection and the
/// feed-forward.
Tensor rowBlock(const Tensor &x, const Tensor &q, const Tensor &k, const Tensor &v,
                const Tensor &lengths, double scale, const Tensor *w) {
  Tensor y = shardc::dot_product_attention(q, k, v, scale, /*causal=*/false, lengths);
  Tensor attn = weightProduct(y, w[4], {{}, {}, {2, 3}, {1, 2}}) + w[5]; // [B,1,d]
  return feedForward(x + attn, w, Stream{});
}

/// The logits for tokens [B,T]; `p` are the parameters in parameters()
/// order. With `caches`, appends each block's keys and values as
/// [B,T,H,hd] (the layout of the decode step's caches). With `at` (an i32
/// position), only that row's logits [B,1,V]: the last block computes its
/// keys and values for every row and the rest for that row alone
/// (attention over the positions up to it), a quarter of a generation
/// window's products and more spared.
Tensor forward(const Config &c, const Tensor &tokens, const Tensor *p,
               std::vector<Tensor> *caches = nullptr, const LossOptions &options = {},
               const Tensor *at = nullptr) {
  Remat remat = options.remat;
  Stream stream{options.sequenceParallel};
  int64_t B = tokens.dim(0), T = tokens.dim(1);
  int64_t H = c.heads, hd = c.headDim();
  if (T > c.context)
    throw shardc::TraceError("the window has " + std::to_string(T) +
                             " tokens, more than the context (" + std::to_string(c.context) + ")");
  Tensor pos = T == c.context ? p[1] : shardc::slice(p[1], {0, 0}, {T, c.dModel}); // [T,d]
  Tensor x = stream.split(shardc::take(p[0], tokens) + pos);                       // [B,T,d]
  bool fused = options.attention == Attention::Fused;
  Tensor mask = fused ? Tensor() : causalMask(T, c.dtype); // [T,T]
  const double scale = 1.0 / std::sqrt((double)hd);
  const Tensor *w = p + 2;
  // One block: [x, its 12 weights] -> [x'].
  auto block = [&](const std::vector<Tensor> &in) {
    Tensor x = in[0];
    const Tensor *w = in.data() + 1;
    // ---- attention: x + proj(softmax(q k^T / sqrt(hd), causal) v)
    Tensor h = stream.regathered(shardc::layer_norm(x, w[0], w[1])); // [B,T,d]
    Tensor qkv =
        stream.columns(weightProduct(h, w[2], {{}, {}, {2}, {3}}) + w[3], 3); // [B,T,3,H,hd]
    if (caches) {
      caches->push_back(qkvPart(qkv, 1)); // [B,T,H,hd]
      caches->push_back(qkvPart(qkv, 2));
    }
    Tensor attn;
    if (fused) { // q, k and v read in place from qkv
      Tensor y = stream.columns(shardc::qkv_attention(qkv, /*causal=*/true, scale),
                                2);                                   // [B,T,H,hd]
      attn = weightProduct(y, w[4], {{}, {}, {2, 3}, {1, 2}}) + w[5]; // [B,T,d]
    } else {
      Tensor q = qkvPart(qkv, 0), k = qkvPart(qkv, 1), v = qkvPart(qkv, 2);
      Tensor scores = shardc::dot_general(q, k, {{0, 2}, {0, 2}, {3}, {3}}); // [B,H,T,T]
      Tensor probs = shardc::softmax(scores * scale + mask, -1);             // [B,H,T,T]
      Tensor y = stream.columns(shardc::dot_general(probs, v, {{0, 1}, {0, 2}, {3}, {1}}),
                                1);                                   // [B,H,T,hd]
      attn = weightProduct(y, w[4], {{}, {}, {1, 3}, {1, 2}}) + w[5]; // [B,T,d]
    }
    return std::vector<Tensor>{feedForward(stream.split(x + attn), w, stream)};
  };
  shardc::TracedFn run = block;
  if (remat != Remat::None)
    run = shardc::checkpoint(block, remat == Remat::Dots ? shardc::CheckpointPolicy::dots()
                                                         : shardc::CheckpointPolicy::nothing());
  else if (stream.sequenceParallel)
    run = shardc::checkpoint(block, shardc::CheckpointPolicy::allButNames({Stream::kGathered}));
  // The last block for the row at `at` only.
  auto lastRow = [&](const Tensor &x, const Tensor *w) {
    Tensor h = shardc::layer_norm(x, w[0], w[1]);                   // [B,T,d]
    Tensor qkv = weightProduct(h, w[2], {{}, {}, {2}, {3}}) + w[3]; // [B,T,3,H,hd]
    Tensor k = qkvPart(qkv, 1), v = qkvPart(qkv, 2);
    if (caches) {
      caches->push_back(k);
      caches->push_back(v);
    }
    Tensor zero = shardc::full({}, 0, at->dtype());
    Tensor q = shardc::reshape(
        shardc::dynamic_slice(qkv, {zero, *at, zero, zero, zero}, {B, 1, 1, H, hd}), {B, 1, H, hd});
    Tensor lengths = shardc::broadcast_to(*at + 1, {B}); // keys 0..at
    Tensor row = shardc::dynamic_slice(x, {zero, *at, zero}, {B, 1, c.dModel});
    return rowBlock(row, q, k, v, lengths, scale, w); // [B,1,d]
  };
  for (int64_t l = 0; l < c.layers; ++l, w += 12) {
    if (at && l + 1 == c.layers) {
      x = lastRow(x, w);
      continue;
    }
    std::vector<Tensor> in{x};
    in.insert(in.end(), w, w + 12);
    x = run(in)[0];
  }
  Tensor xf = shardc::layer_norm(x, w[0], w[1]); // [B,T,d] ([B,1,d] with `at`)
  return linear(xf, w[2], w[3]);                 // [B,T,V]
}

} // namespace

shardc::TracedFn lossFunction(const Config &config, const LossOptions &options) {
  return [config, options](const std::vector<Tensor> &in) {
    Tensor logits = forward(config, in[0], in.data() + 2, nullptr, options); // [B,T,V]
    return std::vector<Tensor>{shardc::softmax_cross_entropy(logits, in[1])};
  };
}

shardc::TracedFn nextTokenLogitsFunction(const Config &config) {
  return [config](const std::vector<Tensor> &in) {
    Tensor logits = forward(config, in[0], in.data() + 2, nullptr, {}, &in[1]); // [B,1,V]
    Tensor row = shardc::reshape(logits, {logits.dim(0), logits.dim(2)});       // [B,V]
    return std::vector<Tensor>{row, shardc::argmax(row, 1)};
  };
}

shardc::TracedFn prefillFunction(const Config &config) {
  return [config](const std::vector<Tensor> &in) {
    std::vector<Tensor> out(1);
    Tensor logits = forward(config, in[0], in.data() + 2, &out, {}, &in[1]); // [B,1,V]
    // A window shorter than the context fills the caches' first W
    // positions; the decode step's mask keeps the zeros after them out.
    int64_t W = in[0].dim(1), T = config.context;
    for (size_t i = 1; i < out.size() && W < T; ++i) {
      Tensor &cache = out[i]; // [B,W,H,hd]
      Tensor rest =
          shardc::full({cache.dim(0), T - W, cache.dim(2), cache.dim(3)}, 0, config.dtype);
      cache = shardc::concatenate({cache, rest}, 1); // [B,T,H,hd]
    }
    out[0] = shardc::reshape(logits, {logits.dim(0), logits.dim(2)}); // [B,V]
    out.push_back(shardc::argmax(out[0], 1));
    return out;
  };
}

shardc::TracedFn decodeFunction(const Config &c) {
  return [c](const std::vector<Tensor> &in) {
    const Tensor &token = in[0], &position = in[1];
    const Tensor *cache = in.data() + 2, *p = cache + 2 * c.layers;
    int64_t B = token.dim(0), hd = c.headDim(), d = c.dModel;
    Tensor zero = shardc::full({}, 0, position.dtype());
    Tensor pos = shardc::dynamic_slice(p[1], {position, zero}, {1, d}); // [1,d]
    Tensor x = shardc::take(p[0], token) + pos;                         // [B,1,d]
    // The positions after this one hold stale keys (or a prefill's zeros):
    // each batch item attends over positions 0..position only.
    Tensor lengths = shardc::broadcast_to(position + 1, {B}); // [B]
    const double scale = 1.0 / std::sqrt((double)hd);
    std::vector<Tensor> out(1);
    const Tensor *w = p + 2;
    for (int64_t l = 0; l < c.layers; ++l, w += 12) {
      Tensor h = shardc::layer_norm(x, w[0], w[1]);                   // [B,1,d]
      Tensor qkv = weightProduct(h, w[2], {{}, {}, {2}, {3}}) + w[3]; // [B,1,3,H,hd]
      // This position's key and value go into the caches in place.
      Tensor k = shardc::dynamic_update_slice(cache[2 * l], qkvPart(qkv, 1),
                                              {zero, position, zero, zero}); // [B,T,H,hd]
      Tensor v = shardc::dynamic_update_slice(cache[2 * l + 1], qkvPart(qkv, 2),
                                              {zero, position, zero, zero});
      x = rowBlock(x, qkvPart(qkv, 0), k, v, lengths, scale, w);
      out.push_back(k);
      out.push_back(v);
    }
    Tensor xf = shardc::layer_norm(x, w[0], w[1]);                  // [B,1,d]
    out[0] = shardc::reshape(linear(xf, w[2], w[3]), {B, c.vocab}); // [B,V]
    out.push_back(shardc::argmax(out[0], 1));                       // [B]
    return out;
  };
}

shardc::PartitionSpec cacheSpec(const shardc::Mesh &mesh) {
  shardc::PartitionSpec spec(4); // [B,T,H,hd]
  int data = mesh.axisIndex("data"), model = mesh.axisIndex("model");
  if (data >= 0 && mesh.axisSizes[data] > 1)
    spec[0] = {"data"};
  if (model >= 0 && mesh.axisSizes[model] > 1)
    spec[2] = {"model"};
  return spec;
}

shardc::TracedFn logitsFunction(const Config &config) {
  return [config](const std::vector<Tensor> &in) {
    return std::vector<Tensor>{forward(config, in[0], in.data() + 1)};
  };
}

} // namespace gpt
