// jax.experimental.shard_map as JAX lowers it with Shardy: a manual region
// on a 2x2 mesh, with every collective, their replica groups numbered
// row-major over the mesh (device = 2 x + y).
// ARG a: 8x4 f32 randn
// ARG b: 8x4 f32 randn
// EXPECT: a[:4] + a[4:]
// EXPECT: a
// EXPECT: a[:4] + a[4:]
// EXPECT: np.concatenate([a[:, 2:], a[:, :2]], axis=1)
// EXPECT: a
// EXPECT: np.tanh(b) * 2
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                         %b: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
    %0:5 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {"y"}]>]
        out_shardings=[<@mesh, [{}, {"y"}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x", "y"}, {}]>]
        manual_axes={"x", "y"} (%l: tensor<4x2xf32>) {
      %1 = "stablehlo.all_reduce"(%l) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
      %2 = "stablehlo.all_gather"(%l) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<4x2xf32>) -> tensor<4x4xf32>
      %3 = "stablehlo.reduce_scatter"(%l) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<4x2xf32>) -> tensor<2x2xf32>
      %4 = "stablehlo.collective_permute"(%l) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
      %5 = "stablehlo.all_to_all"(%l) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4x2xf32>) -> tensor<2x4xf32>
      sdy.return %1, %2, %3, %4, %5 : tensor<4x2xf32>, tensor<4x4xf32>, tensor<2x2xf32>, tensor<4x2xf32>, tensor<2x4xf32>
    } : (tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>)
    // Manual over "x" only: the body is global along "y".
    %6 = sdy.manual_computation(%b) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%l: tensor<4x4xf32>) {
      %t = stablehlo.tanh %l : tensor<4x4xf32>
      %d = stablehlo.add %t, %t : tensor<4x4xf32>
      sdy.return %d : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0#0, %0#1, %0#2, %0#3, %0#4, %6 : tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
}
