// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// transpose, reshape, broadcast_in_dim, slice, concatenate and iota. A
// dimension that maps onto one dimension of the result keeps its split; a
// dimension the op needs whole (a sliced or concatenated dimension, iota's
// counting dimension, the minor factor of a reshape group whose major
// factor is not split whole) is gathered first, or computed whole when it
// is replicated anyway.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x2 = <["x"=2, "y"=2]>
shardc.mesh @mesh_2x2x2 = <["x"=2, "y"=2, "z"=2]>

// CHECK-LABEL: func.func @transpose_sharded_dim_follows
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<16x2xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[T:%[a-z0-9]+]] = shardc.transpose [[A]], permutation = [1, 0] : (tensor<2x16xf32>) -> tensor<16x2xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[T]]
func.func @transpose_sharded_dim_follows(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<16x8xf32> {
  %t = shardc.transpose %a, permutation = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// CHECK-LABEL: func.func @transpose_rank3_two_axes
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x4x4xf32>
// CHECK-SAME: -> (tensor<4x1x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {"x"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[T:%[a-z0-9]+]] = shardc.transpose [[A]], permutation = [2, 0, 1] : (tensor<1x4x4xf32>) -> tensor<4x1x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[T]]
func.func @transpose_rank3_two_axes(
    %a: tensor<2x4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}, {"y"}]>})
    -> tensor<8x2x4xf32> {
  %t = shardc.transpose %a, permutation = [2, 0, 1] : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
  return %t : tensor<8x2x4xf32>
}

