// Elementwise ops outside fusion: f64 and i32, compare, select, convert.
func.func @main(%x: tensor<5x7xf64>, %y: tensor<5x7xf64>, %i: tensor<5x7xi32>,
                %j: tensor<5x7xi32>, %s: tensor<5x7xf32>)
    -> (tensor<5x7xf64>, tensor<5x7xi32>, tensor<5x7xi1>, tensor<5x7xf32>, tensor<5x7xi32>,
        tensor<5x7xf64>) {
  %e = shardc.exp %x : tensor<5x7xf64>
  %m = shardc.mul %e, %y : tensor<5x7xf64>
  %t = shardc.tanh %m : tensor<5x7xf64>
  %a = shardc.add %i, %j : tensor<5x7xi32>
  %n = shardc.neg %a : tensor<5x7xi32>
  %mx = shardc.max %n, %j : tensor<5x7xi32>
  %ab = shardc.abs %mx : tensor<5x7xi32>
  %cmp = shardc.compare lt, %x, %y : tensor<5x7xf64>
  %f = shardc.convert %i : tensor<5x7xi32> -> tensor<5x7xf32>
  %sel = shardc.select %cmp, %f, %s : tensor<5x7xi1>, tensor<5x7xf32>
  %big = shardc.constant dense<40.5> : tensor<5x7xf32>
  %sc = shardc.mul %s, %big : tensor<5x7xf32>
  %ci = shardc.convert %sc : tensor<5x7xf32> -> tensor<5x7xi32>
  %cd = shardc.convert %sel : tensor<5x7xf32> -> tensor<5x7xf64>
  return %t, %ab, %cmp, %sel, %ci, %cd : tensor<5x7xf64>, tensor<5x7xi32>, tensor<5x7xi1>, tensor<5x7xf32>, tensor<5x7xi32>, tensor<5x7xf64>
}
