// RUN: shardc-opt %s -split-input-file -verify-diagnostics --shardc-lower-to-plan -o /dev/null

// A plan's buffers have sizes: a dynamic dimension in the signature is an
// error naming the argument or result, not an invalid plan.

// expected-error @+1 {{argument #0 has type 'tensor<?x4xf32>': a program takes and gives tensors of static shape}}
func.func @main(%x: tensor<?x4xf32>, %y: tensor<8x4xf32>) -> (tensor<?x4xf32>, tensor<8x4xf32>) {
  %0 = shardc.tanh %y : tensor<8x4xf32>
  return %x, %0 : tensor<?x4xf32>, tensor<8x4xf32>
}

// -----

// expected-error @+1 {{argument #1 has type 'tensor<*xf32>': a program takes and gives tensors of static shape}}
func.func @main(%x: tensor<4xf32>, %y: tensor<*xf32>) -> tensor<*xf32> {
  return %y : tensor<*xf32>
}
