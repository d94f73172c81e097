//===- Passes.td - shardc passes ----------------------------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_TD
#define SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ShardcPropagate : Pass<"shardc-propagate", "::mlir::ModuleOp"> {
  let summary = "Completes the sharding of every value from the annotated ones";
  let description = [{
    Moves shardings along the factors of each op's sharding rule, forward and
    backward, until nothing changes. Sources are the `shardc.sharding` of
    function arguments and results, `shardc.sharding_constraint` and the
    shardings of `shardc.shard_map`. Closed dimensions never change; an open
    dimension takes the axes of the factor it indexes when they extend what
    it has, do not repeat an axis of another dimension of the same value, and
    divide its size.

    When the values along one factor disagree, the sharding that wins is, in
    order: the one with the higher priority (a user annotation, on an
    argument, a result or a sharding_constraint, beats any sharding that
    propagation brought), then one that extends the other, then the one on the
    larger tensor (so that the reshard partitioning inserts moves the fewer
    bytes), then the first in operand order, results last. The losers keep
    their sharding and partitioning reshards between them.

    Dimensions annotated with an explicit priority (`{"data"}p0`, lower is
    stronger) propagate in rounds: priority 0 to a fixed point, then 1, and
    so on, then the annotations without one. Each round sweeps the
    element-wise ops first, to a fixed point, then all ops. Not settling
    within 64 sweeps is an error.

    Afterwards every dimension is closed, every op with tensor results has
    `shardc.shardings` and every function argument and result has
    `shardc.sharding`. Dimensions no annotation reached are replicated.

    Requires: at most one mesh per function.

    Before:
    ```mlir
    func.func @f(%x: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2, [{"data"}, {} ]>},
                 %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
      %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] : ...
      return %y : tensor<8x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @f(%x: ... {shardc.sharding = #shardc.sharding<@mesh_2, [{"data"}, {} ]>},
                 %w: ... {shardc.sharding = #shardc.sharding<@mesh_2, [{}, {} ]>})
        -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2, [{"data"}, {} ]>}) {
      %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
             {shardc.shardings = [#shardc.sharding<@mesh_2, [{"data"}, {} ]>]} : ...
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "only this function (default: every function)">,
  ];
  let dependentDialects = ["::shardc::ShardcDialect"];
}

def ShardcPartition : Pass<"shardc-partition", "::mlir::ModuleOp"> {
  let summary = "Rewrites global functions into per-device programs";
  let description = [{
    For every function whose values carry shardings (run
    `--shardc-propagate` first), gives every value its local (per-device)
    type and inserts the collectives the layouts demand:

    - an op computed over a sharded reduction factor (a contracting dimension
      of `dot_general`, a reduced dimension of `reduce`, the index
      dimensions of `scatter_add`) leaves partial sums on each device; they
      stay partial through the ops linear in them (adds of values partial
      alike, products with a whole value, the data-movement ops) and are
      reduced once, where an op needs them whole: `all_reduce` over those
      axes, or `reduce_scatter` when the value is needed sharded on them;
    - an operand whose sharding differs from what its user computes with is
      resharded: `all_slice` (no communication) to split a dimension,
      `collective_permute` where dimensions change axes but not their number
      of blocks, `all_to_all` to move an axis between dimensions,
      `all_gather` to make a dimension whole; slices come first;
    - `shard_map` regions are inlined with their explicit collectives.

    Where an op can be computed at more than one layout (its results',
    one of its operands', a split moved off a dimension it needs whole),
    each candidate is priced by the bytes each device sends for its
    collectives and by their number, and the cheapest wins: by bytes, then
    collectives; or, given the link (`link-latency-ns` and
    `link-bytes-per-s`, both or neither), by the time `collectives x latency
    + bytes / bandwidth`, so that on a slow-starting link one collective can
    beat two that send less.

    Each inserted collective's location names its cause (`loc("cause"(...))`
    with the op that required it), which `shardc explain` reports.
    The function gets `shardc.partitioned = @mesh` and keeps the global
    shardings of its arguments and results so the runtime can scatter and
    gather them.

    Before (propagated):
    ```mlir
    %y = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
           {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {} ]>]}
         : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    // with %h sharded [{}, {"model"} ] and %w2 sharded [{"model"}, {} ]
    ```
    After:
    ```mlir
    %p = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
         : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %y = shardc.all_reduce sum %p on @mesh_4 ["model"] : tensor<8x4xf32>
    ```
    A dimension whose size its axes do not divide is an error naming the
    value, the axes and how to allow it, unless padding is asked for:
    `pad-uneven` allows it for every value, `shardc.pad_uneven` on an
    argument for that argument (and then for the values propagation gave
    its layout). A padded dimension is rounded up to the next multiple (17
    over 8 devices: 3 per device, 24 in all, the last 7 padding); arguments
    are padded with zeros, and the function records the global shape of a
    padded argument or result in `shardc.global_shape`. The padding is
    masked where it would change a result: before a reduction over a padded
    dimension (a contraction's operands, a reduce's, a scatter_add's
    updates) it is replaced by the reduction's identity (0 for sums, -inf
    for max, +inf for min), so a softmax over a padded vocabulary is exact;
    a reshard moves a padded dimension over its padded size, extending it
    with a concatenate of zeros where a step starts to split it and slicing
    the padding off where one makes it whole.
  }];
  let options = [
    Option<"padUneven", "pad-uneven", "bool", /*default=*/"false",
           "pad dimensions whose size the axes do not divide to the next multiple">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "only this function (default: every function)">,
    Option<"linkLatencyNs", "link-latency-ns", "double", /*default=*/"0",
           "each collective's start-up time over the link, in ns (with link-bytes-per-s)">,
    Option<"linkBytesPerS", "link-bytes-per-s", "double", /*default=*/"0",
           "the link's bandwidth in bytes per second (with link-latency-ns)">,
  ];
  let dependentDialects = ["::shardc::ShardcDialect"];
}

def ShardcAutodiff : Pass<"shardc-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation: adds @<f>_grad returning value and gradients";
  let description = [{
    For the function named by `function`, whose single result is a rank-0
    float tensor (a loss), adds a function `@<function>_grad` with the same
    arguments that returns the loss and its gradient with respect to each
    argument listed in `wrt` (default: every float argument), in that order.
    The forward computation is kept; a reverse sweep then applies each op's
    gradient rule (lib/Dialect/Shardc/Transforms/GradientRules.cpp) and sums
    the contributions of values used more than once. Integer values and
    comparisons carry no gradient. A gradient's result gets the sharding of
    its argument, so data-parallel training reduces each gradient once.

    ```mlir
    func.func @loss(%w: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
      %p = shardc.mul %w, %x : tensor<3xf32>
      %l = shardc.reduce sum %p dims = [0] : (tensor<3xf32>) -> tensor<f32>
      return %l : tensor<f32>
    }
    // --shardc-autodiff="function=loss wrt=0" adds:
    func.func @loss_grad(%w: tensor<3xf32>, %x: tensor<3xf32>)
        -> (tensor<f32>, tensor<3xf32>) {
      ... forward ...
      %one = shardc.constant dense<1.0> : tensor<f32>
      %g = shardc.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %dw = shardc.mul %g, %x : tensor<3xf32>
      return %l, %dw : tensor<f32>, tensor<3xf32>
    }
    ```

    Rematerialization, like `jax.checkpoint`: ops carrying
    `shardc.checkpoint = {group = N : i64, policy = P}` form group N, whose
    values autodiff recomputes in the backward pass (ops marked
    `shardc.recomputed`, emitted where the reverse sweep reaches the group)
    instead of holding them from the forward pass. Policy P says what is
    kept: `"nothing"` (only the group's inputs), `"dots"` (the results of
    `dot_general` too), `"names"` with `names = ["a", ...]` (the results
    of ops whose `shardc.checkpoint_name` is listed) or `"all_but_names"`
    with names (everything but those, which are recomputed). Constants and
    shard_maps are always kept. The gradients are the same, bit for bit.

    Requires: single-block functions of shardc ops (no shard_map or
    collectives: differentiate the global program, then partition).
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "the function to differentiate">,
    ListOption<"wrt", "wrt", "unsigned",
               "argument numbers to differentiate with respect to (default: all float arguments)">,
  ];
  let dependentDialects = ["::shardc::ShardcDialect"];
}

def ShardcTrainStep : Pass<"shardc-train-step", "::mlir::ModuleOp"> {
  let summary = "Adds @<f>_train_step: forward, backward and an optimizer's update";
  let description = [{
    For the loss function `function`, adds `@<function>_train_step`, one
    function that computes the loss, its gradients (as --shardc-autodiff)
    and the optimizer's update, so a training step compiles and partitions
    as one executable. Arguments: the loss function's, then the optimizer
    state of each differentiated parameter (`sgd`: `<name>.velocity`;
    `adam`/`adamw`: `<name>.m`, `<name>.v`, then `step`), then `lr`
    (tensor<f32>). Results: the loss, the updated parameters, the updated
    state. State carries its parameter's sharding, so a data-parallel step
    adds no collective to the gradients' all_reduces. With
    `shard-state-over=data`, each parameter's state is split over "data"
    along dimension 0 (where that divides) and so is its update: the
    gradient is reduce-scattered instead of all-reduced, each device
    updates its block, and the new parameter is all-gathered (weight-update
    sharding, like ZeRO stage 1).

    With `clip-norm=c` (c > 0), the gradients are first clipped to the
    global L2 norm c, like torch.nn.utils.clip_grad_norm_: one f32 norm
    over all gradients together, and every gradient scaled by the same
    factor before the optimizer reads it. Each gradient's sum of squares is
    taken where the gradient lies (a gradient split over "model", or over
    the shard-state-over axis, gives partial sums, all-reduced as one
    scalar), so clipping adds one scalar all_reduce per split gradient and
    leaves the gradients' own communication as it was. The signature does
    not change.

    ```
    clip:   n = sqrt(sum_k sum(g_k^2));  g_k = g_k min(1, c / (n + 1e-6))
    sgd:    v = momentum v + g;  p = p - lr v
    adam:   t = t + 1;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
            p = p - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
    adamw:  adam, then p = p - lr wd p_old (decoupled weight decay)
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "the loss function">,
    ListOption<"wrt", "wrt", "unsigned",
               "parameters to train (default: all float arguments)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd, adam or adamw">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0", "sgd momentum">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "adam first-moment decay">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "adam second-moment decay">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8", "adam epsilon">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "adamw decoupled weight decay">,
    Option<"clipNorm", "clip-norm", "double", /*default=*/"0.0",
           "clip the gradients to this global L2 norm first (0: off)">,
    Option<"shardStateOver", "shard-state-over", "std::string", /*default=*/"\"\"",
           "a mesh axis to split optimizer state and updates over (dimension 0)">,
  ];
  let dependentDialects = ["::shardc::ShardcDialect"];
}

