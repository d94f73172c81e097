//===- shardc_mlp.cpp - data-parallel MLP training on shardc --------------===//
//
// Trains an MLP (default 784 -> 1024 -> 1024 -> 10, ReLU) on a synthetic
// classification task whose labels come from a fixed random teacher network,
// so a falling loss means learning. The model is a C++ function traced by
// shardc's frontend; the batch is split over `--devices N` simulated devices
// ("data" axis) and the parameters are replicated; the whole step (forward,
// backward, gradient all_reduce, Adam update) is one executable, compiled
// by Client::jit on the first step. `--mode auto` writes the loss for the
// global batch and lets the partitioner insert the communication;
// `--mode shard_map` writes it per device with an explicit pmean.
//
//   shardc-mlp [--devices N] [--steps S] [--batch-per-device B] [--hidden H]
//              [--layers L] [--lr LR] [--seed S] [--log-every K]
//              [--mode auto|shard_map] [--shard-optimizer-state on|off]
//              [--emit-mlir PATH] [--loss-log PATH] [--local-devices K]
//
// Prints a progress line every K steps and, last, one JSON line: devices,
// batch_per_device, ms_per_step_median, examples_per_s, loss_first,
// loss_last.
//
//===----------------------------------------------------------------------===//

#include <shardc/Runtime/ProcessGroup.h>
#include <shardc/shardc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
  int devices = 1, localDevices = 0, steps = 200, batchPerDevice = 1024, hidden = 1024, layers = 2;
  int inputs = 784, classes = 10, seed = 0, logEvery = 20;
  double lr = 1e-3;
  std::string mode = "auto";
  std::string precision = "f32"; // --precision: how the products are computed
  std::string emitMlir;          // --emit-mlir: write the loss function there and stop
  std::string lossLog;           // --loss-log: every step's loss, exactly (%.9g)
  bool shardState = false;       // --shard-optimizer-state: Adam state split over "data"
};

const char *kUsage = "usage: shardc-mlp [--devices N] [--steps S] [--batch-per-device B] "
                     "[--hidden H] [--layers L] [--lr LR] [--seed S] [--log-every K] "
                     "[--mode auto|shard_map] [--shard-optimizer-state on|off] [--emit-mlir PATH] "
                     "[--loss-log PATH] [--local-devices K] [--precision f32|bf16|tf32]\n"
                     "Under mpirun, each process runs an equal block of the --devices (its "
                     "--local-devices K, default 1: --devices = processes x K) and process 0 "
                     "reports.\n";

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr, "shardc-mlp: error: %s\n%s", why, kUsage);
  shardc::exitRun(2);
}

Options parse(int argc, char **argv) {
  Options o;
  bool devicesGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc)
      usage(("option " + a + " needs a value").c_str());
    std::string v = argv[++i];
    if (a == "--devices")
      o.devices = std::atoi(v.c_str()), devicesGiven = true;
    else if (a == "--local-devices")
      o.localDevices = std::atoi(v.c_str());
    else if (a == "--steps")
      o.steps = std::atoi(v.c_str());
    else if (a == "--batch-per-device")
      o.batchPerDevice = std::atoi(v.c_str());
    else if (a == "--hidden")
      o.hidden = std::atoi(v.c_str());
    else if (a == "--layers")
      o.layers = std::atoi(v.c_str());
    else if (a == "--lr")
      o.lr = std::atof(v.c_str());
    else if (a == "--seed")
      o.seed = std::atoi(v.c_str());
    else if (a == "--log-every")
      o.logEvery = std::atoi(v.c_str());
    else if (a == "--mode")
      o.mode = v;
    else if (a == "--precision")
      o.precision = v;
    else if (a == "--emit-mlir")
      o.emitMlir = v;
    else if (a == "--loss-log")
      o.lossLog = v;
    else if (a == "--shard-optimizer-state")
      o.shardState = v == "1" || v == "on";
    else
      usage(("unknown option " + a).c_str());
  }
  if (o.localDevices < 0)
    usage("--local-devices must be positive");
  if (o.localDevices > 0) { // the mesh is processes x local devices
    int total = shardc::processCount() * o.localDevices;
    if (devicesGiven && o.devices != total)
      usage(("--devices " + std::to_string(o.devices) + " is not " +
             std::to_string(shardc::processCount()) + " process(es) x --local-devices " +
             std::to_string(o.localDevices))
                .c_str());
    o.devices = total;
  } else if (!devicesGiven) {
    o.devices = shardc::processCount();
  }
  if (o.devices < 1 || o.steps < 1 || o.batchPerDevice < 1 || o.hidden < 1 || o.layers < 1)
    usage("sizes and counts must be positive");
  if (o.mode != "auto" && o.mode != "shard_map")
    usage("--mode must be auto or shard_map");
  if (o.precision != "f32" && o.precision != "bf16" && o.precision != "tf32")
    usage(("--precision: unknown precision '" + o.precision + "' (choices: f32, bf16, tf32)")
              .c_str());
  return o;
}

