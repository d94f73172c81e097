//===- Checkpoint.h - Tiny Transformer checkpoints as safetensors ---------===//
//
// A checkpoint is one safetensors file: the parameters under their PyTorch
// state_dict names and shapes (`tok_emb.weight`, `blocks.0.qkv.weight`,
// ...), AdamW's moments as `optimizer.<name>.exp_avg` / `.exp_avg_sq` (the
// names of torch.optim.AdamW's state), its step count as `optimizer.step`,
// and metadata: the training step, the model config and the mesh it was
// saved from. Arrays are global (gathered), so a checkpoint restores onto
// any mesh.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_MODELS_TRANSFORMER_CHECKPOINT_H
#define SHARDC_MODELS_TRANSFORMER_CHECKPOINT_H

#include "Model.h"

#include <shardc/Runtime/Array.h>
#include <shardc/Runtime/ProcessGroup.h>
#include <shardc/Runtime/Status.h>

#include <map>
#include <string>
#include <vector>

namespace gpt {

struct TrainState {
  std::vector<shardc::Array> params;           // program shapes, parameters() order
  std::vector<shardc::Array> m, v;             // AdamW moments, one per parameter
  shardc::Array adamStep;                      // f32[]: updates applied so far
  int64_t step = 0;                            // training steps done
  std::map<std::string, std::string> metadata; // extra keys, saved and restored
};

/// Writes `state` to `path` atomically. `mesh` is recorded ("data=2,model=1").
shardc::Status saveCheckpoint(const std::string &path, const Config &config,
                              const TrainState &state, const std::string &mesh);

/// The checkpoint of a run over several processes, as a Hugging Face
/// sharded checkpoint: process r of P writes `<base>-0000r+1-of-0000P.safetensors`
/// with its share of the tensors (shares balanced by bytes), then process 0
/// writes the index `<base>.safetensors.index.json` once every shard is
/// on disk, so an index never names a missing file. Collective: every
/// process calls it; each gets the same result. Returns the index's path.
shardc::StatusOr<std::string> saveShardedCheckpoint(const std::string &base, const Config &config,
                                                    const TrainState &state,
                                                    const std::string &mesh,
                                                    shardc::ProcessGroup &processes);

/// Keeps the `keep` most recent checkpoints of `dir` up to step `newest`,
/// like Orbax's max_to_keep: deletes those of earlier steps but the
/// `keep - 1` latest (names as shardc-gpt writes them: `step-N.safetensors`,
/// or a sharded checkpoint's index and its shards). Called once `newest` is
/// complete on disk. A sharded checkpoint loses its index first, so no index
/// ever names a missing shard; checkpoints of steps after `newest` (left by
/// a run resumed from an earlier one) and any other file stay. Returns the
/// files deleted, in order; an error names the file it could not delete.
/// (On one machine or a shared file system: it deletes every process's
/// shards.)
shardc::StatusOr<std::vector<std::string>> pruneCheckpoints(const std::string &dir, int64_t newest,
                                                            int64_t keep);

/// Reads a checkpoint (a safetensors file, or a sharded checkpoint's
/// `.index.json`, written by any number of processes) and checks it against `config`: every tensor
/// present with its shape and dtype, the config in the metadata equal to this one. With
/// `withOptimizer` false, only the parameters are needed.
shardc::StatusOr<TrainState> loadCheckpoint(const std::string &path, const Config &config,
                                            bool withOptimizer = true);

/// The parameters of a checkpoint and the config in its metadata (for
/// generation, which takes the model's shape from the file).
struct SavedModel {
  Config config;
  TrainState state; // parameters and step; no optimizer state
};
shardc::StatusOr<SavedModel> loadSavedModel(const std::string &path);

} // namespace gpt

#endif // SHARDC_MODELS_TRANSFORMER_CHECKPOINT_H
