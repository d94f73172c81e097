// A dense layer with bias and relu, then log-softmax over rows: fused
// elementwise chains with row broadcasts and row reductions.
func.func @main(%x: tensor<64x33xf32>, %w: tensor<33x17xf32>, %b: tensor<17xf32>)
    -> (tensor<64x17xf32>, tensor<64xf32>) {
  %m = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<64x33xf32>, tensor<33x17xf32>) -> tensor<64x17xf32>
  %bb = shardc.broadcast_in_dim %b, dims = [1] : (tensor<17xf32>) -> tensor<64x17xf32>
  %a = shardc.add %m, %bb : tensor<64x17xf32>
  %z = shardc.constant dense<0.0> : tensor<64x17xf32>
  %h = shardc.max %a, %z : tensor<64x17xf32>
  %mx = shardc.reduce max %h dims = [1] : (tensor<64x17xf32>) -> tensor<64xf32>
  %mxb = shardc.broadcast_in_dim %mx, dims = [0] : (tensor<64xf32>) -> tensor<64x17xf32>
  %sh = shardc.sub %h, %mxb : tensor<64x17xf32>
  %e = shardc.exp %sh : tensor<64x17xf32>
  %se = shardc.reduce sum %e dims = [1] : (tensor<64x17xf32>) -> tensor<64xf32>
  %ls = shardc.log %se : tensor<64xf32>
  %lsb = shardc.broadcast_in_dim %ls, dims = [0] : (tensor<64xf32>) -> tensor<64x17xf32>
  %lp = shardc.sub %sh, %lsb : tensor<64x17xf32>
  %mn = shardc.reduce min %lp dims = [1] : (tensor<64x17xf32>) -> tensor<64xf32>
  return %lp, %mn : tensor<64x17xf32>, tensor<64xf32>
}
