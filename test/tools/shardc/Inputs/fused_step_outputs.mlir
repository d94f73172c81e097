// A random program (RandomPartitionTest's many-axes seed 2894) that the
// tile-program interpreter once ran wrong; fused-step-outputs.test runs it.
module {
  shardc.mesh @mesh_2x2x2x2 = <["a"=2, "b"=2, "c"=2, "d"=2]>
  func.func @output_over_input(%arg0: tensor<32xf32> {shardc.pad_uneven}, %arg1: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2x2x2, [{"a", "b", "d", ?}, {"c"}]>}) -> (tensor<32x8x2xf32>) {
    %v0 = shardc.reshape %arg0 : (tensor<32xf32>) -> tensor<16x2xf32>
    %v1 = shardc.tanh %arg0 : tensor<32xf32>
    %v2 = shardc.reduce min %v0 dims = [1] : (tensor<16x2xf32>) -> tensor<16xf32>
    %v3 = shardc.broadcast_in_dim %v2, dims = [0] : (tensor<16xf32>) -> tensor<16x2xf32>
    %v4 = shardc.sub %v0, %v3 : tensor<16x2xf32>
    %v5 = shardc.broadcast_in_dim %v0, dims = [0, 2] : (tensor<16x2xf32>) -> tensor<16x8x2xf32>
    %v6 = shardc.reduce sum %v5 dims = [1, 2] : (tensor<16x8x2xf32>) -> tensor<16xf32>
    %v7 = shardc.sub %arg0, %v1 : tensor<32xf32>
    %v8 = shardc.dot_general %v7, %arg1 contracting_dims = [0] x [1] : (tensor<32xf32>, tensor<8x32xf32>) -> tensor<8xf32>
    %v9 = shardc.sharding_constraint %v5 <@mesh_2x2x2x2, [{?}, {"a", "d", "b"}, {}]> : tensor<16x8x2xf32>
    %v10 = shardc.slice %v9, start = [0, 0, 1], limit = [8, 8, 2], strides = [1, 1, 1] : (tensor<16x8x2xf32>) -> tensor<8x8x1xf32>
    %v11 = shardc.concatenate %v9, %v9 dim = 0 : (tensor<16x8x2xf32>, tensor<16x8x2xf32>) -> tensor<32x8x2xf32>
    return %v11 : tensor<32x8x2xf32>
  }
}
