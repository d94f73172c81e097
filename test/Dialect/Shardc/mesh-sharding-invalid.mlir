// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// Meshes, #shardc.sharding and the shardc.* attributes on functions and
// operations.

//===----------------------------------------------------------------------===//
// shardc.mesh
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'shardc.mesh' op declares axis "data" more than once}}
shardc.mesh @mesh_2x2 = <["data"=2, "data"=2]>

// -----

// expected-error@+1 {{'shardc.mesh' op axis "data" must have a positive size, got 0}}
shardc.mesh @mesh_0 = <["data"=0]>

// -----

// expected-error@+1 {{'shardc.mesh' op axis "model" must have a positive size, got -2}}
shardc.mesh @mesh_2xm2 = <["data"=2, "model"=-2]>

// -----

// expected-error@+1 {{'shardc.mesh' op has an axis with an empty name}}
shardc.mesh @mesh_2 = <[""=2]>

// -----

// expected-error@+1 {{'shardc.mesh' op has 2 axis names but 1 axis sizes}}
"shardc.mesh"() <{axis_names = ["data", "model"], axis_sizes = array<i64: 2>, sym_name = "mesh_2"}> : () -> ()

// -----

// expected-error@+1 {{'shardc.mesh' op attribute 'axis_names' failed to satisfy constraint: string array attribute}}
"shardc.mesh"() <{axis_names = [1], axis_sizes = array<i64: 2>, sym_name = "mesh_2"}> : () -> ()

// -----

func.func @mesh_inside_function() {
  // expected-error@+1 {{'shardc.mesh' op expects parent op 'builtin.module'}}
  shardc.mesh @mesh_2 = <["data"=2]>
  return
}

// -----

//===----------------------------------------------------------------------===//
// #shardc.sharding syntax
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2 = <["data"=2]>
// expected-error@+1 {{expected a flat symbol reference to a shardc.mesh}}
func.func @sharding_nested_symbol(%x: tensor<8xf32> {shardc.sharding = #shardc.sharding<@outer::@mesh_2, [{"data"}]>}) {
  return
}

// -----

shardc.mesh @mesh_2 = <["data"=2]>
// expected-error@+1 {{expected '}'}}
func.func @sharding_axis_after_open(%x: tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2, [{?, "data"}]>}) {
  return
}

// -----

shardc.mesh @mesh_2 = <["data"=2]>
// expected-error@+1 {{expected string}}
func.func @sharding_axis_not_string(%x: tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2, [{data}]>}) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// shardc.sharding on function arguments
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding refers to unknown mesh @mesh_8}}
func.func @arg_unknown_mesh(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_8, [{"data"}, {}]>}) {
  return
}

// -----

