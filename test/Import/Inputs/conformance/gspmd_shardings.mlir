// Older JAX: GSPMD strings on arguments, results and custom_call @Sharding.
// ARG arg0: 8x8 f32 randn
// ARG arg1: 8x8 f32 randn
// ARG arg2: 8x8 f32 randn
// EXPECT: (arg0 @ arg1) * arg2
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                         %arg1: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"},
                         %arg2: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"})
      -> (tensor<8x8xf32> {jax.result_info = "", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %2 = stablehlo.multiply %1, %arg2 : tensor<8x8xf32>
    return %2 : tensor<8x8xf32>
  }
}
