// RUN: shardc-opt %s --shardc-autodiff="function=tanh_product_loss" | FileCheck %s
// RUN: shardc-opt %s --shardc-autodiff="function=data_parallel_mlp_loss wrt=2,3,4,5" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=PART
// RUN: shardc-opt %s --shardc-autodiff="function=data_parallel_mlp_loss wrt=2,3,4,5" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=COUNT
// RUN: shardc-opt %s --shardc-autodiff="function=loss_through_inactive_strided_slice wrt=0" | FileCheck %s --check-prefix=ACTIVE
// RUN: shardc-opt %s --shardc-autodiff="function=shard_map_loss wrt=1" | FileCheck %s --check-prefix=SMAP
// RUN: shardc-opt %s --shardc-autodiff="function=gathered_weight_loss wrt=1" | FileCheck %s --check-prefix=CONSTRAINT
// RUN: shardc-opt %s --shardc-autodiff="function=gathered_weight_loss wrt=1" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=FSDP
// RUN: shardc-opt %s --shardc-autodiff="function=torch_linear_loss" | FileCheck %s --check-prefix=LINEAR

// Reverse-mode differentiation adds @<f>_grad: the forward program, the
// seed 1.0, each op's gradient rule in reverse order, adjoints summed where
// a value is used twice; it returns the loss and one gradient per argument,
// each carrying its argument's sharding. Differentiating before
// partitioning makes data-parallel training reduce each gradient once.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_data_4 = <["data"=4]>

