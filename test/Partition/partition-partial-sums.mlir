// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc-opt %s --shardc-autodiff="function=megatron_block_loss wrt=0,1,2,3,4,5,6" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=BLOCK
// RUN: shardc-opt %s --shardc-autodiff="function=tied_embedding_loss wrt=0" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=TIED

// A sharded reduction leaves each device with a partial sum. The value stays
// partial through the ops linear in it and is reduced once, where an op
// needs it whole: sums of partial values cost one all_reduce, not one each.

shardc.mesh @mesh_model_2 = <["model"=2]>
shardc.mesh @mesh_data_2 = <["data"=2]>
shardc.mesh @mesh_2x2 = <["data"=2, "model"=2]>

// Three products, each contracting a dimension split over "model", summed:
// the sum is reduced once. (Before, each product had its all_reduce.)
// CHECK-LABEL: func.func @three_partial_products
// CHECK-COUNT-3: shardc.dot_general
// CHECK-NOT: shardc.all_reduce
// CHECK-COUNT-2: shardc.add
// CHECK-NEXT: [[S:%[0-9]+]] = shardc.all_reduce sum {{%[0-9]+}} on @mesh_model_2 ["model"] : tensor<4x8xf32>
// CHECK-NEXT: return [[S]]
func.func @three_partial_products(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %b: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %c: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>})
    -> tensor<4x8xf32> {
  %p = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = shardc.dot_general %b, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %r = shardc.dot_general %c, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %pq = shardc.add %p, %q : tensor<4x8xf32>
  %s = shardc.add %pq, %r : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// A partial value passes through neg, a product with a whole value, a
// transpose and a reshape, and is reduced where exp needs it whole.
// CHECK-LABEL: func.func @through_linear_ops
// CHECK: shardc.dot_general
// CHECK-NOT: shardc.all_reduce
// CHECK: shardc.neg
// CHECK-NOT: shardc.all_reduce
// CHECK: shardc.mul
// CHECK-NOT: shardc.all_reduce
// CHECK: shardc.transpose
// CHECK-NOT: shardc.all_reduce
// CHECK: [[R:%[0-9]+]] = shardc.reshape
// CHECK-NEXT: [[W:%[0-9]+]] = shardc.all_reduce sum [[R]] on @mesh_model_2 ["model"] : tensor<32xf32>
// CHECK-NEXT: shardc.exp [[W]]
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @through_linear_ops(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>},
    %m: tensor<4x8xf32>)
    -> tensor<32xf32> {
  %p = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %n = shardc.neg %p : tensor<4x8xf32>
  %s = shardc.mul %n, %m : tensor<4x8xf32>
  %t = shardc.transpose %s, permutation = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = shardc.reshape %t : (tensor<8x4xf32>) -> tensor<32xf32>
  %e = shardc.exp %r : tensor<32xf32>
  return %e : tensor<32xf32>
}

// Not linear: a partial value added to a whole one is reduced first (its
// all_reduce precedes the add), as is one used twice (it is reduced once
// for both users) and one multiplied by itself.
// CHECK-LABEL: func.func @reduced_before_nonlinear_uses
// CHECK: [[P:%[0-9]+]] = shardc.dot_general
// CHECK-NEXT: [[W:%[0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_model_2 ["model"] : tensor<4x8xf32>
// CHECK-NEXT: shardc.add [[W]], %arg2
// CHECK-NEXT: shardc.mul [[W]], [[W]]
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @reduced_before_nonlinear_uses(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>},
    %x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %s = shardc.add %p, %x : tensor<4x8xf32>
  %q = shardc.mul %p, %p : tensor<4x8xf32>
  return %s, %q : tensor<4x8xf32>, tensor<4x8xf32>
}

// Partial over different axes: partial over "data" plus partial over
// "model" is not partial over either; both are reduced before the add.
// Partial over the same two axes, the sum is reduced once over both.
// CHECK-LABEL: func.func @partial_axes_must_match
// CHECK: shardc.all_reduce sum {{.*}} ["data"]
// CHECK: shardc.all_reduce sum {{.*}} ["model"]
// CHECK: shardc.add
// CHECK: shardc.add
// CHECK-NEXT: shardc.all_reduce sum {{.*}} ["data", "model"] : tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @partial_axes_must_match(
    %a: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}]>},
    %b: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"model"}, {}]>},
    %c: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data", "model"}, {}]>},
    %d: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"model", "data"}, {}]>})
    -> (tensor<4xf32>, tensor<4xf32>) {
  %sa = shardc.reduce sum %a dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %sb = shardc.reduce sum %b dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %ab = shardc.add %sa, %sb : tensor<4xf32>
  %sc = shardc.reduce sum %c dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %sd = shardc.reduce sum %d dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  %cd = shardc.add %sc, %sd : tensor<4xf32>
  return %ab, %cd : tensor<4xf32>, tensor<4xf32>
}

