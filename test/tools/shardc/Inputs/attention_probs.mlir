// A masked, scaled softmax, as the frontend traces it (max, exp, sum,
// divide): the function of row-programs.test.
func.func @attention_probs(%scores: tensor<2x3x8x8xf32> {shardc.name = "scores"}) -> tensor<2x3x8x8xf32> {
  %scale = "shardc.constant"() <{value = dense<0.125> : tensor<2x3x8x8xf32>}> : () -> tensor<2x3x8x8xf32>
  %mask = "shardc.constant"() <{value = dense<[[0.0, -1.0e9, -1.0e9, -1.0e9, -1.0e9, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9, -1.0e9, -1.0e9, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, -1.0e9, -1.0e9, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, 0.0, -1.0e9, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, 0.0, 0.0, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>}> : () -> tensor<8x8xf32>
  %scaled = "shardc.mul"(%scores, %scale) : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %maskb = "shardc.broadcast_in_dim"(%mask) <{dims = array<i64: 2, 3>}> : (tensor<8x8xf32>) -> tensor<2x3x8x8xf32>
  %x = "shardc.add"(%scaled, %maskb) : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %max = "shardc.reduce"(%x) <{dims = array<i64: 3>, kind = #shardc<reduce_kind max>}> : (tensor<2x3x8x8xf32>) -> tensor<2x3x8xf32>
  %max1 = "shardc.reshape"(%max) : (tensor<2x3x8xf32>) -> tensor<2x3x8x1xf32>
  %max2 = "shardc.reshape"(%max1) : (tensor<2x3x8x1xf32>) -> tensor<2x3x8xf32>
  %maxb = "shardc.broadcast_in_dim"(%max2) <{dims = array<i64: 0, 1, 2>}> : (tensor<2x3x8xf32>) -> tensor<2x3x8x8xf32>
  %shifted = "shardc.sub"(%x, %maxb) : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %e = "shardc.exp"(%shifted) : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %sum = "shardc.reduce"(%e) <{dims = array<i64: 3>, kind = #shardc<reduce_kind sum>}> : (tensor<2x3x8x8xf32>) -> tensor<2x3x8xf32>
  %sumb = "shardc.broadcast_in_dim"(%sum) <{dims = array<i64: 0, 1, 2>}> : (tensor<2x3x8xf32>) -> tensor<2x3x8x8xf32>
  %p = "shardc.div"(%e, %sumb) : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return %p : tensor<2x3x8x8xf32>
}
