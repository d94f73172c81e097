//===- PlanCommand.cpp - shardc-gpt plan ----------------------------------===//
//
// Compiles the training step for each layout of a mesh (data parallel,
// FSDP, tensor parallel and FSDP x TP, each with and without
// rematerialization and, where there is a "model" axis, sequence
// parallelism) without placing anything on devices, and prints what each
// device would hold and do: memory by kind, bytes per collective kind, and
// a roofline step time on a device profile.
//
//===----------------------------------------------------------------------===//

#include "Cli.h"
#include "Model.h"
#include "Profile.h"
#include "Trainer.h"

#include <shardc/Runtime/PlanCost.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace gpt::cli {

namespace {

struct Options {
  TrainOptions train; // config, batch, precision
  std::string meshText = "data=64,model=8", profile = "h100";
};

Options parse(int argc, char **argv) {
  Options o;
  o.train.batch = 512;
  o.train.precision = "bf16";
  Config &c = o.train.config;
  for (const auto &[a, v] : optionPairs(argc, argv)) {
    if (a == "--mesh")
      o.meshText = v;
    else if (a == "--batch")
      o.train.batch = toInt(a, v, 1);
    else if (a == "--profile")
      o.profile = v;
    else if (a == "--precision")
      o.train.precision = toPrecision(a, v);
    else if (a == "--d-model")
      c.dModel = toInt(a, v, 1);
    else if (a == "--heads")
      c.heads = toInt(a, v, 1);
    else if (a == "--d-ff")
      c.dFF = toInt(a, v, 1);
    else if (a == "--layers")
      c.layers = toInt(a, v, 1);
    else if (a == "--context")
      c.context = toInt(a, v, 1);
    else
      usage("unknown option " + a);
  }
  if (c.dModel % c.heads)
    usage("--d-model must be a multiple of --heads");
  resolveMesh(o.meshText, 0, o.train.data, o.train.model);
  return o;
}

struct Layout {
  std::string name;
  int64_t data, model;
  bool fsdp;
  Remat remat;
  bool sequenceParallel;
};

/// Why `l` cannot run this model, or "".
std::string unfit(const Layout &l, const TrainOptions &o) {
  const Config &c = o.config;
  if (c.heads % l.model)
    return "model=" + std::to_string(l.model) + " does not divide the heads (" +
           std::to_string(c.heads) + ")";
  if (c.dFF % l.model)
    return "model=" + std::to_string(l.model) + " does not divide --d-ff (" +
           std::to_string(c.dFF) + ")";
  if (o.batch % l.data)
    return "data=" + std::to_string(l.data) + " does not divide the batch (" +
           std::to_string(o.batch) + ")";
  if (l.sequenceParallel && c.context % l.model)
    return "model=" + std::to_string(l.model) + " does not divide the window (" +
           std::to_string(c.context) + ")";
  return "";
}

std::string gb(double bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f", bytes / 1e9);
  return s;
}

/// "1.23 GB", "45.6 MB", "7.8 kB", "4 B" or "0".
std::string size(double bytes) {
  char s[32];
  if (bytes >= 1e9)
    std::snprintf(s, sizeof s, "%.2f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(s, sizeof s, "%.1f MB", bytes / 1e6);
  else if (bytes >= 1e3)
    std::snprintf(s, sizeof s, "%.1f kB", bytes / 1e3);
  else if (bytes > 0)
    std::snprintf(s, sizeof s, "%.0f B", bytes);
  else
    return "0";
  return s;
}

std::string seconds(double s) {
  char out[32];
  if (s >= 1)
    std::snprintf(out, sizeof out, "%.2f s", s);
  else
    std::snprintf(out, sizeof out, "%.1f ms", s * 1e3);
  return out;
}

/// Whether the devices of a group over `axes` (those of device 0) span
/// more than one node of `perNode` devices: then the group's collectives
/// cross the inter-node links.
bool crossesNodes(const shardc::Mesh &mesh, const std::vector<std::string> &axes, int64_t perNode) {
  // Device ids are row-major over the mesh's axes; the group of device 0
  // varies the group's axes and keeps the others at 0.
  int64_t highest = 0, stride = 1;
  for (int64_t i = (int64_t)mesh.axisNames.size() - 1; i >= 0; --i) {
    for (const std::string &a : axes)
      if (a == mesh.axisNames[i])
        highest += (mesh.axisSizes[i] - 1) * stride;
    stride *= mesh.axisSizes[i];
  }
  return highest / perNode > 0;
}

struct Row {
  Layout layout;
  std::string error;
  int64_t params = 0, optimizer = 0, gradients = 0, activations = 0, peak = 0;
  std::map<shardc::OpCode, int64_t> sent;
  double compute = 0, memory = 0, comms = 0, step = 0, compileS = 0;
};

Row planLayout(shardc::Client &client, const Options &o, const Layout &l,
               const shardc::DeviceProfile &profile) {
  Row row{l};
  TrainOptions t = o.train;
  t.data = l.data;
  t.model = l.model;
  t.fsdp = l.fsdp;
  t.remat = l.remat;
  t.sequenceParallel = l.sequenceParallel;
  if (row.error = unfit(l, t); !row.error.empty())
    return row;
  auto t0 = std::chrono::steady_clock::now();
  Trainer trainer(client, t);
  shardc::StatusOr<std::shared_ptr<shardc::Executable>> exe = trainer.lowerStep();
  row.compileS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!exe.ok()) {
    row.error = exe.message();
    return row;
  }
  const shardc::Plan &plan = (*exe)->plan();
  // Arguments: tokens, targets, the parameters, then AdamW's moments (m
  // and v of each) and its step count, then the learning rate.
  size_t numParams = parameters(t.config).size();
  for (size_t i = 0; i < plan.args.size(); ++i) {
    int64_t bytes = (int64_t)plan.values[plan.args[i]].bytes();
    if (i >= 2 && i < 2 + numParams)
      row.params += bytes;
    else if (i >= 2 + numParams && i + 1 < plan.args.size())
      row.optimizer += bytes;
  }
  int64_t inputs = (int64_t)(plan.values[plan.args[0]].bytes() + plan.values[plan.args[1]].bytes());
  row.gradients = row.params; // each gradient takes its parameter's layout
  row.activations = std::max<int64_t>(0, plan.arenaBytes - row.gradients);
  row.peak = row.params + row.optimizer + inputs + plan.arenaBytes;

  shardc::PlanCost cost = shardc::analyzePlanCost(plan);
  for (const shardc::CollectiveTraffic &c : cost.collectives) {
    row.sent[c.op] += c.bytesSent;
    bool far = crossesNodes(plan.mesh, c.axes, profile.devicesPerNode);
    double bw = far ? profile.interNodeBytesPerS : profile.intraNodeBytesPerS;
    double latency = far ? profile.interNodeLatencyS : profile.intraNodeLatencyS;
    if (c.op != shardc::OpCode::AllSlice)
      row.comms += (double)c.bytesSent / bw + (double)c.count * latency;
  }
  row.compute = cost.productFlops / profile.flopsPerS(t.precision);
  row.memory = (double)cost.memoryBytes / profile.hbmBytesPerS;
  row.step = std::max(row.compute, row.memory) + row.comms;
  return row;
}

} // namespace

