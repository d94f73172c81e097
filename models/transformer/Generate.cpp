//===- Generate.cpp - text from a Tiny Transformer checkpoint -------------===//

#include "Generate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace gpt {

using shardc::Array;
using shardc::DType;
using shardc::Status;
using shardc::StatusOr;

int64_t sampleToken(const float *logits, int64_t vocab, const Sampling &s, std::mt19937_64 &rng) {
  if (s.temperature <= 0)
    return std::max_element(logits, logits + vocab) - logits;
  std::vector<int64_t> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  int64_t k = s.topK > 0 ? std::min(s.topK, vocab) : vocab;
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  std::vector<double> p(k);
  double top = logits[order[0]], total = 0;
  for (int64_t i = 0; i < k; ++i)
    total += p[i] = std::exp((logits[order[i]] - top) / s.temperature);
  // A uniform double from the top 53 bits: the same draw on every platform.
  double u = (double)(rng() >> 11) * 0x1.0p-53 * total;
  for (int64_t i = 0; i < k; ++i) {
    if (u < p[i])
      return order[i];
    u -= p[i];
  }
  return order[k - 1];
}

const char *modeName(Mode mode) { return mode == Mode::Padded ? "padded" : "kv-cache"; }

namespace {

shardc::JitOptions options(const Config &c, const shardc::Mesh &mesh, std::string name,
                           std::vector<std::string> first, size_t donated,
                           shardc::MatmulPrecision precision) {
  shardc::JitOptions j;
  j.name = std::move(name);
  j.mesh = mesh;
  // At bf16 the products with weights say so themselves (the weights are
  // bf16); attention's products over the f32 caches stay f32, since
  // rounding the caches at every step would cost more than it saves.
  if (precision != shardc::MatmulPrecision::BF16)
    j.compile.precision = precision;
  j.argNames = std::move(first);
  for (const ParamInfo &p : parameters(c))
    j.argNames.push_back(p.name);
  for (size_t i = 0; i < donated; ++i)
    j.donate.push_back(2 + i); // the caches, after token and position
  return j;
}

std::vector<std::string> cacheNames(const Config &c) {
  std::vector<std::string> names{"token", "position"};
  for (int64_t l = 0; l < c.layers; ++l)
    for (const char *kv : {"k", "v"})
      names.push_back("cache." + std::to_string(l) + "." + kv);
  return names;
}

/// The batch of sequences over "data" where the mesh splits it.
shardc::PartitionSpec batchSpec(const shardc::Mesh &mesh, int64_t rank) {
  shardc::PartitionSpec spec(rank);
  int data = mesh.axisIndex("data");
  if (data >= 0 && mesh.axisSizes[data] > 1)
    spec[0] = {"data"};
  return spec;
}

} // namespace

Generator::Generator(shardc::Client &client, Config config, std::vector<Array> params,
                     shardc::Mesh mesh, Mode mode, int64_t batch, shardc::MatmulPrecision precision)
    : client_(client), config_(config), mesh_(std::move(mesh)), mode_(mode), batch_(batch),
      precision_(precision), hostParams_(std::move(params)),
      window_(client.jit(
          mode == Mode::Padded ? nextTokenLogitsFunction(config_) : prefillFunction(config_),
          options(config_, mesh_, mode == Mode::Padded ? "next_token_logits" : "prefill",
                  {"tokens", "position"}, 0, precision))),
      decode_(
          client.jit(decodeFunction(config_), options(config_, mesh_, "decode", cacheNames(config_),
                                                      2 * config_.layers, precision))) {}

DType Generator::paramType(const ParamInfo &p) const {
  return precision_ == shardc::MatmulPrecision::BF16 && isProductWeight(p) ? DType::BF16
                                                                           : config_.dtype;
}