// A partial sum whose layout is split by the axes it is pending over:
// all_reduce then slice becomes one reduce_scatter.
// CHECK-LABEL: func.func @reduce_scatter_after_linear_op
// CHECK: shardc.dot_general
// CHECK-NEXT: shardc.reduce_scatter sum {{.*}} on @mesh_model_2 ["model"] dim = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: shardc.neg
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @reduce_scatter_after_linear_op(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>})
    -> (tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>}) {
  %p = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %n = shardc.neg %p : tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// A broadcast of a partial value would make the all_reduce larger: the
// value is reduced before it.
// CHECK-LABEL: func.func @reduced_before_broadcast
// CHECK: shardc.all_reduce sum {{.*}} : tensor<4xf32>
// CHECK-NEXT: shardc.broadcast_in_dim
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @reduced_before_broadcast(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>})
    -> tensor<4x8xf32> {
  %s = shardc.reduce sum %a dims = [1] : (tensor<4x16xf32>) -> tensor<4xf32>
  %b = shardc.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// A chain of sums, the first term whole: the whole term joins the sum as a
// partial value (kept on the first device of each group, zero elsewhere:
// one mask made by a local all_slice), so the two partial terms after it
// need one reduction, not two.
// CHECK-LABEL: func.func @whole_term_joins_partial_sum
// CHECK: [[M:%[0-9]+]] = shardc.all_slice {{%[0-9]+}} on @mesh_model_2 ["model"] dim = 0 : tensor<2xi1> -> tensor<1xi1>
// CHECK: shardc.select
// CHECK-NOT: shardc.all_reduce
// CHECK: shardc.add
// CHECK-NEXT: [[T:%[0-9]+]] = shardc.add
// CHECK-NEXT: [[R:%[0-9]+]] = shardc.all_reduce sum [[T]] on @mesh_model_2 ["model"] : tensor<f32>
// CHECK-NEXT: shardc.sqrt [[R]]
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @whole_term_joins_partial_sum(
    %g0: tensor<4xf32>,
    %g1: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>},
    %g2: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>})
    -> tensor<f32> {
  %q0 = shardc.mul %g0, %g0 : tensor<4xf32>
  %s0 = shardc.reduce sum %q0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %q1 = shardc.mul %g1, %g1 : tensor<8x4xf32>
  %s1 = shardc.reduce sum %q1 dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %q2 = shardc.mul %g2, %g2 : tensor<8x4xf32>
  %s2 = shardc.reduce sum %q2 dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %t1 = shardc.add %s0, %s1 : tensor<f32>
  %t2 = shardc.add %t1, %s2 : tensor<f32>
  %n = shardc.sqrt %t2 : tensor<f32>
  return %n : tensor<f32>
}

// Where no other partial term follows (a bias, then a residual whose sum is
// needed whole), the partial product is reduced before the bias is added:
// the same one reduction, without the mask.
// CHECK-LABEL: func.func @whole_term_without_partial_after
// CHECK-NOT: shardc.select
// CHECK: [[P:%[0-9]+]] = shardc.dot_general
// CHECK-NEXT: [[R:%[0-9]+]] = shardc.all_reduce sum [[P]]
// CHECK-NEXT: shardc.add [[R]], %arg2
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @whole_term_without_partial_after(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>},
    %bias: tensor<4x8xf32>, %x: tensor<4x8xf32>)
    -> tensor<4x8xf32> {
  %p = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = shardc.add %p, %bias : tensor<4x8xf32>
  %y = shardc.add %q, %x : tensor<4x8xf32>
  %e = shardc.exp %y : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// A sharding_constraint with partial = {"model"} keeps a value partial
// where the partitioner would reduce it: %p has two users, which would
// reduce it where it is made ([4, 8]); kept partial, both products are, and
// their sum is reduced once, at a quarter of the size ([4, 2]).
// CHECK-LABEL: func.func @asked_partial
// CHECK-NOT: shardc.all_reduce
// CHECK: shardc.add
// CHECK-NEXT: shardc.all_reduce sum {{.*}} on @mesh_model_2 ["model"] : tensor<4x2xf32>
// CHECK-NEXT: return
func.func @asked_partial(
    %a: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>},
    %u: tensor<8x2xf32>, %v: tensor<8x2xf32>)
    -> tensor<4x2xf32> {
  %p = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %c = shardc.sharding_constraint %p <@mesh_model_2, [{}, {}], partial = {"model"}> : tensor<4x8xf32>
  %x = shardc.dot_general %c, %u contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %y = shardc.dot_general %c, %v contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %s = shardc.add %x, %y : tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}

