// Rows of a table gathered by indices split over two devices, then summed:
// each device takes its rows, and the sum needs an all_reduce between
// them. An index out of range fails on one device only.
shardc.mesh @mesh_2 = <["x"=2]>

func.func @main(%table: tensor<4x2xf32> {shardc.name = "table"},
                %idx: tensor<4xi32> {shardc.name = "idx",
                                     shardc.sharding = #shardc.sharding<@mesh_2, [{"x"}]>})
    -> tensor<f32> {
  %r = shardc.take %table, %idx : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  %s = shardc.reduce sum %r dims = [0, 1] : (tensor<4x2xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
