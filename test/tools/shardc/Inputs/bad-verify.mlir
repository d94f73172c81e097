func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
  %r = shardc.transpose %a, permutation = [0] : (tensor<2xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
