//===- shardc_mlp.cpp - data-parallel MLP training on shardc --------------===//
//
// Trains an MLP (default 784 -> 1024 -> 1024 -> 10, ReLU) on a synthetic
// classification task whose labels come from a fixed random teacher network,
// so a falling loss means learning. The batch is split over `--devices N`
// simulated devices ("data" axis) and the parameters are replicated; the
// whole step (forward, backward, gradient all_reduce, Adam update) is one
// executable compiled by shardc.
//
//   shardc-mlp [--devices N] [--steps S] [--batch-per-device B] [--hidden H]
//              [--layers L] [--lr LR] [--seed S] [--log-every K]
//              [--emit-mlir PATH]
//
// Prints a progress line every K steps and, last, one JSON line: devices,
// batch_per_device, ms_per_step_median, examples_per_s, loss_first,
// loss_last.
//
//===----------------------------------------------------------------------===//

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
#include <unistd.h>
#include <vector>

namespace {

struct Options {
  int devices = 1, steps = 200, batchPerDevice = 1024, hidden = 1024, layers = 2;
  int inputs = 784, classes = 10, seed = 0, logEvery = 20;
  double lr = 1e-3;
  std::string mode = "auto";
  std::string emitMlir; // --emit-mlir: write the loss function there and stop
};

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "shardc-mlp: error: %s\n"
               "usage: shardc-mlp [--devices N] [--steps S] [--batch-per-device B] "
               "[--hidden H] [--layers L] [--lr LR] [--seed S] [--log-every K] "
               "[--mode auto] [--emit-mlir PATH]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h")
      usage("help");
    if (i + 1 >= argc)
      usage(("option " + a + " needs a value").c_str());
    std::string v = argv[++i];
    if (a == "--devices") o.devices = std::atoi(v.c_str());
    else if (a == "--steps") o.steps = std::atoi(v.c_str());
    else if (a == "--batch-per-device") o.batchPerDevice = std::atoi(v.c_str());
    else if (a == "--hidden") o.hidden = std::atoi(v.c_str());
    else if (a == "--layers") o.layers = std::atoi(v.c_str());
    else if (a == "--lr") o.lr = std::atof(v.c_str());
    else if (a == "--seed") o.seed = std::atoi(v.c_str());
    else if (a == "--log-every") o.logEvery = std::atoi(v.c_str());
    else if (a == "--mode") o.mode = v;
    else if (a == "--emit-mlir") o.emitMlir = v;
    else usage(("unknown option " + a).c_str());
  }
  if (o.devices < 1 || o.steps < 1 || o.batchPerDevice < 1 || o.hidden < 1 || o.layers < 1)
    usage("sizes and counts must be positive");
  if (o.mode != "auto")
    usage("--mode shard_map is not available yet (only auto)");
  return o;
}

