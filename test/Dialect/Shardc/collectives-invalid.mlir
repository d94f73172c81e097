// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// The collectives (all_reduce, all_gather, all_slice, reduce_scatter,
// all_to_all, collective_permute): their mesh and axes, their dims and the result shapes the group
// size gives.

//===----------------------------------------------------------------------===//
// Mesh and axes (shared by all collectives)
//===----------------------------------------------------------------------===//

func.func @all_reduce_unknown_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_reduce' op refers to unknown mesh @mesh_2x4}}
  %y = shardc.all_reduce sum %x on @mesh_2x4 ["data"] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func private @not_a_mesh()
func.func @all_gather_mesh_is_a_function(%x: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_gather' op refers to unknown mesh @not_a_mesh}}
  %y = shardc.all_gather %x on @not_a_mesh ["x"] dim = 0 : tensor<2xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @reduce_scatter_unknown_mesh(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op refers to unknown mesh @mesh_4}}
  %y = shardc.reduce_scatter sum %x on @mesh_4 ["x"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @all_to_all_unknown_mesh(%x: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op refers to unknown mesh @mesh_4}}
  %y = shardc.all_to_all %x on @mesh_4 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

func.func @all_slice_unknown_mesh(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'shardc.all_slice' op refers to unknown mesh @mesh_4}}
  %y = shardc.all_slice %x on @mesh_4 ["x"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_reduce_unknown_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_reduce' op mesh @mesh_2x4 has no axis "batch"}}
  %y = shardc.all_reduce sum %x on @mesh_2x4 ["data", "batch"] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_unknown_axis(%x: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_gather' op mesh @mesh_2x4 has no axis "x"}}
  %y = shardc.all_gather %x on @mesh_2x4 ["x"] dim = 0 : tensor<2xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @reduce_scatter_repeated_axis(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op axis "data" is named more than once}}
  %y = shardc.reduce_scatter sum %x on @mesh_2x4 ["data", "data"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_reduce_repeated_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_reduce' op axis "model" is named more than once}}
  %y = shardc.all_reduce max %x on @mesh_2x4 ["model", "data", "model"] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_reduce_no_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_reduce' op must name at least one mesh axis}}
  %y = shardc.all_reduce sum %x on @mesh_2x4 [] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_no_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_gather' op must name at least one mesh axis}}
  %y = shardc.all_gather %x on @mesh_2x4 [] dim = 0 : tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @reduce_scatter_no_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op must name at least one mesh axis}}
  %y = shardc.reduce_scatter sum %x on @mesh_2x4 [] dim = 0 : tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_no_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.all_slice' op must name at least one mesh axis}}
  %y = shardc.all_slice %x on @mesh_2x4 [] dim = 0 : tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_repeated_axis(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'shardc.all_slice' op axis "data" is named more than once}}
  %y = shardc.all_slice %x on @mesh_2x4 ["data", "data"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_unknown_axis(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'shardc.all_slice' op mesh @mesh_2x4 has no axis "x"}}
  %y = shardc.all_slice %x on @mesh_2x4 ["x"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_no_axes(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op must name at least one mesh axis}}
  %y = shardc.all_to_all %x on @mesh_2x4 [] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_unknown_axis(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op mesh @mesh_2x4 has no axis ""}}
  %y = shardc.all_to_all %x on @mesh_2x4 [""] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @axes_not_strings(%x: tensor<8xf32>) -> tensor<32xf32> {
  // expected-error@+1 {{'shardc.all_gather' op attribute 'axes' failed to satisfy constraint: string array attribute}}
  %y = "shardc.all_gather"(%x) <{axes = [0], dim = 0 : i64, mesh = @mesh_2x4}> : (tensor<8xf32>) -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Inside shard_map: the shard_map's mesh
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_reduce_other_mesh_in_shard_map(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    // expected-error@+1 {{'shardc.all_reduce' op uses mesh @mesh_4 inside a shard_map over @mesh_2x4}}
    %m = shardc.all_reduce mean %l on @mesh_4 ["x"] : tensor<4x16xf32>
    shardc.return %m : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_gather_other_mesh_in_shard_map(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"x"}]>]
      out_shardings = [<@mesh_4, [{}]>] {
  ^bb0(%l: tensor<2xf32>):
    // expected-error@+1 {{'shardc.all_gather' op uses mesh @mesh_2x4 inside a shard_map over @mesh_4}}
    %g = shardc.all_gather %l on @mesh_2x4 ["model"] dim = 0 : tensor<2xf32> -> tensor<8xf32>
    shardc.return %g : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @reduce_scatter_other_mesh_in_shard_map(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{}]>]
      out_shardings = [<@mesh_4, [{"x"}]>] {
  ^bb0(%l: tensor<8xf32>):
    // expected-error@+1 {{'shardc.reduce_scatter' op uses mesh @mesh_2x4 inside a shard_map over @mesh_4}}
    %s = shardc.reduce_scatter sum %l on @mesh_2x4 ["model"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
    shardc.return %s : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_to_all_other_mesh_in_shard_map(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{}, {"x"}]>] {
  ^bb0(%l: tensor<2x8xf32>):
    // expected-error@+1 {{'shardc.all_to_all' op uses mesh @mesh_2x4 inside a shard_map over @mesh_4}}
    %t = shardc.all_to_all %l on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
    shardc.return %t : tensor<8x2xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_slice_other_mesh_in_shard_map(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{}]>]
      out_shardings = [<@mesh_4, [{"x"}]>] {
  ^bb0(%l: tensor<8xf32>):
    // expected-error@+1 {{'shardc.all_slice' op uses mesh @mesh_2x4 inside a shard_map over @mesh_4}}
    %s = shardc.all_slice %l on @mesh_2x4 ["model"] dim = 0 : tensor<8xf32> -> tensor<2xf32>
    shardc.return %s : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// all_reduce
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_reduce_predicate(%p: tensor<8xi1>) -> tensor<8xi1> {
  // expected-error@+1 {{'shardc.all_reduce' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xi1>'}}
  %y = shardc.all_reduce max %p on @mesh_4 ["x"] : tensor<8xi1>
  return %y : tensor<8xi1>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_reduce_result_type(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'shardc.all_reduce' op requires the same type for all operands and results}}
  %y = "shardc.all_reduce"(%x) <{kind = #shardc<reduce_kind sum>, mesh = @mesh_4, axes = ["x"]}> : (tensor<8xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>
func.func @all_reduce_unknown_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+2 {{expected ::shardc::ReduceKind to be one of: sum, max, min, mean}}
  // expected-error@+1 {{failed to parse Shardc_ReduceKindAttr parameter 'value' which is to be a `::shardc::ReduceKind`}}
  %y = shardc.all_reduce avg %x on @mesh_4 ["x"] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// all_gather
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_dim_out_of_range(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'shardc.all_gather' op dim 2 is out of range for rank 2}}
  %y = shardc.all_gather %x on @mesh_2x4 ["data"] dim = 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_dim_negative(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'shardc.all_gather' op dim -1 is out of range for rank 2}}
  %y = shardc.all_gather %x on @mesh_2x4 ["data"] dim = -1 : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Gathering along dim 0 over "model" (4 devices) multiplies dim 0, not dim 1.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_result_shape(%x: tensor<2x8xf32>) -> tensor<2x32xf32> {
  // expected-error@+1 {{'shardc.all_gather' op result shape must be [8, 8] for a group of 4 devices, got [2, 32]}}
  %y = shardc.all_gather %x on @mesh_2x4 ["model"] dim = 0 : tensor<2x8xf32> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// -----

// The group of ["data", "model"] has 8 devices.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_multi_axis_result_shape(%x: tensor<2x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.all_gather' op result shape must be [16, 8] for a group of 8 devices, got [8, 8]}}
  %y = shardc.all_gather %x on @mesh_2x4 ["data", "model"] dim = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_gather_element_type(%x: tensor<2x8xf32>) -> tensor<4x8xf16> {
  // expected-error@+1 {{'shardc.all_gather' op requires the same element type for all operands and results}}
  %y = shardc.all_gather %x on @mesh_2x4 ["data"] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// all_slice
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_dim_out_of_range(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.all_slice' op dim 2 is out of range for rank 2}}
  %y = shardc.all_slice %x on @mesh_2x4 ["data"] dim = 2 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_does_not_divide(%x: tensor<8x6xf32>) -> tensor<8x1xf32> {
  // expected-error@+1 {{'shardc.all_slice' op dimension 1 of size 6 does not divide into the group of 4 devices}}
  %y = shardc.all_slice %x on @mesh_2x4 ["model"] dim = 1 : tensor<8x6xf32> -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}

// -----

// all_slice divides its dim; it is the inverse of all_gather.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_result_shape(%x: tensor<8x8xf32>) -> tensor<16x8xf32> {
  // expected-error@+1 {{'shardc.all_slice' op result shape must be [4, 8] for a group of 2 devices, got [16, 8]}}
  %y = shardc.all_slice %x on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_slice_element_type(%x: tensor<8x8xf32>) -> tensor<4x8xf64> {
  // expected-error@+1 {{'shardc.all_slice' op requires the same element type for all operands and results}}
  %y = shardc.all_slice %x on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// -----

//===----------------------------------------------------------------------===//
// reduce_scatter
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @reduce_scatter_dim_out_of_range(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op dim 3 is out of range for rank 2}}
  %y = shardc.reduce_scatter sum %x on @mesh_2x4 ["data"] dim = 3 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @reduce_scatter_does_not_divide(%x: tensor<6x8xf32>) -> tensor<1x8xf32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op dimension 0 of size 6 does not divide into the group of 4 devices}}
  %y = shardc.reduce_scatter sum %x on @mesh_2x4 ["model"] dim = 0 : tensor<6x8xf32> -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @reduce_scatter_result_shape(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op result shape must be [8, 4] for a group of 2 devices, got [8, 8]}}
  %y = shardc.reduce_scatter max %x on @mesh_2x4 ["data"] dim = 1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @reduce_scatter_element_type(%x: tensor<8x8xf32>) -> tensor<4x8xi32> {
  // expected-error@+1 {{'shardc.reduce_scatter' op requires the same element type for all operands and results}}
  %y = shardc.reduce_scatter sum %x on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_split_dim_out_of_range(%x: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op split_dim 2 is out of range for rank 2}}
  %y = shardc.all_to_all %x on @mesh_2x4 ["model"] split_dim = 2 concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_concat_dim_out_of_range(%x: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op concat_dim -1 is out of range for rank 2}}
  %y = shardc.all_to_all %x on @mesh_2x4 ["model"] split_dim = 1 concat_dim = -1 : tensor<2x8xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_does_not_divide(%x: tensor<2x6xf32>) -> tensor<8x1xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op dimension 1 of size 6 does not divide into the group of 4 devices}}
  %y = shardc.all_to_all %x on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0 : tensor<2x6xf32> -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}

