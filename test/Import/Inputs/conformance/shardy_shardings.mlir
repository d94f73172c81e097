// Every Shardy form on a 2x2 mesh: closed and open dimensions, priorities,
// a sub-axis, per-value shardings, constraints and reshards.
// ARG a: 8x8 f32 randn
// ARG b: 8x8 f32 randn
// EXPECT: np.tanh(a @ b + a).sum(axis=0)
// EXPECT: a @ b + a
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}p0, {"y":(1)2}]>},
                         %b: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}], replicated={"x"}>})
      -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}]>}, tensor<8x8xf32>) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {?}]>]>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.add %0, %a : tensor<8x8xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {"x", "y"}]> : tensor<8x8xf32>
    %3 = stablehlo.tanh %2 : tensor<8x8xf32>
    %4 = sdy.reshard %3 <@mesh, [{"y"}, {}]> : tensor<8x8xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    return %5, %2 : tensor<8xf32>, tensor<8x8xf32>
  }
}
