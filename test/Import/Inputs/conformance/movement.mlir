// ARG x: 4x6 f32 randn
// ARG v: 6 f32 randn
// EXPECT: np.broadcast_to(v, (4, 6)) + x
// EXPECT: x.reshape(3, 8)
// EXPECT: x.T
// EXPECT: x[1:4:2, 0:6:3]
// EXPECT: np.concatenate([x, x[:, :2]], axis=1)
// EXPECT: np.broadcast_to(np.arange(6, dtype=np.int32), (4, 6))
// EXPECT: np.array([1.0, 2.0, -0.5], np.float32)
// EXPECT: np.broadcast_to(x[:, None, :], (4, 3, 6))
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %v: tensor<6xf32>)
      -> (tensor<4x6xf32>, tensor<3x8xf32>, tensor<6x4xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<4x6xi32>, tensor<3xf32>, tensor<4x3x6xf32>) {
    %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<6xf32>) -> tensor<4x6xf32>
    %0 = stablehlo.add %b, %x : tensor<4x6xf32>
    %1 = stablehlo.reshape %x : (tensor<4x6xf32>) -> tensor<3x8xf32>
    %2 = "stablehlo.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
    %3 = stablehlo.slice %x [1:4:2, 0:6:3] : (tensor<4x6xf32>) -> tensor<2x2xf32>
    %s = stablehlo.slice %x [0:4, 0:2] : (tensor<4x6xf32>) -> tensor<4x2xf32>
    %4 = stablehlo.concatenate %x, %s, dim = 1 : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>
    %5 = stablehlo.iota dim = 1 : tensor<4x6xi32>
    %6 = stablehlo.constant dense<"0x0000803F00000040000000BF"> : tensor<3xf32>
    %7 = stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<4x6xf32>) -> tensor<4x3x6xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x6xf32>, tensor<3x8xf32>, tensor<6x4xf32>, tensor<2x2xf32>, tensor<4x8xf32>, tensor<4x6xi32>, tensor<3xf32>, tensor<4x3x6xf32>
  }
}
