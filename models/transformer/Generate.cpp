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

int64_t sampleToken(const float *logits, int64_t vocab, const Sampling &s,
                    std::mt19937_64 &rng) {
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

namespace {

shardc::JitOptions options(const Config &c, const shardc::Mesh &mesh) {
  shardc::JitOptions j;
  j.name = "next_token_logits";
  j.mesh = mesh;
  j.argNames = {"tokens", "position"};
  for (const ParamInfo &p : parameters(c))
    j.argNames.push_back(p.name);
  return j;
}

} // namespace

Generator::Generator(shardc::Client &client, Config config, std::vector<Array> params,
                     shardc::Mesh mesh)
    : client_(client), config_(config), mesh_(std::move(mesh)), hostParams_(std::move(params)),
      fn_(client.jit(nextTokenLogitsFunction(config_), options(config_, mesh_))) {}

Status Generator::initialize() {
  std::vector<ParamInfo> infos = parameters(config_);
  params_.clear();
  for (size_t i = 0; i < infos.size(); ++i) {
    StatusOr<shardc::DeviceArray> d =
        client_.device_put(hostParams_[i], {mesh_, paramSpec(infos[i], mesh_)});
    if (!d.ok())
      return Status::error(infos[i].name + ": " + d.message());
    params_.push_back(std::move(*d));
  }
  hostParams_.clear();
  return Status::success();
}

StatusOr<Generator::Result> Generator::generate(const std::string &prompt, int64_t tokens,
                                                const Sampling &sampling,
                                                const std::function<void(uint8_t)> &emit) {
  int64_t T = config_.context;
  std::vector<uint8_t> seq(prompt.begin(), prompt.end());
  std::mt19937_64 rng(sampling.seed);
  Result r;
  shardc::PartitionSpec replicated{{}, {}};
  for (int64_t n = 0; n < tokens; ++n) {
    auto t0 = std::chrono::steady_clock::now();
    // The window: the last T bytes, left-aligned, zero padding after.
    int64_t start = std::max<int64_t>(0, (int64_t)seq.size() - T);
    int64_t len = (int64_t)seq.size() - start;
    Array window(DType::I32, {1, T});
    for (int64_t i = 0; i < len; ++i)
      window.data<int32_t>()[i] = seq[start + i];
    StatusOr<shardc::DeviceArray> x = client_.device_put(window, {mesh_, replicated});
    StatusOr<shardc::DeviceArray> pos = client_.device_put(
        Array::fromInts(DType::I32, {}, {len - 1}), {mesh_, shardc::PartitionSpec{}});
    if (!x.ok() || !pos.ok())
      return !x.ok() ? x.status() : pos.status();
    std::vector<shardc::DeviceArray> args{*x, *pos};
    args.insert(args.end(), params_.begin(), params_.end());
    StatusOr<std::vector<shardc::DeviceArray>> out = fn_.call(args);
    if (!out.ok())
      return out.status();
    Array logits = (*out)[0].fetch(); // [1,V]
    std::vector<float> row(config_.vocab);
    for (int64_t v = 0; v < config_.vocab; ++v)
      row[v] = (float)logits.getDouble(v);
    uint8_t next = (uint8_t)sampleToken(row.data(), config_.vocab, sampling, rng);
    seq.push_back(next);
    r.bytes.push_back(next);
    r.stepMs.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (emit)
      emit(next);
  }
  return r;
}

} // namespace gpt
