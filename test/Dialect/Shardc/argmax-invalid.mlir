// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.argmax: the dimension it searches, and the result type it
// determines (i32, without that dimension).

func.func @dim_out_of_range(%x: tensor<4x8xf32>) -> tensor<4xi32> {
  // expected-error@+2 {{dim 2 is out of range for rank 2}}
  // expected-error@+1 {{'shardc.argmax' op failed to infer returned types}}
  %y = shardc.argmax %x dim = 2 : (tensor<4x8xf32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @dim_empty(%x: tensor<4x0xf32>) -> tensor<4xi32> {
  // expected-error@+2 {{dim 1 is empty (the largest of nothing has no index)}}
  // expected-error@+1 {{'shardc.argmax' op failed to infer returned types}}
  %y = shardc.argmax %x dim = 1 : (tensor<4x0xf32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @integers(%x: tensor<4x8xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of}}
  %y = shardc.argmax %x dim = 1 : (tensor<4x8xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @result_keeps_dim(%x: tensor<4x8xf32>) -> tensor<4x8xi32> {
  // expected-error@+2 {{'shardc.argmax' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4x8xi32>'}}
  // expected-error@+1 {{'shardc.argmax' op failed to infer returned types}}
  %y = shardc.argmax %x dim = 1 : (tensor<4x8xf32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @result_i64(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  // expected-error@+1 {{result #0 must be tensor of 32-bit signless integer values}}
  %y = shardc.argmax %x dim = 1 : (tensor<4x8xf32>) -> tensor<4xi64>
  return %y : tensor<4xi64>
}