Status Generator::initialize() {
  std::vector<ParamInfo> infos = parameters(config_);
  params_.clear();
  for (size_t i = 0; i < infos.size(); ++i) {
    if (paramType(infos[i]) != hostParams_[i].dtype()) { // rounded once, nearest even
      Array rounded(paramType(infos[i]), hostParams_[i].shape());
      for (int64_t e = 0; e < rounded.numElements(); ++e)
        rounded.setDouble(e, hostParams_[i].getDouble(e));
      hostParams_[i] = std::move(rounded);
    }
    StatusOr<shardc::DeviceArray> d =
        client_.device_put(hostParams_[i], {mesh_, paramSpec(infos[i], mesh_)});
    if (!d.ok())
      return Status::error(infos[i].name + ": " + d.message());
    params_.push_back(std::move(*d));
  }
  hostParams_.clear();
  // The executables, traced and compiled (or found in the cache) once:
  // each step then calls them without looking its signature up. A kv-cache
  // prefill's window is compiled when a prompt first needs its length.
  if (mode_ == Mode::Padded) {
    StatusOr<shardc::Executable *> window = windowExecutable(config_.context);
    if (!window.ok())
      return window.status();
  } else {
    StatusOr<std::shared_ptr<shardc::Executable>> decode = decode_.lower(argSpecs(true));
    if (!decode.ok())
      return decode.status();
    decodeExe_ = *decode;
  }
  return Status::success();
}

StatusOr<shardc::Executable *> Generator::windowExecutable(int64_t length) {
  std::shared_ptr<shardc::Executable> &exe = windowExes_[length];
  if (!exe) {
    StatusOr<std::shared_ptr<shardc::Executable>> lowered = window_.lower(argSpecs(false, length));
    if (!lowered.ok()) {
      windowExes_.erase(length);
      return lowered.status();
    }
    exe = *lowered;
  }
  return exe.get();
}

int64_t Generator::prefillWindow(int64_t bytes) const {
  int64_t window = 8;
  while (window < bytes)
    window *= 2;
  return std::min(window, config_.context);
}

StatusOr<shardc::DeviceArray> Generator::put(const Array &a, const shardc::PartitionSpec &spec) {
  return client_.device_put(a, {mesh_, spec});
}

std::vector<shardc::ArgSpec> Generator::argSpecs(bool decode, int64_t window) const {
  int64_t T = config_.context, H = config_.heads, hd = config_.headDim();
  auto spec = [&](std::string name, DType dtype, shardc::Shape shape,
                  shardc::PartitionSpec layout) {
    return shardc::ArgSpec{std::move(name), dtype, std::move(shape), {mesh_, std::move(layout)}};
  };
  std::vector<shardc::ArgSpec> args;
  if (!decode) {
    args.push_back(
        spec("tokens", DType::I32, {batch_, window > 0 ? window : T}, batchSpec(mesh_, 2)));
    args.push_back(spec("position", DType::I32, {}, {}));
  } else {
    std::vector<std::string> names = cacheNames(config_);
    args.push_back(spec(names[0], DType::I32, {batch_, 1}, batchSpec(mesh_, 2)));
    args.push_back(spec(names[1], DType::I32, {}, {}));
    for (int64_t i = 0; i < 2 * config_.layers; ++i)
      args.push_back(spec(names[2 + i], config_.dtype, {batch_, T, H, hd}, cacheSpec(mesh_)));
  }
  for (const ParamInfo &p : parameters(config_))
    args.push_back(spec(p.name, paramType(p), p.shape, paramSpec(p, mesh_)));
  return args;
}

StatusOr<std::string> Generator::traceStep() const {
  bool decode = mode_ == Mode::KvCache;
  std::vector<shardc::ArgSpec> args = argSpecs(decode);
  for (size_t i = 2; decode && i < 2 + 2 * (size_t)config_.layers; ++i)
    args[i].donated = true; // as JitOptions::donate marks them
  return (decode ? decode_ : window_).trace(args);
}

StatusOr<Array> Generator::keepOutputs(std::vector<shardc::DeviceArray> &out, bool greedy) {
  if (out.size() < 2)
    return Status::error("a generation step gave " + std::to_string(out.size()) +
                         " results, expected the logits and the tokens");
  if (out.size() > 2)
    caches_.assign(std::make_move_iterator(out.begin() + 1),
                   std::make_move_iterator(out.end() - 1));
  return out[greedy ? out.size() - 1 : 0].fetch(); // [B] or [B,V]
}