/// The loss function in the shardc dialect: batch split over "data".
std::string program(const Options &o) {
  int64_t B = (int64_t)o.devices * o.batchPerDevice;
  std::vector<int> dims{o.inputs};
  for (int l = 0; l < o.layers; ++l)
    dims.push_back(o.hidden);
  dims.push_back(o.classes);
  auto t2 = [](int64_t a, int64_t b) {
    return "tensor<" + std::to_string(a) + "x" + std::to_string(b) + "xf32>";
  };
  auto t1 = [](int64_t a) { return "tensor<" + std::to_string(a) + "xf32>"; };
  std::string s = "shardc.mesh @mesh = <[\"data\"=" + std::to_string(o.devices) + "]>\n";
  s += "func.func @loss(%x: " + t2(B, o.inputs) +
       " {shardc.name = \"x\", shardc.sharding = #shardc.sharding<@mesh, [{\"data\"}, {}]>},"
       " %labels: tensor<" + std::to_string(B) +
       "xi32> {shardc.name = \"labels\", shardc.sharding = #shardc.sharding<@mesh, "
       "[{\"data\"}]>}";
  for (size_t l = 0; l + 1 < dims.size(); ++l)
    s += ", %w" + std::to_string(l) + ": " + t2(dims[l], dims[l + 1]) + " {shardc.name = \"w" +
         std::to_string(l) + "\"}, %b" + std::to_string(l) + ": " + t1(dims[l + 1]) +
         " {shardc.name = \"b" + std::to_string(l) + "\"}";
  s += ") -> tensor<f32> {\n";
  std::string h = "%x";
  for (size_t l = 0; l + 1 < dims.size(); ++l) {
    std::string n = std::to_string(l), t = t2(B, dims[l + 1]);
    s += "  %m" + n + " = shardc.dot_general " + h + ", %w" + n +
         " contracting_dims = [1] x [0] : (" + t2(B, dims[l]) + ", " +
         t2(dims[l], dims[l + 1]) + ") -> " + t + "\n";
    s += "  %bb" + n + " = shardc.broadcast_in_dim %b" + n + ", dims = [1] : (" +
         t1(dims[l + 1]) + ") -> " + t + "\n";
    s += "  %a" + n + " = shardc.add %m" + n + ", %bb" + n + " : " + t + "\n";
    if (l + 2 < dims.size()) {
      s += "  %z" + n + " = shardc.constant dense<0.0> : " + t + "\n";
      s += "  %h" + n + " = shardc.max %a" + n + ", %z" + n + " : " + t + "\n";
      h = "%h" + n;
    }
  }
  std::string last = "%a" + std::to_string(dims.size() - 2), t = t2(B, o.classes),
              tb = t1(B), ti = "tensor<" + std::to_string(B) + "x" +
                               std::to_string(o.classes) + "xi32>";
  s += "  %mx = shardc.reduce max " + last + " dims = [1] : (" + t + ") -> " + tb + "\n";
  s += "  %mxb = shardc.broadcast_in_dim %mx, dims = [0] : (" + tb + ") -> " + t + "\n";
  s += "  %sh = shardc.sub " + last + ", %mxb : " + t + "\n";
  s += "  %e = shardc.exp %sh : " + t + "\n";
  s += "  %se = shardc.reduce sum %e dims = [1] : (" + t + ") -> " + tb + "\n";
  s += "  %ls = shardc.log %se : " + tb + "\n";
  s += "  %lsb = shardc.broadcast_in_dim %ls, dims = [0] : (" + tb + ") -> " + t + "\n";
  s += "  %lp = shardc.sub %sh, %lsb : " + t + "\n";
  s += "  %cls = shardc.iota dim = 1 : " + ti + "\n";
  s += "  %lab = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<" +
       std::to_string(B) + "xi32>) -> " + ti + "\n";
  s += "  %hit = shardc.compare eq, %cls, %lab : " + ti + "\n";
  s += "  %oh = shardc.convert %hit : tensor<" + std::to_string(B) + "x" +
       std::to_string(o.classes) + "xi1> -> " + t + "\n";
  s += "  %pk = shardc.mul %oh, %lp : " + t + "\n";
  s += "  %tot = shardc.reduce sum %pk dims = [0, 1] : (" + t + ") -> tensor<f32>\n";
  s += "  %n = shardc.constant dense<" + std::to_string(-(double)B) + "> : tensor<f32>\n";
  s += "  %loss = shardc.div %tot, %n : tensor<f32>\n";
  s += "  return %loss : tensor<f32>\n}\n";
  return s;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  int64_t B = (int64_t)o.devices * o.batchPerDevice;
  if (!o.emitMlir.empty()) {
    // The loss function only, e.g. to compile its training step ahead of
    // time (test/gpu/make_artifacts.sh).
    std::ofstream(o.emitMlir) << program(o);
    return 0;
  }
  std::string path = "/tmp/shardc-mlp-" + std::to_string(getpid()) + ".mlir";
  std::ofstream(path) << program(o);

  auto client = shardc::Client::create("cpu");
  if (!client.ok()) {
    std::fprintf(stderr, "shardc-mlp: error: %s\n", client.message().c_str());
    return 1;
  }
  shardc::TrainStepOptions train;
  train.optimizer = "adam";
  for (unsigned i = 2; i < 2 + 2 * (unsigned)(o.layers + 1); ++i)
    train.wrt.push_back(i); // the parameters, not the data
  std::fprintf(stderr, "compiling the training step for %d device(s)...\n", o.devices);
  auto exe = client->compileTrainStep(path, "loss", train);
  std::remove(path.c_str());
  if (!exe.ok()) {
    std::fprintf(stderr, "shardc-mlp: error: %s\n", exe.message().c_str());
    return 1;
  }

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
  state.push_back(shardc::Array(shardc::DType::F32, {}));           // step
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

  std::vector<double> ms;
  double lossFirst = 0, lossLast = 0;
  for (int s = 0; s < o.steps; ++s) {
    std::vector<shardc::Array> args{xs[s % pool], ys[s % pool]};
    args.insert(args.end(), params.begin(), params.end());
    args.insert(args.end(), state.begin(), state.end());
    args.push_back(lr);
    auto t0 = std::chrono::steady_clock::now();
    auto out = (*exe)->call(args);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                           t0)
                     .count());
    if (!out.ok()) {
      std::fprintf(stderr, "shardc-mlp: error: %s\n", out.message().c_str());
      return 1;
    }
    double loss = (*out)[0].getDouble(0);
    if (s == 0)
      lossFirst = loss;
    lossLast = loss;
    for (size_t i = 0; i < params.size(); ++i)
      params[i] = std::move((*out)[1 + i]);
    for (size_t i = 0; i < state.size(); ++i)
      state[i] = std::move((*out)[1 + params.size() + i]);
    if ((s + 1) % o.logEvery == 0 || s == 0 || s + 1 == o.steps)
      std::fprintf(stderr, "step %5d  loss %.4f  %.1f ms/step\n", s + 1, loss, ms.back());
  }
  std::vector<double> sorted(ms.begin() + (ms.size() > 1 ? 1 : 0), ms.end());
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  std::printf("{\"devices\": %d, \"batch_per_device\": %d, \"ms_per_step_median\": %.3f, "
              "\"examples_per_s\": %.1f, \"loss_first\": %.6f, \"loss_last\": %.6f}\n",
              o.devices, o.batchPerDevice, median, B / median * 1e3, lossFirst, lossLast);
  return 0;
}
