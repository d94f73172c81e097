// Products whose operands hold two batch dimensions out of memory order:
// the lhs's batch dimensions [3, 2] against the rhs's [0, 1], so the lhs is
// packed while the rhs is read in place.
shardc.mesh @mesh_2 = <["x"=2]>

func.func @main(%a: tensor<8x128x7x32xf32> {shardc.name = "a"},
                %b: tensor<32x7x8x128xf32> {shardc.name = "b"}) -> tensor<32x7x128x128xf32> {
  %c = shardc.dot_general %a, %b batching_dims = [3, 2] x [0, 1], contracting_dims = [0] x [2]
      : (tensor<8x128x7x32xf32>, tensor<32x7x8x128xf32>) -> tensor<32x7x128x128xf32>
  return %c : tensor<32x7x128x128xf32>
}

// The same family split over two devices: batch [2, 1] x [0, 1].
func.func @split(%a: tensor<3x5x16x64x100xf32> {shardc.name = "a",
                     shardc.sharding = #shardc.sharding<@mesh_2, [{}, {}, {"x"}, {}, {}]>},
                 %b: tensor<16x5x3x24xf32> {shardc.name = "b"}) -> tensor<16x5x64x100x24xf32> {
  %c = shardc.dot_general %a, %b batching_dims = [2, 1] x [0, 1], contracting_dims = [0] x [2]
      : (tensor<3x5x16x64x100xf32>, tensor<16x5x3x24xf32>) -> tensor<16x5x64x100x24xf32>
  return %c : tensor<16x5x64x100x24xf32>
}
