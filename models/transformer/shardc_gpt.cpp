//===- shardc_gpt.cpp - the Tiny Transformer on Tiny Shakespeare ----------===//
//
// Trains the byte-level Tiny Transformer (Model.h) over a mesh of simulated
// devices ["data"=D, "model"=M]: the batch split over "data", the attention
// heads and feed-forward columns over "model" (Megatron-style), both on a
// 2-D mesh; only the annotations differ between layouts. Generates text
// from its checkpoints.
//
//   shardc-gpt train [--data PATH] [--devices N] [--mesh data=D,model=M]
//                    [--steps S] [--batch B] [--lr LR] [--warmup W]
//                    [--seed S] [--eval-every K] [--eval-batches E]
//                    [--checkpoint-dir DIR] [--resume PATH]
//                    [--stop-after N] [--log-every K] [--clip-norm C]
//                    [--weight-decay WD] [--emit-mlir PATH]
//                    [--d-model D --heads H --d-ff F --layers L --context T]
//
//   shardc-gpt generate --checkpoint PATH --prompt TEXT --tokens N
//                    [--temperature T] [--top-k K] [--seed S] [--mode padded]
//                    [--mesh data=D,model=M]
//
// train: a progress line per log step, evaluation lines, and last one JSON line:
// steps, tokens_per_s, ms_per_step_median, train_loss_last, val_loss,
// val_ppl, peak_bytes_per_device, compile_s (and the layout and cache
// counters). generate: the prompt and the text as it is produced, then one
// JSON line: tokens_per_s, ms_per_token_median, compiles, cache_hits, mode.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Data.h"
#include "Generate.h"
#include "Model.h"
#include "Trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

const char *kUsage =
    "usage: shardc-gpt train [--data PATH] [--devices N] [--mesh data=D,model=M] [--steps S]\n"
    "                        [--batch B] [--lr LR] [--warmup W] [--seed S] [--eval-every K]\n"
    "                        [--eval-batches E] [--checkpoint-dir DIR] [--resume PATH]\n"
    "                        [--stop-after N] [--log-every K] [--clip-norm C]\n"
    "                        [--weight-decay WD] [--emit-mlir PATH]\n"
    "                        [--d-model D] [--heads H] [--d-ff F] [--layers L] [--context T]\n"
    "       shardc-gpt generate --checkpoint PATH --prompt TEXT --tokens N [--temperature T]\n"
    "                        [--top-k K] [--seed S] [--mode padded] [--mesh data=D,model=M]\n";

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr, "shardc-gpt: error: %s\n%s", why.c_str(), kUsage);
  std::exit(2);
}

[[noreturn]] void die(const std::string &why) {
  std::fprintf(stderr, "shardc-gpt: error: %s\n", why.c_str());
  std::exit(1);
}

struct Cli {
  gpt::TrainOptions train;
  std::string data, checkpointDir, resume, emitMlir, meshText;
  int64_t devices = 0, evalEvery = 0, logEvery = 10, stopAfter = -1;
};

int64_t toInt(const std::string &opt, const std::string &v, int64_t min) {
  char *end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || x < min)
    usage(opt + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return x;
}

double toDouble(const std::string &opt, const std::string &v) {
  char *end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x) || x < 0)
    usage(opt + " needs a non-negative number, got '" + v + "'");
  return x;
}

/// "data=2,model=2" (either part may be left out: size 1).
void parseMesh(const std::string &text, int64_t &data, int64_t &model) {
  data = model = 1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos
                                                                   : comma - pos);
    size_t eq = part.find('=');
    if (eq == std::string::npos)
      usage("--mesh wants axis=size pairs such as data=2,model=2, got '" + text + "'");
    std::string axis = part.substr(0, eq);
    int64_t size = toInt("--mesh " + axis, part.substr(eq + 1), 1);
    if (axis == "data")
      data = size;
    else if (axis == "model")
      model = size;
    else
      usage("--mesh: unknown axis '" + axis + "' (the axes are data and model)");
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
}

/// The command's options as (--name, value) pairs; --help, and an option
/// without a value, end the program with the usage.
std::vector<std::pair<std::string, std::string>> optionPairs(int argc, char **argv) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h")
      usage("help");
    if (i + 1 >= argc)
      usage("option " + a + " needs a value");
    out.emplace_back(a, argv[++i]);
  }
  return out;
}

