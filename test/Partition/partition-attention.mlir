// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// attention and qkv_attention, and their gradients, split by batch items
// and heads, which are independent: each device attends over its own items
// and heads, with no communication. Positions, the q/k/v dimension and the
// head width stay whole: a split there is gathered first. Each function also runs
// partitioned against unsharded on simulated devices, and through the CPU
// backend's one-pass kernel (PartitionEquivalenceTest).

shardc.mesh @mesh_2x2 = <["data"=2, "model"=2]>
shardc.mesh @mesh_4 = <["x"=4]>

// Batch over "data", heads over "model" (tensor parallelism's layout).
// CHECK-LABEL: func.func @batch_and_heads
// CHECK-SAME: [[Q:%[a-z0-9]+]]: tensor<2x8x3x2x4xf32>
// CHECK-SAME: -> (tensor<2x8x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[Y:%[a-z0-9]+]] = shardc.qkv_attention [[Q]] causal = true scale = 5.000000e-01 : (tensor<2x8x3x2x4xf32>) -> tensor<2x8x2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[Y]]
func.func @batch_and_heads(
    %qkv: tensor<4x8x3x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {}, {"model"}, {}]>})
    -> tensor<4x8x4x4xf32> {
  %y = shardc.qkv_attention %qkv causal = true scale = 0.5 : (tensor<4x8x3x4x4xf32>) -> tensor<4x8x4x4xf32>
  return %y : tensor<4x8x4x4xf32>
}

// Positions split (a sequence-parallel layout): gathered whole before the
// op, which needs every key of a head.
// CHECK-LABEL: func.func @positions_split
// CHECK: shardc.all_gather {{.*}} on @mesh_4 ["x"] dim = 1
// CHECK: shardc.qkv_attention {{.*}} : (tensor<2x8x3x2x4xf32>) -> tensor<2x8x2x4xf32>
func.func @positions_split(
    %qkv: tensor<2x8x3x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}, {}, {}, {}]>})
    -> tensor<2x8x2x4xf32> {
  %y = shardc.qkv_attention %qkv causal = false scale = 0.25 : (tensor<2x8x3x2x4xf32>) -> tensor<2x8x2x4xf32>
  return %y : tensor<2x8x2x4xf32>
}

// The gradient, batch over "data" and heads over "model": dout comes laid
// out as the forward's result, the gradient as qkv.
// CHECK-LABEL: func.func @grad_batch_and_heads
// CHECK-NOT: shardc.all_
// CHECK: shardc.qkv_attention_grad {{.*}} causal = true scale = 5.000000e-01 : (tensor<2x8x3x2x4xf32>, tensor<2x8x2x4xf32>) -> tensor<2x8x3x2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @grad_batch_and_heads(
    %qkv: tensor<4x8x3x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {}, {"model"}, {}]>},
    %dy: tensor<4x8x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>})
    -> tensor<4x8x3x4x4xf32> {
  %g = shardc.qkv_attention_grad %qkv, %dy causal = true scale = 0.5 : (tensor<4x8x3x4x4xf32>, tensor<4x8x4x4xf32>) -> tensor<4x8x3x4x4xf32>
  return %g : tensor<4x8x3x4x4xf32>
}

// attention of one position over a cache (a decoding step's), with its
// lengths: batch over "data", heads over "model"; the lengths follow the
// batch.
// CHECK-LABEL: func.func @decode_batch_and_heads
// CHECK-NOT: shardc.all_
// CHECK: shardc.attention {{.*}} lengths {{.*}} causal = false scale = 5.000000e-01 : (tensor<2x1x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2xi32>) -> tensor<2x1x2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @decode_batch_and_heads(
    %q: tensor<4x1x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %k: tensor<4x8x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %v: tensor<4x8x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %len: tensor<4xi32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}]>})
    -> tensor<4x1x4x4xf32> {
  %y = shardc.attention %q, %k, %v lengths %len causal = false scale = 0.5 : (tensor<4x1x4x4xf32>, tensor<4x8x4x4xf32>, tensor<4x8x4x4xf32>, tensor<4xi32>) -> tensor<4x1x4x4xf32>
  return %y : tensor<4x1x4x4xf32>
}

// Queries split (not causal, so each is independent), keys split too: the
// keys are gathered, the queries stay split.
// CHECK-LABEL: func.func @queries_split
// CHECK: shardc.all_gather {{.*}} on @mesh_4 ["x"] dim = 1 : tensor<2x2x2x4xf32> -> tensor<2x8x2x4xf32>
// CHECK: shardc.attention {{.*}} : (tensor<2x2x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>) -> tensor<2x2x2x4xf32>
func.func @queries_split(
    %q: tensor<2x8x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}, {}, {}]>},
    %k: tensor<2x8x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}, {}, {}]>})
    -> (tensor<2x8x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}, {}, {}]>}) {
  %y = shardc.attention %q, %k, %k causal = false scale = 0.25 : (tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>) -> tensor<2x8x2x4xf32>
  return %y : tensor<2x8x2x4xf32>
}

// attention's gradient over a cache with lengths, batch over "data" and
// heads over "model": dq, dk and dv come packed along positions, each
// device's of its own items and heads, with no communication.
// CHECK-LABEL: func.func @attention_grad_batch_and_heads
// CHECK-SAME: -> (tensor<2x19x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: shardc.attention_grad {{.*}} lengths {{.*}} causal = true scale = 5.000000e-01 : (tensor<2x3x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x3x2x4xf32>, tensor<2xi32>) -> tensor<2x19x2x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @attention_grad_batch_and_heads(
    %q: tensor<4x3x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %k: tensor<4x8x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %v: tensor<4x8x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %dy: tensor<4x3x4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}, {}, {"model"}, {}]>},
    %len: tensor<4xi32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"data"}]>})
    -> tensor<4x19x4x4xf32> {
  %g = shardc.attention_grad %q, %k, %v, %dy lengths %len causal = true scale = 0.5 : (tensor<4x3x4x4xf32>, tensor<4x8x4x4xf32>, tensor<4x8x4x4xf32>, tensor<4x3x4x4xf32>, tensor<4xi32>) -> tensor<4x19x4x4xf32>
  return %g : tensor<4x19x4x4xf32>
}

// Queries split: the gradient packs them with the keys, so they and dout
// are gathered whole first.
// CHECK-LABEL: func.func @attention_grad_queries_split
// CHECK: shardc.all_gather {{.*}} on @mesh_4 ["x"] dim = 1 : tensor<2x2x2x4xf32> -> tensor<2x8x2x4xf32>
// CHECK: shardc.all_gather {{.*}} on @mesh_4 ["x"] dim = 1 : tensor<2x2x2x4xf32> -> tensor<2x8x2x4xf32>
// CHECK: shardc.attention_grad {{.*}} : (tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>) -> tensor<2x24x2x4xf32>
func.func @attention_grad_queries_split(
    %q: tensor<2x8x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}, {}, {}]>},
    %k: tensor<2x8x2x4xf32>,
    %dy: tensor<2x8x2x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}, {}, {}]>})
    -> tensor<2x24x2x4xf32> {
  %g = shardc.attention_grad %q, %k, %k, %dy causal = false scale = 0.25 : (tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>) -> tensor<2x24x2x4xf32>
  return %g : tensor<2x24x2x4xf32>
}
