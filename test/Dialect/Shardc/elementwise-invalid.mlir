// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// Element types and operand/result types of the elementwise ops: unary and
// binary arithmetic, compare, select and convert.

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

func.func @exp_integer(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'shardc.exp' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %y = shardc.exp %x : tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @log_integer(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{'shardc.log' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %y = shardc.log %x : tensor<4xi64>
  return %y : tensor<4xi64>
}

// -----

func.func @sqrt_integer(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'shardc.sqrt' op operand #0 must be statically shaped tensor of 32-bit float}}
  %y = shardc.sqrt %x : tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @neg_predicate(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'shardc.neg' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %y = shardc.neg %x : tensor<4xi1>
  return %y : tensor<4xi1>
}

// -----

func.func @abs_i8(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{'shardc.abs' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %y = shardc.abs %x : tensor<4xi8>
  return %y : tensor<4xi8>
}

// -----

func.func @tanh_result_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{'shardc.tanh' op requires the same type for all operands and results}}
  %y = "shardc.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

func.func @erf_result_shape(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'shardc.erf' op all non-scalar operands/results must have the same shape and base type}}
  %y = "shardc.erf"(%x) : (tensor<4xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

func.func @rsqrt_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{'shardc.rsqrt' op operand #0 must be statically shaped tensor of 32-bit float}}
  %y = "shardc.rsqrt"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %y : tensor<*xf32>
}

// -----

func.func @tanh_scalar(%x: f32) -> f32 {
  // expected-error@+1 {{'shardc.tanh' op operand #0 must be statically shaped tensor of 32-bit float}}
  %y = "shardc.tanh"(%x) : (f32) -> f32
  return %y : f32
}

// -----

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

func.func @add_predicate(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'shardc.add' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %z = shardc.add %x, %y : tensor<4xi1>
  return %z : tensor<4xi1>
}

// -----

func.func @sub_element_types_differ(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.sub' op requires the same type for all operands and results}}
  %z = "shardc.sub"(%x, %y) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// Broadcasting is explicit: operands of different shapes are an error.
func.func @mul_shapes_differ(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shardc.mul' op all non-scalar operands/results must have the same shape and base type}}
  %z = "shardc.mul"(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

func.func @div_result_type(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.div' op requires the same type for all operands and results}}
  %z = "shardc.div"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @pow_i8(%x: tensor<4xi8>, %y: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{'shardc.pow' op operand #0 must be statically shaped tensor of}}
  %z = shardc.pow %x, %y : tensor<4xi8>
  return %z : tensor<4xi8>
}

// -----

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

func.func @compare_predicates(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'shardc.compare' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %p = shardc.compare eq, %x, %y : tensor<4xi1>
  return %p : tensor<4xi1>
}

// -----

func.func @compare_unknown_direction(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+2 {{expected ::shardc::CompareDirection to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error@+1 {{failed to parse Shardc_CompareDirectionAttr parameter 'value' which is to be a `::shardc::CompareDirection`}}
  %p = shardc.compare lte, %x, %y : tensor<4xf32>
  return %p : tensor<4xi1>
}

// -----

func.func @compare_operand_types_differ(%x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xi1> {
  // expected-error@+1 {{'shardc.compare' op failed to verify that all of {lhs, rhs} have same type}}
  %p = "shardc.compare"(%x, %y) <{direction = #shardc<compare_direction lt>}> : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return %p : tensor<4xi1>
}

// -----

func.func @compare_result_not_predicate(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %p = "shardc.compare"(%x, %y) <{direction = #shardc<compare_direction lt>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @compare_result_shape(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<2x2xi1> {
  // expected-error@+1 {{'shardc.compare' op all non-scalar operands/results must have the same shape and base type}}
  %p = "shardc.compare"(%x, %y) <{direction = #shardc<compare_direction lt>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x2xi1>
  return %p : tensor<2x2xi1>
}

// -----

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

func.func @select_predicate_not_i1(%p: tensor<4xf32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %z = shardc.select %p, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @select_predicate_shape(%p: tensor<2xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.select' op all non-scalar operands/results must have the same shape and base type}}
  %z = shardc.select %p, %x, %y : tensor<2xi1>, tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @select_branch_types_differ(%p: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %z = "shardc.select"(%p, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

func.func @convert_shape(%x: tensor<4xi32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'shardc.convert' op all non-scalar operands/results must have the same shape and base type}}
  %y = shardc.convert %x : tensor<4xi32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

func.func @convert_to_i8(%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error@+1 {{'shardc.convert' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %y = shardc.convert %x : tensor<4xf32> -> tensor<4xi8>
  return %y : tensor<4xi8>
}

// -----

func.func @convert_from_unsigned(%x: tensor<4xui32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.convert' op operand #0 must be statically shaped tensor of}}
  %y = shardc.convert %x : tensor<4xui32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
