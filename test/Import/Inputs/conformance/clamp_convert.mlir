// ARG x: 4x4 f32 randn
// ARG lo: 4x4 f32 unit
// ARG i: 4x4 i32 int -100 100
// ARG d: 4x4 i32 int 1 9
// EXPECT: np.minimum(np.maximum(x, -0.5), 0.5)
// EXPECT: np.minimum(np.maximum(x, lo), lo + 0.25)
// EXPECT: i.astype(np.float32) * 0.5
// EXPECT: np.trunc(x * 10).astype(np.int32)
// EXPECT: np.fmod(i, d)
// EXPECT: np.fmod(i, -d)
func.func public @main(%x: tensor<4x4xf32>, %lo: tensor<4x4xf32>, %i: tensor<4x4xi32>, %d: tensor<4x4xi32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>, tensor<4x4xi32>, tensor<4x4xi32>) {
  %a = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
  %b = stablehlo.constant dense<5.000000e-01> : tensor<f32>
  %0 = stablehlo.clamp %a, %x, %b : (tensor<f32>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %q = stablehlo.constant dense<2.500000e-01> : tensor<4x4xf32>
  %hi = stablehlo.add %lo, %q : tensor<4x4xf32>
  %1 = stablehlo.clamp %lo, %x, %hi : tensor<4x4xf32>
  %f = stablehlo.convert %i : (tensor<4x4xi32>) -> tensor<4x4xf32>
  %h = stablehlo.constant dense<5.000000e-01> : tensor<4x4xf32>
  %2 = stablehlo.multiply %f, %h : tensor<4x4xf32>
  %ten = stablehlo.constant dense<1.000000e+01> : tensor<4x4xf32>
  %x10 = stablehlo.multiply %x, %ten : tensor<4x4xf32>
  %3 = stablehlo.convert %x10 : (tensor<4x4xf32>) -> tensor<4x4xi32>
  // Integer remainder: the sign of the dividend.
  %4 = stablehlo.remainder %i, %d : tensor<4x4xi32>
  %nd = stablehlo.negate %d : tensor<4x4xi32>
  %5 = stablehlo.remainder %i, %nd : tensor<4x4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>, tensor<4x4xi32>, tensor<4x4xi32>
}
