// RUN: shardc-opt %s -split-input-file --shardc-propagate --shardc-partition -verify-diagnostics

// Programs that propagation or partitioning rejects, each with its
// diagnostic.

shardc.mesh @mesh_4 = <["x"=4]>

// A collective names devices: it only means something inside a shard_map.
func.func @all_reduce_outside_shard_map(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  // expected-error @+1 {{a collective in a global function must be inside a shard_map}}
  %r = shardc.all_reduce sum %a on @mesh_4 ["x"] : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>

func.func @all_gather_outside_shard_map(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<32x16xf32> {
  // expected-error @+1 {{a collective in a global function must be inside a shard_map}}
  %r = shardc.all_gather %a on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x2 = <["x"=2, "y"=2]>

// expected-error @+1 {{uses mesh @mesh_2x2 but @mesh_4 is used too; a function is sharded over one mesh}}
func.func @two_meshes_on_arguments(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %r = shardc.add %a, %b : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x2 = <["x"=2, "y"=2]>

func.func @two_meshes_constraint(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  // expected-error @+1 {{uses mesh @mesh_2x2 but @mesh_4 is used too; a function is sharded over one mesh}}
  %c = shardc.sharding_constraint %a <@mesh_2x2, [{"y"}, {}]> : tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x2 = <["x"=2, "y"=2]>

func.func @two_meshes_shard_map(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  // expected-error @+1 {{uses mesh @mesh_2x2 but @mesh_4 is used too; a function is sharded over one mesh}}
  %r = shardc.shard_map (%a) in_shardings = [<@mesh_2x2, [{"x"}, {}]>]
      out_shardings = [<@mesh_2x2, [{"x"}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>

func.func private @helper(tensor<8x16xf32>) -> tensor<8x16xf32>

// An op without a sharding rule cannot be split.
func.func @call_has_no_sharding_rule(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  // expected-error @+1 {{cannot be partitioned: it has no sharding rule}}
  %r = func.call @helper(%a) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>

// expected-error @+1 {{partitioning needs tensor arguments, got 'i32'}}
func.func @non_tensor_argument(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %n: i32) -> tensor<8x16xf32> {
  return %a : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_4 = <["x"=4]>

// expected-error @+1 {{sharding propagation handles single-block functions only}}
func.func @two_blocks(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  return %a : tensor<8x16xf32>
^bb1:
  return %a : tensor<8x16xf32>
}

// -----

// A collective outside a shard_map is an error even when nothing is
// annotated: its mesh makes the function a sharded one.
shardc.mesh @mesh_4 = <["x"=4]>

func.func @collective_without_annotations(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{a collective in a global function must be inside a shard_map}}
  %r = shardc.all_reduce sum %a on @mesh_4 ["x"] : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// partial = {...} keeps a partial value so; on a whole one it is an error.
shardc.mesh @mesh_4 = <["x"=4]>
func.func @asked_partial_but_whole(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  // expected-error @+1 {{asks for a value partial over [{"x"}], but here it is whole}}
  %c = shardc.sharding_constraint %a <@mesh_4, [{}, {}], partial = {"x"}> : tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// partial = {...} on a layout the value cannot reach while partial: from
// [{"d"}] to [{"e"}] the reshard slices by "c" and permutes over it. (Before,
// the value was reduced on the way and still counted partial: the result
// came out twice as large.)
shardc.mesh @mesh_c2_d2_e4 = <["c"=2, "d"=2, "e"=4]>
func.func @asked_partial_across_its_axes(
    %w: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@mesh_c2_d2_e4, [{"c"}, {"d"}]>},
    %x: tensor<16xf32>) -> tensor<16xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [0] x [0] : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16xf32>
  %y1 = shardc.sharding_constraint %y <@mesh_c2_d2_e4, [{"d"}]> : tensor<16xf32>
  // expected-error @+1 {{keeps a value partial over [{"c"}], but it cannot move from [{"d"}] to [{"e"}] while partial: that would gather it, or run collectives over those axes}}
  %y2 = shardc.sharding_constraint %y1 <@mesh_c2_d2_e4, [{"e"}], partial = {"c"}> : tensor<16xf32>
  %z = shardc.neg %y2 : tensor<16xf32>
  return %z : tensor<16xf32>
}

// -----

// The same product asked partial right where it is made: it was reduced
// there, and the error says why.
shardc.mesh @mesh_c2_d2_e4 = <["c"=2, "d"=2, "e"=4]>
func.func @asked_partial_where_it_is_reduced(
    %w: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@mesh_c2_d2_e4, [{"c"}, {"d"}]>},
    %x: tensor<16xf32>) -> tensor<16xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [0] x [0] : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16xf32>
  // expected-error @+1 {{asks for a value partial over [{"c"}], but here it is whole (reduced where it is made: it cannot move from [{"d"}] to [{"e"}] while partial over them)}}
  %y2 = shardc.sharding_constraint %y <@mesh_c2_d2_e4, [{"e"}], partial = {"c"}> : tensor<16xf32>
  return %y2 : tensor<16xf32>
}

// -----

// Sub-axes of one axis that do not nest: "a":(1)2 and "a":(3)2 of an axis
// of 6 cut it at 2 and at 3, and there is no common factor to move data
// over (this crashed the reshard planner).
shardc.mesh @mesh_a_6 = <["a"=6]>
// expected-error @+1 {{sub-axes "a":(1)2 and "a":(3)2 of mesh axis "a" do not nest (2 does not divide 3): shardc cannot move data between layouts that use both}}
func.func @sub_axes_do_not_nest(%arg0: tensor<2x2xf32> {shardc.sharding = #shardc.sharding<@mesh_a_6, [{"a":(1)2}, {}]>})
    -> (tensor<2x2xf32> {shardc.sharding = #shardc.sharding<@mesh_a_6, [{}, {"a":(3)2}]>}) {
  %0 = shardc.neg %arg0 : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