// loss = sum(tanh(w x) x): x is used twice, so its gradient is a sum.
// CHECK-LABEL: func.func @tanh_product_loss_grad
// CHECK-SAME: ([[W:%[a-z0-9]+]]: tensor<4x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
// CHECK-SAME: [[X:%[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<4x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}, tensor<4x3xf32>)
// Forward.
// CHECK-NEXT: [[P:%[0-9]+]] = shardc.mul [[W]], [[X]] : tensor<4x3xf32>
// CHECK-NEXT: [[T:%[0-9]+]] = shardc.tanh [[P]] : tensor<4x3xf32>
// CHECK-NEXT: [[Q:%[0-9]+]] = shardc.mul [[T]], [[X]] : tensor<4x3xf32>
// CHECK-NEXT: [[LOSS:%[0-9]+]] = shardc.reduce sum [[Q]] dims = [0, 1] : (tensor<4x3xf32>) -> tensor<f32>
// The seed, then the reduce's gradient: broadcast back, (4, 3).
// CHECK-NEXT: [[ONE:%[0-9]+]] = shardc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: [[DQ:%[0-9]+]] = shardc.broadcast_in_dim [[ONE]], dims = [] : (tensor<f32>) -> tensor<4x3xf32>
// q = t x: dt = dq x, dx1 = dq t.
// CHECK-NEXT: [[DT:%[0-9]+]] = shardc.mul [[DQ]], [[X]] : tensor<4x3xf32>
// CHECK-NEXT: [[DX1:%[0-9]+]] = shardc.mul [[DQ]], [[T]] : tensor<4x3xf32>
// t = tanh p: dp = dt (1 - t^2).
// CHECK-NEXT: [[TT:%[0-9]+]] = shardc.mul [[T]], [[T]] : tensor<4x3xf32>
// CHECK-NEXT: [[ONES:%[0-9]+]] = shardc.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT: [[D:%[0-9]+]] = shardc.sub [[ONES]], [[TT]] : tensor<4x3xf32>
// CHECK-NEXT: [[DP:%[0-9]+]] = shardc.mul [[DT]], [[D]] : tensor<4x3xf32>
// p = w x: dw = dp x, dx2 = dp w; dx = dx1 + dx2.
// CHECK-NEXT: [[DW:%[0-9]+]] = shardc.mul [[DP]], [[X]] : tensor<4x3xf32>
// CHECK-NEXT: [[DX2:%[0-9]+]] = shardc.mul [[DP]], [[W]] : tensor<4x3xf32>
// CHECK-NEXT: [[DX:%[0-9]+]] = shardc.add [[DX1]], [[DX2]] : tensor<4x3xf32>
// CHECK-NEXT: return [[LOSS]], [[DW]], [[DX]] : tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>
func.func @tanh_product_loss(
    %w: tensor<4x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %x: tensor<4x3xf32>) -> tensor<f32> {
  %p = shardc.mul %w, %x : tensor<4x3xf32>
  %t = shardc.tanh %p : tensor<4x3xf32>
  %q = shardc.mul %t, %x : tensor<4x3xf32>
  %l = shardc.reduce sum %q dims = [0, 1] : (tensor<4x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Data-parallel training of a 2-layer MLP on 4 devices: the batch is split
// over "data", the parameters are replicated. Differentiated, then
// partitioned: everything per example stays local; each parameter gradient
// sums over the batch with one all_reduce, and the loss with one more.
//
// Shapes: B = 8 examples (2 per device), D = 16 inputs, H = 32 hidden
// units, C = 4 classes (labels are drawn from [0, 4)).

// PART-LABEL: func.func @data_parallel_mlp_loss_grad(
// PART-SAME: [[X:%[a-z0-9]+]]: tensor<2x16xf32>
// PART-SAME: -> (tensor<f32> {shardc.sharding = #shardc.sharding<@mesh_data_4, []>},
// PART-SAME: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>},
// PART-SAME: tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}]>},
// PART-SAME: tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>},
// PART-SAME: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}]>})
// PART-NOT: shardc.{{all_|reduce_scatter}}
// The loss: the local sum of the batch, then the one all_reduce.
// PART: shardc.all_reduce sum {{%[0-9]+}} on @mesh_data_4 ["data"] : tensor<f32>
// PART-NOT: shardc.{{all_|reduce_scatter}}
// db2 = sum_b dlogits, (C)
// PART: [[DB2P:%[0-9]+]] = shardc.reduce sum {{%[0-9]+}} dims = [0] : (tensor<2x4xf32>) -> tensor<4xf32>
// PART-NEXT: [[DB2:%[0-9]+]] = shardc.all_reduce sum [[DB2P]] on @mesh_data_4 ["data"] : tensor<4xf32>
// PART-NOT: shardc.{{all_|reduce_scatter}}
// dW2 = h^T dlogits, (H, C)
// PART: [[DW2P:%[0-9]+]] = shardc.dot_general {{%[0-9]+}}, {{%[0-9]+}} contracting_dims = [0] x [0] : (tensor<2x32xf32>, tensor<2x4xf32>) -> tensor<32x4xf32>
// PART-NEXT: [[DW2:%[0-9]+]] = shardc.all_reduce sum [[DW2P]] on @mesh_data_4 ["data"] : tensor<32x4xf32>
// PART-NOT: shardc.{{all_|reduce_scatter}}
// db1 = sum_b dz, (H)
// PART: [[DB1P:%[0-9]+]] = shardc.reduce sum {{%[0-9]+}} dims = [0] : (tensor<2x32xf32>) -> tensor<32xf32>
// PART-NEXT: [[DB1:%[0-9]+]] = shardc.all_reduce sum [[DB1P]] on @mesh_data_4 ["data"] : tensor<32xf32>
// PART-NOT: shardc.{{all_|reduce_scatter}}
// dW1 = x^T dz, (D, H)
// PART: [[DW1P:%[0-9]+]] = shardc.dot_general [[X]], {{%[0-9]+}} contracting_dims = [0] x [0] : (tensor<2x16xf32>, tensor<2x32xf32>) -> tensor<16x32xf32>
// PART-NEXT: [[DW1:%[0-9]+]] = shardc.all_reduce sum [[DW1P]] on @mesh_data_4 ["data"] : tensor<16x32xf32>
// PART-NOT: shardc.{{all_|reduce_scatter}}
// PART: return {{%[0-9]+}}, [[DW1]], [[DB1]], [[DW2]], [[DB2]]

// Exactly five collectives, all of them all_reduce.
// COUNT-LABEL: func.func @data_parallel_mlp_loss_grad(
// COUNT-NOT: shardc.{{all_gather|all_slice|all_to_all|reduce_scatter}}
// COUNT-COUNT-5: shardc.all_reduce sum {{.*}} on @mesh_data_4 ["data"]
// COUNT-NOT: shardc.{{all_|reduce_scatter}}
// COUNT: return
func.func @data_parallel_mlp_loss(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{"data"}, {}]>},
    %labels: tensor<8xi32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{"data"}]>},
    %w1: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>},
    %b1: tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}]>},
    %w2: tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>},
    %b2: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}]>})
    -> tensor<f32> {
  // Hidden layer: relu(x w1 + b1), (B, H).
  %xw = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %bb1 = shardc.broadcast_in_dim %b1, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
  %z = shardc.add %xw, %bb1 : tensor<8x32xf32>
  %zero = shardc.constant dense<0.0> : tensor<8x32xf32>
  %h = shardc.max %z, %zero : tensor<8x32xf32>
  // Logits, (B, C).
  %hw = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %bb2 = shardc.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %logits = shardc.add %hw, %bb2 : tensor<8x4xf32>
  // log_softmax with the row max subtracted, (B, C).
  %m = shardc.reduce max %logits dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
  %shifted = shardc.sub %logits, %mb : tensor<8x4xf32>
  %e = shardc.exp %shifted : tensor<8x4xf32>
  %s = shardc.reduce sum %e dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %lse = shardc.log %s : tensor<8xf32>
  %lseb = shardc.broadcast_in_dim %lse, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
  %logp = shardc.sub %shifted, %lseb : tensor<8x4xf32>
  // One-hot labels, (B, C).
  %classes = shardc.iota dim = 1 : tensor<8x4xi32>
  %lb = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<8xi32>) -> tensor<8x4xi32>
  %hit = shardc.compare eq, %classes, %lb : tensor<8x4xi32>
  %onehot = shardc.convert %hit : tensor<8x4xi1> -> tensor<8x4xf32>
  // Mean negative log-likelihood, ().
  %picked = shardc.mul %onehot, %logp : tensor<8x4xf32>
  %rows = shardc.reduce sum %picked dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %total = shardc.reduce sum %rows dims = [0] : (tensor<8xf32>) -> tensor<f32>
  %scale = shardc.constant dense<-0.125> : tensor<f32>
  %loss = shardc.mul %total, %scale : tensor<f32>
  return %loss : tensor<f32>
}

