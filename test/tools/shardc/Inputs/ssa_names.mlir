// Arguments named only by the source (%x) and by shardc.name.
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32> {shardc.name = "weights"}) -> tensor<2xf32> {
  %y = shardc.add %x, %w : tensor<2xf32>
  return %y : tensor<2xf32>
}
