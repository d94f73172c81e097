// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.take (gather rows by index) and shardc.scatter_add (its adjoint).

//===----------------------------------------------------------------------===//
// take
//===----------------------------------------------------------------------===//

func.func @take_scalar_table(%t: tensor<f32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  // expected-error@+2 {{table must have rank at least 1}}
  // expected-error@+1 {{'shardc.take' op failed to infer returned types}}
  %r = shardc.take %t, %i : (tensor<f32>, tensor<3xi32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

func.func @take_float_indices(%t: tensor<16x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'shardc.take' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %r = shardc.take %t, %i : (tensor<16x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

func.func @take_predicate_indices(%t: tensor<16x4xf32>, %i: tensor<3xi1>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'shardc.take' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xi1>'}}
  %r = shardc.take %t, %i : (tensor<16x4xf32>, tensor<3xi1>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

func.func @take_i8_table(%t: tensor<16x4xi8>, %i: tensor<3xi32>) -> tensor<3x4xi8> {
  // expected-error@+1 {{'shardc.take' op operand #0 must be statically shaped tensor of}}
  %r = shardc.take %t, %i : (tensor<16x4xi8>, tensor<3xi32>) -> tensor<3x4xi8>
  return %r : tensor<3x4xi8>
}

// -----

// The result is the indices' shape followed by the row shape (4, 16, 64).
func.func @take_result_shape(%t: tensor<256x64xf32>, %i: tensor<4x16xi32>) -> tensor<4x16xf32> {
  // expected-error@+2 {{'shardc.take' op inferred type(s) 'tensor<4x16x64xf32>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  // expected-error@+1 {{'shardc.take' op failed to infer returned types}}
  %r = shardc.take %t, %i : (tensor<256x64xf32>, tensor<4x16xi32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

func.func @take_result_element_type(%t: tensor<16x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xi32> {
  // expected-error@+2 {{'shardc.take' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xi32>'}}
  // expected-error@+1 {{'shardc.take' op failed to infer returned types}}
  %r = shardc.take %t, %i : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// -----

//===----------------------------------------------------------------------===//
// scatter_add
//===----------------------------------------------------------------------===//

func.func @scatter_scalar_operand(%z: tensor<f32>, %i: tensor<3xi32>, %d: tensor<3xf32>) -> tensor<f32> {
  // expected-error@+2 {{operand must have rank at least 1}}
  // expected-error@+1 {{'shardc.scatter_add' op failed to infer returned types}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<f32>, tensor<3xi32>, tensor<3xf32>) -> tensor<f32>
  return %g : tensor<f32>
}

// -----

func.func @scatter_updates_element_type(%z: tensor<16x4xf32>, %i: tensor<3xi32>, %d: tensor<3x4xf16>) -> tensor<16x4xf32> {
  // expected-error@+2 {{updates element type 'f16' differs from operand element type 'f32'}}
  // expected-error@+1 {{'shardc.scatter_add' op failed to infer returned types}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<16x4xf32>, tensor<3xi32>, tensor<3x4xf16>) -> tensor<16x4xf32>
  return %g : tensor<16x4xf32>
}

// -----

func.func @scatter_updates_shape(%z: tensor<256x64xf32>, %i: tensor<4x16xi32>, %d: tensor<4x64xf32>) -> tensor<256x64xf32> {
  // expected-error@+2 {{updates must have shape [4, 16, 64] (indices shape, then operand shape without its first dimension), got [4, 64]}}
  // expected-error@+1 {{'shardc.scatter_add' op failed to infer returned types}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<256x64xf32>, tensor<4x16xi32>, tensor<4x64xf32>) -> tensor<256x64xf32>
  return %g : tensor<256x64xf32>
}

// -----

func.func @scatter_updates_rows_1d(%z: tensor<10xf32>, %i: tensor<3xi32>, %d: tensor<3x1xf32>) -> tensor<10xf32> {
  // expected-error@+2 {{updates must have shape [3] (indices shape, then operand shape without its first dimension), got [3, 1]}}
  // expected-error@+1 {{'shardc.scatter_add' op failed to infer returned types}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<10xf32>, tensor<3xi32>, tensor<3x1xf32>) -> tensor<10xf32>
  return %g : tensor<10xf32>
}

// -----

func.func @scatter_float_indices(%z: tensor<16x4xf32>, %i: tensor<3xf32>, %d: tensor<3x4xf32>) -> tensor<16x4xf32> {
  // expected-error@+1 {{'shardc.scatter_add' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<16x4xf32>, tensor<3xf32>, tensor<3x4xf32>) -> tensor<16x4xf32>
  return %g : tensor<16x4xf32>
}

// -----

func.func @scatter_predicate_operand(%z: tensor<16x4xi1>, %i: tensor<3xi32>, %d: tensor<3x4xi1>) -> tensor<16x4xi1> {
  // expected-error@+1 {{'shardc.scatter_add' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<16x4xi1>'}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<16x4xi1>, tensor<3xi32>, tensor<3x4xi1>) -> tensor<16x4xi1>
  return %g : tensor<16x4xi1>
}

// -----

// The result has the operand's type.
func.func @scatter_result_type(%z: tensor<16x4xf32>, %i: tensor<3xi32>, %d: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+2 {{'shardc.scatter_add' op inferred type(s) 'tensor<16x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error@+1 {{'shardc.scatter_add' op failed to infer returned types}}
  %g = shardc.scatter_add %z, %i, %d : (tensor<16x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %g : tensor<3x4xf32>
}