// (8, 4) -> (32) with the major dimension split: each device's rows are a
// contiguous block of the result.
// CHECK-LABEL: func.func @reshape_merge_major_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x4xf32>
// CHECK-SAME: -> (tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<2x4xf32>) -> tensor<8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_merge_major_sharded(
    %a: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<32xf32> {
  %r = shardc.reshape %a : (tensor<8x4xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// (8, 4) -> (32) with the minor dimension split: a device's columns are not
// contiguous in the result, which is computed whole.
// CHECK-LABEL: func.func @reshape_merge_minor_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x1xf32>
// CHECK-SAME: -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>})
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_4 ["x"] dim = 1 : tensor<8x1xf32> -> tensor<8x4xf32>
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[G]] : (tensor<8x4xf32>) -> tensor<32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_merge_minor_sharded(
    %a: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<32xf32> {
  %r = shardc.reshape %a : (tensor<8x4xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// (32) -> (8, 4): the split goes to the major result dimension.
// CHECK-LABEL: func.func @reshape_split_major_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8xf32>
// CHECK-SAME: -> (tensor<2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<8xf32>) -> tensor<2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_split_major_sharded(
    %a: tensor<32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
    -> tensor<8x4xf32> {
  %r = shardc.reshape %a : (tensor<32xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// (4, 8) -> (4, 2, 4) with the split dimension sharded over "x"=2: the
// split lands on the major part (2) of the split dimension.
// CHECK-LABEL: func.func @reshape_split_sharded_inner_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<4x1x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}, {"x"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_split_sharded_inner_dim(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}, {"x"}]>})
    -> tensor<4x2x4xf32> {
  %r = shardc.reshape %a : (tensor<4x8xf32>) -> tensor<4x2x4xf32>
  return %r : tensor<4x2x4xf32>
}

// (4, 8, 2) -> (4, 16): dimension 0 passes through, the merged group keeps
// the split of its major dimension.
// CHECK-LABEL: func.func @reshape_merge_inner_dims
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x4x2xf32>
// CHECK-SAME: -> (tensor<2x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<2x4x2xf32>) -> tensor<2x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_merge_inner_dims(
    %a: tensor<4x8x2xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}, {}]>})
    -> tensor<4x16xf32> {
  %r = shardc.reshape %a : (tensor<4x8x2xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// A reshape group is decomposed into factors both sides share, major
// first: (8) -> (2, 4) has factors 2 and 4, so ["y", "x"] on the 8 is "y" on
// the 2 and "x" on the 4, and no data moves.
// CHECK-LABEL: func.func @reshape_split_axes_follow_factors
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2xf32>
// CHECK-SAME: -> (tensor<1x2xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<2xf32>) -> tensor<1x2xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_split_axes_follow_factors(
    %a: tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y", "x"}]>})
    -> tensor<2x4xf32> {
  %r = shardc.reshape %a : (tensor<8xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// (2, 4) -> (8) with "x" filling the major dimension: the minor's "y"
// follows it into the merged dimension.
// CHECK-LABEL: func.func @reshape_merge_both_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x2xf32>
// CHECK-SAME: -> (tensor<2xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x", "y"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<1x2xf32>) -> tensor<2xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_merge_both_sharded(
    %a: tensor<2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>})
    -> tensor<8xf32> {
  %r = shardc.reshape %a : (tensor<2x4xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// (4, 4) -> (16) asked for ["x", "y"]: "x" splits the major 4 only in two,
// so a device's "y" columns would not be contiguous. One all_to_all moves
// "y" to the rows first, where the reshape is local.
// CHECK-LABEL: func.func @reshape_merge_major_not_filled
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x2xf32>
// CHECK-SAME: -> (tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x", "y"}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_2x2 ["y"] split_dim = 0 concat_dim = 1 : tensor<2x2xf32> -> tensor<1x4xf32>
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[T]] : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @reshape_merge_major_not_filled(
    %a: tensor<4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>})
    -> (tensor<16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x", "y"}]>}) {
  %r = shardc.reshape %a : (tensor<4x4xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// (8, 8) -> (4, 16) has factors 4, 2 and 8: ["x", "y"] on the rows is the
// 4, which the result's rows keep; the result is asked for ["y", "x"] on its
// columns, two all_to_all away (64 bytes per device).
// CHECK-LABEL: func.func @reshape_regroup
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x8xf32>
// CHECK: [[R:%[a-z0-9]+]] = shardc.reshape [[A]] : (tensor<2x8xf32>) -> tensor<1x16xf32>
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[R]] on @mesh_2x2x2 ["y"] split_dim = 1 concat_dim = 0 : tensor<1x16xf32> -> tensor<2x8xf32>
// CHECK: [[U:%[a-z0-9]+]] = shardc.all_to_all [[T]] on @mesh_2x2x2 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[U]]
func.func @reshape_regroup(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{"x", "y"}, {}]>})
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2, [{}, {"y", "x"}]>}) {
  %r = shardc.reshape %a : (tensor<8x8xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @broadcast_sharded_operand
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.broadcast_in_dim [[B]], dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @broadcast_sharded_operand(
    %b: tensor<16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
    -> tensor<8x16xf32> {
  %r = shardc.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// The result is split along the new dimension: each device broadcasts the
// replicated operand straight into its block.
// CHECK-LABEL: func.func @broadcast_into_sharded_new_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>}
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.broadcast_in_dim [[B]], dims = [1] : (tensor<16xf32>) -> tensor<2x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.add [[A]], [[R]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @broadcast_into_sharded_new_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %r = shardc.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %s = shardc.add %a, %r : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// A size-1 operand dimension is repeated, never split.
// CHECK-LABEL: func.func @broadcast_size_one_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x8xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<1x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}, {"y"}]>}
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.broadcast_in_dim [[B]], dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.mul [[A]], [[R]] : tensor<4x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @broadcast_size_one_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>},
    %b: tensor<1x16xf32>) -> tensor<8x16xf32> {
  %r = shardc.broadcast_in_dim %b, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<8x16xf32>
  %s = shardc.mul %a, %r : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// Rows 2..5 straddle devices, so the sliced dimension must be whole: the
// split moves to the columns (an all_to_all), each device slices the rows
// of its columns, and the small result is gathered: 288 bytes per device,
// where gathering the operand first would send 384.
// CHECK-LABEL: func.func @slice_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_4 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.slice [[T]], start = [2, 0], limit = [6, 4], strides = [1, 1] : (tensor<8x4xf32>) -> tensor<4x4xf32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[S]] on @mesh_4 ["x"] dim = 1 : tensor<4x4xf32> -> tensor<4x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[G]]
func.func @slice_sharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<4x16xf32> {
  %s = shardc.slice %a, start = [2, 0], limit = [6, 16], strides = [1, 1]
      : (tensor<8x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// A strided slice of the other dimension: the split dimension is taken
// whole, locally, with its limit at the local size.
// CHECK-LABEL: func.func @slice_unsharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[S:%[a-z0-9]+]] = shardc.slice [[A]], start = [0, 2], limit = [2, 16], strides = [1, 4] : (tensor<2x16xf32>) -> tensor<2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @slice_unsharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x4xf32> {
  %s = shardc.slice %a, start = [0, 2], limit = [8, 16], strides = [1, 4]
      : (tensor<8x16xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// Concatenating along the split dimension needs it whole.
// CHECK-LABEL: func.func @concatenate_along_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK-SAME: -> (tensor<12x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.concatenate [[G]], [[B]] dim = 0 : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<12x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @concatenate_along_sharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<4x16xf32>) -> tensor<12x16xf32> {
  %c = shardc.concatenate %a, %b dim = 0
      : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<12x16xf32>
  return %c : tensor<12x16xf32>
}

// Concatenating across the split dimension is local; the other operand
// takes the same split.
// CHECK-LABEL: func.func @concatenate_across_sharded_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x8xf32>
// CHECK-SAME: -> (tensor<2x24xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[C:%[a-z0-9]+]] = shardc.concatenate [[A]], [[B]] dim = 1 : (tensor<2x16xf32>, tensor<2x8xf32>) -> tensor<2x24xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @concatenate_across_sharded_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x8xf32>) -> tensor<8x24xf32> {
  %c = shardc.concatenate %a, %b dim = 1
      : (tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<8x24xf32>
  return %c : tensor<8x24xf32>
}

// iota split along a dimension it does not count along is built locally.
// CHECK-LABEL: func.func @iota_other_dim_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[I:%[a-z0-9]+]] = shardc.iota dim = 1 : tensor<2x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.add [[A]], [[I]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @iota_other_dim_sharded(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %i = shardc.iota dim = 1 : tensor<8x16xf32>
  %s = shardc.add %a, %i : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// Along its counting dimension iota is built whole and each device keeps
// its block (no data moves).
// CHECK-LABEL: func.func @iota_counting_dim_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK: [[I:%[a-z0-9]+]] = shardc.iota dim = 0 : tensor<8x16xf32>
// CHECK: [[IS:%[a-z0-9]+]] = shardc.all_slice [[I]] on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.add [[A]], [[IS]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @iota_counting_dim_sharded(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %i = shardc.iota dim = 0 : tensor<8x16xf32>
  %s = shardc.add %a, %i : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// A reshape of an empty tensor: nothing passes through (no crash on the
// zero-size dimension); the operand is made whole, which moves no bytes.
// CHECK-LABEL: func.func @reshape_zero_size
// CHECK: shardc.all_gather {{.*}} : tensor<2x0xf32> -> tensor<8x0xf32>
// CHECK-NEXT: shardc.reshape {{.*}} : (tensor<8x0xf32>) -> tensor<0x4xf32>
func.func @reshape_zero_size(
    %x: tensor<8x0xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<0x4xf32> {
  %y = shardc.reshape %x : (tensor<8x0xf32>) -> tensor<0x4xf32>
  return %y : tensor<0x4xf32>
}
