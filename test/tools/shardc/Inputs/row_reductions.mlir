// Row reductions that a fused chain reads back in unusual ways: the
// functions of row-programs-reductions.test. @twice broadcasts a row's sum
// twice, one broadcast per use, as implicit broadcasting traces it; @of_sums
// reduces the rows' sums again, over rows as long as x's.
func.func @twice(%x: tensor<2x3x5xf32> {shardc.name = "x"}) -> tensor<2x3x5xf32> {
  %e = "shardc.exp"(%x) : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %s = "shardc.reduce"(%e) <{dims = array<i64: 2>, kind = #shardc<reduce_kind sum>}> : (tensor<2x3x5xf32>) -> tensor<2x3xf32>
  %b1 = "shardc.broadcast_in_dim"(%s) <{dims = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3x5xf32>
  %d = "shardc.sub"(%e, %b1) : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %b2 = "shardc.broadcast_in_dim"(%s) <{dims = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3x5xf32>
  %y = "shardc.div"(%d, %b2) : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

func.func @of_sums(%x: tensor<2x3x3xf32> {shardc.name = "x"}) -> (tensor<2xf32>, tensor<2x3x3xf32>) {
  %e = "shardc.exp"(%x) : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %s = "shardc.reduce"(%e) <{dims = array<i64: 2>, kind = #shardc<reduce_kind sum>}> : (tensor<2x3x3xf32>) -> tensor<2x3xf32>
  %t = "shardc.reduce"(%s) <{dims = array<i64: 1>, kind = #shardc<reduce_kind sum>}> : (tensor<2x3xf32>) -> tensor<2xf32>
  %b = "shardc.broadcast_in_dim"(%s) <{dims = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3x3xf32>
  %y = "shardc.div"(%e, %b) : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %t, %y : tensor<2xf32>, tensor<2x3x3xf32>
}