// A symbol that is not a shardc.mesh is not a mesh.
// expected-error@+1 {{argument #0: sharding refers to unknown mesh @not_a_mesh}}
func.func @arg_mesh_is_a_function(%x: tensor<8xf32> {shardc.sharding = #shardc.sharding<@not_a_mesh, [{}]>}) {
  return
}
func.func private @not_a_mesh()

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding uses axis "batch" in dimension 1, but mesh @mesh_2x4 has no such axis}}
func.func @arg_unknown_axis(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"batch"}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding uses axis "data" more than once}}
func.func @arg_repeated_axis_in_dim(%x: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "data"}, {}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding uses axis "model" more than once}}
func.func @arg_repeated_axis_across_dims(%x: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model"}, {"data", "model"}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding has 1 dimensions but the tensor 'tensor<8x16xf32>' has rank 2}}
func.func @arg_rank_mismatch(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding has 1 dimensions but the tensor 'tensor<f32>' has rank 0}}
func.func @arg_rank_mismatch_scalar(%x: tensor<f32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #1: sharding is attached to 'f32', which is not a ranked tensor}}
func.func @arg_not_a_tensor(%x: tensor<8xf32>, %s: f32 {shardc.sharding = #shardc.sharding<@mesh_2x4, []>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding is attached to 'tensor<*xf32>', which is not a ranked tensor}}
func.func @arg_unranked_tensor(%x: tensor<*xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{'shardc.sharding' on argument #0 must be a #shardc.sharding, got "data"}}
func.func @arg_sharding_not_an_attr(%x: tensor<8xf32> {shardc.sharding = "data"}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{'shardc.sharding' on argument #0 must be a #shardc.sharding, got [#shardc.sharding<@mesh_2x4, [{"data"}]>]}}
func.func @arg_sharding_array(%x: tensor<8xf32> {shardc.sharding = [#shardc.sharding<@mesh_2x4, [{"data"}]>]}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{unknown shardc attribute 'shardc.shardings' on argument #0}}
func.func @arg_shardings_plural(%x: tensor<8xf32> {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}]>]}) {
  return
}

// -----

// expected-error@+1 {{unknown shardc attribute 'shardc.layout' on argument #0}}
func.func @arg_unknown_attr(%x: tensor<8xf32> {shardc.layout = "row_major"}) {
  return
}

// -----

//===----------------------------------------------------------------------===//
// shardc.name on function arguments
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'shardc.name' on argument #1 must be a non-empty string}}
func.func @arg_name_not_a_string(%x: tensor<8xf32> {shardc.name = "x"}, %y: tensor<8xf32> {shardc.name = 1 : i32}) {
  return
}

// -----

// expected-error@+1 {{'shardc.name' on argument #0 must be a non-empty string}}
func.func @arg_name_symbol(%x: tensor<8xf32> {shardc.name = @x}) {
  return
}

// -----

// expected-error@+1 {{unknown shardc attribute 'shardc.name' on result #0}}
func.func @result_name(%x: tensor<8xf32>) -> (tensor<8xf32> {shardc.name = "y"}) {
  return %x : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// shardc.sharding on function results
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{result #1: sharding refers to unknown mesh @mesh_8}}
func.func @result_unknown_mesh(%x: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_8, [{}]>}) {
  return %x, %x : tensor<8xf32>, tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{result #0: sharding uses axis "x" in dimension 0, but mesh @mesh_2x4 has no such axis}}
func.func @result_unknown_axis(%x: tensor<8xf32>) -> (tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"x"}]>}) {
  return %x : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{result #0: sharding uses axis "data" more than once}}
func.func @result_repeated_axis(%x: tensor<8x8xf32>) -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", ?}, {"data"}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{result #0: sharding has 3 dimensions but the tensor 'tensor<8x8xf32>' has rank 2}}
func.func @result_rank_mismatch(%x: tensor<8x8xf32>) -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {}, {}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

// expected-error@+1 {{'shardc.sharding' on result #0 must be a #shardc.sharding, got unit}}
func.func @result_sharding_unit(%x: tensor<8xf32>) -> (tensor<8xf32> {shardc.sharding}) {
  return %x : tensor<8xf32>
}

// -----

// expected-error@+1 {{unknown shardc attribute 'shardc.shardings' on result #0}}
func.func @result_shardings_plural(%x: tensor<8xf32>) -> (tensor<8xf32> {shardc.shardings = []}) {
  return %x : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// shardc.shardings and other shardc.* attributes on operations
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_sharding_singular(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{unknown shardc attribute 'shardc.sharding' on an operation}}
  %y = shardc.neg %x {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @op_unknown_attr(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{unknown shardc attribute 'shardc.name' on an operation}}
  %y = shardc.neg %x {shardc.name = "y"} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// On the function operation itself (not on an argument).
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{unknown shardc attribute 'shardc.sharding' on an operation}}
func.func @function_sharding(%x: tensor<8xf32>) attributes {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>} {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_not_an_array(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shardings' must be an array of #shardc.sharding}}
  %y = shardc.neg %x {shardc.shardings = #shardc.sharding<@mesh_2x4, [{"data"}]>} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @op_shardings_too_few(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shardings' has 0 shardings but the operation has 1 results}}
  %y = shardc.neg %x {shardc.shardings = []} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_too_many(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shardings' has 2 shardings but the operation has 1 results}}
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}]>, #shardc.sharding<@mesh_2x4, [{"data"}]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_without_results(%x: tensor<8xf32>) {
  // expected-error@+1 {{'shardc.shardings' has 1 shardings but the operation has 0 results}}
  return {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}]>]}
}

// -----

func.func @op_shardings_element_not_a_sharding(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shardings' on result #0 must be a #shardc.sharding, got "data"}}
  %y = shardc.neg %x {shardc.shardings = ["data"]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @op_shardings_unknown_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{result #0: sharding refers to unknown mesh @mesh_2x4}}
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_unknown_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{result #0: sharding uses axis "batch" in dimension 0, but mesh @mesh_2x4 has no such axis}}
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"batch"}]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_repeated_axis(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{result #0: sharding uses axis "model" more than once}}
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"model"}, {"model"}]>]} : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @op_shardings_rank_mismatch(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{result #0: sharding has 2 dimensions but the tensor 'tensor<8xf32>' has rank 1}}
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {}]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func private @scalar() -> i32
func.func @op_shardings_non_tensor_result() -> i32 {
  // expected-error@+1 {{result #0: sharding is attached to 'i32', which is not a ranked tensor}}
  %s = func.call @scalar() {shardc.shardings = [#shardc.sharding<@mesh_2x4, []>]} : () -> i32
  return %s : i32
}

// -----

//===----------------------------------------------------------------------===//
// shardc.sharding_constraint
//===----------------------------------------------------------------------===//

func.func @constraint_unknown_mesh(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op sharding refers to unknown mesh @mesh_2x4}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{"data"}, {?}]> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @constraint_unknown_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op sharding uses axis "batch" in dimension 0, but mesh @mesh_2x4 has no such axis}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{"batch", ?}, {}]> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @constraint_repeated_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op sharding uses axis "data" more than once}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{"data"}, {"model", "data"}]> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @constraint_rank_mismatch(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op sharding has 1 dimensions but the tensor 'tensor<8x16xf32>' has rank 2}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{?}]> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @constraint_type_mismatch(%x: tensor<8x16xf32>) -> tensor<8x16xf16> {
  // expected-error@+1 {{'shardc.sharding_constraint' op requires the same type for all operands and results}}
  %y = "shardc.sharding_constraint"(%x) <{sharding = #shardc.sharding<@mesh_2x4, [{}, {}]>}> : (tensor<8x16xf32>) -> tensor<8x16xf16>
  return %y : tensor<8x16xf16>
}

// -----

//===----------------------------------------------------------------------===//
// shardc.partitioned on functions
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{'shardc.partitioned' must be a mesh reference on a function}}
func.func @partitioned_string(%x: tensor<4x16xf32>) attributes {shardc.partitioned = "mesh_2x4"} {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @partitioned_on_op(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'shardc.partitioned' must be a mesh reference on a function}}
  %y = shardc.neg %x {shardc.partitioned = @mesh_2x4} : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{'shardc.partitioned' refers to unknown mesh @mesh_8}}
func.func @partitioned_unknown_mesh(%x: tensor<4x16xf32>) attributes {shardc.partitioned = @mesh_8} {
  return
}

// -----

// In a partitioned function the types are local, but the mesh and the axes
// of the shardings are still checked.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding uses axis "batch" in dimension 0, but mesh @mesh_2x4 has no such axis}}
func.func @partitioned_unknown_axis(%x: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"batch"}, {}]>})
    attributes {shardc.partitioned = @mesh_2x4} {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{result #0: sharding uses mesh @mesh_8 but the function is partitioned over @mesh_2x4}}
func.func @partitioned_result_unknown_mesh(%x: tensor<4x16xf32>)
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_8, [{}, {}]>})
    attributes {shardc.partitioned = @mesh_2x4} {
  return %x : tensor<4x16xf32>
}

// -----

// expected-error@+1 {{arguments #0 and #1 are both named 'x'}}
func.func @duplicate_argument_names(%a: tensor<4xf32> {shardc.name = "x"},
                                    %b: tensor<4xf32> {shardc.name = "x"}) {
  return
}

// -----

// expected-error@+1 {{'shardc.name' on argument #0 must be a non-empty string}}
func.func @empty_argument_name(%a: tensor<4xf32> {shardc.name = ""}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding has 1 dimensions but the tensor 'tensor<4x16xf32>' has rank 2}}
func.func @partitioned_rank_mismatch(%x: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>})
    attributes {shardc.partitioned = @mesh_2x4} {
  return
}

