// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// dynamic_slice and dynamic_update_slice: a dimension the box covers whole
// may be split (each device takes or writes its own block, the clamped
// index is 0 there); a dimension indexed at run time stays whole.

shardc.mesh @mesh = <["data"=2, "model"=2]>

// A key cache split over heads on "model" and over batch on "data": the
// update of one position and the attention scores against the cache need
// no collective.
// CHECK-LABEL: func.func @cache_update
// CHECK-SAME: ([[K:%[a-z0-9]+]]: tensor<1x2x16x8xf32> {shardc.donated, shardc.sharding
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<1x2x1x8xf32> {{.*}}, [[KT:%[a-z0-9]+]]: tensor<1x2x1x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[K2:%.+]] = shardc.dynamic_update_slice [[K]], [[KT]] {{.*}} -> tensor<1x2x16x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: shardc.dot_general {{.*}}[[K2]] {{.*}} -> tensor<1x2x1x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @cache_update(
    %k: tensor<2x4x16x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {"model"}, {}, {}]>, shardc.donated},
    %q: tensor<2x4x1x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {"model"}, {}, {}]>},
    %kt: tensor<2x4x1x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {"model"}, {}, {}]>},
    %pos: tensor<i32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x1x16xf32>) {
  %zero = shardc.constant dense<0> : tensor<i32>
  %k2 = shardc.dynamic_update_slice %k, %kt [%zero, %zero, %pos, %zero]
      : (tensor<2x4x16x8xf32>, tensor<2x4x1x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>,
         tensor<i32>) -> tensor<2x4x16x8xf32>
  %s = shardc.dot_general %q, %k2 batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3]
      : (tensor<2x4x1x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x1x16xf32>
  return %k2, %s : tensor<2x4x16x8xf32>, tensor<2x4x1x16xf32>
}

// A row of a column-split table: each device slices its own columns.
// CHECK-LABEL: func.func @position_row
// CHECK-SAME: tensor<16x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: shardc.dynamic_slice {{.*}} : (tensor<16x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @position_row(
    %emb: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{}, {"model"}]>},
    %pos: tensor<i32>) -> tensor<1x8xf32> {
  %zero = shardc.constant dense<0> : tensor<i32>
  %row = shardc.dynamic_slice %emb [%pos, %zero]
      : (tensor<16x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
  return %row : tensor<1x8xf32>
}

// The indexed dimension is split, and must be whole since the offset is
// known only at run time: the split moves to the columns (an all_to_all,
// 128 bytes per device) and the one row is gathered after (16), where
// gathering the table would send 256.
// CHECK-LABEL: func.func @split_indexed_dim
// CHECK: [[T:%.+]] = shardc.all_to_all %{{.*}} on @mesh ["model"] split_dim = 1 concat_dim = 0 : tensor<8x8xf32> -> tensor<16x4xf32>
// CHECK: [[R:%.+]] = shardc.dynamic_slice [[T]] {{.*}} -> tensor<1x4xf32>
// CHECK: shardc.all_gather [[R]] on @mesh ["model"] dim = 1 : tensor<1x4xf32> -> tensor<1x8xf32>
func.func @split_indexed_dim(
    %emb: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"model"}, {}]>},
    %pos: tensor<i32>) -> tensor<1x8xf32> {
  %zero = shardc.constant dense<0> : tensor<i32>
  %row = shardc.dynamic_slice %emb [%pos, %zero]
      : (tensor<16x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
  return %row : tensor<1x8xf32>
}

// An update of a split dimension it covers whole, at a run-time row.
// CHECK-LABEL: func.func @update_rows
// CHECK-SAME: tensor<16x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: shardc.dynamic_update_slice {{.*}} -> tensor<16x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @update_rows(
    %x: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{}, {"model"}]>},
    %u: tensor<2x8xf32>, %pos: tensor<i64>) -> tensor<16x8xf32> {
  %zero = shardc.constant dense<0> : tensor<i64>
  %y = shardc.dynamic_update_slice %x, %u [%pos, %zero]
      : (tensor<16x8xf32>, tensor<2x8xf32>, tensor<i64>, tensor<i64>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}
