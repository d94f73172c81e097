// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.reduce: the kind, the reduced dims and the result type they
// determine.

func.func @kind_mean(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{kind 'mean' is for all_reduce; reduce with 'sum' and divide}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce mean %x dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @kind_unknown(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{expected ::shardc::ReduceKind to be one of: sum, max, min, mean}}
  // expected-error@+1 {{failed to parse Shardc_ReduceKindAttr parameter 'value' which is to be a `::shardc::ReduceKind`}}
  %y = shardc.reduce prod %x dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @no_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+2 {{must reduce at least one dimension}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce sum %x dims = [] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @no_dims_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error@+2 {{must reduce at least one dimension}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce max %x dims = [] : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// A max (or min) of nothing has no value.
func.func @empty_dim(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{reduces over dimension 1, which is empty}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce max %x dims = [1] : (tensor<4x0xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @empty_dim_sum(%x: tensor<0x3x5xi32>) -> tensor<3xi32> {
  // expected-error@+2 {{reduces over dimension 0, which is empty}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce sum %x dims = [2, 0] : (tensor<0x3x5xi32>) -> tensor<3xi32>
  return %y : tensor<3xi32>
}

// -----

func.func @dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{dims has dimension 2, out of range for rank 2}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce sum %x dims = [2] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @dim_negative(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{dims has dimension -1, out of range for rank 2}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce min %x dims = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @dim_of_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error@+2 {{dims has dimension 0, out of range for rank 0}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce sum %x dims = [0] : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @dim_repeated(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{dims repeats dimension 1}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce sum %x dims = [1, 1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The reduced dimensions are dropped, not kept with size 1.
func.func @result_keeps_dims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error@+2 {{'shardc.reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce sum %x dims = [1] : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

func.func @result_element_type(%x: tensor<4x8xi32>) -> tensor<4xf32> {
  // expected-error@+2 {{'shardc.reduce' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error@+1 {{'shardc.reduce' op failed to infer returned types}}
  %y = shardc.reduce max %x dims = [1] : (tensor<4x8xi32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @predicate_operand(%x: tensor<4x8xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'shardc.reduce' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %y = shardc.reduce max %x dims = [1] : (tensor<4x8xi1>) -> tensor<4xi1>
  return %y : tensor<4xi1>
}
