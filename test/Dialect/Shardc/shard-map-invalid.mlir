// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.shard_map and shardc.return: counts, meshes, closed shardings and the
// local types of the body.

//===----------------------------------------------------------------------===//
// Counts
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @in_shardings_count(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op has 1 inputs but 2 in_shardings}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>, <@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    shardc.return %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @out_shardings_count(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op has 1 results but 0 out_shardings}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>] out_shardings = [] {
  ^bb0(%l: tensor<8x16xf32>):
    shardc.return %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @body_argument_count(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op body has 2 arguments but the op has 1 inputs}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<8x16xf32>, %extra: tensor<8x16xf32>):
    shardc.return %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @return_count(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    // expected-error@+1 {{'shardc.return' op returns 2 values but the shard_map has 1 results}}
    shardc.return %l, %l : tensor<8x16xf32>, tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @return_nothing(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    // expected-error@+1 {{'shardc.return' op returns 0 values but the shard_map has 1 results}}
    shardc.return
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

func.func @return_outside_shard_map(%x: tensor<8xf32>) {
  // expected-error@+1 {{'shardc.return' op expects parent op 'shardc.shard_map'}}
  shardc.return %x : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @two_blocks(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op expects region #0 to have 0 or 1 blocks}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    shardc.return %l : tensor<8x16xf32>
  ^bb1:
    shardc.return %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// The body sees only its block arguments.
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @uses_value_from_above(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-note@+1 {{required by region isolation constraints}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    // expected-error@+1 {{using value defined outside the region}}
    %s = shardc.add %l, %y : tensor<8x16xf32>
    shardc.return %s : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

func.func @in_shardings_not_shardings(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shard_map' op attribute 'in_shardings' failed to satisfy constraint: array of shardings}}
  %r = "shardc.shard_map"(%x) <{in_shardings = ["data"], out_shardings = []}> ({
  ^bb0(%l: tensor<8xf32>):
    "shardc.return"(%l) : (tensor<8xf32>) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

func.func @unknown_mesh(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op refers to unknown mesh @mesh_2x4}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Without inputs the mesh is that of the first out_sharding.
func.func @unknown_mesh_no_inputs() -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shard_map' op refers to unknown mesh @mesh_4}}
  %r = shardc.shard_map () in_shardings = [] out_shardings = [<@mesh_4, [{}]>] {
    %c = shardc.constant dense<0.0> : tensor<8xf32>
    shardc.return %c : tensor<8xf32>
  } : () -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @inputs_on_different_meshes(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #1: all shardings must use mesh @mesh_2x4, got @mesh_4}}
  %r = shardc.shard_map (%x, %y) in_shardings = [<@mesh_2x4, [{"data"}]>, <@mesh_4, [{"x"}]>]
      out_shardings = [<@mesh_2x4, [{"data"}]>] {
  ^bb0(%lx: tensor<4xf32>, %ly: tensor<2xf32>):
    shardc.return %lx : tensor<4xf32>
  } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>
func.func @result_on_different_mesh(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.shard_map' op result #0: all shardings must use mesh @mesh_2x4, got @mesh_4}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}]>]
      out_shardings = [<@mesh_4, [{}]>] {
  ^bb0(%l: tensor<4xf32>):
    shardc.return %l : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Closed shardings
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @open_input_dim(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: shard_map shardings must be closed (no '?')}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {?}]>]
      out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @open_result_dim(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op result #0: shard_map shardings must be closed (no '?')}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{"data", ?}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Shardings against the mesh and the global types
//===----------------------------------------------------------------------===//

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @unknown_axis(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: sharding uses axis "batch" in dimension 0, but mesh @mesh_2x4 has no such axis}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"batch"}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @repeated_axis(%x: tensor<8x16xf32>) -> tensor<32x64xf32> {
  // expected-error@+1 {{'shardc.shard_map' op result #0: sharding uses axis "model" more than once}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{}, {}]>]
      out_shardings = [<@mesh_2x4, [{"model"}, {"model"}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    shardc.return %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @rank_mismatch(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: sharding has 1 dimensions but the tensor 'tensor<8x16xf32>' has rank 2}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Local types
//===----------------------------------------------------------------------===//

// The block argument has the local shape: (8, 16) split over data x model is
// (4, 4), not the global (8, 16).
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @block_arg_global_shape(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: local type must be 'tensor<4x4xf32>' (the global type 'tensor<8x16xf32>' split by the sharding), got 'tensor<8x16xf32>'}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
      out_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>] {
  ^bb0(%l: tensor<8x16xf32>):
    shardc.return %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @block_arg_multi_axis(%x: tensor<16x4xf32>) -> tensor<16x4xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: local type must be 'tensor<2x4xf32>' (the global type 'tensor<16x4xf32>' split by the sharding), got 'tensor<8x4xf32>'}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>]
      out_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>] {
  ^bb0(%l: tensor<8x4xf32>):
    shardc.return %l : tensor<8x4xf32>
  } : (tensor<16x4xf32>) -> tensor<16x4xf32>
  return %r : tensor<16x4xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @block_arg_element_type(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #0: local type must be 'tensor<4x16xf32>' (the global type 'tensor<8x16xf32>' split by the sharding), got 'tensor<4x16xf16>'}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
  ^bb0(%l: tensor<4x16xf16>):
    %c = shardc.convert %l : tensor<4x16xf16> -> tensor<4x16xf32>
    shardc.return %c : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// The second input is checked too.
shardc.mesh @mesh_4 = <["x"=4]>
func.func @second_block_arg(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.shard_map' op input #1: local type must be 'tensor<8xf32>' (the global type 'tensor<8xf32>' split by the sharding), got 'tensor<2xf32>'}}
  %r = shardc.shard_map (%x, %y) in_shardings = [<@mesh_4, [{"x"}]>, <@mesh_4, [{}]>]
      out_shardings = [<@mesh_4, [{"x"}]>] {
  ^bb0(%lx: tensor<2xf32>, %ly: tensor<2xf32>):
    shardc.return %lx : tensor<2xf32>
  } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// The body returns local values: a result replicated over "x" and split over
// nothing has the global shape, so returning the (2, 8) block is an error.
shardc.mesh @mesh_4 = <["x"=4]>
func.func @return_type_mismatch(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{'shardc.shard_map' op result #0: local type must be 'tensor<8x8xf32>' (the global type 'tensor<8x8xf32>' split by the sharding), got 'tensor<2x8xf32>'}}
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{}, {}]>] {
  ^bb0(%l: tensor<2x8xf32>):
    shardc.return %l : tensor<2x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @second_result_type_mismatch(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // expected-error@+1 {{'shardc.shard_map' op result #1: local type must be 'tensor<8x4xf32>' (the global type 'tensor<8x16xf32>' split by the sharding), got 'tensor<4x16xf32>'}}
  %r:2 = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{"data"}, {}]>, <@mesh_2x4, [{}, {"model"}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    shardc.return %l, %l : tensor<4x16xf32>, tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<8x16xf32>
}