// A pre-LN transformer block with Megatron shardings: q, k, v and the FFN's
// first weight split by columns over "model" (heads split), the attention
// output and the FFN's second weight by rows. Forward: 2 all_reduces (after
// the attention output and after the FFN). Backward: 2, one per layer norm:
// the gradient of the attention's input is the sum of the three products
// through q, k and v, partial over "model", reduced once; the FFN input's
// gradient likewise. (Before partial sums: 4 in the backward pass.)
// BLOCK-LABEL: func.func @megatron_block_loss_grad
// BLOCK-COUNT-4: shardc.all_reduce sum {{.*}} on @mesh_model_2 ["model"] : tensor<2x4x8xf32>
// BLOCK-NOT: shardc.all_reduce {{.*}} : tensor<2x4x8xf32>
// BLOCK-NOT: shardc.{{all_gather|all_to_all|reduce_scatter|all_slice}}
// BLOCK: return
func.func @megatron_block_loss(
    %x: tensor<2x4x8xf32>,
    %wq: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %wk: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %wv: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %wo: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>},
    %w1: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{}, {"model"}]>},
    %w2: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_model_2, [{"model"}, {}]>})
    -> tensor<f32> {
  // h = layernorm(x) (no affine), over the last dimension.
  %inv_d = shardc.constant dense<0.125> : tensor<2x4xf32>
  %eps = shardc.constant dense<1.0e-5> : tensor<2x4xf32>
  %xs = shardc.reduce sum %x dims = [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %mean = shardc.mul %xs, %inv_d : tensor<2x4xf32>
  %meanb = shardc.broadcast_in_dim %mean, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
  %xc = shardc.sub %x, %meanb : tensor<2x4x8xf32>
  %xc2 = shardc.mul %xc, %xc : tensor<2x4x8xf32>
  %vs = shardc.reduce sum %xc2 dims = [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %var = shardc.mul %vs, %inv_d : tensor<2x4xf32>
  %ve = shardc.add %var, %eps : tensor<2x4xf32>
  %rs = shardc.rsqrt %ve : tensor<2x4xf32>
  %rsb = shardc.broadcast_in_dim %rs, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
  %h = shardc.mul %xc, %rsb : tensor<2x4x8xf32>
  // q, k, v: [B, T, H, hd] -> [B, H, T, hd], 2 heads of 4.
  %q0 = shardc.dot_general %h, %wq contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k0 = shardc.dot_general %h, %wk contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v0 = shardc.dot_general %h, %wv contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q1 = shardc.reshape %q0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %k1 = shardc.reshape %k0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %v1 = shardc.reshape %v0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %q = shardc.transpose %q1, permutation = [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %k = shardc.transpose %k1, permutation = [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %v = shardc.transpose %v1, permutation = [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  // Softmax attention (no mask: the gradients' collectives do not depend on it).
  %s0 = shardc.dot_general %q, %k batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3]
      : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %scale = shardc.constant dense<0.5> : tensor<2x2x4x4xf32>
  %s = shardc.mul %s0, %scale : tensor<2x2x4x4xf32>
  %smax = shardc.reduce max %s dims = [3] : (tensor<2x2x4x4xf32>) -> tensor<2x2x4xf32>
  %smaxb = shardc.broadcast_in_dim %smax, dims = [0, 1, 2] : (tensor<2x2x4xf32>) -> tensor<2x2x4x4xf32>
  %sc = shardc.sub %s, %smaxb : tensor<2x2x4x4xf32>
  %se = shardc.exp %sc : tensor<2x2x4x4xf32>
  %ssum = shardc.reduce sum %se dims = [3] : (tensor<2x2x4x4xf32>) -> tensor<2x2x4xf32>
  %ssumb = shardc.broadcast_in_dim %ssum, dims = [0, 1, 2] : (tensor<2x2x4xf32>) -> tensor<2x2x4x4xf32>
  %p = shardc.div %se, %ssumb : tensor<2x2x4x4xf32>
  %ctx0 = shardc.dot_general %p, %v batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2]
      : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %ctx1 = shardc.transpose %ctx0, permutation = [0, 2, 1, 3] : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
  %ctx = shardc.reshape %ctx1 : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  %att = shardc.dot_general %ctx, %wo contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %x1 = shardc.add %x, %att : tensor<2x4x8xf32>
  // h2 = layernorm(x1); y = x1 + relu(h2 w1) w2.
  %x1s = shardc.reduce sum %x1 dims = [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %mean2 = shardc.mul %x1s, %inv_d : tensor<2x4xf32>
  %mean2b = shardc.broadcast_in_dim %mean2, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
  %x1c = shardc.sub %x1, %mean2b : tensor<2x4x8xf32>
  %x1c2 = shardc.mul %x1c, %x1c : tensor<2x4x8xf32>
  %v2s = shardc.reduce sum %x1c2 dims = [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %var2 = shardc.mul %v2s, %inv_d : tensor<2x4xf32>
  %ve2 = shardc.add %var2, %eps : tensor<2x4xf32>
  %rs2 = shardc.rsqrt %ve2 : tensor<2x4xf32>
  %rs2b = shardc.broadcast_in_dim %rs2, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x8xf32>
  %h2 = shardc.mul %x1c, %rs2b : tensor<2x4x8xf32>
  %f0 = shardc.dot_general %h2, %w1 contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %zero = shardc.constant dense<0.0> : tensor<2x4x16xf32>
  %f = shardc.max %f0, %zero : tensor<2x4x16xf32>
  %g = shardc.dot_general %f, %w2 contracting_dims = [2] x [0] : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %y = shardc.add %x1, %g : tensor<2x4x8xf32>
  %y2 = shardc.mul %y, %y : tensor<2x4x8xf32>
  %loss = shardc.reduce sum %y2 dims = [0, 1, 2] : (tensor<2x4x8xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// A tied embedding in data-parallel training: the table is read by the
// lookup and by the unembedding, so its gradient is a scatter_add plus a
// product, both partial over "data": summed, then reduced once. (Before:
// once per use.)
// TIED-LABEL: func.func @tied_embedding_loss_grad
// TIED: shardc.scatter_add
// TIED-NOT: shardc.all_reduce {{.*}} : tensor<16x8xf32>
// TIED: shardc.add {{.*}} : tensor<16x8xf32>
// TIED-NEXT: shardc.all_reduce sum {{.*}} on @mesh_data_2 ["data"] : tensor<16x8xf32>
// TIED-NOT: shardc.all_reduce {{.*}} : tensor<16x8xf32>
// TIED: return
func.func @tied_embedding_loss(
    %emb: tensor<16x8xf32>,
    %ids: tensor<4x4xi32> {shardc.sharding = #shardc.sharding<@mesh_data_2, [{"data"}, {}]>})
    -> tensor<f32> {
  %e = shardc.take %emb, %ids : (tensor<16x8xf32>, tensor<4x4xi32>) -> tensor<4x4x8xf32>
  %logits = shardc.dot_general %e, %emb contracting_dims = [2] x [1]
      : (tensor<4x4x8xf32>, tensor<16x8xf32>) -> tensor<4x4x16xf32>
  %l2 = shardc.mul %logits, %logits : tensor<4x4x16xf32>
  %loss = shardc.reduce sum %l2 dims = [0, 1, 2] : (tensor<4x4x16xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// A partial value moves to another layout only by collectives over none of
// the axes it is pending over: the devices whose sums the all_reduce adds
// must hold the same block. [{"d"}] partial over "c" to [{"e"}] slices by
// "c" and permutes over "c", "d" and "e", so the product is reduced first.
// (Before, the slice and the permute ran on the partial sums and the
// all_reduce after them added blocks of different elements.)
// CHECK-LABEL: func.func @reshard_over_a_pending_axis
// CHECK: shardc.dot_general
// CHECK-NEXT: shardc.all_reduce sum {{%[0-9]+}} on @mesh_c2_d2_e4 ["c"] : tensor<8xf32>
// CHECK-NEXT: shardc.all_slice
// CHECK-NEXT: shardc.collective_permute
// CHECK-NEXT: return
shardc.mesh @mesh_c2_d2_e4 = <["c"=2, "d"=2, "e"=4]>
func.func @reshard_over_a_pending_axis(
    %w: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@mesh_c2_d2_e4, [{"c"}, {"d"}]>},
    %x: tensor<16xf32>) -> tensor<16xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [0] x [0] : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16xf32>
  %z = shardc.sharding_constraint %y <@mesh_c2_d2_e4, [{"e"}]> : tensor<16xf32>
  return %z : tensor<16xf32>
}
