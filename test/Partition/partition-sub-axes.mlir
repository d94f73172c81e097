// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc explain %s --entry contract_over_a_sub_axis | FileCheck %s --check-prefix=EXPLAIN

// Sub-axes (Shardy's "a":(pre)size, one factor of a mesh axis): written in
// shardings, made by propagation where a reshape splits an axis over two
// factors, and used by the collectives (named "a:(pre)size" in their axes).
// Adjacent factors of one axis merge back ("a":(1)2, "a":(2)2 is "a"), and
// the reshard planner works over the finest factors either layout names.
// Each function also runs partitioned against unsharded on simulated
// devices (PartitionEquivalenceTest).

shardc.mesh @mesh_4 = <["a"=4]>
shardc.mesh @mesh_2x4 = <["b"=2, "a"=4]>

// Made whole: one all_gather per sub-axis.
// CHECK-LABEL: func.func @split_by_sub_axes
// CHECK-SAME: tensor<2x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a":(1)2}, {"a":(2)2}]>}
// CHECK: [[G:%[0-9]+]] = shardc.all_gather %arg0 on @mesh_4 ["a:(1)2"] dim = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK: shardc.all_gather [[G]] on @mesh_4 ["a:(2)2"] dim = 1 : tensor<4x3xf32> -> tensor<4x6xf32>
func.func @split_by_sub_axes(
    %x: tensor<4x6xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a":(1)2}, {"a":(2)2}]>})
    -> (tensor<4x6xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}) {
  %e = shardc.exp %x : tensor<4x6xf32>
  return %e : tensor<4x6xf32>
}

// Merged by a reshape, the two halves of "a" are "a": no data moves.
// CHECK-LABEL: func.func @reshape_merges_sub_axes
// CHECK-NOT: shardc.all_
// CHECK: shardc.reshape %arg0 : (tensor<1x1x3xf32>) -> tensor<1x3xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @reshape_merges_sub_axes(
    %x: tensor<2x2x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a":(1)2}, {"a":(2)2}, {}]>})
    -> (tensor<4x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a"}, {}]>}) {
  %r = shardc.reshape %x : (tensor<2x2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// Split by a reshape into factors 2 and 2, "a" (4) becomes "a":(1)2 on the
// first and "a":(2)2 on the second, as in Shardy: no data moves.
// CHECK-LABEL: func.func @reshape_splits_an_axis
// CHECK-SAME: -> (tensor<1x1x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a":(1)2}, {"a":(2)2}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @reshape_splits_an_axis(
    %x: tensor<4x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a"}, {}]>})
    -> tensor<2x2x3xf32> {
  %r = shardc.reshape %x : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
  %e = shardc.exp %r : tensor<2x2x3xf32>
  return %e : tensor<2x2x3xf32>
}

// A contraction over a dimension split by the minor half of "a": the
// partial sums are reduced over that half only (groups of 2).
// EXPLAIN: all_reduce sum over ["a":(2)2] (groups of 2): tensor<8x6xf32> -> tensor<8x6xf32>
// EXPLAIN-NEXT: why: partial results of shardc.dot_general at {{.*}}, whose contracting dimensions are sharded (dim 1 of operand #0 over [{"a":(2)2}])
// EXPLAIN-NEXT: sends 192 bytes per device
// CHECK-LABEL: func.func @contract_over_a_sub_axis
// CHECK: [[P:%[0-9]+]] = shardc.dot_general %arg0, %arg1 {{.*}} : (tensor<8x2xf32>, tensor<2x6xf32>) -> tensor<8x6xf32>
// CHECK: shardc.all_reduce sum [[P]] on @mesh_4 ["a:(2)2"] : tensor<8x6xf32>
func.func @contract_over_a_sub_axis(
    %x: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"a":(2)2}]>},
    %w: tensor<4x6xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"a":(2)2}, {}]>})
    -> tensor<8x6xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}

// Sub-axes of "a" on one operand, the whole of "a" on the other: the minor
// half moves to the rows with one all_to_all, where the two halves make "a".
// CHECK-LABEL: func.func @sub_axes_meet_the_whole_axis
// CHECK: [[T:%[0-9]+]] = shardc.all_to_all %arg0 on @mesh_2x4 ["a:(2)2"] split_dim = 0 concat_dim = 1 : tensor<2x2xf32> -> tensor<1x4xf32>
// CHECK: [[S:%[0-9]+]] = shardc.all_slice %arg1 on @mesh_2x4 ["b"] dim = 1 : tensor<1x8xf32> -> tensor<1x4xf32>
// CHECK: shardc.add [[T]], [[S]] : tensor<1x4xf32>
func.func @sub_axes_meet_the_whole_axis(
    %x: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"a":(1)2}, {"b", "a":(2)2}]>},
    %y: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"a"}, {}]>})
    -> (tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"a"}, {"b"}]>}) {
  %s = shardc.add %x, %y : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
