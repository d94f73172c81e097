// Reshards that are one collective_permute on a 2x2 mesh: rows moving from
// "a" to "b", and a reorder of the rows' axes; in place and not.
shardc.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%x: tensor<8x6xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"a"}, {}]>},
                %y: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"a", "b"}, {}]>})
    -> (tensor<8x6xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"b"}, {}]>},
        tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"b", "a"}, {}]>}) {
  %c = shardc.sharding_constraint %x <@mesh, [{"b"}, {}]> : tensor<8x6xf32>
  %n = shardc.exp %c : tensor<8x6xf32>
  %m = shardc.neg %y : tensor<8x4xf32>
  return %n, %m : tensor<8x6xf32>, tensor<8x4xf32>
}
