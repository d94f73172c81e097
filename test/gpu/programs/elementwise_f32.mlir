// Every f32 elementwise op in one chain, with a scalar and a column broadcast.
func.func @main(%x: tensor<9x31xf32>, %y: tensor<9x31xf32>, %c: tensor<9xf32>)
    -> (tensor<9x31xf32>, tensor<9x31xf32>) {
  %n = shardc.neg %x : tensor<9x31xf32>
  %ab = shardc.abs %n : tensor<9x31xf32>
  %t = shardc.tanh %x : tensor<9x31xf32>
  %er = shardc.erf %y : tensor<9x31xf32>
  %s1 = shardc.add %t, %er : tensor<9x31xf32>
  %one = shardc.constant dense<1.5> : tensor<9x31xf32>
  %p = shardc.add %ab, %one : tensor<9x31xf32>
  %sq = shardc.sqrt %p : tensor<9x31xf32>
  %rs = shardc.rsqrt %p : tensor<9x31xf32>
  %lg = shardc.log %p : tensor<9x31xf32>
  %pw = shardc.pow %p, %y : tensor<9x31xf32>
  %d = shardc.div %sq, %rs : tensor<9x31xf32>
  %mu = shardc.mul %d, %lg : tensor<9x31xf32>
  %mi = shardc.min %mu, %pw : tensor<9x31xf32>
  %cb = shardc.broadcast_in_dim %c, dims = [0] : (tensor<9xf32>) -> tensor<9x31xf32>
  %su = shardc.sub %mi, %cb : tensor<9x31xf32>
  %r = shardc.add %su, %s1 : tensor<9x31xf32>
  %ex = shardc.exp %y : tensor<9x31xf32>
  return %r, %ex : tensor<9x31xf32>, tensor<9x31xf32>
}
