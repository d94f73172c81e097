// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc explain %s --entry slice_then_gather | FileCheck %s --check-prefix=EXPLAIN
// RUN: shardc explain %s --entry concatenate_moves_the_split | FileCheck %s --check-prefix=CONCAT
// RUN: shardc explain %s --entry contraction_moves_the_split | FileCheck %s --check-prefix=DOT
// RUN: shardc explain %s --entry dot_multiple_axes_with_overlap | FileCheck %s --check-prefix=OVERLAP
// RUN: shardc explain %s --entry concatenate_moves_the_split --link-latency-ns 300 \
// RUN:   --link-bytes-per-s 1e9 | FileCheck %s --check-prefix=CONCAT
// RUN: shardc explain %s --entry concatenate_moves_the_split --link-latency-ns 500 \
// RUN:   --link-bytes-per-s 1e9 | FileCheck %s --check-prefix=SLOWSTART
// RUN: shardc-opt %s --shardc-propagate \
// RUN:   --shardc-partition="link-latency-ns=500 link-bytes-per-s=1e9" \
// RUN:   | FileCheck %s --check-prefix=LINK
// RUN: not shardc-opt %s --shardc-propagate --shardc-partition="link-latency-ns=500" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HALF
// RUN: not shardc explain %s --link-latency-ns 500 2>&1 | FileCheck %s --check-prefix=HALFCLI
// RUN: not shardc explain %s --link-latency-ns 500 --link-bytes-per-s 10GB/s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADLINK
// HALF: error: --shardc-partition: link-latency-ns and link-bytes-per-s go together, both positive (got 500 and 0)
// HALFCLI: shardc: error: --link-latency-ns and --link-bytes-per-s go together: give both or neither
// BADLINK: shardc: error: --link-bytes-per-s: expected a positive number, got '10GB/s'

// An op is computed either at the layout its results want (operands
// resharded before it) or at its operands' layout (results resharded
// after); the one that sends fewer bytes per device wins, ties to the
// first.

shardc.mesh @mesh_4 = <["x"=4]>

// A slice of a split operand whose result is wanted whole: slicing each
// device's rows and gathering the small result sends 192 bytes per device;
// gathering the operand first would send 3,072.
// CHECK-LABEL: func.func @slice_then_gather
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4x8xf32>
// CHECK-NEXT: [[S:%[0-9]+]] = shardc.slice [[A]], {{.*}} : (tensor<8x4x8xf32>) -> tensor<8x1x2xf32>
// CHECK-NEXT: [[G:%[0-9]+]] = shardc.all_gather [[S]] on @mesh_4 ["x"] dim = 0 : tensor<8x1x2xf32> -> tensor<32x1x2xf32>
// CHECK-NEXT: return [[G]]
// EXPLAIN: Total: 1 collective, 192 bytes sent per device
func.func @slice_then_gather(
    %a: tensor<32x4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>})
    -> (tensor<32x1x2xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}, {}]>}) {
  %s = shardc.slice %a, start = [0, 1, 2], limit = [32, 2, 4], strides = [1, 1, 1]
      : (tensor<32x4x8xf32>) -> tensor<32x1x2xf32>
  return %s : tensor<32x1x2xf32>
}

