// Layer norms as the frontend traces them: each mean the row's sum of
// x / n, broadcast back along the row; epsilon and the square root after
// the broadcast. @one_row is a decode step's (one row of 6), @rows a
// batch's: the functions of row-programs-layer-norm.test.
func.func @one_row(%x: tensor<1x1x6xf32> {shardc.name = "x"}, %gamma: tensor<6xf32> {shardc.name = "gamma"}, %beta: tensor<6xf32> {shardc.name = "beta"}) -> tensor<1x1x6xf32> {
  %n = "shardc.constant"() <{value = dense<6.0> : tensor<1x1x6xf32>}> : () -> tensor<1x1x6xf32>
  %eps = "shardc.constant"() <{value = dense<1.0e-5> : tensor<1x1x6xf32>}> : () -> tensor<1x1x6xf32>
  %xs = "shardc.div"(%x, %n) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %s = "shardc.reduce"(%xs) <{dims = array<i64: 2>, kind = #shardc<reduce_kind sum>}> : (tensor<1x1x6xf32>) -> tensor<1x1xf32>
  %s1 = "shardc.reshape"(%s) : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
  %s2 = "shardc.reshape"(%s1) : (tensor<1x1x1xf32>) -> tensor<1x1xf32>
  %mean = "shardc.broadcast_in_dim"(%s2) <{dims = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<1x1x6xf32>
  %c = "shardc.sub"(%x, %mean) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %cc = "shardc.mul"(%c, %c) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %ccs = "shardc.div"(%cc, %n) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %v = "shardc.reduce"(%ccs) <{dims = array<i64: 2>, kind = #shardc<reduce_kind sum>}> : (tensor<1x1x6xf32>) -> tensor<1x1xf32>
  %v1 = "shardc.reshape"(%v) : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
  %v2 = "shardc.reshape"(%v1) : (tensor<1x1x1xf32>) -> tensor<1x1xf32>
  %var = "shardc.broadcast_in_dim"(%v2) <{dims = array<i64: 0, 1>}> : (tensor<1x1xf32>) -> tensor<1x1x6xf32>
  %ve = "shardc.add"(%var, %eps) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %r = "shardc.rsqrt"(%ve) : (tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %nr = "shardc.mul"(%c, %r) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %g = "shardc.broadcast_in_dim"(%gamma) <{dims = array<i64: 2>}> : (tensor<6xf32>) -> tensor<1x1x6xf32>
  %b = "shardc.broadcast_in_dim"(%beta) <{dims = array<i64: 2>}> : (tensor<6xf32>) -> tensor<1x1x6xf32>
  %ng = "shardc.mul"(%nr, %g) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  %y = "shardc.add"(%ng, %b) : (tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> tensor<1x1x6xf32>
  return %y : tensor<1x1x6xf32>
}

func.func @rows(%x: tensor<2x3x6xf32> {shardc.name = "x"}, %gamma: tensor<6xf32> {shardc.name = "gamma"}, %beta: tensor<6xf32> {shardc.name = "beta"}) -> (tensor<2x3x6xf32>, tensor<2x3x1xf32>) {
  %n = "shardc.constant"() <{value = dense<6.0> : tensor<2x3x6xf32>}> : () -> tensor<2x3x6xf32>
  %eps = "shardc.constant"() <{value = dense<1.0e-5> : tensor<2x3x6xf32>}> : () -> tensor<2x3x6xf32>
  %xs = "shardc.div"(%x, %n) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %s = "shardc.reduce"(%xs) <{dims = array<i64: 2>, kind = #shardc<reduce_kind sum>}> : (tensor<2x3x6xf32>) -> tensor<2x3xf32>
  %s1 = "shardc.reshape"(%s) : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %s2 = "shardc.reshape"(%s1) : (tensor<2x3x1xf32>) -> tensor<2x3xf32>
  %mean = "shardc.broadcast_in_dim"(%s2) <{dims = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3x6xf32>
  %c = "shardc.sub"(%x, %mean) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %cc = "shardc.mul"(%c, %c) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %ccs = "shardc.div"(%cc, %n) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %v = "shardc.reduce"(%ccs) <{dims = array<i64: 2>, kind = #shardc<reduce_kind sum>}> : (tensor<2x3x6xf32>) -> tensor<2x3xf32>
  %v1 = "shardc.reshape"(%v) : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %v2 = "shardc.reshape"(%v1) : (tensor<2x3x1xf32>) -> tensor<2x3xf32>
  %var = "shardc.broadcast_in_dim"(%v2) <{dims = array<i64: 0, 1>}> : (tensor<2x3xf32>) -> tensor<2x3x6xf32>
  %ve = "shardc.add"(%var, %eps) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %r = "shardc.rsqrt"(%ve) : (tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %nr = "shardc.mul"(%c, %r) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %g = "shardc.broadcast_in_dim"(%gamma) <{dims = array<i64: 2>}> : (tensor<6xf32>) -> tensor<2x3x6xf32>
  %b = "shardc.broadcast_in_dim"(%beta) <{dims = array<i64: 2>}> : (tensor<6xf32>) -> tensor<2x3x6xf32>
  %ng = "shardc.mul"(%nr, %g) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %y = "shardc.add"(%ng, %b) : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %y, %v1 : tensor<2x3x6xf32>, tensor<2x3x1xf32>
}
