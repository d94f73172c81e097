// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// dot_general on every kind of sharded dimension. Free (M, N) and batching
// dimensions split the work with no communication; a sharded contracting
// dimension (K) leaves partial sums, combined by an all_reduce, or by a
// reduce_scatter when the result is split over the same axes.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @dot_shard_m
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x32xf32>
// CHECK-SAME: -> (tensor<2x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[C:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x32xf32>) -> tensor<2x32xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[C]]
func.func @dot_shard_m(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @dot_shard_n
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x8xf32>
// CHECK-SAME: -> (tensor<8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[C:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[C]]
func.func @dot_shard_n(
    %a: tensor<8x16xf32>,
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @dot_shard_k_all_reduce
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x32xf32>
// CHECK-SAME: -> (tensor<8x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_4 ["x"] : tensor<8x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_shard_k_all_reduce(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// The replicated rhs is split along K locally to match the lhs.
// CHECK-LABEL: func.func @dot_shard_k_one_operand
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x32xf32>
// CHECK: [[BS:%[a-z0-9]+]] = shardc.all_slice [[B]] on @mesh_4 ["x"] dim = 0 : tensor<16x32xf32> -> tensor<4x32xf32>
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[BS]] contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_4 ["x"] : tensor<8x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_shard_k_one_operand(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
    -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// K over "x" and the result's M over "x": the partial sums are reduced and
// scattered along M in one reduce_scatter.
// CHECK-LABEL: func.func @dot_shard_k_reduce_scatter
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x32xf32>
// CHECK-SAME: -> (tensor<2x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.reduce_scatter sum [[P]] on @mesh_4 ["x"] dim = 0 : tensor<8x32xf32> -> tensor<2x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_shard_k_reduce_scatter(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// The same with the result split along N.
// CHECK-LABEL: func.func @dot_shard_k_reduce_scatter_n
// CHECK-SAME: -> (tensor<8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general {{.*}} -> tensor<8x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.reduce_scatter sum [[P]] on @mesh_4 ["x"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_shard_k_reduce_scatter_n(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// A contracting dimension that is dimension 0 of both operands (x^T w).
// CHECK-LABEL: func.func @dot_contracting_dim_0
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x8xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [0] x [0] : (tensor<4x8xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_4 ["x"] : tensor<8x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_contracting_dim_0(
    %a: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [0] x [0]
      : (tensor<16x8xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @dot_batch
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x8x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<1x16x8xf32>
// CHECK-SAME: -> (tensor<1x8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[C:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<1x8x16xf32>, tensor<1x16x8xf32>) -> tensor<1x8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[C]]
func.func @dot_batch(
    %a: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>},
    %b: tensor<4x16x8xf32>) -> tensor<4x8x8xf32> {
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  return %c : tensor<4x8x8xf32>
}

// Batch over "data" and K over "model": the partial sums are combined over
// "model" only.
// CHECK-LABEL: func.func @dot_batch_and_k
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x8x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<1x4x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<1x8x4xf32>, tensor<1x4x8xf32>) -> tensor<1x8x8xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["model"] : tensor<1x8x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_batch_and_k(
    %a: tensor<2x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}, {"model"}]>},
    %b: tensor<2x16x8xf32>) -> tensor<2x8x8xf32> {
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  return %c : tensor<2x8x8xf32>
}

// M over "data" and N over "model": each device computes one block of the
// result.
// CHECK-LABEL: func.func @dot_mesh_2d_m_and_n
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x8xf32>
// CHECK-SAME: -> (tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[C:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[C]]
func.func @dot_mesh_2d_m_and_n(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>},
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>})
    -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// M over "data" and K over "model".
// CHECK-LABEL: func.func @dot_mesh_2d_m_and_k
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x32xf32>
// CHECK-SAME: -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["model"] : tensor<4x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_mesh_2d_m_and_k(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>},
    %b: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model"}, {}]>})
    -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// M over "data", K over "model", result M over ["data", "model"]: the
// partial sums are scattered over "model" inside each "data" block.
// CHECK-LABEL: func.func @dot_mesh_2d_reduce_scatter_minor_axis
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x32xf32>
// CHECK-SAME: -> (tensor<1x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.reduce_scatter sum [[P]] on @mesh_2x4 ["model"] dim = 0 : tensor<4x32xf32> -> tensor<1x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_mesh_2d_reduce_scatter_minor_axis(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>},
    %b: tensor<16x32xf32>)
    -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// K split over both axes: one all_reduce over both.
// CHECK-LABEL: func.func @dot_k_two_axes
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x2xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<8x2xf32>, tensor<2x32xf32>) -> tensor<8x32xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["data", "model"] : tensor<8x32xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_k_two_axes(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"data", "model"}]>},
    %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// Two contracting dimensions, one over each axis: one all_reduce over both.
// CHECK-LABEL: func.func @dot_two_contracting_dims
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1, 2] x [0, 1] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["data", "model"] : tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[C]]
func.func @dot_two_contracting_dims(
    %a: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"data"}, {"model"}]>},
    %b: tensor<8x16x4xf32>) -> tensor<4x4xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1, 2] x [0, 1]
      : (tensor<4x8x16xf32>, tensor<8x16x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// Two layers, Megatron-style on the "model" axis with the batch over
// "data": only the second layer's partial sums are combined.
// CHECK-LABEL: func.func @dot_chain_megatron_style
// CHECK-SAME: [[X:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK-SAME: [[W1:%[a-z0-9]+]]: tensor<16x8xf32>
// CHECK-SAME: [[W2:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[H:%[a-z0-9]+]] = shardc.dot_general [[X]], [[W1]] contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK: [[T:%[a-z0-9]+]] = shardc.tanh [[H]] : tensor<4x8xf32>
// CHECK: [[P:%[a-z0-9]+]] = shardc.dot_general [[T]], [[W2]] contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: [[Y:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["model"] : tensor<4x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[Y]]
func.func @dot_chain_megatron_style(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>},
    %w1: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>},
    %w2: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model"}, {}]>})
    -> tensor<8x16xf32> {
  %h = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %t = shardc.tanh %h : tensor<8x32xf32>
  %y = shardc.dot_general %t, %w2 contracting_dims = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A contracting dimension split over an axis of size one and another of
// size two: only the axis of size two is combined (a group of one already
// holds the whole sum).
shardc.mesh @mesh_1x2 = <["data"=1, "model"=2]>

// CHECK-LABEL: func.func @dot_contracting_over_unit_and_real_axes
// CHECK: [[C:%[a-z0-9]+]] = shardc.dot_general
// CHECK-NEXT: [[R:%[a-z0-9]+]] = shardc.all_reduce sum [[C]] on @mesh_1x2 ["model"]
// CHECK-NOT: shardc.all_reduce
// CHECK: return [[R]]
func.func @dot_contracting_over_unit_and_real_axes(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_1x2, [{}, {"data", "model"}]>},
    %b: tensor<16x4xf32> {shardc.sharding = #shardc.sharding<@mesh_1x2, [{"data", "model"}, {}]>})
    -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_1x2, [{}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
