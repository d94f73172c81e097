// RUN: shardc-opt %s -split-input-file --shardc-propagate --shardc-partition -verify-diagnostics
// RUN: sed -e "s/expected-error/error/" %s | shardc-opt -split-input-file --shardc-propagate --shardc-partition="pad-uneven" | FileCheck %s

// A sharding whose axes do not divide a dimension is a padded layout: valid
// IR, which partitioning accepts only where padding is asked for. Without
// it, the error names the value, the dimension, the axes and both ways to
// ask; with `pad-uneven`, every case below partitions.

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: dimension 1 of size 6 does not divide over axes ["model"] (4 devices); to pad it to 8, partition with --shardc-partition="pad-uneven" or mark the argument shardc.pad_uneven}}
func.func @arg_axis_does_not_divide(%x: tensor<8x6xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}) {
  return
}
// CHECK-LABEL: func.func @arg_axis_does_not_divide
// CHECK-SAME: tensor<4x2xf32> {shardc.global_shape = array<i64: 8, 6>

// -----

// Each axis divides on its own, but not their product.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: dimension 0 of size 4 does not divide over axes ["data", "model"] (8 devices); to pad it to 8}}
func.func @arg_axes_product_does_not_divide(%x: tensor<4x6xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}) {
  return
}
// CHECK-LABEL: func.func @arg_axes_product_does_not_divide
// CHECK-SAME: tensor<1x6xf32> {shardc.global_shape = array<i64: 4, 6>

// -----

// Open dimensions are checked too.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: dimension 0 of size 6 does not divide over axes ["model"] (4 devices)}}
func.func @arg_open_axis_does_not_divide(%x: tensor<6xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model", ?}]>}) {
  return
}
// CHECK-LABEL: func.func @arg_open_axis_does_not_divide
// CHECK-SAME: tensor<2xf32> {shardc.global_shape = array<i64: 6>

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{result #0: dimension 0 of size 3 does not divide over axes ["data"] (2 devices); to pad it to 4, partition with --shardc-partition="pad-uneven" or mark the argument it comes from shardc.pad_uneven}}
func.func @result_axis_does_not_divide(%x: tensor<3x8xf32>) -> (tensor<3x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>}) {
  return %x : tensor<3x8xf32>
}
// CHECK-LABEL: func.func @result_axis_does_not_divide
// CHECK-SAME: -> (tensor<2x8xf32> {shardc.global_shape = array<i64: 3, 8>

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_does_not_divide(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  // expected-error@+1 {{result #0: dimension 1 of size 2 does not divide over axes ["model"] (4 devices)}}
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>]} : tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}
// CHECK-LABEL: func.func @op_shardings_does_not_divide
// CHECK: shardc.neg {{.*}} : tensor<4x1xf32>

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @constraint_does_not_divide(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op dimension 1 of size 10 does not divide over axes ["model"] (4 devices); to pad it to 12}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{}, {"model"}]> : tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}
// CHECK-LABEL: func.func @constraint_does_not_divide
// CHECK-SAME: tensor<8x3xf32> {shardc.global_shape = array<i64: 8, 10>

// -----

// shardc.pad_uneven allows one argument's padding, not another's.
shardc.mesh @mesh_4 = <["x"=4]>
// expected-error@+1 {{argument #1: dimension 0 of size 6 does not divide over axes ["x"] (4 devices)}}
func.func @one_argument_marked(
    %a: tensor<6xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>, shardc.pad_uneven},
    %b: tensor<6xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>}) -> tensor<6xf32> {
  %s = shardc.add %a, %b : tensor<6xf32>
  return %s : tensor<6xf32>
}
// CHECK-LABEL: func.func @one_argument_marked
// CHECK: shardc.add {{.*}} : tensor<2xf32>


// -----

// A shard_map's shardings may pad too (its local types are the padded
// blocks), where padding is asked for.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @shard_map_does_not_divide(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: dimension 1 of size 6 does not divide over axes ["model"] (4 devices); to pad it to 8}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {"model"}]>]
      out_shardings = [<@mesh_2x4, [{}, {"model"}]>] {
  ^bb0(%l: tensor<8x2xf32>):
    shardc.return %l : tensor<8x2xf32>
  } : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
// CHECK-LABEL: func.func @shard_map_does_not_divide
// CHECK-SAME: tensor<8x2xf32> {shardc.global_shape = array<i64: 8, 6>
// CHECK-NEXT: return %arg0 : tensor<8x2xf32>
