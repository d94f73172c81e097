// Ops with a shardc twin of their own: expm1, sine, cosine, and the
// roundings (halves to even).
// ARG x: 4x6 f32 randn
// ARG h: 4x6 i32 int -6 6
// LET: half = h.astype(np.float32) / 2
// EXPECT: np.expm1(x)
// EXPECT: np.sin(x * 3)
// EXPECT: np.cos(x * 3)
// EXPECT: np.floor(x * 3)
// EXPECT: np.ceil(x * 3)
// EXPECT: np.round(x * 3)
// EXPECT: np.round(half)
// TOL: 2e-6
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %h: tensor<4x6xi32>)
      -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
    %three = stablehlo.constant dense<3.000000e+00> : tensor<4x6xf32>
    %x3 = stablehlo.multiply %x, %three : tensor<4x6xf32>
    %0 = stablehlo.exponential_minus_one %x : tensor<4x6xf32>
    %1 = stablehlo.sine %x3 : tensor<4x6xf32>
    %2 = stablehlo.cosine %x3 : tensor<4x6xf32>
    %3 = stablehlo.floor %x3 : tensor<4x6xf32>
    %4 = stablehlo.ceil %x3 : tensor<4x6xf32>
    %5 = stablehlo.round_nearest_even %x3 : tensor<4x6xf32>
    %hf = stablehlo.convert %h : (tensor<4x6xi32>) -> tensor<4x6xf32>
    %two = stablehlo.constant dense<2.000000e+00> : tensor<4x6xf32>
    %halves = stablehlo.divide %hf, %two : tensor<4x6xf32>
    %6 = stablehlo.round_nearest_even %halves : tensor<4x6xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
}
