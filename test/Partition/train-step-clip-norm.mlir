// RUN: shardc-opt %s --shardc-train-step="function=megatron_mlp_loss wrt=1,2,3 clip-norm=0.5" | FileCheck %s
// RUN: shardc-opt %s --shardc-train-step="function=megatron_mlp_loss wrt=1,2,3" | FileCheck %s --check-prefix=OFF
// RUN: shardc-opt %s --shardc-train-step="function=megatron_mlp_loss wrt=1,2,3 clip-norm=0.5" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=TP
// RUN: shardc-opt %s --shardc-train-step="function=megatron_mlp_loss wrt=1,2,3 optimizer=adamw clip-norm=0.5 shard-state-over=data" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=ZERO
// RUN: not shardc-opt %s --shardc-train-step="function=megatron_mlp_loss clip-norm=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// Global gradient-norm clipping (clip-norm, like torch's clip_grad_norm_) in
// a data- and tensor-parallel SGD step on a 2x2 mesh: w1 is split by columns
// and w2 by rows over "model", b2 is replicated, the batch is split over
// "data".

shardc.mesh @mesh_2x2 = <["data"=2, "model"=2]>

// One f32 norm over all three gradients; each gradient is scaled by
// min(1, 0.5 / (norm + 1e-6)) before the update reads it.
// CHECK-LABEL: func.func @megatron_mlp_loss_train_step(
// CHECK: [[SQ1:%.+]] = shardc.mul [[G1:%[0-9]+]], [[G1]] : tensor<16x8xf32>
// CHECK: [[S1:%.+]] = shardc.reduce sum [[SQ1]] dims = [0, 1] : (tensor<16x8xf32>) -> tensor<f32>
// CHECK: [[SQ2:%.+]] = shardc.mul [[G2:%[0-9]+]], [[G2]] : tensor<8x4xf32>
// CHECK: [[S2:%.+]] = shardc.reduce sum [[SQ2]] dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
// CHECK: [[T2:%.+]] = shardc.add [[S1]], [[S2]] : tensor<f32>
// CHECK: [[SQ3:%.+]] = shardc.mul [[G3:%[0-9]+]], [[G3]] : tensor<4xf32>
// CHECK: [[S3:%.+]] = shardc.reduce sum [[SQ3]] dims = [0] : (tensor<4xf32>) -> tensor<f32>
// CHECK: [[T3:%.+]] = shardc.add [[T2]], [[S3]] : tensor<f32>
// CHECK: [[NORM:%.+]] = shardc.sqrt [[T3]] : tensor<f32>
// CHECK: [[EPS:%.+]] = shardc.constant dense<9.99999997E-7> : tensor<f32>
// CHECK: [[DEN:%.+]] = shardc.add [[NORM]], [[EPS]] : tensor<f32>
// CHECK: [[MAX:%.+]] = shardc.constant dense<5.000000e-01> : tensor<f32>
// CHECK: [[RATIO:%.+]] = shardc.div [[MAX]], [[DEN]] : tensor<f32>
// CHECK: [[ONE:%.+]] = shardc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: [[SCALE:%.+]] = shardc.min [[ONE]], [[RATIO]] : tensor<f32>
// CHECK: [[B1:%.+]] = shardc.broadcast_in_dim [[SCALE]], dims = [] : (tensor<f32>) -> tensor<16x8xf32>
// CHECK: [[C1:%.+]] = shardc.mul [[G1]], [[B1]] : tensor<16x8xf32>
// CHECK: [[B2:%.+]] = shardc.broadcast_in_dim [[SCALE]], dims = [] : (tensor<f32>) -> tensor<8x4xf32>
// CHECK: [[C2:%.+]] = shardc.mul [[G2]], [[B2]] : tensor<8x4xf32>
// CHECK: [[B3:%.+]] = shardc.broadcast_in_dim [[SCALE]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK: [[C3:%.+]] = shardc.mul [[G3]], [[B3]] : tensor<4xf32>
// CHECK: [[V1:%.+]] = shardc.add {{%.+}}, [[C1]] : tensor<16x8xf32>
// CHECK: [[V2:%.+]] = shardc.add {{%.+}}, [[C2]] : tensor<8x4xf32>
// CHECK: [[V3:%.+]] = shardc.add {{%.+}}, [[C3]] : tensor<4xf32>
// CHECK: return {{.*}}, [[V1]], [[V2]], [[V3]] :

