// ARG a: 2x3x4 f32 randn
// ARG b: 2x5x4 f32 randn
// ARG m: 3x4 f32 randn
// ARG v: 4 f32 randn
// EXPECT: np.einsum('bik,bjk->bij', a, b)
// EXPECT: m @ v
// EXPECT: v @ v
// EXPECT: m @ m.T
// EXPECT: np.einsum('bik,bjk->jbi', a, b)
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["b"=2]>
  func.func public @main(%a: tensor<2x3x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}, {}]>}, %b: tensor<2x5x4xf32>,
                         %m: tensor<3x4xf32>, %v: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}]>})
      -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<f32>, tensor<3x3xf32>, tensor<5x2x3xf32>) {
    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
    %1 = stablehlo.dot %m, %v, precision = [HIGHEST, HIGHEST] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    %2 = stablehlo.dot %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %3 = "stablehlo.dot_general"(%m, %m) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
    %4 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<2x3x5xf32>) -> tensor<5x2x3xf32>
    return %0, %1, %2, %3, %4 : tensor<2x3x5xf32>, tensor<3xf32>, tensor<f32>, tensor<3x3xf32>, tensor<5x2x3xf32>
  }
}
