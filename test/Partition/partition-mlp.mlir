// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=COUNT

// Data-parallel training of a 2-layer MLP on 4 devices: the batch is split
// over "data", the parameters are replicated. Everything per example is
// local; the only communication is the sum over the batch, once for the
// loss and once per gradient.
//
// Shapes: B = 8 examples (2 per device), D = 16 inputs, H = 32 hidden
// units, C = 4 classes (labels are drawn from [0, 4)).

shardc.mesh @mesh_4 = <["data"=4]>

// Forward pass and mean softmax cross-entropy. The row max and row sum of
// log_softmax reduce the (local) class dimension; the mean over the batch
// is the one all_reduce, on the scalar.
// CHECK-LABEL: func.func @data_parallel_mlp_loss
// CHECK-SAME: [[X:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[L:%[a-z0-9]+]]: tensor<2xi32>
// CHECK-SAME: [[W1:%[a-z0-9]+]]: tensor<16x32xf32>
// CHECK-SAME: [[B1:%[a-z0-9]+]]: tensor<32xf32>
// CHECK-SAME: [[W2:%[a-z0-9]+]]: tensor<32x4xf32>
// CHECK-SAME: [[B2:%[a-z0-9]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<f32> {shardc.sharding = #shardc.sharding<@mesh_4, []>})
// CHECK-NOT: shardc.all_
// CHECK: shardc.dot_general [[X]], [[W1]] contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x32xf32>) -> tensor<2x32xf32>
// CHECK: shardc.broadcast_in_dim [[B1]], dims = [1] : (tensor<32xf32>) -> tensor<2x32xf32>
// CHECK: [[H:%[a-z0-9]+]] = shardc.max {{.*}} : tensor<2x32xf32>
// CHECK: shardc.dot_general [[H]], [[W2]] contracting_dims = [1] x [0] : (tensor<2x32xf32>, tensor<32x4xf32>) -> tensor<2x4xf32>
// CHECK: shardc.broadcast_in_dim [[B2]], dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK: shardc.reduce max {{.*}} dims = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
// CHECK: shardc.exp {{.*}} : tensor<2x4xf32>
// CHECK: shardc.reduce sum {{.*}} dims = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
// CHECK: shardc.log {{.*}} : tensor<2xf32>
// CHECK: shardc.iota dim = 1 : tensor<2x4xi32>
// CHECK: shardc.broadcast_in_dim [[L]], dims = [0] : (tensor<2xi32>) -> tensor<2x4xi32>
// CHECK: shardc.compare eq, {{.*}} : tensor<2x4xi32>
// CHECK: [[ROWS:%[a-z0-9]+]] = shardc.reduce sum {{.*}} dims = [1] : (tensor<2x4xf32>) -> tensor<2xf32>
// CHECK-NOT: shardc.all_
// The batch sum stays partial through the scaling (linear in it) and is
// reduced once, at the result.
// CHECK: [[PART:%[a-z0-9]+]] = shardc.reduce sum [[ROWS]] dims = [0] : (tensor<2xf32>) -> tensor<f32>
// CHECK-NOT: shardc.all_
// CHECK: [[SCALED:%[a-z0-9]+]] = shardc.mul [[PART]], {{.*}} : tensor<f32>
// CHECK-NEXT: [[LOSS:%[a-z0-9]+]] = shardc.all_reduce sum [[SCALED]] on @mesh_4 ["data"] : tensor<f32>
// CHECK-NEXT: return [[LOSS]]
func.func @data_parallel_mlp_loss(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"data"}, {}]>},
    %labels: tensor<8xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"data"}]>},
    %w1: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>},
    %b1: tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>},
    %w2: tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>},
    %b2: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>})
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

