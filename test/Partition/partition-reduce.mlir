// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// reduce over sharded and unsharded dimensions. Reducing a dimension that
// is whole on each device needs no communication; reducing a sharded one
// leaves partial results, combined with the reduction's own kind (sum, max,
// min) over the dimension's axes.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @sum_over_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: -> (tensor<8xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_4 ["x"] : tensor<8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @sum_over_sharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<8xf32> {
  %s = shardc.reduce sum %a dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// CHECK-LABEL: func.func @sum_over_unsharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<2xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[S:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<2x16xf32>) -> tensor<2xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[S]]
func.func @sum_over_unsharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8xf32> {
  %s = shardc.reduce sum %a dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// CHECK-LABEL: func.func @max_over_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce max [[A]] dims = [0] : (tensor<2x16xf32>) -> tensor<16xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.all_reduce max [[P]] on @mesh_4 ["x"] : tensor<16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @max_over_sharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<16xf32> {
  %s = shardc.reduce max %a dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// CHECK-LABEL: func.func @min_over_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce min [[A]] dims = [0] : (tensor<2x16xf32>) -> tensor<16xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.all_reduce min [[P]] on @mesh_4 ["x"] : tensor<16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @min_over_sharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<16xf32> {
  %s = shardc.reduce min %a dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// CHECK-LABEL: func.func @max_over_unsharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: -> (tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[M:%[a-z0-9]+]] = shardc.reduce max [[A]] dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @max_over_unsharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<16xf32> {
  %s = shardc.reduce max %a dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// CHECK-LABEL: func.func @min_over_unsharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: -> (tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[M:%[a-z0-9]+]] = shardc.reduce min [[A]] dims = [0] : (tensor<8x4xf32>) -> tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @min_over_unsharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<16xf32> {
  %s = shardc.reduce min %a dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// Both dimensions reduced, each split over one axis: one all_reduce over
// both axes gives the scalar.
// CHECK-LABEL: func.func @sum_all_dims_2d_mesh
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<f32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [0, 1] : (tensor<4x4xf32>) -> tensor<f32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["data", "model"] : tensor<f32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @sum_all_dims_2d_mesh(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> tensor<f32> {
  %s = shardc.reduce sum %a dims = [0, 1] : (tensor<8x16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// Only the reduced dimension's axis is combined; the kept one stays split.
// CHECK-LABEL: func.func @sum_one_of_two_sharded_dims
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["model"] : tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @sum_one_of_two_sharded_dims(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> tensor<8xf32> {
  %s = shardc.reduce sum %a dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// CHECK-LABEL: func.func @sum_middle_dim_rank3
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x2x16xf32>
// CHECK-SAME: -> (tensor<2x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<2x2x16xf32>) -> tensor<2x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["model"] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @sum_middle_dim_rank3(
    %a: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}, {}]>})
    -> tensor<4x16xf32> {
  %s = shardc.reduce sum %a dims = [1] : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// The result is wanted split over the axis the reduced dimension had: a
// reduce_scatter instead of an all_reduce.
// CHECK-LABEL: func.func @sum_reduce_scatter
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: -> (tensor<2xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.reduce_scatter sum [[P]] on @mesh_4 ["x"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @sum_reduce_scatter(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> (tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>}) {
  %s = shardc.reduce sum %a dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// CHECK-LABEL: func.func @max_reduce_scatter
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce max [[A]] dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.reduce_scatter max [[P]] on @mesh_4 ["x"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @max_reduce_scatter(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> (tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>}) {
  %s = shardc.reduce max %a dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// Integer sums combine exactly.
// CHECK-LABEL: func.func @integer_sum_over_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x4xi32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [0] : (tensor<2x4xi32>) -> tensor<4xi32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_4 ["x"] : tensor<4xi32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @integer_sum_over_sharded_dim(
    %a: tensor<8x4xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<4xi32> {
  %s = shardc.reduce sum %a dims = [0] : (tensor<8x4xi32>) -> tensor<4xi32>
  return %s : tensor<4xi32>
}
