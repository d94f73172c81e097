// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// Meshes of four to six axes, with four or more of them on one dimension,
// padded and not. Shardings are kept as lists of axis names of any length:
// nothing in propagation or partitioning is sized by the number of axes (a
// result with four axes on one dimension once read freed memory). Each
// function also runs partitioned against unsharded on simulated devices
// (PartitionEquivalenceTest), on up to 64 of them.

shardc.mesh @m4 = <["x"=2, "y"=2, "z"=2, "w"=2]>
shardc.mesh @m5 = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2]>
shardc.mesh @m6 = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2]>

// A result split over all four axes of its mesh: one all_slice.
// CHECK-LABEL: func.func @four_axes_on_a_result
// CHECK-SAME: -> (tensor<16x1xf32> {shardc.sharding = #shardc.sharding<@m4, [{}, {"x", "y", "z", "w"}]>})
// CHECK-NEXT: shardc.all_slice %arg0 on @m4 ["x", "y", "z", "w"] dim = 1 : tensor<16x16xf32> -> tensor<16x1xf32>
// CHECK-NEXT: return
func.func @four_axes_on_a_result(%arg0: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m4, [{}, {}]>})
    -> (tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m4, [{}, {"x", "y", "z", "w"}]>}) {
  return %arg0 : tensor<16x16xf32>
}

// Five axes on one dimension reach an unannotated result through two ops.
// CHECK-LABEL: func.func @five_axes_propagated
// CHECK-SAME: -> (tensor<1x4xf32> {shardc.sharding = #shardc.sharding<@m5, [{"a", "b", "c", "d", "e"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @five_axes_propagated(%arg0: tensor<32x4xf32> {shardc.sharding = #shardc.sharding<@m5, [{"a", "b", "c", "d", "e"}, {}]>})
    -> tensor<32x4xf32> {
  %e = shardc.exp %arg0 : tensor<32x4xf32>
  %t = shardc.tanh %e : tensor<32x4xf32>
  return %t : tensor<32x4xf32>
}

// Three of six axes move from one dimension to the other: one all_to_all.
// CHECK-LABEL: func.func @six_axes_moved
// CHECK-NEXT: shardc.all_to_all %arg0 on @m6 ["d", "e", "f"] split_dim = 1 concat_dim = 0 : tensor<1x8xf32> -> tensor<8x1xf32>
// CHECK-NEXT: shardc.exp
// CHECK-NEXT: return
func.func @six_axes_moved(%arg0: tensor<64x8xf32> {shardc.sharding = #shardc.sharding<@m6, [{"a", "b", "c", "d", "e", "f"}, {}]>})
    -> (tensor<64x8xf32> {shardc.sharding = #shardc.sharding<@m6, [{"a", "b", "c"}, {"d", "e", "f"}]>}) {
  %e = shardc.exp %arg0 : tensor<64x8xf32>
  return %e : tensor<64x8xf32>
}

// 40 rows over 64 devices (padded to 64) made whole: the padding is dropped
// as soon as the rows are whole, so the last all_gather moves 40 rows, not
// 64 (1236 bytes per device where gathering the rows at once sends 1512).
// CHECK-LABEL: func.func @six_axes_padded
// CHECK-NEXT: [[T:%[0-9]+]] = shardc.all_to_all %arg0 on @m6 ["f"] split_dim = 1 concat_dim = 0 : tensor<1x6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: [[G:%[0-9]+]] = shardc.all_gather [[T]] on @m6 ["a", "b", "c", "d", "e"] dim = 0 : tensor<2x3xf32> -> tensor<64x3xf32>
// CHECK-NEXT: [[S:%[0-9]+]] = shardc.slice [[G]], start = [0, 0], limit = [40, 3]
// CHECK-NEXT: shardc.all_gather [[S]] on @m6 ["f"] dim = 1 : tensor<40x3xf32> -> tensor<40x6xf32>
func.func @six_axes_padded(%arg0: tensor<40x6xf32> {shardc.sharding = #shardc.sharding<@m6, [{"a", "b", "c", "d", "e", "f"}, {}]>, shardc.pad_uneven})
    -> (tensor<40x6xf32> {shardc.sharding = #shardc.sharding<@m6, [{}, {}]>}) {
  %e = shardc.exp %arg0 : tensor<40x6xf32>
  return %e : tensor<40x6xf32>
}

// A sum over 24 columns split over four axes in reverse mesh order (padded
// to 32): the mask is sliced by the same four axes, and the all_reduce
// names them in mesh order.
// CHECK-LABEL: func.func @four_axes_reduced
// CHECK: shardc.all_slice %{{[0-9]+}} on @m4 ["w", "z", "y", "x"] dim = 0 : tensor<32xi1> -> tensor<2xi1>
// CHECK: shardc.select
// CHECK: shardc.reduce sum
// CHECK: shardc.all_reduce sum %{{[0-9]+}} on @m4 ["x", "y", "z", "w"] : tensor<16xf32>
func.func @four_axes_reduced(%arg0: tensor<16x24xf32> {shardc.sharding = #shardc.sharding<@m4, [{}, {"w", "z", "y", "x"}]>, shardc.pad_uneven})
    -> (tensor<16xf32> {shardc.sharding = #shardc.sharding<@m4, [{}]>}) {

  %r = shardc.reduce sum %arg0 dims = [1] : (tensor<16x24xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
