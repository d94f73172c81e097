// ARG x: 4x6 f32 randn
// ARG p: 4x6 f32 pos
// EXPECT: np.abs(x)
// EXPECT: -x
// EXPECT: np.exp(x)
// EXPECT: np.log(p)
// EXPECT: np.tanh(x)
// EXPECT: np.sqrt(p)
// EXPECT: 1 / np.sqrt(p)
// EXPECT: np.log1p(p)
// EXPECT: 1 / (1 + np.exp(-x.astype(np.float64)))
// EXPECT: np.sign(x)
// EXPECT: erf(x)
// TOL: 2e-6
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %p: tensor<4x6xf32>)
      -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
          tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
    %0 = stablehlo.abs %x : tensor<4x6xf32>
    %1 = stablehlo.negate %x : tensor<4x6xf32>
    %2 = stablehlo.exponential %x : tensor<4x6xf32>
    %3 = stablehlo.log %p : tensor<4x6xf32>
    %4 = stablehlo.tanh %x : tensor<4x6xf32>
    %5 = stablehlo.sqrt %p : tensor<4x6xf32>
    %6 = stablehlo.rsqrt %p : tensor<4x6xf32>
    %7 = stablehlo.log_plus_one %p : tensor<4x6xf32>
    %8 = stablehlo.logistic %x : tensor<4x6xf32>
    %9 = stablehlo.sign %x : tensor<4x6xf32>
    %10 = chlo.erf %x : tensor<4x6xf32> -> tensor<4x6xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
}
