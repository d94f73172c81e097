// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// Megatron-style MLP: the first weight is split by columns and the second by
// rows over "model". The hidden activations stay split by columns, and the
// only communication of the forward pass is one all_reduce of the output.

shardc.mesh @mesh_4 = <["model"=4]>

// CHECK-LABEL: func.func @megatron_mlp
// CHECK-SAME: [[X:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: [[W1:%[a-z0-9]+]]: tensor<16x8xf32>
// CHECK-SAME: [[W2:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: shardc.partitioned = @mesh_4
// CHECK: [[H:%[a-z0-9]+]] = shardc.dot_general [[X]], [[W1]] {{.*}} -> tensor<8x8xf32>
// CHECK: [[R:%[a-z0-9]+]] = shardc.max [[H]], {{.*}} : tensor<8x8xf32>
// CHECK: [[Y:%[a-z0-9]+]] = shardc.dot_general [[R]], [[W2]] {{.*}} -> tensor<8x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[Y]] on @mesh_4 ["model"] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @megatron_mlp(%x: tensor<8x16xf32>,
    %w1: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"model"}]>},
    %w2: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"model"}, {}]>})
    -> tensor<8x16xf32> {
  %h = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %z = shardc.constant dense<0.0> : tensor<8x32xf32>
  %r = shardc.max %h, %z : tensor<8x32xf32>
  %y = shardc.dot_general %r, %w2 contracting_dims = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
