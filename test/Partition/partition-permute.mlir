// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc explain %s --entry axis_swap | FileCheck %s --check-prefix=EXPLAIN
// RUN: shardc explain %s --entry multi_axis_all_to_all | FileCheck %s --check-prefix=EXPLAIN-A2A

// Reshards that keep every dimension's number of blocks are one
// collective_permute: each device sends its value once, where gathering and
// slicing would send the group's. Dimensions that can be split by axes no
// dimension holds yet are split first, so what moves after is smaller.

shardc.mesh @mesh_2x2 = <["a"=2, "b"=2]>
shardc.mesh @mesh_2x2x2 = <["x"=2, "y"=2, "z"=2]>

// Rows over "a" to rows over "b": the device at (a=i, b=j) needs block j,
// held by the device at (a=j, b=i).
// CHECK-LABEL: func.func @axis_swap
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-NEXT: [[P:%[0-9]+]] = shardc.collective_permute [[A]] on @mesh_2x2 ["a", "b"] sources = [0, 2, 1, 3] : tensor<4x4xf32>
// CHECK-NEXT: shardc.neg [[P]]
// CHECK-NOT: shardc.all_
// CHECK: return
// EXPLAIN: collective_permute over ["a", "b"] (groups of 4) sources [0, 2, 1, 3]: tensor<4x4xf32> -> tensor<4x4xf32>
// EXPLAIN-NEXT: why: reshard operand #0 of shardc.sharding_constraint at {{.*}}: [{"a"}, {}] -> [{"b"}, {}]
// EXPLAIN-NEXT: sends 64 bytes per device
// EXPLAIN: Total: 1 collective, 64 bytes sent per device
func.func @axis_swap(
    %x: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"a"}, {}]>})
    -> tensor<8x4xf32> {
  %c = shardc.sharding_constraint %x <@mesh_2x2, [{"b"}, {}]> : tensor<8x4xf32>
  %n = shardc.neg %c : tensor<8x4xf32>
  return %n : tensor<8x4xf32>
}

// A reorder of a dimension's axes: x major then y, to y major then x.
// CHECK-LABEL: func.func @axis_reorder
// CHECK: [[P:%[0-9]+]] = shardc.collective_permute {{%[a-z0-9]+}} on @mesh_2x2x2 ["x", "y"] sources = [0, 2, 1, 3] : tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @axis_reorder(
    %x: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"x", "y"}, {"z"}]>})
    -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"y", "x"}, {"z"}]>}) {
  %n = shardc.neg %x : tensor<16x8xf32>
  return %n : tensor<16x8xf32>
}

// Rows over "x" to columns over "y": the columns are split first (local),
// then the rows gathered, a quarter of what gathering first would send.
// CHECK-LABEL: func.func @slice_before_gather
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x8xf32>
// CHECK-NEXT: [[S:%[0-9]+]] = shardc.all_slice [[A]] on @mesh_2x2 ["b"] dim = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: [[G:%[0-9]+]] = shardc.all_gather [[S]] on @mesh_2x2 ["a"] dim = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @slice_before_gather(
    %x: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"a"}, {}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}, {"b"}]>}) {
  %n = shardc.neg %x : tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}

// Both: columns split over "z" (local), then rows moved from "x" to "y".
// CHECK-LABEL: func.func @slice_then_permute
// CHECK-NEXT: [[S:%[0-9]+]] = shardc.all_slice {{%[a-z0-9]+}} on @mesh_2x2x2 ["z"] dim = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: shardc.collective_permute [[S]] on @mesh_2x2x2 ["x", "y"] sources = [0, 2, 1, 3] : tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @slice_then_permute(
    %x: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"x"}, {}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"y"}, {"z"}]>}) {
  %n = shardc.neg %x : tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}

// The minor axes of one dimension moving to another together: one
// all_to_all over both, where moving them one at a time cannot start (the
// target takes "y" first, but "z" is the minor one).
// EXPLAIN-A2A: all_to_all over ["y", "z"] (groups of 4) from dim 2 to dim 1: tensor<8x8x2xf32> -> tensor<8x2x8xf32>
// EXPLAIN-A2A: sends 384 bytes per device
// EXPLAIN-A2A: Total: 1 collective, 384 bytes sent per device
// CHECK-LABEL: func.func @multi_axis_all_to_all
// CHECK-NEXT: [[T:%[0-9]+]] = shardc.all_to_all {{%[a-z0-9]+}} on @mesh_2x2x2 ["y", "z"] split_dim = 1 concat_dim = 2 : tensor<8x8x2xf32> -> tensor<8x2x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @multi_axis_all_to_all(
    %x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"x"}, {}, {"y", "z"}]>})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"x"}, {"y", "z"}, {}]>}) {
  %n = shardc.neg %x : tensor<16x8x8xf32>
  return %n : tensor<16x8x8xf32>
}
