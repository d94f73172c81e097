// tan (chlo and stablehlo), cbrt, round_nearest_afz, atan2 in every
// quadrant, and remainder (the sign of the dividend).
// ARG x: 4x6 f32 unit
// ARG y: 4x6 f32 randn
// ARG h: 4x6 i32 int -6 6
// LET: half = h.astype(np.float64) / 2
// EXPECT: np.tan(x)
// EXPECT: np.tan(x)
// EXPECT: np.cbrt(y)
// EXPECT: np.sign(half) * np.floor(np.abs(half) + 0.5)
// EXPECT: np.arctan2(y, x)
// EXPECT: np.fmod(y * 7, x)
// TOL: 2e-6
func.func public @main(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>, %h: tensor<4x6xi32>)
    -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = chlo.tan %x : tensor<4x6xf32> -> tensor<4x6xf32>
  %1 = stablehlo.tan %x : tensor<4x6xf32>
  %2 = stablehlo.cbrt %y : tensor<4x6xf32>
  %hf = stablehlo.convert %h : (tensor<4x6xi32>) -> tensor<4x6xf32>
  %two = stablehlo.constant dense<2.000000e+00> : tensor<4x6xf32>
  %halves = stablehlo.divide %hf, %two : tensor<4x6xf32>
  %3 = stablehlo.round_nearest_afz %halves : tensor<4x6xf32>
  %4 = stablehlo.atan2 %y, %x : tensor<4x6xf32>
  %seven = stablehlo.constant dense<7.000000e+00> : tensor<4x6xf32>
  %y7 = stablehlo.multiply %y, %seven : tensor<4x6xf32>
  %5 = stablehlo.remainder %y7, %x : tensor<4x6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}
