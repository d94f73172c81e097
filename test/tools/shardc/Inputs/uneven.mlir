shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
func.func @main(%x: tensor<8x6xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}) -> tensor<f32> {
  %s = shardc.reduce sum %x dims = [0, 1] : (tensor<8x6xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
