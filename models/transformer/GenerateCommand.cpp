//===- GenerateCommand.cpp - shardc-gpt generate --------------------------===//
//
// Text from a checkpoint, streamed, then the JSON summary (see
// shardc_gpt.cpp and Generate.h).
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Cli.h"
#include "Generate.h"

#include <cstdio>
#include <string>
#include <vector>

namespace gpt::cli {

int generateMain(int argc, char **argv) {
  std::string checkpoint, prompt, mode = "padded", meshText;
  int64_t tokens = -1, topK = 0, devices = 0;
  bool havePrompt = false;
  gpt::Sampling sampling;
  for (const auto &[a, v] : optionPairs(argc, argv)) {
    if (a == "--checkpoint") checkpoint = v;
    else if (a == "--prompt") prompt = v, havePrompt = true;
    else if (a == "--tokens") tokens = toInt(a, v, 1);
    else if (a == "--temperature") sampling.temperature = toDouble(a, v);
    else if (a == "--top-k") topK = toInt(a, v, 0);
    else if (a == "--seed") sampling.seed = (uint64_t)toInt(a, v, 0);
    else if (a == "--mode") mode = v;
    else if (a == "--mesh") meshText = v;
    else if (a == "--devices") devices = toInt(a, v, 1);
    else usage("unknown option " + a);
  }
  sampling.topK = topK;
  if (checkpoint.empty())
    usage("generate needs --checkpoint PATH");
  if (!havePrompt || prompt.empty())
    usage("generate needs a non-empty --prompt");
  if (tokens < 0)
    usage("generate needs --tokens N");
  if (mode == "kv-cache")
    die("--mode kv-cache is not built yet (it needs ops that read and write at a run-time "
        "offset); use --mode padded");
  if (mode != "padded")
    usage("--mode must be padded or kv-cache, got '" + mode + "'");
  int64_t data = 1, model = 1;
  resolveMesh(meshText, devices, data, model);

  // The model's shape comes from the checkpoint.
  shardc::StatusOr<gpt::SavedModel> saved = gpt::loadSavedModel(checkpoint);
  if (!saved.ok())
    die(saved.message());
  const gpt::Config &config = saved->config;
  if ((int64_t)prompt.size() > config.context)
    die("the prompt has " + std::to_string(prompt.size()) + " bytes, more than the context (" +
        std::to_string(config.context) + ")");
  if (config.heads % model || config.dFF % model)
    usage("model=" + std::to_string(model) + " must divide the heads and d_ff of the checkpoint");

  auto client = shardc::Client::create("cpu");
  if (!client.ok())
    die(client.message());
  gpt::Generator generator(*client, config, std::move(saved->state.params),
                           shardc::Mesh{{"data", "model"}, {data, model}});
  if (shardc::Status s = generator.initialize(); !s.ok())
    die(s.message());
  std::fputs(prompt.c_str(), stdout);
  std::fflush(stdout);
  shardc::StatusOr<gpt::Generator::Result> r =
      generator.generate(prompt, tokens, sampling, [](uint8_t b) {
        std::fputc(b, stdout);
        std::fflush(stdout);
      });
  if (!r.ok())
    die(r.message());
  // The first step includes tracing and compiling (or the cache lookup).
  std::vector<double> timed(r->stepMs.begin() + (r->stepMs.size() > 1 ? 1 : 0), r->stepMs.end());
  double med = median(timed), total = 0;
  for (double ms : timed)
    total += ms;
  shardc::Client::CacheStats cache = client->cacheStats();
  std::printf("\n{\"mode\": \"%s\", \"tokens\": %lld, \"tokens_per_s\": %.1f, "
              "\"ms_per_token_median\": %.3f, \"first_token_ms\": %.1f, \"compiles\": %lld, "
              "\"cache_hits\": %lld, \"temperature\": %g, \"top_k\": %lld, \"mesh\": "
              "\"data=%lld,model=%lld\"}\n",
              mode.c_str(), (long long)tokens, total > 0 ? timed.size() / total * 1e3 : 0.0, med,
              r->stepMs.front(), (long long)cache.misses,
              (long long)(cache.memoryHits + cache.diskHits), sampling.temperature,
              (long long)topK, (long long)data, (long long)model);
  return 0;
}

} // namespace gpt::cli