/// The mesh from --mesh (or --devices N: data=N), checked against --devices.
void resolveMesh(const std::string &meshText, int64_t devices, int64_t &data, int64_t &model) {
  data = model = 1;
  if (!meshText.empty())
    parseMesh(meshText, data, model);
  else if (devices)
    data = devices;
  if (devices && devices != data * model)
    usage("--devices " + std::to_string(devices) + " does not match --mesh " + meshText);
}

Cli parse(int argc, char **argv) {
  Cli c;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")
    usage("a command is needed");
  std::string command = argv[1];
  if (command != "train")
    usage("unknown command '" + command + "'");
  gpt::TrainOptions &t = c.train;
  for (const auto &[a, v] : optionPairs(argc, argv)) {
    if (a == "--data") c.data = v;
    else if (a == "--devices") c.devices = toInt(a, v, 1);
    else if (a == "--mesh") c.meshText = v;
    else if (a == "--steps") t.steps = toInt(a, v, 1);
    else if (a == "--batch") t.batch = toInt(a, v, 1);
    else if (a == "--lr") t.lr = toDouble(a, v);
    else if (a == "--warmup") t.warmup = toInt(a, v, 0);
    else if (a == "--seed") t.seed = (uint64_t)toInt(a, v, 0);
    else if (a == "--eval-every") c.evalEvery = toInt(a, v, 0);
    else if (a == "--eval-batches") t.evalBatches = toInt(a, v, 1);
    else if (a == "--checkpoint-dir") c.checkpointDir = v;
    else if (a == "--resume") c.resume = v;
    else if (a == "--stop-after") c.stopAfter = toInt(a, v, 0);
    else if (a == "--log-every") c.logEvery = toInt(a, v, 1);
    else if (a == "--clip-norm") t.clipNorm = toDouble(a, v);
    else if (a == "--weight-decay") t.weightDecay = toDouble(a, v);
    else if (a == "--emit-mlir") c.emitMlir = v;
    else if (a == "--d-model") t.config.dModel = toInt(a, v, 1);
    else if (a == "--heads") t.config.heads = toInt(a, v, 1);
    else if (a == "--d-ff") t.config.dFF = toInt(a, v, 1);
    else if (a == "--layers") t.config.layers = toInt(a, v, 1);
    else if (a == "--context") t.config.context = toInt(a, v, 1);
    else usage("unknown option " + a);
  }
  resolveMesh(c.meshText, c.devices, t.data, t.model);
  if (t.config.dModel % t.config.heads)
    usage("--d-model must be a multiple of --heads");
  if (t.config.heads % t.model || t.config.dFF % t.model)
    usage("model=" + std::to_string(t.model) + " must divide the heads (" +
          std::to_string(t.config.heads) + ") and --d-ff (" + std::to_string(t.config.dFF) +
          ")");
  if (t.batch % t.data)
    usage("--batch " + std::to_string(t.batch) + " must be a multiple of data=" +
          std::to_string(t.data));
  return c;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string checkpointPath(const std::string &dir, int64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "/step-%08lld.safetensors", (long long)step);
  return dir + name;
}