// The other way round: a small operand split, a large result wanted split
// another way: resharding the operand first is cheaper, and kept.
// CHECK-LABEL: func.func @reshard_small_operand
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x1xf32>
// CHECK-NEXT: [[G:%[0-9]+]] = shardc.all_gather [[A]] on @mesh_4 ["x"] dim = 0 : tensor<8x1xf32> -> tensor<32x1xf32>
// CHECK-NEXT: shardc.broadcast_in_dim [[G]], dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x16xf32>
// CHECK-NOT: shardc.all_gather
func.func @reshard_small_operand(
    %a: tensor<32x1xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<32x64xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}) {
  %b = shardc.broadcast_in_dim %a, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// A concatenate along a split dimension: the op needs that dimension
// whole. Moving the split to the other dimension (one all_to_all per
// operand), concatenating locally and moving it back sends 384 bytes per
// device; gathering both operands would send 768.
// CHECK-LABEL: func.func @concatenate_moves_the_split
// CHECK: shardc.all_to_all {{.*}} split_dim = 1 concat_dim = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK: shardc.all_to_all {{.*}} split_dim = 1 concat_dim = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK: shardc.concatenate {{.*}} -> tensor<16x4xf32>
// CHECK-NEXT: shardc.all_to_all {{.*}} split_dim = 0 concat_dim = 1 : tensor<16x4xf32> -> tensor<4x16xf32>
// CHECK-NOT: shardc.all_gather
// CONCAT: Total: 3 collectives, 384 bytes sent per device
//
// Over a link (link-latency-ns, link-bytes-per-s) the choice is by time:
// at 1e9 bytes per second, moving the split takes 3 collectives and 384 ns,
// gathering 2 collectives (the all_slice is local) and 768 ns. With a
// latency of 300 ns per collective the split still moves (1,284 against
// 1,368 ns); with 500 ns gathering wins (1,768 against 1,884 ns).
// SLOWSTART: Total: 3 collectives, 768 bytes sent per device
// LINK-LABEL: func.func @concatenate_moves_the_split
// LINK-NEXT: shardc.all_gather %arg0 on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// LINK-NEXT: shardc.all_gather %arg1 on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// LINK-NEXT: shardc.concatenate {{.*}} -> tensor<16x16xf32>
// LINK-NEXT: shardc.all_slice {{.*}} on @mesh_4 ["x"] dim = 0 : tensor<16x16xf32> -> tensor<4x16xf32>
// LINK-NOT: shardc.all_to_all
// LINK-LABEL: func.func @contraction_moves_the_split
func.func @concatenate_moves_the_split(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}) {
  %c = shardc.concatenate %a, %b dim = 0 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// A contraction over a split dimension whose result is wanted split along
// another: computing with the contracted dimension split leaves partial
// sums for a reduce_scatter (768 bytes per device); gathering the 8x16
// operand's contracted dimension and slicing the replicated one along the
// result's split sends 384, and every device still computes a quarter.
// DOT: Total: 2 collectives, 384 bytes sent per device
// CHECK-LABEL: func.func @contraction_moves_the_split
// CHECK: [[A:%[0-9]+]] = shardc.all_gather %arg0 on @mesh_4 ["x"] dim = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
// CHECK: [[W:%[0-9]+]] = shardc.all_slice %arg1 on @mesh_4 ["x"] dim = 1 : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK: shardc.dot_general [[A]], [[W]] contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return
func.func @contraction_moves_the_split(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %w: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
    -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}) {
  %y = shardc.dot_general %a, %w contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// A contraction whose lhs is split over z and the minor half of x, beside a
// result split over x,y (Shardy: @dot_multiple_axes_with_overlap, with
// x=4, y=2, z=4). Every candidate layout of the op is priced: the result
// keeps x,y and the contraction keeps z, so only the minor half of x is
// gathered on the small lhs (128 bytes) and the partial sums are reduced
// over z (96): 224 bytes per device, Shardy's sequence. Keeping the
// contraction split by x as well would reshard the rhs and the result
// (560).
// OVERLAP: Total: 3 collectives, 224 bytes sent per device
// CHECK-LABEL: func.func @dot_multiple_axes_with_overlap
// CHECK-NEXT: [[L:%[0-9]+]] = shardc.all_gather %arg0 on @mesh_xyz ["x:(2)2"] dim = 1 : tensor<8x4xf32> -> tensor<8x8xf32>
// CHECK-NEXT: [[R:%[0-9]+]] = shardc.all_slice %arg1 on @mesh_xyz ["z"] dim = 0 : tensor<32x2xf32> -> tensor<8x2xf32>
// CHECK-NEXT: [[D:%[0-9]+]] = shardc.dot_general [[L]], [[R]] contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: [[S:%[0-9]+]] = shardc.all_reduce sum [[D]] on @mesh_xyz ["z"] : tensor<8x2xf32>
// CHECK-NEXT: return [[S]]
shardc.mesh @mesh_xyz = <["x"=4, "y"=2, "z"=4]>
func.func @dot_multiple_axes_with_overlap(
    %lhs: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_xyz, [{}, {"z", "x":(2)2}]>},
    %rhs: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@mesh_xyz, [{}, {"x", "y"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_xyz, [{}, {"x", "y"}]>}) {
  %0 = shardc.dot_general %lhs, %rhs contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
