// An op the importer does not convert.
module {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.tanh %x : tensor<4xf32>
    %1 = stablehlo.shift_left %0, %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
