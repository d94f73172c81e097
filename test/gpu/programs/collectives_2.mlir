// Every collective on two devices, along inner and outer dimensions.
shardc.mesh @mesh_2 = <["x"=2]>
func.func @main(%a: tensor<4x6xf32>, %b: tensor<6x4xi32>)
    -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x12xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
        tensor<6x4xi32>) {
  %r0, %r1, %r2, %r3, %r4, %r5 = shardc.shard_map (%a, %b)
      in_shardings = [<@mesh_2, [{}, {"x"}]>, <@mesh_2, [{"x"}, {}]>]
      out_shardings = [<@mesh_2, [{}, {"x"}]>, <@mesh_2, [{}, {"x"}]>, <@mesh_2, [{}, {"x"}]>,
                       <@mesh_2, [{}, {"x"}]>, <@mesh_2, [{}, {"x"}]>, <@mesh_2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<4x3xf32>, %lb: tensor<3x4xi32>):
    %s = shardc.all_reduce sum %la on @mesh_2 ["x"] : tensor<4x3xf32>
    %m = shardc.all_reduce mean %la on @mesh_2 ["x"] : tensor<4x3xf32>
    %g = shardc.all_gather %la on @mesh_2 ["x"] dim = 1 : tensor<4x3xf32> -> tensor<4x6xf32>
    %gg = shardc.add %g, %g : tensor<4x6xf32>
    %rs = shardc.reduce_scatter sum %gg on @mesh_2 ["x"] dim = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
    %t = shardc.all_to_all %la on @mesh_2 ["x"] split_dim = 0 concat_dim = 1 : tensor<4x3xf32> -> tensor<2x6xf32>
    %t2 = shardc.reshape %t : (tensor<2x6xf32>) -> tensor<4x3xf32>
    %mx = shardc.all_reduce max %lb on @mesh_2 ["x"] : tensor<3x4xi32>
    shardc.return %s, %m, %g, %rs, %t2, %mx : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x6xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3x4xi32>
  } : (tensor<4x6xf32>, tensor<6x4xi32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x12xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x4xi32>)
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x12xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x4xi32>
}
