// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// argmax keeps the dimension it searches whole: a device's best index in
// its block is not the global one, so a split there is undone first; the
// other dimensions pass through as they are split. Each function also
// runs partitioned against unsharded on simulated devices
// (PartitionEquivalenceTest).

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// Rows split: each device finds the best column of its rows.
// CHECK-LABEL: func.func @rows_split
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<2xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[I:%[a-z0-9]+]] = shardc.argmax [[A]] dim = 1 : (tensor<2x16xf32>) -> tensor<2xi32>
// CHECK-NOT: shardc.all_
// CHECK: return [[I]]
func.func @rows_split(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8xi32> {
  %i = shardc.argmax %a dim = 1 : (tensor<8x16xf32>) -> tensor<8xi32>
  return %i : tensor<8xi32>
}

// The searched dimension split (a vocabulary split over "x"): rather than
// gather the whole matrix on every device, one all_to_all moves the split
// to the rows (each device then holds whole rows), and the small i32
// result is gathered.
// CHECK-LABEL: func.func @searched_dim_split
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_4 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK: [[I:%[a-z0-9]+]] = shardc.argmax [[T]] dim = 1 : (tensor<2x16xf32>) -> tensor<2xi32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[I]] on @mesh_4 ["x"] dim = 0 : tensor<2xi32> -> tensor<8xi32>
// CHECK: return [[G]]
func.func @searched_dim_split(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<8xi32> {
  %i = shardc.argmax %a dim = 1 : (tensor<8x16xf32>) -> tensor<8xi32>
  return %i : tensor<8xi32>
}

// Both: the batch stays split over "data" through the argmax, the logits'
// columns split over "model" are gathered.
// CHECK-LABEL: func.func @logits_of_a_batch
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x64xf32>
// CHECK-SAME: -> (tensor<4xi32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>})
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_2x4 ["model"] dim = 1 : tensor<4x64xf32> -> tensor<4x256xf32>
// CHECK: [[I:%[a-z0-9]+]] = shardc.argmax [[G]] dim = 1 : (tensor<4x256xf32>) -> tensor<4xi32>
// CHECK: return [[I]]
func.func @logits_of_a_batch(
    %a: tensor<8x256xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> tensor<8xi32> {
  %i = shardc.argmax %a dim = 1 : (tensor<8x256xf32>) -> tensor<8xi32>
  return %i : tensor<8xi32>
}

// A 3-D operand searched along its middle dimension, split along the
// others; the result keeps both splits.
// CHECK-LABEL: func.func @middle_dim
// CHECK-SAME: -> (tensor<2x3xi32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
// CHECK-NOT: shardc.all_
// CHECK: shardc.argmax %{{.*}} dim = 1 : (tensor<2x5x3xf32>) -> tensor<2x3xi32>
func.func @middle_dim(
    %a: tensor<4x5x12xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}, {"model"}]>})
    -> tensor<4x12xi32> {
  %i = shardc.argmax %a dim = 1 : (tensor<4x5x12xf32>) -> tensor<4x12xi32>
  return %i : tensor<4x12xi32>
}
