// Shardings that do not divide their dimension (XLA pads them), twin
// meshes (one mesh written twice), a sharding inside a shard_map body (on
// an axis that is not manual), and data-flow edges.
// ARG x: 6x5 f32 randn
// ARG y: 6x5 f32 randn
// EXPECT: np.tanh(x) + y
// EXPECT: (np.tanh(x) + y).sum(axis=0)
// EXPECT: y * 3
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  sdy.mesh @mesh_again = <["a"=2, "b"=2]>
  func.func public @main(%x: tensor<6x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", "b"}, {}]>},
                         %y: tensor<6x5xf32> {sdy.sharding = #sdy.sharding<@mesh_again, [{}, {"b"}]>})
      -> (tensor<6x5xf32>, tensor<5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}, tensor<6x5xf32>) {
    %0 = stablehlo.tanh %x : tensor<6x5xf32>
    %1 = stablehlo.add %0, %y {sdy.sharding = #sdy.sharding_per_value<[<@mesh_again, [{"b"}, {"a"}]>]>} : tensor<6x5xf32>
    %2 = sdy.data_flow_edge %1 sharding=<@mesh, [{"b"}, {"a"}]> : tensor<6x5xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<6x5xf32>, tensor<f32>) -> tensor<5xf32>
    %4 = sdy.manual_computation(%y) in_shardings=[<@mesh_again, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%l: tensor<3x5xf32>) {
      %t = stablehlo.constant dense<3.000000e+00> : tensor<3x5xf32>
      %m = stablehlo.multiply %l, %t {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"b"}, {}]>]>} : tensor<3x5xf32>
      %c = sdy.sharding_constraint %m <@mesh, [{}, {"b"}]> : tensor<3x5xf32>
      sdy.return %c : tensor<3x5xf32>
    } : (tensor<6x5xf32>) -> tensor<6x5xf32>
    return %2, %3, %4 : tensor<6x5xf32>, tensor<5xf32>, tensor<6x5xf32>
  }
}