/// shardc-gpt generate.
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

} // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && std::string(argv[1]) == "generate")
    return generateMain(argc, argv);
  Cli cli = parse(argc, argv);
  gpt::TrainOptions &o = cli.train;

  auto client = shardc::Client::create("cpu");
  if (!client.ok())
    die(client.message());
  gpt::Trainer trainer(*client, o);
  if (!cli.emitMlir.empty()) {
    // The traced loss, for shardc explain and the lit tests.
    shardc::StatusOr<std::string> text = trainer.traceLoss();
    if (!text.ok())
      die(text.message());
    std::ofstream out(cli.emitMlir);
    out << *text;
    if (!out.flush())
      die("cannot write " + cli.emitMlir);
    return 0;
  }

  std::string dataPath = cli.data.empty() ? gpt::defaultDataPath() : cli.data;
  shardc::StatusOr<gpt::Dataset> data = gpt::loadDataset(dataPath, o.config.context);
  if (!data.ok())
    die(data.message());
  if (!cli.checkpointDir.empty()) {
    struct stat st;
    if (::stat(cli.checkpointDir.c_str(), &st) != 0 &&
        ::mkdir(cli.checkpointDir.c_str(), 0777) != 0)
      die("--checkpoint-dir " + cli.checkpointDir + ": " + std::strerror(errno));
  }

  shardc::Status ready = cli.resume.empty() ? trainer.initialize() : trainer.restore(cli.resume);
  if (!ready.ok())
    die(ready.message());
  int64_t params = 0;
  for (const gpt::ParamInfo &p : gpt::parameters(o.config))
    params += shardc::numElements(p.shape);
  std::fprintf(stderr,
               "Tiny Transformer: %lld parameters (%s); data %s: %zu train / %zu val bytes\n"
               "mesh %s (%lld simulated devices), batch %lld x %lld tokens, AdamW lr %g, "
               "warm-up %lld, cosine to %g x, clip %g%s\n",
               (long long)params, o.config.toString().c_str(), dataPath.c_str(),
               data->train.size(), data->val.size(), trainer.meshString().c_str(),
               (long long)(o.data * o.model), (long long)o.batch, (long long)o.config.context,
               o.lr, (long long)o.warmup, o.finalLrFraction, o.clipNorm,
               cli.resume.empty() ? ""
                                  : (", resumed at step " + std::to_string(trainer.step()) +
                                     " from " + cli.resume)
                                        .c_str());
  shardc::StatusOr<double> compileS = trainer.compile();
  if (!compileS.ok())
    die(compileS.message());
  shardc::Client::CacheStats cache = client->cacheStats();
  std::fprintf(stderr, "compiled the training step and the eval step in %.1f s (%s)\n",
               *compileS, cache.misses ? "cold" : "from the cache");

  auto save = [&]() {
    if (cli.checkpointDir.empty())
      return;
    std::string path = checkpointPath(cli.checkpointDir, trainer.step());
    shardc::Status s = trainer.save(path);
    if (!s.ok())
      die(s.message());
    std::fprintf(stderr, "saved %s\n", path.c_str());
  };
  auto evaluate = [&]() {
    shardc::StatusOr<double> v = trainer.evaluate(data->val);
    if (!v.ok())
      die(v.message());
    std::fprintf(stderr, "step %5lld  val loss %.4f  val ppl %.3f\n", (long long)trainer.step(),
                 *v, std::exp(*v));
    return *v;
  };

  const double tokensPerStep = (double)o.batch * (double)o.config.context;
  std::vector<double> ms;
  double lossLast = NAN, valLoss = NAN;
  int64_t stopAt = cli.stopAfter >= 0 ? std::min(o.steps, trainer.step() + cli.stopAfter)
                                      : o.steps;
  while (trainer.step() < stopAt) {
    double lr = gpt::learningRate(o, trainer.step());
    auto t0 = std::chrono::steady_clock::now();
    shardc::StatusOr<double> loss = trainer.trainStep(*data);
    double dt = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
    if (!loss.ok())
      die(loss.message());
    if (!std::isfinite(*loss))
      die("the loss is " + std::to_string(*loss) + " at step " +
          std::to_string(trainer.step()));
    ms.push_back(dt);
    lossLast = *loss;
    int64_t s = trainer.step();
    if (s % cli.logEvery == 0 || s == 1 || s == stopAt)
      std::fprintf(stderr, "step %5lld  loss %.4f  %7.0f tokens/s  %6.1f ms/step  lr %.2e\n",
                   (long long)s, *loss, tokensPerStep / dt * 1e3, dt, lr);
    if (cli.evalEvery > 0 && s % cli.evalEvery == 0 && s < stopAt) {
      valLoss = evaluate();
      save();
    }
  }
  valLoss = evaluate();
  save();

  // The first step pays for warming caches and buffer pools.
  std::vector<double> timed(ms.begin() + (ms.size() > 1 ? 1 : 0), ms.end());
  double med = median(timed);
  cache = client->cacheStats();
  std::printf("{\"steps\": %lld, \"mesh\": \"%s\", \"devices\": %lld, \"batch\": %lld, "
              "\"context\": %lld, \"tokens_per_s\": %.1f, \"ms_per_step_median\": %.2f, "
              "\"train_loss_last\": %.4f, \"val_loss\": %.4f, \"val_ppl\": %.3f, "
              "\"peak_bytes_per_device\": %lld, \"state_bytes_per_device\": %lld, "
              "\"compile_s\": %.2f, \"cache_hits\": %lld, \"cache_misses\": %lld}\n",
              (long long)trainer.step(), trainer.meshString().c_str(),
              (long long)(o.data * o.model), (long long)o.batch, (long long)o.config.context,
              med > 0 ? tokensPerStep / med * 1e3 : 0.0, med, lossLast, valLoss,
              std::exp(valLoss),
              (long long)(trainer.stateBytesPerDevice() + trainer.stepBufferBytesPerDevice()),
              (long long)trainer.stateBytesPerDevice(), *compileS,
              (long long)(cache.memoryHits + cache.diskHits), (long long)cache.misses);
  return 0;
}
