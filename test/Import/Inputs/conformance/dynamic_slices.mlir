// Start indices are clamped so the box stays inside.
// ARG x: 5x6 f32 randn
// ARG u: 2x3 f32 randn
// ARG i: scalar i32 index 0 3
// ARG j: scalar i32 index 0 3
// EXPECT: x[min(i, 3):min(i, 3) + 2, min(j, 3):min(j, 3) + 3]
// EXPECT: (lambda y: (y.__setitem__((slice(min(i, 3), min(i, 3) + 2), slice(min(j, 3), min(j, 3) + 3)), u), y)[1])(x.copy())
func.func public @main(%x: tensor<5x6xf32>, %u: tensor<2x3xf32>, %i: tensor<i32>, %j: tensor<i32>) -> (tensor<2x3xf32>, tensor<5x6xf32>) {
  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<5x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %1 = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<5x6xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x6xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<5x6xf32>
}
