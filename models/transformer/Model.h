//===- Model.h - the Tiny Transformer, traced with shardc's frontend ------===//
//
// A byte-level, decoder-only transformer (GPT-style, pre-LayerNorm) written
// as a C++ function over shardc::Tensor. Parameter names, shapes and init
// follow the PyTorch reference module (../shared/bench/tiny_transformer.py),
// so a checkpoint maps one-to-one onto its state_dict.
//
// Inside the program some parameters have more dimensions than in PyTorch
// (the attention weights keep the head as its own dimension), so that a
// tensor-parallel layout can split them by head. Each such shape has the
// same row-major bytes as the PyTorch one: a checkpoint stores the PyTorch
// shape and the same data.
//
// The layout is annotations only: `paramSpec` says how each parameter is
// split over the mesh axes "data" and "model"; the model code is the same
// for every layout.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_MODELS_TRANSFORMER_MODEL_H
#define SHARDC_MODELS_TRANSFORMER_MODEL_H

#include <shardc/shardc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpt {

struct Config {
  int64_t vocab = 256;                      // byte vocabulary
  int64_t dModel = 256;                     // residual width
  int64_t heads = 4;                        // attention heads (dModel / heads = 64 per head)
  int64_t dFF = 1024;                       // feed-forward width
  int64_t layers = 4;                       // transformer blocks
  int64_t context = 128;                    // tokens per window (learned positions)
  shardc::DType dtype = shardc::DType::F32; // parameters and activations (F64 for
                                            // finite-difference tests)
  int64_t headDim() const { return dModel / heads; }
  /// "vocab=256,d_model=256,...": for checkpoint metadata and checks.
  std::string toString() const;
  /// The inverse of toString(); an error names the part it cannot read.
  static shardc::StatusOr<Config> fromString(const std::string &text);
};

/// One parameter: its state_dict name, its shape in the program and in
/// PyTorch (same number of elements, same row-major order), how it is split
/// over the "model" axis in the tensor-parallel layout (dimension of the
/// program shape, or -1: replicated), and its init.
struct ParamInfo {
  std::string name;
  shardc::Shape shape;
  shardc::Shape torchShape;
  int modelDim = -1;
  enum class Init { Normal, Zeros, Ones } init = Init::Normal;
};

/// The parameters in state_dict order.
std::vector<ParamInfo> parameters(const Config &config);

/// Whether only products read `p` (the weights of qkv, proj, ff1, ff2 and
/// the head, not the embeddings): generation at bf16 keeps these at bf16,
/// and the model's functions read a bf16 one at bf16 precision.
bool isProductWeight(const ParamInfo &p);

/// Parameters drawn as in the reference: weights ~ N(0, 0.02), biases 0,
/// LayerNorm scales 1. Deterministic in `seed`.
std::vector<shardc::Array> initParameters(const Config &config, uint64_t seed);

/// The layout of parameter `p` on `mesh` (axes "data" and "model"): split
/// over "model" along p.modelDim when the mesh's "model" axis is larger than
/// one, replicated otherwise. With `fsdp` (ZeRO-3, PyTorch's FSDP), also
/// split over "data" along its largest other dimension that "data" divides,
/// and its optimizer state with it (see Trainer: the step gathers it before
/// the model reads it).
shardc::PartitionSpec paramSpec(const ParamInfo &p, const shardc::Mesh &mesh, bool fsdp = false);
/// The parameters FSDP leaves whole on `mesh`: those with no dimension,
/// other than their "model" one, that "data" divides.
std::vector<ParamInfo> keptWholeByFsdp(const Config &config, const shardc::Mesh &mesh);

/// Rematerialization of the blocks (activation checkpointing): which of a
/// block's values the backward pass recomputes instead of holding them
/// from the forward pass.
enum class Remat {
  None,  // holds every value
  Block, // holds each block's input only, recomputes the rest
  Dots,  // holds each block's input and products, recomputes the rest
};

/// How a block's attention is computed.
enum class Attention {
  Fused,    // one op, shardc.qkv_attention, and one for its gradient: no
            // [B,H,T,T] scores or probabilities are stored
  Composed, // the products, the mask and the softmax as separate ops
};

/// How the training loss is traced; none changes its values.
struct LossOptions {
  /// Checkpoints each block (shardc::checkpoint): fewer values held for
  /// differentiation.
  Remat remat = Remat::None;
  /// Megatron-LM sequence parallelism: between the tensor-parallel regions
  /// the residual stream and the LayerNorms are split over "model" along
  /// the sequence (annotations only; the mesh needs "data" and "model",
  /// and "model" must divide the window).
  bool sequenceParallel = false;
  /// The attention of every block (the functions of generation use Fused).
  Attention attention = Attention::Fused;
};

/// The mean next-byte cross-entropy. Arguments: tokens i32[B,T], targets
/// i32[B,T], then the parameters in `parameters()` order.
shardc::TracedFn lossFunction(const Config &config, const LossOptions &options = {});

/// The logits f32[B,T,V] for tokens i32[B,T] (arguments as lossFunction's,
/// without the targets).
shardc::TracedFn logitsFunction(const Config &config);

/// The next-token logits f32[B,V] at one position of a padded window, and
/// the greedy tokens i32[B] (their argmax, computed on the devices):
/// arguments tokens i32[B,T], position i32[] (the last real token), then
/// the parameters. Causal attention keeps the padding after `position`
/// invisible, so one executable serves every step of a generation; the last
/// block computes only the row at `position` (its keys and values from
/// every row).
shardc::TracedFn nextTokenLogitsFunction(const Config &config);

/// Key/value-cache decoding, in two executables. The caches are one key
/// and one value array per block, each [B, context, H, hd] (the layout of
/// qkv's slices and of shardc.attention's keys), in block order (K0, V0,
/// K1, V1, ...).
///
/// prefill: arguments as nextTokenLogitsFunction's (a padded window of at
/// most the context's length); results the next-token logits [B,V], the
/// caches of the window (its positions first, zeros after them up to the
/// context), then the greedy tokens i32[B].
shardc::TracedFn prefillFunction(const Config &config);
/// decode: arguments token i32[B,1], position i32[] (where the token
/// goes; the window holds positions 0..position), the caches, then the
/// parameters; results the next-token logits [B,V], the caches with this
/// position's keys and values written in (in place when the caches are
/// donated), then the greedy tokens i32[B]. Costs one position's work, not the window's:
/// each block's attention is one shardc.attention over the caches' first
/// position + 1 entries.
shardc::TracedFn decodeFunction(const Config &config);
/// The caches' layout: batch over "data", heads over "model" (as the
/// tensor-parallel attention weights split them), so a decode step needs
/// no collective but the two all-reduces of each block's row-split
/// products.
shardc::PartitionSpec cacheSpec(const shardc::Mesh &mesh);

} // namespace gpt

#endif // SHARDC_MODELS_TRANSFORMER_MODEL_H
