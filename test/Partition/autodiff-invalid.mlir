// RUN: shardc-opt %s -split-input-file --shardc-autodiff="function=loss wrt=1" -verify-diagnostics

// Programs that --shardc-autodiff rejects, each with its diagnostic. Every
// case differentiates @loss with respect to argument #1.

// The result is not a scalar: there is no single loss to differentiate.
// expected-error @+1 {{autodiff differentiates a function returning one rank-0 float tensor (a loss), got '(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>'}}
func.func @loss(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %p = shardc.mul %a, %b : tensor<3xf32>
  return %p : tensor<3xf32>
}

// -----

// An integer loss.
// expected-error @+1 {{autodiff differentiates a function returning one rank-0 float tensor (a loss), got '(tensor<3xi32>, tensor<3xi32>) -> tensor<i32>'}}
func.func @loss(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<i32> {
  %p = shardc.mul %a, %b : tensor<3xi32>
  %l = shardc.reduce sum %p dims = [0] : (tensor<3xi32>) -> tensor<i32>
  return %l : tensor<i32>
}

// -----

// Two results.
// expected-error @+1 {{autodiff differentiates a function returning one rank-0 float tensor (a loss)}}
func.func @loss(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %a, %b : tensor<f32>, tensor<f32>
}

// -----

// Indices carry no gradient.
// expected-error @+1 {{autodiff: argument #1 of type 'tensor<5xi32>' is not differentiable}}
func.func @loss(%table: tensor<4x3xf32>, %indices: tensor<5xi32>) -> tensor<f32> {
  %rows = shardc.take %table, %indices : (tensor<4x3xf32>, tensor<5xi32>) -> tensor<5x3xf32>
  %l = shardc.reduce sum %rows dims = [0, 1] : (tensor<5x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{autodiff: argument #1 does not exist}}
func.func @loss(%a: tensor<3xf32>) -> tensor<f32> {
  %l = shardc.reduce sum %a dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Only unit strides have a gradient rule.
func.func @loss(%w: tensor<4xf32>, %x: tensor<7xf32>) -> tensor<f32> {
  // expected-error @+1 {{the gradient of a strided slice is not supported}}
  %s = shardc.slice %x, start = [0], limit = [7], strides = [2]
      : (tensor<7xf32>) -> tensor<4xf32>
  %p = shardc.mul %w, %s : tensor<4xf32>
  %l = shardc.reduce sum %p dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// all_reduce max has no gradient rule, inside a shard_map too.
shardc.mesh @mesh_2 = <["x"=2]>

func.func @loss(%w: tensor<f32>, %x: tensor<4xf32>) -> tensor<f32> {
  %m = shardc.shard_map (%x) in_shardings = [<@mesh_2, [{"x"}]>]
         out_shardings = [<@mesh_2, [{}]>] {
  ^bb0(%lx: tensor<2xf32>):
    // expected-error @+1 {{all_reduce max/min has no gradient rule}}
    %e = shardc.all_reduce max %lx on @mesh_2 ["x"] : tensor<2xf32>
    shardc.return %e : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<2xf32>
  %l = shardc.reduce sum %m dims = [0] : (tensor<2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The name of the gradient function is taken.
// expected-error @+1 {{autodiff: @loss_grad already exists}}
func.func @loss(%w: tensor<f32>, %x: tensor<f32>) -> tensor<f32> {
  %p = shardc.mul %w, %x : tensor<f32>
  return %p : tensor<f32>
}

func.func @loss_grad(%w: tensor<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %w, %x : tensor<f32>, tensor<f32>
}
