// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// take (embedding lookup) and its adjoint scatter_add. The table's row
// dimension is indexed by data, so it stays whole; the index dimensions and
// the row elements split freely. scatter_add sums over its index
// dimensions: split indices leave partial tables, combined by one
// all_reduce, and the operand is added once, after the combine.
// Tables have at least 4 rows: indices are drawn from [0, 4).

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// Tokens split by batch: each device looks up its own rows in the
// replicated table.
// CHECK-LABEL: func.func @embedding_batch_sharded_tokens
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: [[I:%[a-z0-9]+]]: tensor<1x8xi32>
// CHECK-SAME: -> (tensor<1x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[E:%[a-z0-9]+]] = shardc.take [[T]], [[I]] : (tensor<8x16xf32>, tensor<1x8xi32>) -> tensor<1x8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[E]]
func.func @embedding_batch_sharded_tokens(
    %wte: tensor<8x16xf32>,
    %tokens: tensor<4x8xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<4x8x16xf32> {
  %e = shardc.take %wte, %tokens : (tensor<8x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  return %e : tensor<4x8x16xf32>
}

// Batch over "data" and the embedding columns over "model".
// CHECK-LABEL: func.func @embedding_table_columns_sharded
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[I:%[a-z0-9]+]]: tensor<2x8xi32>
// CHECK-SAME: -> (tensor<2x8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}, {"model"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[E:%[a-z0-9]+]] = shardc.take [[T]], [[I]] : (tensor<8x4xf32>, tensor<2x8xi32>) -> tensor<2x8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[E]]
func.func @embedding_table_columns_sharded(
    %wte: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>},
    %tokens: tensor<4x8xi32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
    -> tensor<4x8x16xf32> {
  %e = shardc.take %wte, %tokens : (tensor<8x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  return %e : tensor<4x8x16xf32>
}

// A table split by rows is gathered: any device may need any row.
// CHECK-LABEL: func.func @embedding_table_rows_sharded
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[I:%[a-z0-9]+]]: tensor<4x8xi32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[T]] on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK: [[E:%[a-z0-9]+]] = shardc.take [[G]], [[I]] : (tensor<8x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[E]]
func.func @embedding_table_rows_sharded(
    %wte: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %tokens: tensor<4x8xi32>) -> tensor<4x8x16xf32> {
  %e = shardc.take %wte, %tokens : (tensor<8x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  return %e : tensor<4x8x16xf32>
}

// Updates split by batch: each device scatters its updates into zeros, the
// partial tables are summed, and the operand is added once.
// CHECK-LABEL: func.func @scatter_add_batch_sharded_updates
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: [[I:%[a-z0-9]+]]: tensor<1x8xi32>
// CHECK-SAME: [[U:%[a-z0-9]+]]: tensor<1x8x16xf32>
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[Z:%[a-z0-9]+]] = shardc.constant dense<0.000000e+00> : tensor<8x16xf32>
// CHECK: [[P:%[a-z0-9]+]] = shardc.scatter_add [[Z]], [[I]], [[U]] : (tensor<8x16xf32>, tensor<1x8xi32>, tensor<1x8x16xf32>) -> tensor<8x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_4 ["x"] : tensor<8x16xf32>
// CHECK: [[R:%[a-z0-9]+]] = shardc.add [[T]], [[S]] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @scatter_add_batch_sharded_updates(
    %table: tensor<8x16xf32>,
    %tokens: tensor<4x8xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %upd: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>})
    -> tensor<8x16xf32> {
  %g = shardc.scatter_add %table, %tokens, %upd
      : (tensor<8x16xf32>, tensor<4x8xi32>, tensor<4x8x16xf32>) -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// Updates split along the row elements: each device updates its columns of
// the table, no partial sums.
// CHECK-LABEL: func.func @scatter_add_columns_sharded
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[I:%[a-z0-9]+]]: tensor<4x8xi32>
// CHECK-SAME: [[U:%[a-z0-9]+]]: tensor<4x8x4xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK-NOT: shardc.all_
// CHECK: [[R:%[a-z0-9]+]] = shardc.scatter_add [[T]], [[I]], [[U]] : (tensor<8x4xf32>, tensor<4x8xi32>, tensor<4x8x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[R]]
func.func @scatter_add_columns_sharded(
    %table: tensor<8x16xf32>,
    %tokens: tensor<4x8xi32>,
    %upd: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}, {"x"}]>})
    -> tensor<8x16xf32> {
  %g = shardc.scatter_add %table, %tokens, %upd
      : (tensor<8x16xf32>, tensor<4x8xi32>, tensor<4x8x16xf32>) -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// The embedding and its gradient in data-parallel training: the lookup is
// local, the table gradient is one all_reduce over "data".
// CHECK-LABEL: func.func @embedding_gradient_data_parallel
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: [[I:%[a-z0-9]+]]: tensor<2x8xi32>
// CHECK-SAME: [[DY:%[a-z0-9]+]]: tensor<2x8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[E:%[a-z0-9]+]] = shardc.take [[T]], [[I]] : (tensor<8x16xf32>, tensor<2x8xi32>) -> tensor<2x8x16xf32>
// CHECK-NOT: shardc.all_
// Scattered into zeros, the partial sums need no add after the all_reduce.
// CHECK: [[P:%[a-z0-9]+]] = shardc.scatter_add {{%[a-z0-9]+}}, [[I]], [[DY]] : (tensor<8x16xf32>, tensor<2x8xi32>, tensor<2x8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: [[G:%[a-z0-9]+]] = shardc.all_reduce sum [[P]] on @mesh_2x4 ["data"] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[E]], [[G]]
func.func @embedding_gradient_data_parallel(
    %wte: tensor<8x16xf32>,
    %tokens: tensor<4x8xi32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>},
    %dy: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}, {}]>})
    -> (tensor<4x8x16xf32>, tensor<8x16xf32>) {
  %e = shardc.take %wte, %tokens : (tensor<8x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  %z = shardc.constant dense<0.0> : tensor<8x16xf32>
  %g = shardc.scatter_add %z, %tokens, %dy
      : (tensor<8x16xf32>, tensor<4x8xi32>, tensor<4x8x16xf32>) -> tensor<8x16xf32>
  return %e, %g : tensor<4x8x16xf32>, tensor<8x16xf32>
}

// scatter_add whose result is split on rows: the partial sums are
// reduce-scattered, and the operand, sliced to the same rows, is added once.
// CHECK-LABEL: func.func @scatter_add_result_split_on_rows
// CHECK-SAME: [[T:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK: [[Z:%[a-z0-9]+]] = shardc.constant dense<0.000000e+00> : tensor<8x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.scatter_add [[Z]], {{.*}} -> tensor<8x16xf32>
// CHECK: [[R:%[a-z0-9]+]] = shardc.reduce_scatter sum [[S]] on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK: [[TS:%[a-z0-9]+]] = shardc.all_slice [[T]] on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.add [[TS]], [[R]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[G]]
func.func @scatter_add_result_split_on_rows(%t: tensor<8x16xf32>,
    %i: tensor<4x8xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %u: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}) {
  %g = shardc.scatter_add %t, %i, %u
      : (tensor<8x16xf32>, tensor<4x8xi32>, tensor<4x8x16xf32>) -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}