StatusOr<Array> Generator::runWindow(const std::vector<std::vector<uint8_t>> &window, bool greedy) {
  int64_t len = (int64_t)window[0].size();
  int64_t T = mode_ == Mode::KvCache ? prefillWindow(len) : config_.context;
  StatusOr<shardc::Executable *> exe = windowExecutable(T);
  if (!exe.ok())
    return exe.status();
  Array tokens(DType::I32, {batch_, T}); // zero padding after the bytes
  for (int64_t b = 0; b < batch_; ++b)
    for (int64_t i = 0; i < len; ++i)
      tokens.data<int32_t>()[b * T + i] = window[b][i];
  StatusOr<shardc::DeviceArray> x = put(tokens, batchSpec(mesh_, 2));
  StatusOr<shardc::DeviceArray> pos = put(Array::fromInts(DType::I32, {}, {len - 1}), {});
  if (!x.ok() || !pos.ok())
    return !x.ok() ? x.status() : pos.status();
  std::vector<shardc::DeviceArray> args{std::move(*x), std::move(*pos)};
  args.insert(args.end(), params_.begin(), params_.end());
  StatusOr<std::vector<shardc::DeviceArray>> out = (*exe)->call(std::move(args));
  if (!out.ok())
    return out.status();
  return keepOutputs(*out, greedy);
}

StatusOr<Array> Generator::runDecode(const std::vector<uint8_t> &tokens, int64_t position,
                                     bool greedy) {
  Array token(DType::I32, {batch_, 1});
  for (int64_t b = 0; b < batch_; ++b)
    token.data<int32_t>()[b] = tokens[b];
  StatusOr<shardc::DeviceArray> x = put(token, batchSpec(mesh_, 2));
  StatusOr<shardc::DeviceArray> pos = put(Array::fromInts(DType::I32, {}, {position}), {});
  if (!x.ok() || !pos.ok())
    return !x.ok() ? x.status() : pos.status();
  std::vector<shardc::DeviceArray> args;
  args.reserve(2 + caches_.size() + params_.size());
  args.push_back(std::move(*x));
  args.push_back(std::move(*pos));
  // The caches are handed over (donated): the step writes into them.
  std::move(caches_.begin(), caches_.end(), std::back_inserter(args));
  caches_.clear();
  args.insert(args.end(), params_.begin(), params_.end());
  StatusOr<std::vector<shardc::DeviceArray>> out = decodeExe_->call(std::move(args));
  if (!out.ok())
    return out.status();
  return keepOutputs(*out, greedy);
}

StatusOr<Generator::Result> Generator::generate(const std::string &prompt, int64_t tokens,
                                                const Sampling &sampling,
                                                const std::function<void(uint8_t)> &emit) {
  int64_t T = config_.context;
  std::vector<std::vector<uint8_t>> seqs(batch_,
                                         std::vector<uint8_t>(prompt.begin(), prompt.end()));
  std::vector<std::mt19937_64> rngs;
  for (int64_t b = 0; b < batch_; ++b)
    rngs.emplace_back(sampling.seed + b);
  Result r;
  r.bytes.resize(batch_);
  int64_t cached = 0; // kv-cache: positions the caches hold
  // Greedy tokens come from the devices (argmax there); a sampled one is
  // drawn here from the fetched logits.
  bool greedy = sampling.temperature <= 0;
  for (int64_t n = 0; n < tokens; ++n) {
    auto t0 = std::chrono::steady_clock::now();
    int64_t len = (int64_t)seqs[0].size();
    StatusOr<Array> next = Status::error("");
    if (mode_ == Mode::KvCache && cached > 0 && cached < T) {
      std::vector<uint8_t> last;
      for (const auto &s : seqs)
        last.push_back(s.back());
      next = runDecode(last, cached, greedy);
      cached += 1;
    } else {
      // The padded window: the last T bytes (kv-cache: the last T/2 after
      // the first, so that decoding has room to go on).
      int64_t keep = mode_ == Mode::KvCache && len >= T ? T / 2 : std::min(len, T);
      std::vector<std::vector<uint8_t>> window;
      for (const auto &s : seqs)
        window.emplace_back(s.end() - keep, s.end());
      next = runWindow(window, greedy);
      cached = keep;
      r.prefills += mode_ == Mode::KvCache;
    }
    if (!next.ok())
      return next.status();
    std::vector<float> row(config_.vocab);
    for (int64_t b = 0; b < batch_; ++b) {
      int64_t token = greedy ? next->getInt(b) : -1;
      if (!greedy) {
        for (int64_t v = 0; v < config_.vocab; ++v)
          row[v] = (float)next->getDouble(b * config_.vocab + v);
        token = sampleToken(row.data(), config_.vocab, sampling, rngs[b]);
      }
      seqs[b].push_back((uint8_t)token);
      r.bytes[b].push_back((uint8_t)token);
    }
    r.stepMs.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (emit)
      emit(r.bytes[0].back());
  }
  return r;
}

} // namespace gpt
