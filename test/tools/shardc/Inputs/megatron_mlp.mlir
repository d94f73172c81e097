// Megatron-style MLP: the first weight is split by columns and the second by
// rows over "model". The hidden activations stay split by columns, and the
// only communication of the forward pass is one all_reduce of the output.

shardc.mesh @mesh_4 = <["model"=4]>

func.func @megatron_mlp(%x: tensor<8x16xf32> {shardc.name = "x"},
    %w1: tensor<16x32xf32> {shardc.name = "w1", shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"model"}]>},
    %w2: tensor<32x16xf32> {shardc.name = "w2", shardc.sharding = #shardc.sharding<@mesh_4, [{"model"}, {}]>})
    -> tensor<8x16xf32> {
  %h = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %z = shardc.constant dense<0.0> : tensor<8x32xf32>
  %r = shardc.max %h, %z : tensor<8x32xf32>
  %y = shardc.dot_general %r, %w2 contracting_dims = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
