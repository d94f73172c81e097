// A result with four mesh axes on one dimension: propagation once read a
// list of axes after it was freed (more axes than a small vector keeps
// inline). Five and six axes, and a padded dimension, beside it.
shardc.mesh @m = <["x"=2, "y"=2, "z"=2, "w"=2]>
shardc.mesh @m6 = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2]>

func.func @f(%arg0: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m, [{}, {}]>})
    -> (tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m, [{}, {"x", "y", "z", "w"}]>}) {
  return %arg0 : tensor<16x16xf32>
}

func.func @g(%arg0: tensor<12x5xf32> {shardc.sharding = #shardc.sharding<@m6, [{}, {}]>, shardc.pad_uneven})
    -> (tensor<12x5xf32> {shardc.sharding = #shardc.sharding<@m6, [{"f", "e", "d", "c", "b"}, {"a"}]>}) {
  %e = shardc.exp %arg0 : tensor<12x5xf32>
  return %e : tensor<12x5xf32>
}
