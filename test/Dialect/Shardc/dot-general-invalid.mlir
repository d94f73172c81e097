// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.dot_general: element types, batching and contracting dims, and the
// result type they determine.

func.func @element_types_differ(%a: tensor<8x16xf32>, %b: tensor<16x4xf16>) -> tensor<8x4xf32> {
  // expected-error@+2 {{operands have different element types 'f32' and 'f16'}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf16>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @predicate_operands(%a: tensor<8x16xi1>, %b: tensor<16x4xi1>) -> tensor<8x4xi1> {
  // expected-error@+1 {{'shardc.dot_general' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x16xi1>'}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xi1>, tensor<16x4xi1>) -> tensor<8x4xi1>
  return %c : tensor<8x4xi1>
}

// -----

func.func @batching_count_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error@+2 {{has 1 lhs batching dims but 0 rhs batching dims}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = "shardc.dot_general"(%a, %b) <{lhs_batching_dims = array<i64: 0>, rhs_batching_dims = array<i64>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>}>
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// -----

func.func @batching_count_mismatch_custom(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error@+2 {{has 2 lhs batching dims but 1 rhs batching dims}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0, 1] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// -----

func.func @contracting_count_mismatch(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+2 {{has 1 lhs contracting dims but 2 rhs contracting dims}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0, 1]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @lhs_batching_out_of_range(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error@+2 {{lhs batching dims has dimension 3, out of range for rank 3}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [3] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// -----

func.func @rhs_batching_negative(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error@+2 {{rhs batching dims has dimension -1, out of range for rank 3}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0] x [-1], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// -----

func.func @lhs_contracting_out_of_range(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+2 {{lhs contracting dims has dimension 2, out of range for rank 2}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [2] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @rhs_contracting_out_of_range(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+2 {{rhs contracting dims has dimension 5, out of range for rank 2}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [5]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @lhs_contracting_repeated(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<f32> {
  // expected-error@+2 {{lhs contracting dims repeats dimension 1}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1, 1] x [0, 1]
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// A dimension cannot be both batching and contracting.
func.func @lhs_batching_and_contracting(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{lhs contracting dims repeats dimension 0}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [0] x [1]
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @rhs_batching_and_contracting(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{rhs contracting dims repeats dimension 1}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0] x [1], contracting_dims = [1] x [1]
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @rhs_batching_repeated(%a: tensor<4x4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+2 {{rhs batching dims repeats dimension 0}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0, 1] x [0, 0], contracting_dims = [2] x [1]
      : (tensor<4x4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

func.func @batching_sizes_differ(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error@+2 {{batching dims lhs[0] = 2 and rhs[0] = 3 differ in size}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// -----

func.func @contracting_sizes_differ(%a: tensor<8x16xf32>, %b: tensor<12x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+2 {{contracting dims lhs[1] = 16 and rhs[0] = 12 differ in size}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<12x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// The result is (batch, lhs free, rhs free): (2, 4, 16), not (2, 16, 4).
func.func @result_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x16x4xf32> {
  // expected-error@+2 {{'shardc.dot_general' op inferred type(s) 'tensor<2x4x16xf32>' are incompatible with return type(s) of operation 'tensor<2x16x4xf32>'}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x16x4xf32>
  return %c : tensor<2x16x4xf32>
}

// -----

// Batching dims come first in the result even when they are not first in
// the operands.
func.func @result_batching_not_first(%a: tensor<4x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<4x2x16xf32> {
  // expected-error@+2 {{'shardc.dot_general' op inferred type(s) 'tensor<2x4x16xf32>' are incompatible with return type(s) of operation 'tensor<4x2x16xf32>'}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b batching_dims = [1] x [0], contracting_dims = [2] x [1]
      : (tensor<4x2x8xf32>, tensor<2x8x16xf32>) -> tensor<4x2x16xf32>
  return %c : tensor<4x2x16xf32>
}

// -----

func.func @result_element_type(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>) -> tensor<8x4xf32> {
  // expected-error@+2 {{'shardc.dot_general' op inferred type(s) 'tensor<8x4xbf16>' are incompatible with return type(s) of operation 'tensor<8x4xf32>'}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @missing_contracting_dims(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'shardc.dot_general' op requires attribute 'rhs_contracting_dims'}}
  %c = "shardc.dot_general"(%a, %b) <{lhs_contracting_dims = array<i64: 1>}>
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @unknown_precision(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'shardc.dot_general' op precision "fp8" is none of "f32", "bf16", "tf32"}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "fp8"
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @precision_of_integers(%a: tensor<8x16xi32>, %b: tensor<16x4xi32>) -> tensor<8x4xi32> {
  // expected-error@+1 {{'shardc.dot_general' op precision "bf16" rounds f32 operands (or reads bf16 ones), not 'i32'}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xi32>, tensor<16x4xi32>) -> tensor<8x4xi32>
  return %c : tensor<8x4xi32>
}

// -----

// f32 names the default; it fits every element type.
func.func @f32_precision_of_f64(%a: tensor<8x16xf64>, %b: tensor<16x4xf64>) -> tensor<8x4xf64> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "f32"
      : (tensor<8x16xf64>, tensor<16x4xf64>) -> tensor<8x4xf64>
  return %c : tensor<8x4xf64>
}

// -----

func.func @tf32_of_bf16(%a: tensor<8x16xbf16>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'shardc.dot_general' op precision "tf32" rounds f32 operands, not 'bf16'}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "tf32"
      : (tensor<8x16xbf16>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

func.func @tf32_of_two_bf16(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>) -> tensor<8x4xbf16> {
  // expected-error@+1 {{'shardc.dot_general' op precision "tf32" rounds f32 operands, not 'bf16'}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "tf32"
      : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
  return %c : tensor<8x4xbf16>
}

// -----

func.func @bf16_product_declared_bf16(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>) -> tensor<8x4xbf16> {
  // expected-error@+2 {{'shardc.dot_general' op inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<8x4xbf16>'}}
  // expected-error@+1 {{'shardc.dot_general' op failed to infer returned types}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
  return %c : tensor<8x4xbf16>
}

// -----

func.func @bf16_product_of_f64(%a: tensor<8x16xbf16>, %b: tensor<16x4xf64>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'shardc.dot_general' op precision "bf16" rounds f32 operands (or reads bf16 ones), not 'f64'}}
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xbf16>, tensor<16x4xf64>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
