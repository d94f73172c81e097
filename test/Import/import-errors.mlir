// RUN: shardc-opt --shardc-import-stablehlo %s -split-input-file -verify-diagnostics

// What the importer does not convert is an error at the op, naming it.

func.func @f(%x: tensor<4x4xf32>, %i: tensor<2x2xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.gather' is not supported by shardc's StableHLO importer: only gathers of whole slices along one dimension (take) are}}
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<4x4xf32>, tensor<2x2xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<4x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{only gathers of whole slices along one dimension (take) are}}
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>} : (tensor<4x4xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @f(%x: tensor<4x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{only scatters that add (scatter-add, a gather's gradient) are}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom_call @foo (only @Sharding is)}}
  %0 = stablehlo.custom_call @foo(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{a reduction other than a sum, max or min}}
  %0 = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{compare type TOTALORDER (FLOAT and SIGNED are)}}
  %0 = stablehlo.compare LT, %x, %x, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{only on booleans (i1)}}
  %0 = stablehlo.and %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @f(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'shardc.abs' op operand #0 must be statically shaped tensor}}
  %0 = stablehlo.abs %x : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @f(%x: tensor<4xf32> {mhlo.sharding = "{devices=[3]<=[3]}"},
// expected-error @-1 {{mhlo.sharding of argument #1: it tiles 2 devices, the module has 3}}
             %y: tensor<4xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{mhlo.sharding of argument #0: manual shardings are only supported inside shard_map regions}}
func.func @f(%x: tensor<4xf32> {mhlo.sharding = "{manual}"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{no order of the mesh's axes}}
func.func @f(%x: tensor<4xf32> {mhlo.sharding = "{devices=[4]0,3,1,2}"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{calls @g, which has no body here}}
  %0 = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

sdy.mesh @m = <["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>
// expected-error @-1 {{a mesh whose device_ids are not 0, 1, ... in order is not supported}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{collectives are supported inside shard_map (sdy.manual_computation) bodies}}
  %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x", "y"} (%l: tensor<4xf32>) {
    // expected-error @+1 {{the replica groups of 'stablehlo.all_reduce' are not the groups of any set of mesh axes of @mesh}}
    %1 = "stablehlo.all_reduce"(%l) <{replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

sdy.mesh @mesh = <["x"=2]>
func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    // expected-error @+1 {{'stablehlo.all_reduce' combines with something other than one add, maximum or minimum}}
    %1 = "stablehlo.all_reduce"(%l) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.multiply %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    sdy.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #0 has type 'tensor<?x4xf32>': shardc's programs take and give tensors of static shape}}
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.tanh %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.atan2' is not supported by shardc's StableHLO importer: only on floats}}
  %0 = stablehlo.atan2 %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}
