// JAX prints nested jit functions as private functions and calls them.
// ARG arg0: 4x4 f32 randn
// EXPECT: np.tanh(np.tanh(arg0) * 2) * 2
module @jit_f {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = ""}) {
    %0 = call @g(%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = call @g(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
  func.func private @g(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<4x4xf32>
    %1 = call @h(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
  func.func private @h(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