// One training step's gradients, forward and backward written out. Every
// gradient contracts or reduces over the batch, so each ends with exactly
// one all_reduce over "data"; nothing else communicates.
// CHECK-LABEL: func.func @data_parallel_mlp_gradients
// CHECK-SAME: [[X:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[L:%[a-z0-9]+]]: tensor<2xi32>
// CHECK-SAME: [[W1:%[a-z0-9]+]]: tensor<16x32xf32>
// CHECK-SAME: [[B1:%[a-z0-9]+]]: tensor<32xf32>
// CHECK-SAME: [[W2:%[a-z0-9]+]]: tensor<32x4xf32>
// CHECK-SAME: [[B2:%[a-z0-9]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}, tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>}, tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}, tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>})
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: [[Z:%[a-z0-9]+]] = shardc.add {{.*}} : tensor<2x32xf32>
// CHECK: [[ZERO:%[a-z0-9]+]] = shardc.constant dense<0.000000e+00> : tensor<2x32xf32>
// CHECK: [[H:%[a-z0-9]+]] = shardc.max [[Z]], [[ZERO]] : tensor<2x32xf32>
// CHECK: [[DL:%[a-z0-9]+]] = shardc.mul {{.*}} : tensor<2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// dW2 = h^T dlogits, (H, C)
// CHECK: [[DW2P:%[a-z0-9]+]] = shardc.dot_general [[H]], [[DL]] contracting_dims = [0] x [0] : (tensor<2x32xf32>, tensor<2x4xf32>) -> tensor<32x4xf32>
// CHECK-NEXT: [[DW2:%[a-z0-9]+]] = shardc.all_reduce sum [[DW2P]] on @mesh_4 ["data"] : tensor<32x4xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// db2 = sum_b dlogits, (C)
// CHECK: [[DB2P:%[a-z0-9]+]] = shardc.reduce sum [[DL]] dims = [0] : (tensor<2x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: [[DB2:%[a-z0-9]+]] = shardc.all_reduce sum [[DB2P]] on @mesh_4 ["data"] : tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// dh = dlogits w2^T is per example; the relu mask too.
// CHECK: [[DH:%[a-z0-9]+]] = shardc.dot_general [[DL]], [[W2]] contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<32x4xf32>) -> tensor<2x32xf32>
// CHECK: [[ACT:%[a-z0-9]+]] = shardc.compare gt, [[Z]], [[ZERO]] : tensor<2x32xf32>
// CHECK: [[DZ:%[a-z0-9]+]] = shardc.select [[ACT]], [[DH]], [[ZERO]] : tensor<2x32xi1>, tensor<2x32xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// dW1 = x^T dz, (D, H)
// CHECK: [[DW1P:%[a-z0-9]+]] = shardc.dot_general [[X]], [[DZ]] contracting_dims = [0] x [0] : (tensor<2x16xf32>, tensor<2x32xf32>) -> tensor<16x32xf32>
// CHECK-NEXT: [[DW1:%[a-z0-9]+]] = shardc.all_reduce sum [[DW1P]] on @mesh_4 ["data"] : tensor<16x32xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// db1 = sum_b dz, (H)
// CHECK: [[DB1P:%[a-z0-9]+]] = shardc.reduce sum [[DZ]] dims = [0] : (tensor<2x32xf32>) -> tensor<32xf32>
// CHECK-NEXT: [[DB1:%[a-z0-9]+]] = shardc.all_reduce sum [[DB1P]] on @mesh_4 ["data"] : tensor<32xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[DW1]], [[DB1]], [[DW2]], [[DB2]]

// COUNT-LABEL: func.func @data_parallel_mlp_gradients
// COUNT-NOT: shardc.{{all_gather|all_slice|all_to_all|reduce_scatter}}
// COUNT-COUNT-4: shardc.all_reduce sum {{.*}} on @mesh_4 ["data"]
// COUNT-NOT: shardc.{{all_|reduce_scatter}}
// COUNT: return
func.func @data_parallel_mlp_gradients(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"data"}, {}]>},
    %labels: tensor<8xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"data"}]>},
    %w1: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>},
    %b1: tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>},
    %w2: tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>},
    %b2: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>})
    -> (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>) {
  // Forward, as in @data_parallel_mlp_loss.
  %xw = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %bb1 = shardc.broadcast_in_dim %b1, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
  %z = shardc.add %xw, %bb1 : tensor<8x32xf32>
  %zero = shardc.constant dense<0.0> : tensor<8x32xf32>
  %h = shardc.max %z, %zero : tensor<8x32xf32>
  %hw = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  %bb2 = shardc.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %logits = shardc.add %hw, %bb2 : tensor<8x4xf32>
  // softmax, (B, C).
  %m = shardc.reduce max %logits dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
  %shifted = shardc.sub %logits, %mb : tensor<8x4xf32>
  %e = shardc.exp %shifted : tensor<8x4xf32>
  %s = shardc.reduce sum %e dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  %sb = shardc.broadcast_in_dim %s, dims = [0] : (tensor<8xf32>) -> tensor<8x4xf32>
  %p = shardc.div %e, %sb : tensor<8x4xf32>
  %classes = shardc.iota dim = 1 : tensor<8x4xi32>
  %lb = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<8xi32>) -> tensor<8x4xi32>
  %hit = shardc.compare eq, %classes, %lb : tensor<8x4xi32>
  %onehot = shardc.convert %hit : tensor<8x4xi1> -> tensor<8x4xf32>
  // Backward of the mean cross-entropy: dlogits = (softmax - onehot) / B.
  %diff = shardc.sub %p, %onehot : tensor<8x4xf32>
  %inv_b = shardc.constant dense<0.125> : tensor<8x4xf32>
  %dlogits = shardc.mul %diff, %inv_b : tensor<8x4xf32>
  // Second layer.
  %dw2 = shardc.dot_general %h, %dlogits contracting_dims = [0] x [0]
      : (tensor<8x32xf32>, tensor<8x4xf32>) -> tensor<32x4xf32>
  %db2 = shardc.reduce sum %dlogits dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
  // Through the relu into the first layer.
  %dh = shardc.dot_general %dlogits, %w2 contracting_dims = [1] x [1]
      : (tensor<8x4xf32>, tensor<32x4xf32>) -> tensor<8x32xf32>
  %active = shardc.compare gt, %z, %zero : tensor<8x32xf32>
  %dz = shardc.select %active, %dh, %zero : tensor<8x32xi1>, tensor<8x32xf32>
  %dw1 = shardc.dot_general %x, %dz contracting_dims = [0] x [0]
      : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  %db1 = shardc.reduce sum %dz dims = [0] : (tensor<8x32xf32>) -> tensor<32xf32>
  return %dw1, %db1, %dw2, %db2 : tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
}
