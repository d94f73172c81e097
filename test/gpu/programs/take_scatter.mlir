// Embedding lookups and their gradient: take and scatter_add, f32 and i32.
func.func @main(%table: tensor<6x8xf32>, %idx: tensor<2x5xi32>, %upd: tensor<2x5x8xf32>,
                %itab: tensor<6x3xi32>, %iupd: tensor<2x5x3xi32>)
    -> (tensor<2x5x8xf32>, tensor<6x8xf32>, tensor<6x3xi32>) {
  %e = shardc.take %table, %idx : (tensor<6x8xf32>, tensor<2x5xi32>) -> tensor<2x5x8xf32>
  %g = shardc.scatter_add %table, %idx, %upd : (tensor<6x8xf32>, tensor<2x5xi32>, tensor<2x5x8xf32>) -> tensor<6x8xf32>
  %gi = shardc.scatter_add %itab, %idx, %iupd : (tensor<6x3xi32>, tensor<2x5xi32>, tensor<2x5x3xi32>) -> tensor<6x3xi32>
  return %e, %g, %gi : tensor<2x5x8xf32>, tensor<6x8xf32>, tensor<6x3xi32>
}
