// One product large enough (2^24.6 flops) that both oneDNN and OpenBLAS
// could run it: the product wisdom measures which does.
func.func @main(%x: tensor<256x192xf32> {shardc.name = "x"},
                %w: tensor<192x256xf32> {shardc.name = "w"}) -> tensor<256x256xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<256x192xf32>, tensor<192x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
