//===- Trainer.h - training the Tiny Transformer over a device mesh -------===//
//
// Owns the compiled training step and eval executables and the state on
// the devices. The whole step (forward, backward, gradient all-reduce,
// clipping, AdamW update) is one executable; parameters and optimizer state
// stay on the devices between steps and are fetched only to checkpoint.
//
//   gpt::Trainer t(client, options);
//   t.initialize();                      // or t.restore(path)
//   while (t.step() < options.steps) t.trainStep();
//   double val = *t.evaluate(dataset.val);
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_MODELS_TRANSFORMER_TRAINER_H
#define SHARDC_MODELS_TRANSFORMER_TRAINER_H

#include "Checkpoint.h"
#include "Data.h"
#include "Model.h"

#include <shardc/shardc.h>

#include <memory>
#include <optional>

namespace gpt {

struct TrainOptions {
  Config config;
  int64_t data = 1, model = 1;            // mesh ["data"=D, "model"=M]
  bool fsdp = false;                      // parameters and AdamW state split over "data" too
  Remat remat = Remat::None;              // what the step's backward pass recomputes
  bool sequenceParallel = false;          // Megatron-LM sequence parallelism over "model"
  Attention attention = Attention::Fused; // one op per block's attention, or composed
  int64_t steps = 300;                    // total steps of the schedule
  int64_t batch = 32;                     // global batch (split over "data")
  double lr = 1e-3;                       // peak learning rate
  int64_t warmup = 30;                    // linear warm-up steps
  double finalLrFraction = 0.1;           // cosine decay to this fraction of lr
  double weightDecay = 0.01;
  double clipNorm = 1.0;         // global gradient norm; 0: off
  std::string precision = "f32"; // products: f32, bf16 or tf32 (JitOptions::precision)
  uint64_t seed = 0;             // init and batches
  int64_t evalBatches = 20;
  uint64_t evalSeed = 1234; // the validation windows, fixed across runs
};

/// The learning rate at `step`: linear warm-up to `lr`, then cosine decay
/// to finalLrFraction * lr at `steps`.
double learningRate(const TrainOptions &o, int64_t step);

class Trainer {
public:
  Trainer(shardc::Client &client, TrainOptions options);

  const TrainOptions &options() const { return options_; }
  const shardc::Mesh &mesh() const { return mesh_; }
  /// "data=2,model=1".
  std::string meshString() const;

  /// Fresh parameters (initParameters with options.seed), zero moments.
  shardc::Status initialize();
  /// Parameters, moments and step from a checkpoint, placed on this
  /// trainer's mesh (which may differ from the one that saved it).
  shardc::Status restore(const std::string &path);
  /// Writes the current state (fetched from the devices) to `path`.
  shardc::Status save(const std::string &path) const;
  /// The same when the mesh spans `processes`: a sharded checkpoint,
  /// `<base>-0000k-of-0000P.safetensors` and its index (returned).
  /// Collective: every process calls it.
  shardc::StatusOr<std::string> saveSharded(const std::string &base,
                                            shardc::ProcessGroup &processes) const;

  /// Compiles the step and eval executables (or finds them in the cache);
  /// returns the seconds it took.
  shardc::StatusOr<double> compile();
  /// One step on the training batch of index step(); returns its loss.
  shardc::StatusOr<double> trainStep(const Dataset &data);
  /// Mean loss over options.evalBatches windows of `bytes` (fixed seed).
  shardc::StatusOr<double> evaluate(const std::vector<uint8_t> &bytes);

  int64_t step() const { return step_; }
  /// The host copy of the state (fetched from the devices).
  TrainState state() const;
  /// Bytes each device holds for parameters and optimizer state.
  int64_t stateBytesPerDevice() const;
  /// Buffer bytes per device of the step executable (after compile()).
  int64_t stepBufferBytesPerDevice() const;

  /// The training step compiled for this mesh, without placing anything
  /// on the devices (for planning layouts of meshes this machine lacks).
  shardc::StatusOr<std::shared_ptr<shardc::Executable>> lowerStep() const;

  /// The traced loss function's module text (input of the train step), for
  /// `shardc explain` and lit tests.
  shardc::StatusOr<std::string> traceLoss() const;

private:
  std::vector<shardc::ArgSpec> lossArgs(int64_t batch) const;
  shardc::StatusOr<shardc::DeviceArray> put(const shardc::Array &a,
                                            const shardc::PartitionSpec &spec);
  shardc::Status place(const TrainState &state);

  shardc::Client &client_;
  TrainOptions options_;
  shardc::Mesh mesh_;
  std::vector<ParamInfo> infos_;
  shardc::Jitted stepFn_, evalFn_;
  std::shared_ptr<shardc::Executable> stepExe_, evalExe_;
  std::vector<shardc::DeviceArray> params_, moments_; // moments_: m0, v0, m1, v1, ...
  std::optional<shardc::DeviceArray> adamStep_;
  int64_t step_ = 0;
  std::map<std::string, std::string> metadata_;
};

} // namespace gpt

#endif // SHARDC_MODELS_TRANSFORMER_TRAINER_H
