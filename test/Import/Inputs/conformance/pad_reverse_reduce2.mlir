// reverse, pad (edges that add and edges that cut), a reduction of two
// operands at once, and Shardy's propagation hints, which change no value.
// ARG x: 4x6 f32 randn
// ARG y: 4x6 f32 randn
// EXPECT: x[::-1, ::-1]
// EXPECT: x[:, ::-1]
// EXPECT: np.pad(x, ((1, 2), (0, 3)), constant_values=0.5)
// EXPECT: np.pad(x[1:, :-1], ((0, 1), (2, 0)), constant_values=0.5)
// EXPECT: x.sum(axis=1)
// EXPECT: y.max(axis=1)
// EXPECT: x + y
module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %y: tensor<4x6xf32>)
      -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<7x9xf32>, tensor<4x7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x6xf32>) {
    %0 = stablehlo.reverse %x, dims = [0, 1] : tensor<4x6xf32>
    %1 = "stablehlo.reverse"(%x) {dimensions = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %v = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %2 = stablehlo.pad %x, %v, low = [1, 0], high = [2, 3], interior = [0, 0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<7x9xf32>
    %3 = stablehlo.pad %x, %v, low = [-1, 2], high = [1, -1], interior = [0, 0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x7xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4:2 = stablehlo.reduce(%x init: %zero), (%y init: %ninf) across dimensions = [1] :
        (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
      reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<f32>, %d: tensor<f32>)  {
        %s = stablehlo.add %a, %c : tensor<f32>
        %m = stablehlo.maximum %b, %d : tensor<f32>
        stablehlo.return %s, %m : tensor<f32>, tensor<f32>
      }
    %5 = sdy.propagation_barrier %x allowed_direction=BACKWARD : tensor<4x6xf32>
    sdy.sharding_group %y group_id=0 : tensor<4x6xf32>
    %6 = stablehlo.add %5, %y : tensor<4x6xf32>
    return %0, %1, %2, %3, %4#0, %4#1, %6 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<7x9xf32>, tensor<4x7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x6xf32>
  }
}
