// A training step of a two-layer MLP (forward, backward, SGD), written the
// way jax.jit prints jax.value_and_grad plus an update, with the batch
// split over "data". docs/stablehlo.md walks through it.
// ARG x: 8x4 f32 randn
// ARG y: 8x2 f32 randn
// ARG w1: 4x16 f32 unit
// ARG b1: 16 f32 unit
// ARG w2: 16x2 f32 unit
// LET: z = x @ w1 + b1
// LET: h = np.maximum(z, 0)
// LET: d = h @ w2 - y
// LET: go = d * (2.0 / d.size)
// LET: gz = np.where(z > 0, go @ w2.T, 0)
// EXPECT: (d * d).mean()
// EXPECT: w1 - 0.1 * (x.T @ gz)
// EXPECT: b1 - 0.1 * gz.sum(axis=0)
// EXPECT: w2 - 0.1 * (h.T @ go)
module @jit_train_step attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                         %y: tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                         %w1: tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
                         %b1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>},
                         %w2: tensor<16x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<f32> {jax.result_info = "[0]"}, tensor<4x16xf32> {jax.result_info = "[1][0]"},
          tensor<16xf32> {jax.result_info = "[1][1]"}, tensor<16x2xf32> {jax.result_info = "[1][2]"}) {
    // Forward.
    %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<8x16xf32>
    %5 = stablehlo.dot_general %4, %w2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x2xf32>) -> tensor<8x2xf32>
    %6 = stablehlo.subtract %5, %y : tensor<8x2xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<8x2xf32>
    %8 = stablehlo.reduce(%7 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %9 = stablehlo.divide %8, %cst_0 : tensor<f32>
    // Backward: d(mean(d^2))/d(out) = 2 d / 16.
    %cst_1 = stablehlo.constant dense<1.250000e-01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %11 = stablehlo.multiply %6, %10 : tensor<8x2xf32>
    %12 = stablehlo.dot_general %4, %11, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
    %13 = stablehlo.dot_general %11, %w2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<16x2xf32>) -> tensor<8x16xf32>
    %14 = stablehlo.compare  GT, %2, %3,  FLOAT : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
    %15 = stablehlo.select %14, %13, %3 : tensor<8x16xi1>, tensor<8x16xf32>
    %16 = stablehlo.dot_general %x, %15, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %17 = stablehlo.reduce(%15 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
    // SGD, learning rate 0.1.
    %cst_2 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %19 = stablehlo.multiply %18, %16 : tensor<4x16xf32>
    %20 = stablehlo.subtract %w1, %19 : tensor<4x16xf32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %22 = stablehlo.multiply %21, %17 : tensor<16xf32>
    %23 = stablehlo.subtract %b1, %22 : tensor<16xf32>
    %24 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x2xf32>
    %25 = stablehlo.multiply %24, %12 : tensor<16x2xf32>
    %26 = stablehlo.subtract %w2, %25 : tensor<16x2xf32>
    return %9, %20, %23, %26 : tensor<f32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16x2xf32>
  }
}
