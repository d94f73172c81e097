// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: shardc explain %s --entry vocabulary_softmax | FileCheck %s --check-prefix=EXPLAIN
// RUN: shardc explain %s --entry vocabulary_softmax --summary | FileCheck %s --check-prefix=SUMMARY

// Padded layouts (`shardc.pad_uneven` on an argument; `--shardc-partition=
// "pad-uneven"` for every value): a dimension its axes do not divide is
// rounded up to the next multiple, 17 over 8 devices to 3 per device. The
// padding never reaches a real value: a reduction over a padded dimension
// sees its identity there (a select on a mask made once from one constant
// and an all_slice), a padded dimension made whole drops it after the
// all_gather, and one split from whole gets zeros before the all_slice.
// Each function also runs partitioned against unsharded on simulated
// devices (PartitionEquivalenceTest).

shardc.mesh @mesh_8 = <["x"=8]>
shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["y"=2, "x"=4]>

// A vocabulary of 17 over 8 devices, the classic uneven split: the logits
// stay split (3 columns per device, the last 7 of 24 padding); max and sum
// see -inf and 0 in the padding, so the softmax is exact.
// EXPLAIN: %arg1 (argument 'arg1') : tensor<8x17xf32>  [{}, {"x"}]
// EXPLAIN-NEXT: padded: dim 1 17 -> 24 (3 per device), 28 bytes of padding per device on average
// EXPLAIN: %0 = shardc.dot_general@{{[0-9:]+}} : tensor<4x17xf32>  [{}, {"x"}]
// EXPLAIN-NEXT: padded: dim 1 17 -> 24 (3 per device), 14 bytes of padding per device on average
// EXPLAIN: all_slice over ["x"] (groups of 8) on dim 0: tensor<24xi1> -> tensor<3xi1>
// EXPLAIN-NEXT: why: the padding of a dimension split unevenly, masked before a reduction over it
// EXPLAIN: Total: 3 collectives, 56 bytes sent per device
// EXPLAIN-NEXT: Padding: 7 values split unevenly, 112 bytes of padding per device on average (the bytes sent include it)
// SUMMARY: Sent per device per call: 56 bytes in 3 collectives
// SUMMARY-NEXT: padding: 7 values split unevenly, 112 bytes per device on average
// CHECK-LABEL: func.func @vocabulary_softmax
// CHECK-SAME: tensor<8x3xf32> {shardc.global_shape = array<i64: 8, 17>
// CHECK-SAME: -> (tensor<4x3xf32> {shardc.global_shape = array<i64: 4, 17>
// CHECK: [[L:%[0-9]+]] = shardc.dot_general {{.*}} -> tensor<4x3xf32>
// CHECK: [[ALL:%[0-9]+]] = shardc.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false]> : tensor<24xi1>
// CHECK: [[MINE:%[0-9]+]] = shardc.all_slice [[ALL]] on @mesh_8 ["x"] dim = 0 : tensor<24xi1> -> tensor<3xi1>
// CHECK: [[M:%[0-9]+]] = shardc.broadcast_in_dim [[MINE]], dims = [1] : (tensor<3xi1>) -> tensor<4x3xi1>
// CHECK: [[NEGINF:%[0-9]+]] = shardc.constant dense<0xFF800000> : tensor<4x3xf32>
// CHECK: [[LM:%[0-9]+]] = shardc.select [[M]], [[L]], [[NEGINF]]
// CHECK: shardc.reduce max [[LM]]
// CHECK: shardc.all_reduce max
// CHECK: [[E:%[0-9]+]] = shardc.exp
// CHECK: [[M2:%[0-9]+]] = shardc.broadcast_in_dim [[MINE]], dims = [1]
// CHECK: [[ZERO:%[0-9]+]] = shardc.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK: [[EM:%[0-9]+]] = shardc.select [[M2]], [[E]], [[ZERO]]
// CHECK: shardc.reduce sum [[EM]]
// CHECK: shardc.all_reduce sum
// CHECK-NOT: shardc.all_gather
// CHECK: return
func.func @vocabulary_softmax(
    %x: tensor<4x8xf32>,
    %w: tensor<8x17xf32> {shardc.sharding = #shardc.sharding<@mesh_8, [{}, {"x"}]>, shardc.pad_uneven})
    -> tensor<4x17xf32> {
  %l = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x17xf32>) -> tensor<4x17xf32>
  %m = shardc.reduce max %l dims = [1] : (tensor<4x17xf32>) -> tensor<4xf32>
  %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x17xf32>
  %s = shardc.sub %l, %mb : tensor<4x17xf32>
  %e = shardc.exp %s : tensor<4x17xf32>
  %z = shardc.reduce sum %e dims = [1] : (tensor<4x17xf32>) -> tensor<4xf32>
  %zb = shardc.broadcast_in_dim %z, dims = [0] : (tensor<4xf32>) -> tensor<4x17xf32>
  %p = shardc.div %e, %zb : tensor<4x17xf32>
  return %p : tensor<4x17xf32>
}

// A contraction over a padded dimension: both operands get zeros there (an
// inf or NaN of exp in one operand's padding times 0 would be NaN).
// CHECK-LABEL: func.func @contract_padded
// CHECK: [[E:%[0-9]+]] = shardc.exp {{.*}} : tensor<4x3xf32>
// CHECK: shardc.all_slice {{.*}} : tensor<12xi1> -> tensor<3xi1>
// CHECK: [[A:%[0-9]+]] = shardc.select {{.*}}, [[E]], {{.*}} : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK: [[B:%[0-9]+]] = shardc.select {{.*}}, %arg1, {{.*}} : tensor<3x6xi1>, tensor<3x6xf32>
// CHECK: [[C:%[0-9]+]] = shardc.dot_general [[A]], [[B]]
// CHECK: shardc.all_reduce sum [[C]] on @mesh_4 ["x"] : tensor<4x6xf32>
func.func @contract_padded(
    %a: tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>, shardc.pad_uneven},
    %b: tensor<10x6xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>, shardc.pad_uneven})
    -> tensor<4x6xf32> {
  %e = shardc.exp %a : tensor<4x10xf32>
  %c = shardc.dot_general %e, %b contracting_dims = [1] x [0] : (tensor<4x10xf32>, tensor<10x6xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// Made whole: all_gather to the padded 12 rows, then the 10 real ones.
// CHECK-LABEL: func.func @gathered_result
// CHECK: [[G:%[0-9]+]] = shardc.all_gather %arg0 on @mesh_4 ["x"] dim = 0 : tensor<3x3xf32> -> tensor<12x3xf32>
// CHECK: shardc.slice [[G]], start = [0, 0], limit = [10, 3], strides = [1, 1] : (tensor<12x3xf32>) -> tensor<10x3xf32>
func.func @gathered_result(
    %a: tensor<10x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>, shardc.pad_uneven})
    -> (tensor<10x3xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}) {
  %e = shardc.exp %a : tensor<10x3xf32>
  return %e : tensor<10x3xf32>
}

