//===- Optimizers.h - training steps built from the dialect's ops -*- C++ -*-===//
//
// A training step is one function: forward, backward (autodiff) and the
// optimizer's update, so that it compiles, partitions and runs as one
// executable. Optimizer state is explicit: passed in and returned, with the
// sharding of its parameter.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_OPTIMIZERS_H
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_OPTIMIZERS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

struct OptimizerConfig {
  std::string kind = "sgd"; // "sgd" (with momentum), "adam" or "adamw"
  double momentum = 0.0;    // sgd: v = momentum * v + g; p -= lr * v
  double beta1 = 0.9;       // adam(w): first-moment decay
  double beta2 = 0.999;     // adam(w): second-moment decay
  double epsilon = 1e-8;    // adam(w)
  double weightDecay = 0.0; // adamw: p -= lr * weightDecay * p (decoupled)
  /// Global gradient-norm clipping, like torch.nn.utils.clip_grad_norm_
  /// (e.g. 1.0): every gradient is scaled by min(1, clipNorm / (total +
  /// 1e-6)), total = the f32 L2 norm over all gradients together, before
  /// the update uses it. 0: no clipping.
  double clipNorm = 0.0;
  /// A mesh axis (e.g. "data") to split each parameter's optimizer state
  /// and update over, along dimension 0, where the parameter is not split
  /// over it already and the dimension divides: each device updates its
  /// block, and the new parameter is gathered (the gradient's all_reduce
  /// becomes a reduce_scatter, and state memory and update work shrink by
  /// the axis size). Empty: state follows its parameter's sharding.
  std::string shardStateOver;

  /// Every field, by name ("kind=adamw momentum=0 beta1=0.9 ..." with
  /// doubles in full): the train step's part of the compile-cache key.
  std::string key() const;
};
// A new field goes into key() too (Optimizers.cpp), so that a plan cached
// under other options is never reused; then this size changes with it.
static_assert(sizeof(OptimizerConfig) == 2 * sizeof(std::string) + 6 * sizeof(double),
              "OptimizerConfig has a field key() does not print");

/// Adds `@<fn>_train_step` beside the loss function `fn`. Its arguments are
/// fn's arguments, then the optimizer state of each parameter in `wrt`
/// (sgd: one velocity per parameter; adam/adamw: first and second moments
/// per parameter, then the step count as tensor<f32>), then the learning
/// rate as tensor<f32>. It returns the loss, the updated parameters, then
/// the updated state, in the same order. Adam's moments are bias-corrected
/// with the incremented step count. With config.clipNorm > 0, the
/// gradients are first clipped to that global norm. State carries its parameter's sharding,
/// or that sharding split over config.shardStateOver.
mlir::FailureOr<mlir::func::FuncOp>
buildTrainStep(mlir::func::FuncOp fn, llvm::ArrayRef<unsigned> wrt, const OptimizerConfig &config);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_OPTIMIZERS_H