def ShardcMatmulPrecision : Pass<"shardc-matmul-precision", "::mlir::ModuleOp"> {
  let summary = "Sets how f32 products are computed: f32, bf16 or tf32";
  let description = [{
    Sets `precision` on every `shardc.dot_general` of f32 operands that has
    none, in every function of the module: the mixed precision of
    `jax.default_matmul_precision` and PyTorch's autocast, as an attribute
    the lowering reads. With `bf16`, each product rounds its operands to
    bf16 and accumulates in f32; with `tf32`, it rounds them to 10 mantissa
    bits. Everything else stays f32: parameters, optimizer state, the
    gradients' reductions, the loss, and every op that is not a product.
    Products that carry a precision already keep it, and products of other
    element types are left alone. Gradients built by --shardc-autodiff
    inherit the precision of the product they differentiate, so the pass
    may run before or after it.

    ```mlir
    // --shardc-matmul-precision=precision=bf16
    %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
         : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // becomes
    %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] precision = "bf16"
         : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
           "f32, bf16 or tf32">,
  ];
  let dependentDialects = ["::shardc::ShardcDialect"];
}

def ShardcBf16Operands : Pass<"shardc-bf16-operands", "::mlir::ModuleOp"> {
  let summary = "Stores the values only bf16 products read as bf16";
  let description = [{
    A bf16 product rounds its f32 operands to bf16 each time it runs. A
    value that only bf16 products read, directly or through `reshape`,
    `transpose` and `slice`, may as well be rounded once where it is made:
    this pass inserts `shardc.convert` to bf16 after it and gives the layout
    ops between it and the products bf16 types. Every product computes the
    same numbers (it would have rounded the value the same way), reads half
    the bytes, and a value kept for the backward pass (a layer's input, the
    output of GELU, attention's q, k and v) is kept at half the memory,
    like the activations PyTorch's autocast saves. Values anything else
    reads stay f32, and so do function arguments (parameters are read by
    their updates). It runs on a whole step, after --shardc-autodiff and
    partitioning; the CPU backend reads bf16 operands, the CUDA backend
    does not yet.

    ```mlir
    // --shardc-bf16-operands
    %h = shardc.tanh %x : tensor<4x8xf32> -> tensor<4x8xf32>
    %y = shardc.dot_general %h, %w contracting_dims = [1] x [0] precision = "bf16"
         : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // becomes
    %h = shardc.tanh %x : tensor<4x8xf32> -> tensor<4x8xf32>
    %r = shardc.convert %h : tensor<4x8xf32> -> tensor<4x8xbf16>
    %y = shardc.dot_general %r, %w contracting_dims = [1] x [0] precision = "bf16"
         : (tensor<4x8xbf16>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let dependentDialects = ["::shardc::ShardcDialect"];
}

def ShardcPrintShardingRules : Pass<"shardc-print-sharding-rules", "::mlir::ModuleOp"> {
  let summary = "Writes each op's sharding rule on it, as a string attribute";
  let description = [{
    Propagation and partitioning know an op only through its sharding rule
    (ShardingRule.h): the factors its operands' and results' dimensions
    index, their sizes and kinds, and how a pending sum passes through it.
    This pass writes the rule of every op that has one into a
    `shardc.sharding_rule` attribute, in the form Shardy prints its own
    rules, so that rules are seen and tested directly:

    ```mlir
    %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
        {shardc.sharding_rule = "([i, k], [k, j]) -> ([i, j]) {i=8, j=16, k=32} reduction={k} linear_each={0, 1}"}
        : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    ```

    A dimension of several factors (a reshape's merged dimension) is
    written `i*j`, major first, and one of no factor `_`. It changes nothing
    else; the attribute is for reading, and the other passes ignore it.
  }];
}

#endif // SHARDC_DIALECT_SHARDC_TRANSFORMS_PASSES_TD
