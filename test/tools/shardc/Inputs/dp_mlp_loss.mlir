// A data-parallel MLP forward pass and loss in the global view: only the
// batch is annotated (split over "data"); the parameters are replicated by
// default. Partitioning derives the per-device program and the one
// all_reduce the loss needs.
//   x (16,8) -> relu(x @ w1 + b1) (16,16) -> @ w2 + b2 (16,4) -> mean NLL ()

shardc.mesh @mesh_4 = <["data"=4]>

func.func @main(%x: tensor<16x8xf32> {shardc.name = "x",
                  shardc.sharding = #shardc.sharding<@mesh_4, [{"data"}, {}]>},
                %labels: tensor<16xi32> {shardc.name = "labels"},
                %w1: tensor<8x16xf32> {shardc.name = "w1"},
                %b1: tensor<16xf32> {shardc.name = "b1"},
                %w2: tensor<16x4xf32> {shardc.name = "w2"},
                %b2: tensor<4xf32> {shardc.name = "b2"})
    -> (tensor<f32>, tensor<16x4xf32>) {
  %h0 = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %bb1 = shardc.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32>
  %h1 = shardc.add %h0, %bb1 : tensor<16x16xf32>
  %zero = shardc.constant dense<0.0> : tensor<16x16xf32>
  %h = shardc.max %h1, %zero : tensor<16x16xf32>
  %o0 = shardc.dot_general %h, %w2 contracting_dims = [1] x [0]
      : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  %bb2 = shardc.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<16x4xf32>
  %logits = shardc.add %o0, %bb2 : tensor<16x4xf32>
  %m = shardc.reduce max %logits dims = [1] : (tensor<16x4xf32>) -> tensor<16xf32>
  %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<16xf32>) -> tensor<16x4xf32>
  %z = shardc.sub %logits, %mb : tensor<16x4xf32>
  %e = shardc.exp %z : tensor<16x4xf32>
  %s = shardc.reduce sum %e dims = [1] : (tensor<16x4xf32>) -> tensor<16xf32>
  %ls = shardc.log %s : tensor<16xf32>
  %lsb = shardc.broadcast_in_dim %ls, dims = [0] : (tensor<16xf32>) -> tensor<16x4xf32>
  %logp = shardc.sub %z, %lsb : tensor<16x4xf32>
  %cls = shardc.iota dim = 1 : tensor<16x4xi32>
  %lab = shardc.broadcast_in_dim %labels, dims = [0] : (tensor<16xi32>) -> tensor<16x4xi32>
  %hit = shardc.compare eq, %cls, %lab : tensor<16x4xi32>
  %onehot = shardc.convert %hit : tensor<16x4xi1> -> tensor<16x4xf32>
  %picked = shardc.mul %onehot, %logp : tensor<16x4xf32>
  %total = shardc.reduce sum %picked dims = [0, 1] : (tensor<16x4xf32>) -> tensor<f32>
  %n = shardc.constant dense<-16.0> : tensor<f32>
  %loss = shardc.div %total, %n : tensor<f32>
  return %loss, %logits : tensor<f32>, tensor<16x4xf32>
}
