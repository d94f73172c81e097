// table[idx] and jnp.take(table, idx, axis=1) as gathers, and the gradient
// of a lookup as a scatter that adds. Indices out of range are clamped by
// gathers and skipped by scatters, as StableHLO specifies.
// ARG t: 6x4 f32 randn
// ARG i: 4x1 i32 int -2 7
// ARG j: 5 i32 int 0 5
// ARG u: 4x4 f32 randn
// LET: k = i[:, 0]
// LET: ok = (k >= 0) & (k < 6)
// EXPECT: t[np.clip(k, 0, 5)]
// EXPECT: t[j].T
// EXPECT: (lambda o: (np.add.at(o, k[ok], u[ok]), o)[1])(t.astype(np.float64).copy())
// EXPECT: (lambda o: (np.add.at(o.T, k[ok], u[ok]), o)[1])(np.zeros((4, 6)))
module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%t: tensor<6x4xf32>, %i: tensor<4x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                         %j: tensor<5xi32>, %u: tensor<4x4xf32>)
      -> (tensor<4x4xf32>, tensor<4x5xf32>, tensor<6x4xf32>, tensor<4x6xf32>) {
    %0 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<6x4xf32>, tensor<4x1xi32>) -> tensor<4x4xf32>
    // Along dimension 1, with no index vector dimension.
    %tt = stablehlo.transpose %t, dims = [1, 0] : (tensor<6x4xf32>) -> tensor<4x6xf32>
    %1 = "stablehlo.gather"(%tt, %j) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<5xi32>) -> tensor<4x5xf32>
    %2 = "stablehlo.scatter"(%t, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<6x4xf32>, tensor<4x1xi32>, tensor<4x4xf32>) -> tensor<6x4xf32>
    // Along dimension 1 of a 4x6 operand: the updates' window is their dimension 0.
    %z = stablehlo.constant dense<0.000000e+00> : tensor<4x6xf32>
    %ut = stablehlo.transpose %u, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %3 = "stablehlo.scatter"(%z, %i, %ut) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x6xf32>, tensor<4x1xi32>, tensor<4x4xf32>) -> tensor<4x6xf32>
    return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x5xf32>, tensor<6x4xf32>, tensor<4x6xf32>
  }
}