// -----

// split_dim is divided and concat_dim multiplied: (2, 8) -> (8, 2), not
// (1, 32).
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_result_shape(%x: tensor<2x8xf32>) -> tensor<1x32xf32> {
  // expected-error@+1 {{'shardc.all_to_all' op result shape must be [8, 2] for a group of 4 devices, got [1, 32]}}
  %y = shardc.all_to_all %x on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<1x32xf32>
  return %y : tensor<1x32xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @all_to_all_element_type(%x: tensor<2x8xf32>) -> tensor<8x2xbf16> {
  // expected-error@+1 {{'shardc.all_to_all' op requires the same element type for all operands and results}}
  %y = shardc.all_to_all %x on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xbf16>
  return %y : tensor<8x2xbf16>
}

// -----

// collective_permute: one source per position of the group, a permutation.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @collective_permute_sources_count(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'shardc.collective_permute' op sources must name one position per device of the group of 4, got 2}}
  %y = shardc.collective_permute %x on @mesh_2x4 ["model"] sources = [1, 0] : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @collective_permute_not_a_permutation(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'shardc.collective_permute' op source 1 is named twice: sources must be a permutation}}
  %y = shardc.collective_permute %x on @mesh_2x4 ["model"] sources = [1, 1, 2, 3] : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @collective_permute_source_outside(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'shardc.collective_permute' op source 2 of position 1 is outside the group of 2 devices}}
  %y = shardc.collective_permute %x on @mesh_2x4 ["data"] sources = [0, 2] : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @collective_permute_type(%x: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error@+1 {{'shardc.collective_permute' op requires the same type for all operands and results}}
  %y = "shardc.collective_permute"(%x) <{axes = ["data"], mesh = @mesh_2x4, sources = array<i64: 1, 0>}> : (tensor<2x8xf32>) -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}
