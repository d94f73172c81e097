// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// dynamic_slice and dynamic_update_slice: one integer scalar start index per
// dimension, all of one type; the box fits the operand and has its element
// type.

func.func @slice_index_count(%x: tensor<4x8xf32>, %i: tensor<i32>) -> tensor<1x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_slice' op needs 2 start indices (the operand rank), got 1}}
  %y = shardc.dynamic_slice %x [%i] : (tensor<4x8xf32>, tensor<i32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

func.func @slice_index_not_scalar(%x: tensor<4x8xf32>, %i: tensor<1xi32>) -> tensor<1x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_slice' op operand #1 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %y = shardc.dynamic_slice %x [%i, %i] : (tensor<4x8xf32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

func.func @slice_mixed_index_types(%x: tensor<4x8xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<1x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_slice' op start index #1 has type 'tensor<i64>' but start index #0 has type 'tensor<i32>'}}
  %y = shardc.dynamic_slice %x [%i, %j] : (tensor<4x8xf32>, tensor<i32>, tensor<i64>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

func.func @slice_too_big(%x: tensor<4x8xf32>, %i: tensor<i32>) -> tensor<5x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_slice' op the result has size 5 in dimension 0, more than the operand's 4}}
  %y = shardc.dynamic_slice %x [%i, %i] : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @slice_rank(%x: tensor<4x8xf32>, %i: tensor<i32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shardc.dynamic_slice' op the result 'tensor<8xf32>' must have the operand's element type and rank ('tensor<4x8xf32>')}}
  %y = shardc.dynamic_slice %x [%i, %i] : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @update_element_type(%x: tensor<4x8xf32>, %u: tensor<1x8xf64>, %i: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_update_slice' op the update 'tensor<1x8xf64>' must have the operand's element type and rank ('tensor<4x8xf32>')}}
  %y = shardc.dynamic_update_slice %x, %u [%i, %i] : (tensor<4x8xf32>, tensor<1x8xf64>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @update_too_big(%x: tensor<4x8xf32>, %u: tensor<1x9xf32>, %i: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_update_slice' op the update has size 9 in dimension 1, more than the operand's 8}}
  %y = shardc.dynamic_update_slice %x, %u [%i, %i] : (tensor<4x8xf32>, tensor<1x9xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @update_result_type(%x: tensor<4x8xf32>, %u: tensor<1x8xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'shardc.dynamic_update_slice' op failed to verify that all of {operand, result} have same type}}
  %y = shardc.dynamic_update_slice %x, %u [%i, %i] : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @update_index_count(%x: tensor<4x8xf32>, %u: tensor<1x8xf32>, %i: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shardc.dynamic_update_slice' op needs 2 start indices (the operand rank), got 3}}
  %y = shardc.dynamic_update_slice %x, %u [%i, %i, %i] : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// expected-error@+1 {{'shardc.donated' on argument #0 takes no value}}
func.func @donated_with_value(%x: tensor<4xf32> {shardc.donated = 1 : i32}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