// Ops that read no argument being differentiated are not differentiated:
// the strided slice of %x (which has no gradient rule) only feeds w's
// gradient as a constant.
// ACTIVE-LABEL: func.func @loss_through_inactive_strided_slice_grad
// ACTIVE: [[S:%[a-z0-9]+]] = shardc.slice
// ACTIVE: shardc.constant dense<1.000000e+00> : tensor<f64>
// ACTIVE: [[DW:%[a-z0-9]+]] = shardc.mul {{.*}}[[S]]
// ACTIVE: return {{%[a-z0-9]+}}, [[DW]]
func.func @loss_through_inactive_strided_slice(%w: tensor<2xf64>, %x: tensor<4xf64>) -> tensor<f64> {
  %s = shardc.slice %x, start = [0], limit = [4], strides = [2] : (tensor<4xf64>) -> tensor<2xf64>
  %p = shardc.mul %w, %s : tensor<2xf64>
  %l = shardc.reduce sum %p dims = [0] : (tensor<2xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// The adjoint of a shard_map is a shard_map. The forward one also returns
// the values the backward body reads (tanh's result), stacked over the
// devices, so nothing is computed twice; the backward one splits the
// replicated loss's adjoint over its 2 copies, and sums the replicated
// weight's adjoint over "data".
shardc.mesh @mesh_data_2 = <["data"=2]>
// SMAP-LABEL: func.func @shard_map_loss_grad
// SMAP: [[F:%.+]]:2 = shardc.shard_map(%arg0, %arg1) {{.*}} out_shardings = [<@mesh_data_2, []>, <@mesh_data_2, [{"data"}, {}]>]
// SMAP: [[T:%.+]] = shardc.tanh
// SMAP: [[M:%.+]] = shardc.all_reduce mean
// SMAP: shardc.return [[M]], [[T]] : tensor<f32>, tensor<4x3xf32>
// SMAP: } : (tensor<8x4xf32>, tensor<4x3xf32>) -> (tensor<f32>, tensor<8x3xf32>)
// SMAP: [[ONE:%.+]] = shardc.constant dense<1.000000e+00> : tensor<f32>
// SMAP: [[G:%.+]] = shardc.shard_map(%arg0, %arg1, [[ONE]], [[F]]#1)
// SMAP-NEXT: ^bb0({{.*}}, [[CT:%.+]]: tensor<f32>, [[RES:%.+]]: tensor<4x3xf32>):
// SMAP-NOT: shardc.tanh
// SMAP: [[HALF:%.+]] = shardc.constant dense<5.000000e-01>
// SMAP: shardc.mul [[CT]], [[HALF]]
// SMAP: shardc.mul [[RES]], [[RES]]
// SMAP: [[GW:%.+]] = shardc.all_reduce sum {{.*}} on @mesh_data_2 ["data"] : tensor<4x3xf32>
// SMAP: shardc.return [[GW]]
// SMAP: return [[F]]#0, [[G]] : tensor<f32>, tensor<4x3xf32>
func.func @shard_map_loss(%x: tensor<8x4xf32>, %w: tensor<4x3xf32>) -> tensor<f32> {
  %l = shardc.shard_map (%x, %w) in_shardings = [<@mesh_data_2, [{"data"}, {}]>, <@mesh_data_2, [{}, {}]>]
         out_shardings = [<@mesh_data_2, []>] {
  ^bb0(%lx: tensor<4x4xf32>, %lw: tensor<4x3xf32>):
    %h = shardc.dot_general %lx, %lw contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %t = shardc.tanh %h : tensor<4x3xf32>
    %s = shardc.reduce sum %t dims = [0, 1] : (tensor<4x3xf32>) -> tensor<f32>
    %m = shardc.all_reduce mean %s on @mesh_data_2 ["data"] : tensor<f32>
    shardc.return %m : tensor<f32>
  } : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// A weight split over "data" and gathered where it is read (FSDP): the
// gradient of a sharding_constraint is the same constraint on the adjoint,
// as JAX transposes it, so the backward pass keeps the batch on "data" and
// the weight's gradient is summed over the batch, then cut to the weight's
// split; without it, the weight's split would spread into the activations
// through the gradient.
// CONSTRAINT-LABEL: func.func @gathered_weight_loss_grad
// CONSTRAINT: shardc.sharding_constraint %arg1 <@mesh_data_2, [{}, {}]>
// CONSTRAINT: shardc.dot_general
// CONSTRAINT: [[GW:%.+]] = shardc.dot_general %arg0, {{.*}} contracting_dims = [0] x [0]
// CONSTRAINT-NEXT: [[CW:%.+]] = shardc.sharding_constraint [[GW]] <@mesh_data_2, [{}, {}]>
// CONSTRAINT: return {{.*}}, [[CW]]
// FSDP-LABEL: func.func @gathered_weight_loss_grad
// FSDP-SAME: tensor<4x4xf32>
// FSDP-SAME: tensor<2x3xf32>
// FSDP: shardc.all_gather %arg1 on @mesh_data_2 ["data"] dim = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
// FSDP-NOT: shardc.all_to_all
// FSDP: shardc.reduce_scatter sum {{.*}} on @mesh_data_2 ["data"] dim = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
// FSDP-NEXT: return
func.func @gathered_weight_loss(
    %x: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_2, [{"data"}, {}]>},
    %w: tensor<4x3xf32> {shardc.sharding = #shardc.sharding<@mesh_data_2, [{"data"}, {}]>})
    -> tensor<f32> {
  %wg = shardc.sharding_constraint %w <@mesh_data_2, [{}, {}]> : tensor<4x3xf32>
  %h = shardc.dot_general %x, %wg contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %t = shardc.tanh %h : tensor<8x3xf32>
  %s = shardc.reduce sum %t dims = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// A linear layer with PyTorch's weight layout, w [out, in]: y = x w^T. Each
// adjoint is the product in the operand order that gives the operand's
// dimension order, so neither needs a transpose: dx = g w, dw = g^T x.
// LINEAR-LABEL: func.func @torch_linear_loss_grad
// LINEAR-NOT: shardc.transpose
// LINEAR-DAG: shardc.dot_general %{{.*}}, %arg1 contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
// LINEAR-DAG: shardc.dot_general %{{.*}}, %arg0 contracting_dims = [0] x [0] : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
// LINEAR-NOT: shardc.transpose
// LINEAR: return
func.func @torch_linear_loss(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> tensor<f32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [1]
      : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %t = shardc.tanh %y : tensor<8x32xf32>
  %s = shardc.reduce sum %t dims = [0, 1] : (tensor<8x32xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
