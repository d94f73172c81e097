// Integers make ties, so every direction is tried on equal values too.
// ARG a: 5x4 i32 int -2 2
// ARG b: 5x4 i32 int -2 2
// ARG x: 5x4 f32 randn
// ARG y: 5x4 f32 randn
// ARG p: 5x4 i1 bool
// EXPECT: a == b
// EXPECT: a != b
// EXPECT: a < b
// EXPECT: a <= b
// EXPECT: a > b
// EXPECT: a >= b
// EXPECT: np.where(x > y, x, y)
// EXPECT: (a < b) & p
// EXPECT: (a < b) | p
// EXPECT: ~p
// EXPECT: np.where(p, x, y)
// EXPECT: np.where(np.ones((5, 4), bool) * (a.sum() > 0), x, y)
func.func public @main(%a: tensor<5x4xi32>, %b: tensor<5x4xi32>, %x: tensor<5x4xf32>, %y: tensor<5x4xf32>, %p: tensor<5x4xi1>)
    -> (tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xf32>,
        tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xf32>, tensor<5x4xf32>) {
  %0 = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
  %1 = stablehlo.compare NE, %a, %b, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
  %2 = stablehlo.compare LT, %a, %b, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
  %3 = stablehlo.compare LE, %a, %b, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
  %4 = stablehlo.compare GT, %a, %b, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
  %5 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
  %6 = stablehlo.compare GT, %x, %y, FLOAT : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
  %7 = stablehlo.select %6, %x, %y : tensor<5x4xi1>, tensor<5x4xf32>
  %8 = stablehlo.and %2, %p : tensor<5x4xi1>
  %9 = stablehlo.or %2, %p : tensor<5x4xi1>
  %10 = stablehlo.not %p : tensor<5x4xi1>
  %11 = stablehlo.select %p, %x, %y : tensor<5x4xi1>, tensor<5x4xf32>
  // A scalar predicate picks a whole operand.
  %z = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x4xi32>, tensor<i32>) -> tensor<i32>
  %c = stablehlo.compare GT, %s, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %12 = stablehlo.select %c, %x, %y : (tensor<i1>, tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  return %0, %1, %2, %3, %4, %5, %7, %8, %9, %10, %11, %12 : tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xf32>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xi1>, tensor<5x4xf32>, tensor<5x4xf32>
}
