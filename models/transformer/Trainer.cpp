//===- Trainer.cpp - training the Tiny Transformer over a device mesh -----===//

#include "Trainer.h"

#include <chrono>
#include <cmath>

namespace gpt {

using shardc::Array;
using shardc::DeviceArray;
using shardc::DType;
using shardc::PartitionSpec;
using shardc::Status;
using shardc::StatusOr;

double learningRate(const TrainOptions &o, int64_t step) {
  if (step < o.warmup)
    return o.lr * (double)(step + 1) / (double)o.warmup;
  double progress =
      std::min(1.0, (double)(step - o.warmup) / (double)std::max<int64_t>(1, o.steps - o.warmup));
  double f = o.finalLrFraction;
  return o.lr * (f + (1 - f) * 0.5 * (1 + std::cos(M_PI * progress)));
}

namespace {

shardc::JitOptions jitOptions(const std::string &name, const shardc::Mesh &mesh,
                              const TrainOptions &o, bool train) {
  shardc::JitOptions j;
  j.name = name;
  j.mesh = mesh;
  j.argNames = {"tokens", "targets"};
  j.compile.set("precision", o.precision); // the command line checked it
  for (const ParamInfo &p : parameters(o.config))
    j.argNames.push_back(p.name);
  if (train) {
    j.transform = shardc::JitOptions::Transform::TrainStep;
    for (unsigned i = 2; i < j.argNames.size(); ++i)
      j.wrt.push_back(i);
    j.train.optimizer = "adamw";
    j.train.weightDecay = o.weightDecay;
    j.train.clipNorm = o.clipNorm;
  }
  return j;
}

/// The batch is split over "data"; tokens and targets are [B,T].
PartitionSpec batchSpec() { return PartitionSpec{{"data"}, {}}; }

/// The loss, traced. Under FSDP each parameter arrives split over "data"
/// and is gathered to its layout without FSDP where the model reads it, as
/// PyTorch's FSDP gathers a module's parameters before its forward pass;
/// the constraint's transpose lays the gradient out alike, and the update
/// runs on the split. The model's code is the same for every layout. The
/// training step's blocks are checkpointed by o.remat (evaluation has no
/// backward pass to recompute for); o.sequenceParallel lays out both.
shardc::TracedFn lossFor(const TrainOptions &o, const shardc::Mesh &mesh, bool train) {
  LossOptions lossOptions;
  lossOptions.remat = train ? o.remat : Remat::None;
  lossOptions.sequenceParallel = o.sequenceParallel;
  lossOptions.attention = o.attention;
  shardc::TracedFn loss = lossFunction(o.config, lossOptions);
  if (!o.fsdp)
    return loss;
  return [loss, mesh, infos = parameters(o.config)](const std::vector<shardc::Tensor> &in) {
    std::vector<shardc::Tensor> gathered(in.begin(), in.end());
    for (size_t i = 0; i < infos.size(); ++i)
      gathered[2 + i] =
          shardc::with_sharding_constraint(in[2 + i], paramSpec(infos[i], mesh, false));
    return loss(gathered);
  };
}

} // namespace

Trainer::Trainer(shardc::Client &client, TrainOptions options)
    : client_(client),
      options_(std::move(options)), mesh_{{"data", "model"}, {options_.data, options_.model}},
      infos_(parameters(options_.config)),
      stepFn_(
          client.jit(lossFor(options_, mesh_, true), jitOptions("loss", mesh_, options_, true))),
      evalFn_(client.jit(lossFor(options_, mesh_, false),
                         jitOptions("loss", mesh_, options_, false))) {}

std::string Trainer::meshString() const {
  return "data=" + std::to_string(options_.data) + ",model=" + std::to_string(options_.model);
}

StatusOr<DeviceArray> Trainer::put(const Array &a, const PartitionSpec &spec) {
  return client_.device_put(a, {mesh_, spec});
}

Status Trainer::place(const TrainState &st) {
  params_.clear();
  moments_.clear();
  for (size_t i = 0; i < infos_.size(); ++i) {
    // A parameter and its moments share its layout; moments_ interleaves
    // m and v in the order the step takes them.
    PartitionSpec spec = paramSpec(infos_[i], mesh_, options_.fsdp);
    for (auto [a, into] : {std::pair{&st.params[i], &params_}, std::pair{&st.m[i], &moments_},
                           std::pair{&st.v[i], &moments_}}) {
      StatusOr<DeviceArray> d = put(*a, spec);
      if (!d.ok())
        return Status::error(infos_[i].name + ": " + d.message());
      into->push_back(std::move(*d));
    }
  }
  StatusOr<DeviceArray> t = put(st.adamStep, {});
  if (!t.ok())
    return t.status();
  adamStep_ = std::move(*t);
  step_ = st.step;
  metadata_ = st.metadata;
  return Status::success();
}

Status Trainer::initialize() {
  TrainState st;
  st.params = initParameters(options_.config, options_.seed);
  for (const Array &p : st.params) {
    st.m.emplace_back(p.dtype(), p.shape());
    st.v.emplace_back(p.dtype(), p.shape());
  }
  st.adamStep = Array(DType::F32, {});
  return place(st);
}

Status Trainer::restore(const std::string &path) {
  StatusOr<TrainState> st = loadCheckpoint(path, options_.config);
  if (!st.ok())
    return st.status();
  return place(*st);
}

TrainState Trainer::state() const {
  TrainState st;
  for (const DeviceArray &p : params_)
    st.params.push_back(p.fetch());
  for (size_t i = 0; i < moments_.size(); i += 2) {
    st.m.push_back(moments_[i].fetch());
    st.v.push_back(moments_[i + 1].fetch());
  }
  st.adamStep = adamStep_->fetch();
  st.step = step_;
  st.metadata = metadata_;
  return st;
}

Status Trainer::save(const std::string &path) const {
  TrainState st = state();
  st.metadata["seed"] = std::to_string(options_.seed);
  return saveCheckpoint(path, options_.config, st, meshString());
}

StatusOr<std::string> Trainer::saveSharded(const std::string &base,
                                           shardc::ProcessGroup &processes) const {
  TrainState st = state();
  st.metadata["seed"] = std::to_string(options_.seed);
  return saveShardedCheckpoint(base, options_.config, st, meshString(), processes);
}

std::vector<shardc::ArgSpec> Trainer::lossArgs(int64_t batch) const {
  int64_t T = options_.config.context;
  std::vector<shardc::ArgSpec> args{{"tokens", DType::I32, {batch, T}, {mesh_, batchSpec()}},
                                    {"targets", DType::I32, {batch, T}, {mesh_, batchSpec()}}};
  for (const ParamInfo &p : infos_)
    args.push_back(
        {p.name, options_.config.dtype, p.shape, {mesh_, paramSpec(p, mesh_, options_.fsdp)}});
  return args;
}

StatusOr<double> Trainer::compile() {
  auto t0 = std::chrono::steady_clock::now();
  if (options_.batch % options_.data != 0)
    return Status::error("the batch (" + std::to_string(options_.batch) +
                         ") must divide evenly over data=" + std::to_string(options_.data));
  // Both are compiled for the loss's signature (the step adds state and lr).
  std::vector<shardc::ArgSpec> args = lossArgs(options_.batch);
  StatusOr<std::shared_ptr<shardc::Executable>> s = stepFn_.lower(args);
  if (!s.ok())
    return s.status();
  stepExe_ = *s;
  StatusOr<std::shared_ptr<shardc::Executable>> e = evalFn_.lower(args);
  if (!e.ok())
    return e.status();
  evalExe_ = *e;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

StatusOr<double> Trainer::trainStep(const Dataset &data) {
  if (!stepExe_)
    if (StatusOr<double> c = compile(); !c.ok())
      return c.status();
  Batch b = sampleBatch(data.train, options_.batch, options_.config.context, options_.seed,
                        (uint64_t)step_);
  StatusOr<DeviceArray> x = put(b.tokens, batchSpec()), y = put(b.targets, batchSpec());
  StatusOr<DeviceArray> lr =
      put(Array::fromDoubles(DType::F32, {}, {learningRate(options_, step_)}), {});
  if (!x.ok() || !y.ok() || !lr.ok())
    return !x.ok() ? x.status() : !y.ok() ? y.status() : lr.status();
  std::vector<DeviceArray> args{*x, *y};
  args.insert(args.end(), params_.begin(), params_.end());
  args.insert(args.end(), moments_.begin(), moments_.end());
  args.push_back(*adamStep_);
  args.push_back(*lr);
  StatusOr<std::vector<DeviceArray>> out = stepExe_->call(args);
  if (!out.ok())
    return out.status();
  std::vector<DeviceArray> &r = *out;
  double loss = r[0].localShard().getDouble(0); // replicated: any shard
  size_t n = params_.size();
  for (size_t i = 0; i < n; ++i)
    params_[i] = std::move(r[1 + i]);
  for (size_t i = 0; i < 2 * n; ++i)
    moments_[i] = std::move(r[1 + n + i]);
  adamStep_ = std::move(r[1 + 3 * n]);
  ++step_;
  return loss;
}

StatusOr<double> Trainer::evaluate(const std::vector<uint8_t> &bytes) {
  if (!evalExe_)
    if (StatusOr<double> c = compile(); !c.ok())
      return c.status();
  double total = 0;
  for (int64_t i = 0; i < options_.evalBatches; ++i) {
    Batch b =
        sampleBatch(bytes, options_.batch, options_.config.context, options_.evalSeed, (uint64_t)i);
    StatusOr<DeviceArray> x = put(b.tokens, batchSpec()), y = put(b.targets, batchSpec());
    if (!x.ok() || !y.ok())
      return !x.ok() ? x.status() : y.status();
    std::vector<DeviceArray> args{*x, *y};
    args.insert(args.end(), params_.begin(), params_.end());
    StatusOr<std::vector<DeviceArray>> out = evalExe_->call(args);
    if (!out.ok())
      return out.status();
    total += (*out)[0].localShard().getDouble(0);
  }
  return total / (double)std::max<int64_t>(1, options_.evalBatches);
}

int64_t Trainer::stateBytesPerDevice() const {
  int64_t bytes = 0;
  for (const auto *list : {&params_, &moments_})
    for (const DeviceArray &a : *list)
      bytes += (int64_t)a.localShard().sizeInBytes();
  return bytes;
}

int64_t Trainer::stepBufferBytesPerDevice() const {
  return stepExe_ ? stepExe_->bufferBytesPerDevice() : 0;
}

StatusOr<std::shared_ptr<shardc::Executable>> Trainer::lowerStep() const {
  if (options_.batch % options_.data != 0)
    return Status::error("the batch (" + std::to_string(options_.batch) +
                         ") must divide evenly over data=" + std::to_string(options_.data));
  shardc::Jitted step = stepFn_; // lower() records the executable in the Jitted's cache
  return step.lower(lossArgs(options_.batch));
}

StatusOr<std::string> Trainer::traceLoss() const { return stepFn_.trace(lossArgs(options_.batch)); }

} // namespace gpt
