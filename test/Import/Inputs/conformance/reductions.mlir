// ARG x: 4x6 f32 randn
// ARG i: 4x6 i32 int -50 50
// EXPECT: x.sum(axis=1)
// EXPECT: x.max(axis=0)
// EXPECT: x.min()
// EXPECT: x.sum(axis=0) + 3
// EXPECT: np.maximum(x.max(axis=1), 0.25)
// EXPECT: i.sum(axis=1)
// EXPECT: i.max(axis=0)
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %i: tensor<4x6xi32>)
      -> (tensor<4xf32>, tensor<6xf32>, tensor<f32>, tensor<6xf32>, tensor<4xf32>, tensor<4xi32>, tensor<6xi32>) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %three = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %quarter = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.reduce(%x init: %ninf) across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }
    %2 = stablehlo.reduce(%x init: %inf) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
    %3 = stablehlo.reduce(%x init: %three) applies stablehlo.add across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %4 = "stablehlo.reduce"(%x, %quarter) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%b, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %zi = stablehlo.constant dense<0> : tensor<i32>
    %min = stablehlo.constant dense<-2147483648> : tensor<i32>
    %5 = stablehlo.reduce(%i init: %zi) applies stablehlo.add across dimensions = [1] : (tensor<4x6xi32>, tensor<i32>) -> tensor<4xi32>
    %6 = stablehlo.reduce(%i init: %min) applies stablehlo.maximum across dimensions = [0] : (tensor<4x6xi32>, tensor<i32>) -> tensor<6xi32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<6xf32>, tensor<f32>, tensor<6xf32>, tensor<4xf32>, tensor<4xi32>, tensor<6xi32>
  }
}
