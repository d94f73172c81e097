shardc.mesh @mesh_a_6 = <["a"=6]>
func.func @main(%arg0: tensor<2x2xf32> {shardc.sharding = #shardc.sharding<@mesh_a_6, [{"a":(1)2}, {}]>}) -> (tensor<2x2xf32> {shardc.sharding = #shardc.sharding<@mesh_a_6, [{}, {"a":(3)2}]>}) {
  %0 = shardc.neg %arg0 : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
