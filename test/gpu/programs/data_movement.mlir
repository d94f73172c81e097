// iota, broadcast_in_dim, reshape, transpose, strided slice, concatenate,
// reductions over several dims, a dense constant.
func.func @main(%x: tensor<3x4x5xf32>, %v: tensor<4xf32>, %i: tensor<3x4x5xi32>)
    -> (tensor<5x3x4xf32>, tensor<3x2x2xf32>, tensor<3x8x5xf32>, tensor<2x4x3xf32>,
        tensor<4xf32>, tensor<3x5xi32>, tensor<3x4x5xi32>, tensor<2x3xf32>, tensor<3x4xf32>) {
  %t = shardc.transpose %x, permutation = [2, 0, 1] : (tensor<3x4x5xf32>) -> tensor<5x3x4xf32>
  %s = shardc.slice %x, start = [0, 1, 0], limit = [3, 4, 5], strides = [1, 2, 3] : (tensor<3x4x5xf32>) -> tensor<3x2x2xf32>
  %c = shardc.concatenate %x, %x dim = 1 : (tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> tensor<3x8x5xf32>
  %b = shardc.broadcast_in_dim %v, dims = [1] : (tensor<4xf32>) -> tensor<2x4x3xf32>
  %r = shardc.reduce sum %x dims = [0, 2] : (tensor<3x4x5xf32>) -> tensor<4xf32>
  %ri = shardc.reduce max %i dims = [1] : (tensor<3x4x5xi32>) -> tensor<3x5xi32>
  %io = shardc.iota dim = 1 : tensor<3x4x5xi32>
  %k = shardc.constant dense<[[1.0, -2.0, 3.5], [0.25, -0.0, 7.0]]> : tensor<2x3xf32>
  %rs = shardc.reshape %s : (tensor<3x2x2xf32>) -> tensor<3x4xf32>
  return %t, %s, %c, %b, %r, %ri, %io, %k, %rs : tensor<5x3x4xf32>, tensor<3x2x2xf32>, tensor<3x8x5xf32>, tensor<2x4x3xf32>, tensor<4xf32>, tensor<3x5xi32>, tensor<3x4x5xi32>, tensor<2x3xf32>, tensor<3x4xf32>
}