// Split from whole: zeros up to 12, then an all_slice (no communication).
// CHECK-LABEL: func.func @split_into_padding
// CHECK-SAME: -> (tensor<3xf32> {shardc.global_shape = array<i64: 10>
// CHECK: [[Z:%[0-9]+]] = shardc.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: [[P:%[0-9]+]] = shardc.concatenate %arg0, [[Z]] dim = 0 : (tensor<10xf32>, tensor<2xf32>) -> tensor<12xf32>
// CHECK: shardc.all_slice [[P]] on @mesh_4 ["x"] dim = 0 : tensor<12xf32> -> tensor<3xf32>
func.func @split_into_padding(
    %a: tensor<10xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>, shardc.pad_uneven})
    -> (tensor<10xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>}) {
  %e = shardc.exp %a : tensor<10xf32>
  return %e : tensor<10xf32>
}

// 6 over 4 devices: 2 rows each, the last device all padding; min sees +inf.
// CHECK-LABEL: func.func @min_over_padded
// CHECK: shardc.constant dense<0x7F800000> : tensor<2x5xf32>
// CHECK: shardc.reduce min
// CHECK: shardc.all_reduce min
func.func @min_over_padded(
    %a: tensor<6x5xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>, shardc.pad_uneven})
    -> tensor<5xf32> {
  %n = shardc.neg %a : tensor<6x5xf32>
  %m = shardc.reduce min %n dims = [0] : (tensor<6x5xf32>) -> tensor<5xf32>
  return %m : tensor<5xf32>
}

// CHECK-LABEL: func.func @take_padded_indices
// CHECK: shardc.all_gather %arg1 on @mesh_4 ["x"] dim = 0 : tensor<3xi32> -> tensor<12xi32>
// CHECK: shardc.slice {{.*}} limit = [10]
func.func @take_padded_indices(
    %t: tensor<5x4xf32>,
    %i: tensor<10xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>, shardc.pad_uneven})
    -> (tensor<10x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}) {
  %r = shardc.take %t, %i : (tensor<5x4xf32>, tensor<10xi32>) -> tensor<10x4xf32>
  return %r : tensor<10x4xf32>
}

// One padded dimension beside a dividing one; the padding follows the
// transpose and is masked for the sum over it.
// CHECK-LABEL: func.func @two_axes_one_padded
// CHECK-SAME: -> (tensor<3x3xf32> {shardc.global_shape = array<i64: 10, 6>, shardc.sharding = #shardc.sharding<@mesh_2x4, [{"x"}, {"y"}]>})
// CHECK: shardc.transpose
// CHECK: shardc.select
// CHECK: shardc.reduce sum
// CHECK: shardc.all_reduce sum {{.*}} ["x"]
func.func @two_axes_one_padded(
    %a: tensor<6x10xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"y"}, {"x"}]>, shardc.pad_uneven})
    -> tensor<10x6xf32> {
  %t = shardc.transpose %a, permutation = [1, 0] : (tensor<6x10xf32>) -> tensor<10x6xf32>
  %s = shardc.reduce sum %t dims = [0] : (tensor<10x6xf32>) -> tensor<6xf32>
  %sb = shardc.broadcast_in_dim %s, dims = [1] : (tensor<6xf32>) -> tensor<10x6xf32>
  %r = shardc.mul %t, %sb : tensor<10x6xf32>
  return %r : tensor<10x6xf32>
}
