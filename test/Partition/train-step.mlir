// RUN: shardc-opt %s --shardc-train-step="function=data_parallel_mlp_loss wrt=2,3,4,5 optimizer=adamw weight-decay=0.01" --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc-opt %s --shardc-train-step="function=data_parallel_mlp_loss wrt=2,3,4,5 optimizer=adamw weight-decay=0.01 shard-state-over=data" | FileCheck %s --check-prefix=ZERO-SIG
// RUN: shardc-opt %s --shardc-train-step="function=data_parallel_mlp_loss wrt=2,3,4,5 optimizer=adamw weight-decay=0.01 shard-state-over=data" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=ZERO
// RUN: not shardc-opt %s --shardc-train-step="function=data_parallel_mlp_loss shard-state-over=model" 2>&1 | FileCheck %s --check-prefix=NOAXIS

// A whole data-parallel training step (forward, backward, AdamW) on 4
// devices: the optimizer state follows its replicated parameter, so the
// update adds no communication: the step's only collectives are the loss's
// and the four gradients' all_reduces.

shardc.mesh @mesh_data_4 = <["data"=4]>

// With shard-state-over=data, each parameter's state is split over "data"
// along dimension 0 and so is its update (weight-update sharding, ZeRO-1):
// each gradient is reduce-scattered, each device updates its block of the
// parameter (its all_slice needs no communication), and the new parameter
// is all-gathered. The loss keeps its all_reduce. (With a batch of 64 the
// weight gradients' reduce_scatter sends less than gathering the
// activations along the batch; on a batch smaller than the features the
// planner would gather instead.)
// ZERO-SIG-LABEL: func.func @data_parallel_mlp_loss_train_step(
// ZERO-SIG-SAME: %arg2: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>}
// ZERO-SIG-SAME: {shardc.name = "arg2.m", shardc.sharding = #shardc.sharding<@mesh_data_4, [{"data"}, {}]>}
// ZERO-SIG-SAME: {shardc.name = "arg5.v", shardc.sharding = #shardc.sharding<@mesh_data_4, [{"data"}]>}
// ZERO-SIG-SAME: -> (tensor<f32>, tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>}
// ZERO-SIG: shardc.sharding_constraint
// ZERO-LABEL: func.func @data_parallel_mlp_loss_train_step(
// ZERO-COUNT-1: shardc.all_reduce sum {{.*}} : tensor<f32>
// ZERO-NOT: shardc.all_reduce
// ZERO-COUNT-4: shardc.reduce_scatter sum
// ZERO-NOT: shardc.all_reduce
// ZERO-COUNT-4: shardc.all_slice
// ZERO: shardc.sqrt
// ZERO-COUNT-4: shardc.all_gather {{.*}} on @mesh_data_4 ["data"] dim = 0
// ZERO-NOT: shardc.all_
// ZERO: return
// NOAXIS: error: shard-state-over: the function's mesh has no axis 'model'

// CHECK-LABEL: func.func @data_parallel_mlp_loss_train_step(
// CHECK-SAME: {shardc.name = "arg2.m", shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>}
// CHECK-SAME: {shardc.name = "lr", shardc.sharding = #shardc.sharding<@mesh_data_4, []>}
// CHECK-NOT: shardc.{{all_gather|all_slice|all_to_all|reduce_scatter}}
// CHECK-COUNT-5: shardc.all_reduce sum {{.*}} on @mesh_data_4 ["data"]
// CHECK-NOT: shardc.{{all_|reduce_scatter}}
// CHECK: shardc.sqrt
// CHECK-NOT: shardc.{{all_|reduce_scatter}}
// CHECK: return
func.func @data_parallel_mlp_loss(
    %x: tensor<64x16xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{"data"}, {}]>},
    %labels: tensor<64xi32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{"data"}]>},
    %w1: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>},
    %b1: tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}]>},
    %w2: tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}, {}]>},
    %b2: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_data_4, [{}]>})
    -> tensor<f32> {
  // Hidden layer: relu(x w1 + b1), (B, H).
  %xw = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %bb1 = shardc.broadcast_in_dim %b1, dims = [1] : (tensor<32xf32>) -> tensor<64x32xf32>
  %z = shardc.add %xw, %bb1 : tensor<64x32xf32>
  %zero = shardc.constant dense<0.0> : tensor<64x32xf32>
  %h = shardc.max %z, %zero : tensor<64x32xf32>
  // Logits, (B, C).
  %hw = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
      : (tensor<64x32xf32>, tensor<32x4xf32>) -> tensor<64x4xf32>
  %bb2 = shardc.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<64x4xf32>
  %logits = shardc.add %hw, %bb2 : tensor<64x4xf32>
  // log_softmax with the row max subtracted, (B, C).
  %m = shardc.reduce max %logits dims = [1] : (tensor<64x4xf32>) -> tensor<64xf32>
  %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x4xf32>
  %shifted = shardc.sub %logits, %mb : tensor<64x4xf32>
  %e = shardc.exp %shifted : tensor<64x4xf32>
  %s = shardc.reduce sum %e dims = [1] : (tensor<64x4xf32>) -> tensor<64xf32>
  %lse = shardc.log %s : tensor<64xf32>
  %lseb = shardc.broadcast_in_dim %lse, dims = [0] : (tensor<64xf32>) -> tensor<64x4xf32>
  %logp = shardc.sub %shifted, %lseb : tensor<64x4xf32>
  // One-hot labels, (B, C).
  %classes = shardc.iota dim = 1 : tensor<64x4xi32>
  %lb = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<64xi32>) -> tensor<64x4xi32>
  %hit = shardc.compare eq, %classes, %lb : tensor<64x4xi32>
  %onehot = shardc.convert %hit : tensor<64x4xi1> -> tensor<64x4xf32>
  // Mean negative log-likelihood, ().
  %picked = shardc.mul %onehot, %logp : tensor<64x4xf32>
  %rows = shardc.reduce sum %picked dims = [1] : (tensor<64x4xf32>) -> tensor<64xf32>
  %total = shardc.reduce sum %rows dims = [0] : (tensor<64xf32>) -> tensor<f32>
  %scale = shardc.constant dense<-0.015625> : tensor<f32>
  %loss = shardc.mul %total, %scale : tensor<f32>
  return %loss : tensor<f32>
}
