//===- TrainCommand.cpp - shardc-gpt train --------------------------------===//
//
// Trains over the mesh, logs, evaluates, checkpoints; the last line is the
// JSON summary (see shardc_gpt.cpp).
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Cli.h"
#include "Data.h"
#include "Model.h"
#include "Trainer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace gpt::cli {

namespace {

struct Cli {
  gpt::TrainOptions train;
  std::string data, checkpointDir, resume, emitMlir, meshText;
  int64_t devices = 0, evalEvery = 0, logEvery = 10, stopAfter = -1;
  int64_t keepCheckpoints = 0; // 0: every save stays
};

Cli parse(int argc, char **argv) {
  Cli c;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")
    usage("a command is needed");
  std::string command = argv[1];
  if (command != "train")
    usage("unknown command '" + command + "'");
  gpt::TrainOptions &t = c.train;
  for (const auto &[a, v] : optionPairs(argc, argv)) {
    if (a == "--data")
      c.data = v;
    else if (a == "--devices")
      c.devices = toInt(a, v, 1);
    else if (a == "--mesh")
      c.meshText = v;
    else if (a == "--steps")
      t.steps = toInt(a, v, 1);
    else if (a == "--batch")
      t.batch = toInt(a, v, 1);
    else if (a == "--lr")
      t.lr = toDouble(a, v);
    else if (a == "--warmup")
      t.warmup = toInt(a, v, 0);
    else if (a == "--seed")
      t.seed = (uint64_t)toInt(a, v, 0);
    else if (a == "--eval-every")
      c.evalEvery = toInt(a, v, 0);
    else if (a == "--eval-batches")
      t.evalBatches = toInt(a, v, 1);
    else if (a == "--checkpoint-dir")
      c.checkpointDir = v;
    else if (a == "--resume")
      c.resume = v;
    else if (a == "--keep-checkpoints")
      c.keepCheckpoints = toInt(a, v, 1);
    else if (a == "--stop-after")
      c.stopAfter = toInt(a, v, 0);
    else if (a == "--log-every")
      c.logEvery = toInt(a, v, 1);
    else if (a == "--clip-norm")
      t.clipNorm = toDouble(a, v);
    else if (a == "--weight-decay")
      t.weightDecay = toDouble(a, v);
    else if (a == "--precision")
      t.precision = toPrecision(a, v);
    else if (a == "--fsdp")
      t.fsdp = toOnOff(a, v);
    else if (a == "--remat")
      t.remat = toRemat(a, v);
    else if (a == "--attention")
      t.attention = toAttention(a, v);
    else if (a == "--sequence-parallel")
      t.sequenceParallel = toOnOff(a, v);
    else if (a == "--emit-mlir")
      c.emitMlir = v;
    else if (a == "--d-model")
      t.config.dModel = toInt(a, v, 1);
    else if (a == "--heads")
      t.config.heads = toInt(a, v, 1);
    else if (a == "--d-ff")
      t.config.dFF = toInt(a, v, 1);
    else if (a == "--layers")
      t.config.layers = toInt(a, v, 1);
    else if (a == "--context")
      t.config.context = toInt(a, v, 1);
    else
      usage("unknown option " + a);
  }
  if (c.meshText.empty() && c.devices == 0)
    c.devices = shardc::processCount(); // under mpirun: a device per process
  resolveMesh(c.meshText, c.devices, t.data, t.model);
  if (t.config.dModel % t.config.heads)
    usage("--d-model must be a multiple of --heads");
  if (t.config.heads % t.model || t.config.dFF % t.model)
    usage("model=" + std::to_string(t.model) + " must divide the heads (" +
          std::to_string(t.config.heads) + ") and --d-ff (" + std::to_string(t.config.dFF) + ")");
  if (t.sequenceParallel && t.model == 1)
    usage("--sequence-parallel splits the sequence over \"model\": it needs --mesh model=M "
          "with M > 1");
  if (t.sequenceParallel && t.config.context % t.model)
    usage("--sequence-parallel: model=" + std::to_string(t.model) +
          " must divide the window (--context " + std::to_string(t.config.context) + ")");
  if (c.keepCheckpoints > 0 && c.checkpointDir.empty())
    usage("--keep-checkpoints needs --checkpoint-dir");
  if (t.batch % t.data)
    usage("--batch " + std::to_string(t.batch) +
          " must be a multiple of data=" + std::to_string(t.data));
  return c;
}

/// dir/step-00000100 (then .safetensors, or a sharded checkpoint's files).
std::string checkpointBase(const std::string &dir, int64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "/step-%08lld", (long long)step);
  return dir + name;
}

} // namespace

