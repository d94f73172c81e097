// Functions whose names are not file names, and one with a non-tensor
// argument.
shardc.mesh @mesh = <["x"=2]>

func.func @"../../escaped"(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = shardc.neg %x : tensor<2xf32>
  return %y : tensor<2xf32>
}

func.func @"a/b"(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

func.func @scalar_arg(%a: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"x"}]>},
                      %n: i4) -> tensor<4xf32> {
  %y = shardc.neg %a : tensor<4xf32>
  return %y : tensor<4xf32>
}