int planMain(int argc, char **argv) {
  Options o = parse(argc, argv);
  shardc::StatusOr<shardc::DeviceProfile> profile = loadProfile(o.profile);
  if (!profile.ok())
    die(profile.message());
  const Config &c = o.train.config;
  int64_t D = o.train.data, M = o.train.model, N = D * M;
  int64_t params = 0;
  for (const ParamInfo &p : parameters(c))
    params += shardc::numElements(p.shape);

  std::vector<Layout> layouts;
  auto add = [&](const std::string &name, int64_t data, int64_t model, bool fsdp) {
    for (Remat r : {Remat::None, Remat::Block})
      for (bool sp : model > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
        std::string full = name;
        if (r == Remat::Block)
          full += " +remat";
        if (sp)
          full += " +SP";
        layouts.push_back({full, data, model, fsdp, r, sp});
      }
  };
  std::string flat = "data=" + std::to_string(N);
  std::string given = "data=" + std::to_string(D) + ",model=" + std::to_string(M);
  add("DP (" + flat + ")", N, 1, false);
  add("FSDP (" + flat + ")", N, 1, true);
  if (M > 1) {
    add("TP (" + given + ")", D, M, false);
    add("FSDP x TP (" + given + ")", D, M, true);
  }

  std::printf("shardc-gpt plan: %lld parameters (%s), batch %lld x %lld tokens, %lld devices, "
              "%s products\n",
              (long long)params, c.toString().c_str(), (long long)o.train.batch,
              (long long)c.context, (long long)N, o.train.precision.c_str());
  std::printf("profile: %s (%s GB, %.0f TFLOP/s %s, HBM %.2f TB/s, links %.0f GB/s within a "
              "node of %lld, %.0f GB/s across)\n",
              profile->name.c_str(), gb((double)profile->memoryBytes).c_str(),
              profile->flopsPerS(o.train.precision) / 1e12, o.train.precision.c_str(),
              profile->hbmBytesPerS / 1e12, profile->intraNodeBytesPerS / 1e9,
              (long long)profile->devicesPerNode, profile->interNodeBytesPerS / 1e9);
  for (const std::string &s : profile->sources)
    std::printf("  source: %s\n", s.c_str());
  std::printf("\nper device: parameters, gradients, AdamW state, activations and "
              "temporaries, peak; bytes sent per step by all_reduce, all_gather, "
              "reduce_scatter, all_to_all; roofline times per step (compute: products over "
              "the peak rate; memory: bytes the steps read and write over HBM bandwidth; "
              "comms: bytes over link bandwidth plus latency; step: the larger of compute "
              "and memory, plus comms)\n\n");
  std::printf("| layout | params | grads | AdamW | activations | peak | fits | AR | AG | RS | "
              "A2A | compute | memory | comms | step | tokens/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  auto client = shardc::Client::create("cpu", "");
  if (!client.ok())
    die(client.message());
  double tokens = (double)o.train.batch * (double)c.context;
  for (const Layout &l : layouts) {
    std::fprintf(stderr, "compiling %s ...\n", l.name.c_str());
    Row r = planLayout(*client, o, l, *profile);
    if (!r.error.empty()) {
      std::printf("| %s | %s |\n", l.name.c_str(), r.error.c_str());
      continue;
    }
    std::fprintf(stderr, "  %.1f s\n", r.compileS);
    std::string fits = r.peak <= profile->memoryBytes
                           ? "yes"
                           : "no: " + size((double)(r.peak - profile->memoryBytes)) + " over";
    auto sent = [&](shardc::OpCode op) {
      auto it = r.sent.find(op);
      return size(it == r.sent.end() ? 0.0 : (double)it->second);
    };
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                "%.0f |\n",
                l.name.c_str(), size((double)r.params).c_str(), size((double)r.gradients).c_str(),
                size((double)r.optimizer).c_str(), size((double)r.activations).c_str(),
                size((double)r.peak).c_str(), fits.c_str(), sent(shardc::OpCode::AllReduce).c_str(),
                sent(shardc::OpCode::AllGather).c_str(),
                sent(shardc::OpCode::ReduceScatter).c_str(), sent(shardc::OpCode::AllToAll).c_str(),
                seconds(r.compute).c_str(), seconds(r.memory).c_str(), seconds(r.comms).c_str(),
                seconds(r.step).c_str(), tokens / r.step);
  }
  // FSDP splits a parameter along one dimension "data" divides; those with
  // none stay whole on every device.
  std::vector<std::string> whole; // the largest few
  int64_t wholeBytes = 0;
  std::vector<ParamInfo> kept = keptWholeByFsdp(c, shardc::Mesh{{"data", "model"}, {N, 1}});
  std::stable_sort(kept.begin(), kept.end(), [](const ParamInfo &a, const ParamInfo &b) {
    return shardc::numElements(a.shape) > shardc::numElements(b.shape);
  });
  for (const ParamInfo &p : kept) {
    wholeBytes += shardc::numElements(p.shape) * (int64_t)shardc::dtypeSize(c.dtype);
    if (whole.size() < 3) {
      std::string shape;
      for (int64_t d : p.shape)
        shape += (shape.empty() ? "" : ",") + std::to_string(d);
      whole.push_back(p.name + " [" + shape + "]");
    }
  }
  if (wholeBytes > 0) {
    std::string names;
    for (const std::string &w : whole)
      names += (names.empty() ? "" : ", ") + w;
    std::printf("\nFSDP over data=%lld: %s of parameters have no dimension %lld divides and "
                "stay whole on every device (%s, ...)\n",
                (long long)N, size((double)wholeBytes).c_str(), (long long)N, names.c_str());
  }
  return 0;
}

} // namespace gpt::cli
