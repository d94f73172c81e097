// The example jax.jit(f, in_shardings=...).lower(...).as_text() prints.
// ARG x: 8x4 f32 randn
// ARG w: 4x2 f32 randn
// EXPECT: np.maximum(x @ w, 0)
module @jit_step attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                         %w: tensor<4x2xf32> {mhlo.layout_mode = "default"})
      -> (tensor<8x2xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<8x2xf32>
    return %2 : tensor<8x2xf32>
  }
}
