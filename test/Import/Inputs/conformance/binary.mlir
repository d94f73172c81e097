// ARG a: 6x4 f32 randn
// ARG b: 6x4 f32 pos
// EXPECT: a + b
// EXPECT: a - b
// EXPECT: a * b
// EXPECT: a / b
// EXPECT: np.maximum(a, b)
// EXPECT: np.minimum(a, b)
// EXPECT: np.power(b, a)
// TOL: 2e-6
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                         %b: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>})
      -> (tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) {
    %0 = stablehlo.add %a, %b : tensor<6x4xf32>
    %1 = stablehlo.subtract %a, %b : tensor<6x4xf32>
    %2 = stablehlo.multiply %a, %b : tensor<6x4xf32>
    %3 = stablehlo.divide %a, %b : tensor<6x4xf32>
    %4 = stablehlo.maximum %a, %b : tensor<6x4xf32>
    %5 = stablehlo.minimum %a, %b : tensor<6x4xf32>
    %6 = stablehlo.power %b, %a : tensor<6x4xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
  }
}
