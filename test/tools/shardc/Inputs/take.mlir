// Gathers rows of a 4x2 table; an index outside [0, 4) is a runtime error.
func.func @main(%table: tensor<4x2xf32> {shardc.name = "table"},
                %idx: tensor<3xi32> {shardc.name = "idx"}) -> tensor<3x2xf32> {
  %r = shardc.take %table, %idx : (tensor<4x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

func.func @second(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = shardc.neg %a : tensor<2xf32>
  return %r : tensor<2xf32>
}
