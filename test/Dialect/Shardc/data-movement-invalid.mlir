// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// Sources (constant, iota) and data movement (broadcast_in_dim, reshape,
// transpose, slice, concatenate).

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

func.func @constant_i8() -> tensor<4xi8> {
  // expected-error@+1 {{'shardc.constant' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %c = shardc.constant dense<1> : tensor<4xi8>
  return %c : tensor<4xi8>
}

// -----

func.func @constant_vector() -> vector<4xf32> {
  // expected-error@+1 {{'shardc.constant' op result #0 must be statically shaped tensor of}}
  %c = shardc.constant dense<1.0> : vector<4xf32>
  return %c : vector<4xf32>
}

// -----

func.func @constant_type_mismatch() -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.constant' op failed to verify that all of {value, result} have same type}}
  %c = "shardc.constant"() <{value = dense<1.0> : tensor<2x2xf32>}> : () -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @constant_not_elements() -> tensor<f32> {
  // expected-error@+1 {{invalid properties {value = 1.000000e+00 : f32} for op shardc.constant: Invalid attribute `value` in property conversion}}
  %c = "shardc.constant"() <{value = 1.0 : f32}> : () -> tensor<f32>
  return %c : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// iota
//===----------------------------------------------------------------------===//

func.func @iota_scalar() -> tensor<i32> {
  // expected-error@+1 {{'shardc.iota' op result must have rank at least 1}}
  %i = shardc.iota dim = 0 : tensor<i32>
  return %i : tensor<i32>
}

// -----

func.func @iota_dim_out_of_range() -> tensor<2x3xi32> {
  // expected-error@+1 {{'shardc.iota' op dim 2 is out of range for rank 2}}
  %i = shardc.iota dim = 2 : tensor<2x3xi32>
  return %i : tensor<2x3xi32>
}

// -----

// Only the end of the message is matched: the dim is printed as an unsigned
// number (18446744073709551615) rather than -1.
func.func @iota_dim_negative() -> tensor<2x3xf32> {
  // expected-error@+1 {{is out of range for rank 2}}
  %i = shardc.iota dim = -1 : tensor<2x3xf32>
  return %i : tensor<2x3xf32>
}

// -----

func.func @iota_predicate() -> tensor<4xi1> {
  // expected-error@+1 {{'shardc.iota' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %i = shardc.iota dim = 0 : tensor<4xi1>
  return %i : tensor<4xi1>
}

// -----

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

func.func @broadcast_dims_count(%x: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error@+1 {{'shardc.broadcast_in_dim' op dims has 1 entries but the operand has rank 2}}
  %y = shardc.broadcast_in_dim %x, dims = [1] : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

func.func @broadcast_dim_out_of_range(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{dims has dimension 2, out of range for rank 2}}
  %y = shardc.broadcast_in_dim %x, dims = [2] : (tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @broadcast_dim_negative(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{dims has dimension -1, out of range for rank 2}}
  %y = shardc.broadcast_in_dim %x, dims = [-1] : (tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @broadcast_dim_repeated(%x: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{dims repeats dimension 1}}
  %y = shardc.broadcast_in_dim %x, dims = [1, 1] : (tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @broadcast_size_mismatch(%x: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shardc.broadcast_in_dim' op operand dimension 0 of size 3 cannot broadcast to result dimension 1 of size 8}}
  %y = shardc.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @broadcast_element_type(%x: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error@+1 {{'shardc.broadcast_in_dim' op requires the same element type for all operands and results}}
  %y = shardc.broadcast_in_dim %x, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

func.func @reshape_element_count(%x: tensor<4x8xf32>) -> tensor<30xf32> {
  // expected-error@+1 {{'shardc.reshape' op cannot reshape 'tensor<4x8xf32>' (32 elements) into 'tensor<30xf32>' (30 elements)}}
  %y = shardc.reshape %x : (tensor<4x8xf32>) -> tensor<30xf32>
  return %y : tensor<30xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<4x8xf32>) -> tensor<32xi32> {
  // expected-error@+1 {{'shardc.reshape' op requires the same element type for all operands and results}}
  %y = shardc.reshape %x : (tensor<4x8xf32>) -> tensor<32xi32>
  return %y : tensor<32xi32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

func.func @transpose_permutation_size(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+2 {{permutation has 3 entries but the operand has rank 2}}
  // expected-error@+1 {{'shardc.transpose' op failed to infer returned types}}
  %y = shardc.transpose %x, permutation = [1, 0, 2] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

func.func @transpose_out_of_range(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+2 {{permutation has dimension 2, out of range for rank 2}}
  // expected-error@+1 {{'shardc.transpose' op failed to infer returned types}}
  %y = shardc.transpose %x, permutation = [2, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

func.func @transpose_repeated(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+2 {{permutation repeats dimension 0}}
  // expected-error@+1 {{'shardc.transpose' op failed to infer returned types}}
  %y = shardc.transpose %x, permutation = [0, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Result dimension i is operand dimension permutation[i].
func.func @transpose_result_shape(%x: tensor<2x4x8xf32>) -> tensor<4x8x2xf32> {
  // expected-error@+2 {{'shardc.transpose' op inferred type(s) 'tensor<8x2x4xf32>' are incompatible with return type(s) of operation 'tensor<4x8x2xf32>'}}
  // expected-error@+1 {{'shardc.transpose' op failed to infer returned types}}
  %y = shardc.transpose %x, permutation = [2, 0, 1] : (tensor<2x4x8xf32>) -> tensor<4x8x2xf32>
  return %y : tensor<4x8x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

func.func @slice_entry_counts(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+2 {{start, limit and strides need 2 entries each (the operand rank), got 1, 2 and 2}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [0], limit = [4, 8], strides = [1, 1]
      : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @slice_zero_stride(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+2 {{stride in dimension 1 must be positive, got 0}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [0, 0], limit = [4, 8], strides = [1, 0]
      : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @slice_negative_stride(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+2 {{stride in dimension 0 must be positive, got -1}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [3, 0], limit = [0, 8], strides = [-1, 1]
      : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @slice_negative_start(%x: tensor<4x8xf32>) -> tensor<5x8xf32> {
  // expected-error@+2 {{dimension 0: need 0 <= start (-1) <= limit (4) <= size (4)}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [-1, 0], limit = [4, 8], strides = [1, 1]
      : (tensor<4x8xf32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @slice_start_after_limit(%x: tensor<4x8xf32>) -> tensor<4x0xf32> {
  // expected-error@+2 {{dimension 1: need 0 <= start (6) <= limit (2) <= size (8)}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [0, 6], limit = [4, 2], strides = [1, 1]
      : (tensor<4x8xf32>) -> tensor<4x0xf32>
  return %y : tensor<4x0xf32>
}

// -----

func.func @slice_limit_past_end(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  // expected-error@+2 {{dimension 1: need 0 <= start (0) <= limit (9) <= size (8)}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [0, 0], limit = [4, 9], strides = [1, 1]
      : (tensor<4x8xf32>) -> tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}

// -----

// Indices 1, 3, 5, 7 of dimension 1: four of them, rounded up.
func.func @slice_result_shape(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  // expected-error@+2 {{'shardc.slice' op inferred type(s) 'tensor<4x4xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error@+1 {{'shardc.slice' op failed to infer returned types}}
  %y = shardc.slice %x, start = [0, 1], limit = [4, 8], strides = [1, 2]
      : (tensor<4x8xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

func.func @concatenate_no_inputs() -> tensor<4xf32> {
  // expected-error@+2 {{needs at least one input}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate dim = 0 : () -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @concatenate_dim_out_of_range(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<5x8xf32> {
  // expected-error@+2 {{dim 2 is out of range for rank 2}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %b dim = 2 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @concatenate_dim_negative(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<5x8xf32> {
  // expected-error@+2 {{dim -1 is out of range for rank 2}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %b dim = -1 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @concatenate_scalars(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2xf32> {
  // expected-error@+2 {{dim 0 is out of range for rank 0}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %b dim = 0 : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @concatenate_element_types(%a: tensor<2x8xf32>, %b: tensor<3x8xf16>) -> tensor<5x8xf32> {
  // expected-error@+2 {{input #1 of type 'tensor<3x8xf16>' does not match input #0 of type 'tensor<2x8xf32>'}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %b dim = 0 : (tensor<2x8xf32>, tensor<3x8xf16>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @concatenate_ranks(%a: tensor<2x8xf32>, %b: tensor<8xf32>, %c: tensor<2x8x1xf32>) -> tensor<5x8xf32> {
  // expected-error@+2 {{input #2 of type 'tensor<2x8x1xf32>' does not match input #0 of type 'tensor<2x8xf32>'}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %a, %c dim = 0
      : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8x1xf32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @concatenate_other_dim_size(%a: tensor<2x8xf32>, %b: tensor<3x4xf32>) -> tensor<5x8xf32> {
  // expected-error@+2 {{input #1 has size 4 in dimension 1 but input #0 has 8}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %b dim = 0 : (tensor<2x8xf32>, tensor<3x4xf32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @concatenate_result_shape(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<6x8xf32> {
  // expected-error@+2 {{'shardc.concatenate' op inferred type(s) 'tensor<5x8xf32>' are incompatible with return type(s) of operation 'tensor<6x8xf32>'}}
  // expected-error@+1 {{'shardc.concatenate' op failed to infer returned types}}
  %y = shardc.concatenate %a, %b dim = 0 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}