// Off by default: no norm is computed.
// OFF-LABEL: func.func @megatron_mlp_loss_train_step(
// OFF-NOT: shardc.sqrt
// OFF-NOT: shardc.min
// OFF: return

// Partitioned, each gradient keeps its all_reduce over "data"; the squares
// of w1's and w2's gradients, split over "model", are summed on each device,
// and their sum, partial over "model", is all-reduced once as one scalar;
// b2's is already whole.
// TP-LABEL: func.func @megatron_mlp_loss_train_step(
// TP: [[G1:%.+]] = shardc.all_reduce sum {{%.+}} on @mesh_2x2 ["data"] : tensor<16x4xf32>
// TP-NEXT: [[SQ1:%.+]] = shardc.mul [[G1]], [[G1]] : tensor<16x4xf32>
// TP-NEXT: [[S1:%.+]] = shardc.reduce sum [[SQ1]] dims = [0, 1] : (tensor<16x4xf32>) -> tensor<f32>
// TP-NEXT: [[G2:%.+]] = shardc.all_reduce sum {{%.+}} on @mesh_2x2 ["data"] : tensor<4x4xf32>
// TP-NEXT: [[SQ2:%.+]] = shardc.mul [[G2]], [[G2]] : tensor<4x4xf32>
// TP-NEXT: [[S2:%.+]] = shardc.reduce sum [[SQ2]] dims = [0, 1] : (tensor<4x4xf32>) -> tensor<f32>
// TP-NEXT: [[S12:%.+]] = shardc.add [[S1]], [[S2]] : tensor<f32>
// TP-NEXT: shardc.all_reduce sum {{%.+}} on @mesh_2x2 ["data"] : tensor<4xf32>
// TP-NOT: shardc.all_
// TP: shardc.all_reduce sum [[S12]] on @mesh_2x2 ["model"] : tensor<f32>
// TP-NOT: shardc.all_
// TP: shardc.sqrt {{.*}} : tensor<f32>
// TP-NOT: shardc.all_
// TP: return

// With shard-state-over=data, the gradients stay reduce-scattered: each
// device sums the squares of its blocks; the sums partial over both axes
// (w1's and w2's) are added before their one scalar all_reduce, b2's is
// all-reduced over "data".
// ZERO-LABEL: func.func @megatron_mlp_loss_train_step(
// ZERO-COUNT-3: shardc.reduce_scatter sum
// ZERO-NOT: shardc.all_reduce {{.*}} : tensor<{{[0-9]}}
// ZERO: shardc.all_reduce sum {{.*}} on @mesh_2x2 ["data", "model"] : tensor<f32>
// ZERO-NEXT: shardc.all_reduce sum {{.*}} on @mesh_2x2 ["data"] : tensor<f32>
// ZERO-NOT: shardc.all_reduce
// ZERO: shardc.min {{.*}} : tensor<f32>
// ZERO-COUNT-3: shardc.all_slice
// ZERO-COUNT-3: shardc.all_gather
// ZERO-NOT: shardc.all_
// ZERO: return

// NEGATIVE: error: clip-norm must be a finite number >= 0 (0: no clipping), got -1
func.func @megatron_mlp_loss(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}]>},
    %w1: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}, {"model"}]>},
    %w2: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"model"}, {}]>},
    %b2: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}]>})
    -> tensor<f32> {
  // relu(x w1) w2 + b2, (B, 4).
  %h = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %z = shardc.constant dense<0.0> : tensor<8x8xf32>
  %r = shardc.max %h, %z : tensor<8x8xf32>
  %y = shardc.dot_general %r, %w2 contracting_dims = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %bb = shardc.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %o = shardc.add %y, %bb : tensor<8x4xf32>
  // Mean square over the batch, ().
  %sq = shardc.mul %o, %o : tensor<8x4xf32>
  %s = shardc.reduce sum %sq dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  %k = shardc.constant dense<0.125> : tensor<f32>
  %l = shardc.mul %s, %k : tensor<f32>
  return %l : tensor<f32>
}