// -----

// expected-error@+1 {{'shardc.mesh' op has more than 1048576 devices}}
shardc.mesh @too_big = <["a"=4294967296, "b"=4294967296]>

// -----

// partial = {...}: axes of the mesh, not used by a dimension, only on a
// sharding_constraint.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @partial_axis_also_splits(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op sharding is partial over axis "data", which it also uses elsewhere (a dimension or partial)}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{"data"}, {}], partial = {"data"}> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @partial_unknown_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.sharding_constraint' op sharding is partial over axis "x", but mesh @mesh_2x4 has no such axis}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{}, {}], partial = {"x"}> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: partial = {...} is allowed only on a sharding_constraint (arguments, results and op results are whole values)}}
func.func @partial_argument(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {}], partial = {"model"}>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @partial_open(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{partial = {...} names one or more mesh axes, without '?'}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{}, {}], partial = {?}> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @priority_malformed(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{expected a priority p0, p1, ... after a dimension's braces}}
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{"data"}q1, {}]> : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// A sub-axis must divide its axis: "model" (4) has no factor of 3.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding uses axis "model":(1)3 in dimension 0, but mesh @mesh_2x4 has no such axis, or the sub-axis does not divide it}}
func.func @sub_axis_does_not_divide(%x: tensor<12xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model":(1)3}]>}) {
  return
}

// -----

// An axis and one of its own factors overlap: they would split by the same
// devices' coordinates twice.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{argument #0: sharding uses axis "model":(2)2 more than once (it overlaps another axis or sub-axis)}}
func.func @sub_axis_overlaps_its_axis(%x: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model"}, {"model":(2)2}]>}) {
  return
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{a sub-axis "a":(pre)size needs pre >= 1 and size >= 2, both at most 2^30}}
func.func @sub_axis_size_one(%x: tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model":(1)1}]>}) {
  return
}

// -----

// Sizes that would overflow when multiplied are rejected where they are read.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// expected-error@+1 {{a sub-axis "a":(pre)size needs pre >= 1 and size >= 2, both at most 2^30}}
func.func @sub_axis_huge(%x: tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model":(4611686018427387904)4}]>}) {
  return
}
