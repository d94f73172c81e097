// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// Resharding at a sharding_constraint and at function results: splitting a
// replicated dimension is an all_slice (no data moves), making a dimension
// whole an all_gather, and moving an axis from one dimension to another an
// all_to_all.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @replicated_to_sharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: -> (tensor<2x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_slice [[A]] on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[S]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @replicated_to_sharded(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_4, [{"x"}, {}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @sharded_to_replicated
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[G]] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @sharded_to_replicated(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_4, [{}, {}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @move_axis_between_dims
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_4 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[T]] : tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @move_axis_between_dims(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_4, [{}, {"x"}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// ["data", "model"] on dimension 0 -> "data" on 0 and "model" on 1: the
// minor axis moves with one all_to_all.
// CHECK-LABEL: func.func @two_axes_one_dim_to_two_dims
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x16xf32>
// CHECK-SAME: -> (tensor<4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0 : tensor<1x16xf32> -> tensor<4x4xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[T]] : tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @two_axes_one_dim_to_two_dims(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{"data"}, {"model"}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// And back: "model" joins "data" on dimension 0 as its minor axis.
// CHECK-LABEL: func.func @two_dims_to_two_axes_one_dim
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<1x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_2x4 ["model"] split_dim = 0 concat_dim = 1 : tensor<4x4xf32> -> tensor<1x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[T]] : tensor<1x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @two_dims_to_two_axes_one_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{"data", "model"}, {}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// A dimension split over two axes is made whole with one all_gather over
// both.
// CHECK-LABEL: func.func @two_axes_to_replicated
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x16xf32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_2x4 ["data", "model"] dim = 0 : tensor<1x16xf32> -> tensor<8x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[G]] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @two_axes_to_replicated(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{}, {}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// "data" -> ["data", "model"]: the "data" block is split further, locally.
// CHECK-LABEL: func.func @add_minor_axis
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_slice [[A]] on @mesh_2x4 ["model"] dim = 0 : tensor<4x16xf32> -> tensor<1x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[S]] : tensor<1x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @add_minor_axis(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{"data", "model"}, {}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// ["data", "model"] -> "data": only the minor axis is gathered.
// CHECK-LABEL: func.func @drop_minor_axis
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x16xf32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_2x4 ["model"] dim = 0 : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[G]] : tensor<4x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @drop_minor_axis(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{"data"}, {}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// The constraint's open dimension keeps the "model" split it is given; only
// the closed dimension 0 is gathered.
// CHECK-LABEL: func.func @constraint_open_dim_filled
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>})
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_2x4 ["data"] dim = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[G]] : tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @constraint_open_dim_filled(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{}, {?}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// The function's result sharding differs from the constrained value: the
// result is resharded at the return.
// CHECK-LABEL: func.func @result_sharding_reshards
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[A]] : tensor<2x16xf32>
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[N]] on @mesh_4 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[T]]
func.func @result_sharding_reshards(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}) {
  %n = shardc.neg %a : tensor<8x16xf32>
  %c = shardc.sharding_constraint %n <@mesh_4, [{"x"}, {}]> : tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// An argument returned as is, in another layout.
// CHECK-LABEL: func.func @return_argument_resharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_4 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[T]]
func.func @return_argument_resharded(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}) {
  return %a : tensor<8x16xf32>
}

// A value resharded for one user is reused by the next user that needs the
// same layout: one all_to_all, not two.
// CHECK-LABEL: func.func @reshard_reused_by_two_users
// CHECK-COUNT-1: shardc.all_to_all
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @reshard_reused_by_two_users(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = shardc.add %a, %b : tensor<8x16xf32>
  %t = shardc.mul %a, %b : tensor<8x16xf32>
  return %s, %t : tensor<8x16xf32>, tensor<8x16xf32>
}
