// A hand-written MLP forward pass: relu(x @ w1 + b1) @ w2, and the sum of the
// logits.  x (4,8), w1 (8,16), b1 (16), w2 (16,3) -> (4,3), ()
func.func @main(%x: tensor<4x8xf32> {shardc.name = "x"}, %w1: tensor<8x16xf32> {shardc.name = "w1"},
                %b1: tensor<16xf32> {shardc.name = "b1"}, %w2: tensor<16x3xf32> {shardc.name = "w2"})
    -> (tensor<4x3xf32>, tensor<f32>) {
  %h = shardc.dot_general %x, %w1 contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %bb = shardc.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %hb = shardc.add %h, %bb : tensor<4x16xf32>
  %z = shardc.constant dense<0.0> : tensor<4x16xf32>
  %r = shardc.max %hb, %z : tensor<4x16xf32>
  %o = shardc.dot_general %r, %w2 contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %s = shardc.reduce sum %o dims = [0, 1] : (tensor<4x3xf32>) -> tensor<f32>
  return %o, %s : tensor<4x3xf32>, tensor<f32>
}