int trainMain(int argc, char **argv) {
  Cli cli = parse(argc, argv);
  gpt::TrainOptions &o = cli.train;
  // Under mpirun every process trains its block of the mesh; process 0
  // alone reports (errors are each process's own).
  shardc::StatusOr<std::shared_ptr<shardc::ProcessGroup>> world = shardc::worldProcessGroup();
  if (!world.ok())
    die(world.message());
  shardc::ProcessGroup *processes = *world && (*world)->size() > 1 ? world->get() : nullptr;
  bool reports = !processes || processes->rank() == 0;
  auto report = [&](const char *format, auto... args) {
    if (reports)
      std::fprintf(stderr, format, args...);
  };

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
    // Under mpirun every process makes it: one finds it made.
    if (::stat(cli.checkpointDir.c_str(), &st) != 0 &&
        ::mkdir(cli.checkpointDir.c_str(), 0777) != 0 && errno != EEXIST)
      die("--checkpoint-dir " + cli.checkpointDir + ": " + std::strerror(errno));
  }

  shardc::Status ready = cli.resume.empty() ? trainer.initialize() : trainer.restore(cli.resume);
  if (!ready.ok())
    die(ready.message());
  int64_t params = 0;
  for (const gpt::ParamInfo &p : gpt::parameters(o.config))
    params += shardc::numElements(p.shape);
  report("Tiny Transformer: %lld parameters (%s); data %s: %zu train / %zu val bytes\n"
         "mesh %s (%lld simulated devices%s), batch %lld x %lld tokens, AdamW lr %g, "
         "warm-up %lld, cosine to %g x, clip %g, %s products%s%s%s%s%s\n",
         (long long)params, o.config.toString().c_str(), dataPath.c_str(), data->train.size(),
         data->val.size(), trainer.meshString().c_str(), (long long)(o.data * o.model),
         processes ? (" in " + std::to_string(processes->size()) + " processes").c_str() : "",
         (long long)o.batch, (long long)o.config.context, o.lr, (long long)o.warmup,
         o.finalLrFraction, o.clipNorm, o.precision.c_str(),
         o.fsdp ? ", parameters and AdamW state split over \"data\" (FSDP)" : "",
         o.remat == gpt::Remat::Block ? ", blocks recomputed in the backward pass"
         : o.remat == gpt::Remat::Dots
             ? ", blocks recomputed in the backward pass but for their products"
             : "",
         o.sequenceParallel ? ", sequence split over \"model\" between the blocks' "
                              "tensor-parallel regions"
                            : "",
         o.attention == gpt::Attention::Composed ? ", attention composed of separate ops" : "",
         cli.resume.empty()
             ? ""
             : (", resumed at step " + std::to_string(trainer.step()) + " from " + cli.resume)
                   .c_str());
  if (o.fsdp) {
    std::string whole;
    for (const gpt::ParamInfo &p : gpt::keptWholeByFsdp(o.config, trainer.mesh()))
      whole += (whole.empty() ? "" : ", ") + p.name;
    if (!whole.empty())
      report("note: --fsdp: data=%lld divides no dimension of %s; they stay whole on every "
             "device\n",
             (long long)o.data, whole.c_str());
  }
  shardc::StatusOr<double> compileS = trainer.compile();
  if (!compileS.ok())
    die(compileS.message());
  shardc::Client::CacheStats cache = client->cacheStats();
  report("compiled the training step and the eval step in %.1f s (%s)\n", *compileS,
         cache.misses ? "cold" : "from the cache");

  auto save = [&]() {
    if (cli.checkpointDir.empty())
      return;
    std::string base = checkpointBase(cli.checkpointDir, trainer.step());
    std::string path = base + ".safetensors";
    if (processes) {
      shardc::StatusOr<std::string> index = trainer.saveSharded(base, *processes);
      if (!index.ok())
        die(index.message());
      path = *index;
    } else if (shardc::Status s = trainer.save(path); !s.ok()) {
      die(s.message());
    }
    report("saved %s\n", path.c_str());
    // Older saves go only once this one is complete (Orbax's max_to_keep);
    // a sharded save is complete on every process when it returns.
    if (cli.keepCheckpoints > 0 && reports) {
      shardc::StatusOr<std::vector<std::string>> gone =
          gpt::pruneCheckpoints(cli.checkpointDir, trainer.step(), cli.keepCheckpoints);
      if (!gone.ok())
        report("shardc-gpt: warning: %s\n", gone.message().c_str());
      else
        for (const std::string &f : *gone)
          report("deleted %s\n", f.c_str());
    }
  };
  auto evaluate = [&]() {
    shardc::StatusOr<double> v = trainer.evaluate(data->val);
    if (!v.ok())
      die(v.message());
    report("step %5lld  val loss %.4f  val ppl %.3f\n", (long long)trainer.step(), *v,
           std::exp(*v));
    return *v;
  };

  const double tokensPerStep = (double)o.batch * (double)o.config.context;
  std::vector<double> ms;
  double lossFirst = NAN, lossLast = NAN, valLoss = NAN;
  int64_t stopAt = cli.stopAfter >= 0 ? std::min(o.steps, trainer.step() + cli.stopAfter) : o.steps;
  while (trainer.step() < stopAt) {
    double lr = gpt::learningRate(o, trainer.step());
    auto t0 = std::chrono::steady_clock::now();
    shardc::StatusOr<double> loss = trainer.trainStep(*data);
    double dt =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!loss.ok())
      die(loss.message());
    if (!std::isfinite(*loss))
      die("the loss is " + std::to_string(*loss) + " at step " + std::to_string(trainer.step()));
    ms.push_back(dt);
    if (std::isnan(lossFirst))
      lossFirst = *loss;
    lossLast = *loss;
    int64_t s = trainer.step();
    if (s % cli.logEvery == 0 || s == 1 || s == stopAt)
      report("step %5lld  loss %.4f  %7.0f tokens/s  %6.1f ms/step  lr %.2e\n", (long long)s, *loss,
             tokensPerStep / dt * 1e3, dt, lr);
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
  if (!reports)
    return 0;
  std::printf("{\"steps\": %lld, \"mesh\": \"%s\", \"devices\": %lld, \"batch\": %lld, "
              "\"context\": %lld, \"precision\": \"%s\", \"tokens_per_s\": %.1f, "
              "\"ms_per_step_median\": %.2f, "
              "\"train_loss_first\": %.9g, \"train_loss_last\": %.9g, \"val_loss\": %.9g, "
              "\"val_ppl\": %.3f, "
              "\"peak_bytes_per_device\": %lld, \"state_bytes_per_device\": %lld, "
              "\"compile_s\": %.2f, \"cache_hits\": %lld, \"cache_misses\": %lld, \"fsdp\": %s, "
              "\"remat\": \"%s\", \"sequence_parallel\": %s, \"attention\": \"%s\"}\n",
              (long long)trainer.step(), trainer.meshString().c_str(),
              (long long)(o.data * o.model), (long long)o.batch, (long long)o.config.context,
              o.precision.c_str(), med > 0 ? tokensPerStep / med * 1e3 : 0.0, med, lossFirst,
              lossLast, valLoss, std::exp(valLoss),
              (long long)(trainer.stateBytesPerDevice() + trainer.stepBufferBytesPerDevice()),
              (long long)trainer.stateBytesPerDevice(), *compileS,
              (long long)(cache.memoryHits + cache.diskHits), (long long)cache.misses,
              o.fsdp ? "true" : "false", rematName(o.remat), o.sequenceParallel ? "true" : "false",
              attentionName(o.attention));
  return 0;
}

} // namespace gpt::cli
