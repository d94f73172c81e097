// Data-parallel MLP forward pass and loss, written with shard_map.
//
// The batch (32 examples of 64 features) is split over the 4 devices of
// @mesh_4; the parameters are replicated. Each device computes its 8
// examples' logits and mean cross-entropy, and an all_reduce mean (JAX's
// pmean) turns the per-device losses into the global mean.
//
//   x (32,64) -> relu(x @ w1 + b1) (32,128) -> @ w2 + b2 (32,10) -> loss ()

shardc.mesh @mesh_4 = <["data"=4]>

func.func @main(%x: tensor<32x64xf32> {shardc.name = "x"},
                %labels: tensor<32xi32> {shardc.name = "labels"},
                %w1: tensor<64x128xf32> {shardc.name = "w1"},
                %b1: tensor<128xf32> {shardc.name = "b1"},
                %w2: tensor<128x10xf32> {shardc.name = "w2"},
                %b2: tensor<10xf32> {shardc.name = "b2"})
    -> (tensor<f32>, tensor<32x10xf32>) {
  %loss, %logits = shardc.shard_map (%x, %labels, %w1, %b1, %w2, %b2)
      in_shardings = [<@mesh_4, [{"data"}, {}]>, <@mesh_4, [{"data"}]>,
                      <@mesh_4, [{}, {}]>, <@mesh_4, [{}]>,
                      <@mesh_4, [{}, {}]>, <@mesh_4, [{}]>]
      out_shardings = [<@mesh_4, []>, <@mesh_4, [{"data"}, {}]>] {
  ^bb0(%lx: tensor<8x64xf32>, %ly: tensor<8xi32>, %lw1: tensor<64x128xf32>,
       %lb1: tensor<128xf32>, %lw2: tensor<128x10xf32>, %lb2: tensor<10xf32>):
    // Hidden layer: relu(x @ w1 + b1)                                (8,128)
    %h0 = shardc.dot_general %lx, %lw1 contracting_dims = [1] x [0]
        : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
    %bb1 = shardc.broadcast_in_dim %lb1, dims = [1] : (tensor<128xf32>) -> tensor<8x128xf32>
    %h1 = shardc.add %h0, %bb1 : tensor<8x128xf32>
    %zero = shardc.constant dense<0.0> : tensor<8x128xf32>
    %h = shardc.max %h1, %zero : tensor<8x128xf32>
    // Logits: h @ w2 + b2                                            (8,10)
    %o0 = shardc.dot_general %h, %lw2 contracting_dims = [1] x [0]
        : (tensor<8x128xf32>, tensor<128x10xf32>) -> tensor<8x10xf32>
    %bb2 = shardc.broadcast_in_dim %lb2, dims = [1] : (tensor<10xf32>) -> tensor<8x10xf32>
    %logits_local = shardc.add %o0, %bb2 : tensor<8x10xf32>
    // log_softmax along the classes                                  (8,10)
    %m = shardc.reduce max %logits_local dims = [1] : (tensor<8x10xf32>) -> tensor<8xf32>
    %mb = shardc.broadcast_in_dim %m, dims = [0] : (tensor<8xf32>) -> tensor<8x10xf32>
    %z = shardc.sub %logits_local, %mb : tensor<8x10xf32>
    %e = shardc.exp %z : tensor<8x10xf32>
    %s = shardc.reduce sum %e dims = [1] : (tensor<8x10xf32>) -> tensor<8xf32>
    %ls = shardc.log %s : tensor<8xf32>
    %lsb = shardc.broadcast_in_dim %ls, dims = [0] : (tensor<8xf32>) -> tensor<8x10xf32>
    %logp = shardc.sub %z, %lsb : tensor<8x10xf32>
    // One-hot labels: iota == label                                  (8,10)
    %cls = shardc.iota dim = 1 : tensor<8x10xi32>
    %lab = shardc.broadcast_in_dim %ly, dims = [0] : (tensor<8xi32>) -> tensor<8x10xi32>
    %hit = shardc.compare eq, %cls, %lab : tensor<8x10xi32>
    %onehot = shardc.convert %hit : tensor<8x10xi1> -> tensor<8x10xf32>
    // Mean negative log-likelihood of this device's examples, then pmean.
    %picked = shardc.mul %onehot, %logp : tensor<8x10xf32>
    %total = shardc.reduce sum %picked dims = [0, 1] : (tensor<8x10xf32>) -> tensor<f32>
    %n = shardc.constant dense<-8.0> : tensor<f32>
    %local_loss = shardc.div %total, %n : tensor<f32>
    %loss_all = shardc.all_reduce mean %local_loss on @mesh_4 ["data"] : tensor<f32>
    shardc.return %loss_all, %logits_local : tensor<f32>, tensor<8x10xf32>
  } : (tensor<32x64xf32>, tensor<32xi32>, tensor<64x128xf32>, tensor<128xf32>,
       tensor<128x10xf32>, tensor<10xf32>) -> (tensor<f32>, tensor<32x10xf32>)
  return %loss, %logits : tensor<f32>, tensor<32x10xf32>
}