/// The MLP's logits: ReLU between layers. in = {x, w0, b0, w1, b1, ...}.
shardc::Tensor logits(const std::vector<shardc::Tensor> &in, size_t firstParam) {
  shardc::Tensor h = in[0];
  size_t layers = (in.size() - firstParam) / 2;
  for (size_t l = 0; l < layers; ++l) {
    h = shardc::matmul(h, in[firstParam + 2 * l]) + in[firstParam + 2 * l + 1];
    if (l + 1 < layers)
      h = shardc::relu(h);
  }
  return h;
}

/// The loss, traced: arguments x, labels, then the parameters.
/// auto: written for the global batch; the compiler partitions it by the
/// arguments' layouts and inserts the gradient all-reduce.
/// shard_map: written per device, the loss averaged over "data" with pmean;
/// autodiff turns the pmean into the gradients' all-reduce.
shardc::TracedFn lossFunction(const std::string &mode) {
  if (mode == "auto")
    return [](const std::vector<shardc::Tensor> &in) {
      std::vector<shardc::Tensor> net{in[0]};
      net.insert(net.end(), in.begin() + 2, in.end());
      return std::vector<shardc::Tensor>{shardc::softmax_cross_entropy(logits(net, 1), in[1])};
    };
  return [](const std::vector<shardc::Tensor> &in) {
    std::vector<shardc::PartitionSpec> inSpecs{{{"data"}, {}}, {{"data"}}};
    for (size_t i = 2; i < in.size(); ++i)
      inSpecs.push_back(shardc::PartitionSpec(in[i].rank())); // replicated
    return shardc::shard_map(
        [](const std::vector<shardc::Tensor> &local) {
          std::vector<shardc::Tensor> net{local[0]};
          net.insert(net.end(), local.begin() + 2, local.end());
          shardc::Tensor loss = shardc::softmax_cross_entropy(logits(net, 1), local[1]);
          return std::vector<shardc::Tensor>{shardc::pmean(loss, {"data"})};
        },
        in, inSpecs, {shardc::PartitionSpec{}});
  };
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  int64_t B = (int64_t)o.devices * o.batchPerDevice;

  auto client = shardc::Client::create("cpu");
  if (!client.ok()) {
    std::fprintf(stderr, "shardc-mlp: error: %s\n", client.message().c_str());
    return 1;
  }
  // The batch is split over "data"; the parameters are replicated.
  shardc::Mesh mesh{{"data"}, {o.devices}};
  shardc::JitOptions jit;
  jit.name = "loss";
  jit.argNames = {"x", "labels"};
  jit.inShardings = {{mesh, {{"data"}, {}}}, {mesh, {{"data"}}}};
  jit.mesh = mesh;
  jit.transform = shardc::JitOptions::Transform::TrainStep;
  jit.train.optimizer = "adam";
  jit.compile.set("precision", o.precision); // checked with the other flags
  if (o.shardState)
    jit.train.shardStateOver = "data";
  for (unsigned i = 2; i < 2 + 2 * (unsigned)(o.layers + 1); ++i) {
    jit.wrt.push_back(i); // the parameters, not the data
    jit.argNames.push_back((i % 2 ? "b" : "w") + std::to_string((i - 2) / 2));
  }
  shardc::Jitted step = client->jit(lossFunction(o.mode), jit);
  if (!o.emitMlir.empty()) {
    // The traced loss function only, e.g. to compile its training step
    // ahead of time (test/gpu/make_artifacts.sh).
    std::vector<shardc::ArgSpec> specs{{"x", shardc::DType::F32, {B, o.inputs}, jit.inShardings[0]},
                                       {"labels", shardc::DType::I32, {B}, jit.inShardings[1]}};
    for (int l = 0; l <= o.layers; ++l) {
      int64_t in = l == 0 ? o.inputs : o.hidden, out = l == o.layers ? o.classes : o.hidden;
      specs.push_back({"w" + std::to_string(l), shardc::DType::F32, {in, out}, {}});
      specs.push_back({"b" + std::to_string(l), shardc::DType::F32, {out}, {}});
    }
    shardc::StatusOr<std::string> text = step.trace(specs);
    if (!text.ok()) {
      std::fprintf(stderr, "shardc-mlp: error: %s\n", text.message().c_str());
      return 1;
    }
    std::ofstream(o.emitMlir) << *text;
    return 0;
  }
  // Under mpirun every process trains its device; process 0 reports.
  bool reports = shardc::processIndex() == 0;
  std::FILE *lossLog = nullptr;
  if (reports && !o.lossLog.empty() && !(lossLog = std::fopen(o.lossLog.c_str(), "w"))) {
    std::fprintf(stderr, "shardc-mlp: error: cannot write '%s'\n", o.lossLog.c_str());
    return 1;
  }
  if (reports)
    std::fprintf(stderr, "training step (%s mode) for %d device(s); compiled on the first step\n",
                 o.mode.c_str(), o.devices);

  // Parameters (He init), Adam state (zeros), step count, learning rate.
  std::mt19937 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<int> dims{o.inputs};
  for (int l = 0; l < o.layers; ++l)
    dims.push_back(o.hidden);
  dims.push_back(o.classes);
  std::vector<shardc::Array> params, state;
  for (size_t l = 0; l + 1 < dims.size(); ++l) {
    shardc::Array w = shardc::Array::uninitialized(shardc::DType::F32, {dims[l], dims[l + 1]});
    float scale = std::sqrt(2.0f / dims[l]);
    for (int64_t i = 0; i < w.numElements(); ++i)
      w.data<float>()[i] = normal(rng) * scale;
    params.push_back(w);
    params.push_back(shardc::Array(shardc::DType::F32, {dims[l + 1]}));
  }
  for (const shardc::Array &p : params) {
    state.push_back(shardc::Array(shardc::DType::F32, p.shape())); // m
    state.push_back(shardc::Array(shardc::DType::F32, p.shape())); // v
  }
  state.push_back(shardc::Array(shardc::DType::F32, {})); // step
  shardc::Array lr = shardc::Array::fromDoubles(shardc::DType::F32, {}, {o.lr});

  // A fixed random teacher labels a pool of batches.
  std::vector<float> teacher((size_t)o.inputs * o.classes);
  for (float &t : teacher)
    t = normal(rng);
  const int pool = 4;
  std::vector<shardc::Array> xs, ys;
  for (int k = 0; k < pool; ++k) {
    shardc::Array x = shardc::Array::uninitialized(shardc::DType::F32, {B, o.inputs});
    shardc::Array y = shardc::Array::uninitialized(shardc::DType::I32, {B});
    float *xp = x.data<float>();
    for (int64_t i = 0; i < x.numElements(); ++i)
      xp[i] = normal(rng);
    for (int64_t r = 0; r < B; ++r) {
      std::vector<float> logits(o.classes, 0.0f);
      for (int i = 0; i < o.inputs; ++i)
        for (int c = 0; c < o.classes; ++c)
          logits[c] += xp[r * o.inputs + i] * teacher[(size_t)i * o.classes + c];
      y.data<int32_t>()[r] =
          (int32_t)(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
    xs.push_back(x);
    ys.push_back(y);
  }

  // Everything lives on the devices between steps, as in JAX: the batches
  // are placed once, and each step's parameters and state are the previous
  // step's results, passed on without a copy.
  auto put = [&](const shardc::Array &a, shardc::PartitionSpec spec) {
    shardc::StatusOr<shardc::DeviceArray> d = client->device_put(a, {mesh, std::move(spec)});
    if (!d.ok()) {
      std::fprintf(stderr, "shardc-mlp: error: %s\n", d.message().c_str());
      shardc::exitRun(1);
    }
    return std::move(*d);
  };
  auto replicated = [](const shardc::Array &a) { return shardc::PartitionSpec(a.rank()); };
  std::vector<shardc::DeviceArray> dxs, dys, dparams, dstate;
  for (int k = 0; k < pool; ++k) {
    dxs.push_back(put(xs[k], {{"data"}, {}}));
    dys.push_back(put(ys[k], {{"data"}}));
  }
  for (const shardc::Array &p : params)
    dparams.push_back(put(p, replicated(p)));
  for (const shardc::Array &p : state)
    dstate.push_back(put(p, replicated(p)));
  shardc::DeviceArray dlr = put(lr, {});

  std::vector<double> ms;
  double lossFirst = 0, lossLast = 0;
  for (int s = 0; s < o.steps; ++s) {
    std::vector<shardc::DeviceArray> args{dxs[s % pool], dys[s % pool]};
    args.insert(args.end(), dparams.begin(), dparams.end());
    args.insert(args.end(), dstate.begin(), dstate.end());
    args.push_back(dlr);
    auto t0 = std::chrono::steady_clock::now();
    auto out = step.call(args);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!out.ok()) {
      std::fprintf(stderr, "shardc-mlp: error: %s\n", out.message().c_str());
      return 1;
    }
    double loss = (*out)[0].localShard().getDouble(0); // replicated: any shard
    if (s == 0)
      lossFirst = loss;
    lossLast = loss;
    for (size_t i = 0; i < dparams.size(); ++i)
      dparams[i] = std::move((*out)[1 + i]);
    for (size_t i = 0; i < dstate.size(); ++i)
      dstate[i] = std::move((*out)[1 + dparams.size() + i]);
    if (lossLog)
      std::fprintf(lossLog, "%.9g\n", loss);
    if (reports && ((s + 1) % o.logEvery == 0 || s == 0 || s + 1 == o.steps))
      std::fprintf(stderr, "step %5d  loss %.4f  %.1f ms/step\n", s + 1, loss, ms.back());
  }
  if (lossLog)
    std::fclose(lossLog);
  if (!reports)
    return 0;
  std::vector<double> sorted(ms.begin() + (ms.size() > 1 ? 1 : 0), ms.end());
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  std::printf("{\"devices\": %d, \"batch_per_device\": %d, \"precision\": \"%s\", "
              "\"ms_per_step_median\": %.3f, \"examples_per_s\": %.1f, "
              "\"loss_first\": %.6f, \"loss_last\": %.6f}\n",
              o.devices, o.batchPerDevice, o.precision.c_str(), median, B / median * 1e3, lossFirst,
              lossLast);
  return 0;
}
