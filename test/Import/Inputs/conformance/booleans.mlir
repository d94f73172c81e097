// jnp.isfinite, jnp.all and jnp.any as JAX lowers them.
// ARG x: 4x5 f32 randn
// ARG z: 4x5 i32 int 0 2
// ARG k: 4x5 i32 int 0 9
// LET: y = np.where(z == 0, np.inf * np.sign(x), np.where(z == 1, np.nan, x))
// EXPECT: np.isfinite(y)
// LET: p = k > 0
// EXPECT: p.all(axis=1)
// EXPECT: (k > 8).any(axis=0)
// EXPECT: np.array(p.all() | (z > 5).any())
module attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%x: tensor<4x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %z: tensor<4x5xi32>,
                         %k: tensor<4x5xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<4x5xi1>, tensor<4xi1>, tensor<5xi1>, tensor<i1>) {
    %zero = stablehlo.constant dense<0> : tensor<4x5xi32>
    %eight = stablehlo.constant dense<8> : tensor<4x5xi32>
    %p = stablehlo.compare GT, %k, %zero, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %r = stablehlo.compare GT, %k, %eight, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %one = stablehlo.constant dense<1> : tensor<4x5xi32>
    %inf = stablehlo.constant dense<0x7F800000> : tensor<4x5xf32>
    %nan = stablehlo.constant dense<0x7FC00000> : tensor<4x5xf32>
    %s = stablehlo.sign %x : tensor<4x5xf32>
    %sinf = stablehlo.multiply %inf, %s : tensor<4x5xf32>
    %isz = stablehlo.compare EQ, %z, %zero, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %iso = stablehlo.compare EQ, %z, %one, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %a = stablehlo.select %iso, %nan, %x : tensor<4x5xi1>, tensor<4x5xf32>
    %y = stablehlo.select %isz, %sinf, %a : tensor<4x5xi1>, tensor<4x5xf32>
    %0 = stablehlo.is_finite %y : (tensor<4x5xf32>) -> tensor<4x5xi1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %f = stablehlo.constant dense<false> : tensor<i1>
    %1 = stablehlo.reduce(%p init: %t) applies stablehlo.and across dimensions = [1] : (tensor<4x5xi1>, tensor<i1>) -> tensor<4xi1>
    %2 = stablehlo.reduce(%r init: %f) applies stablehlo.or across dimensions = [0] : (tensor<4x5xi1>, tensor<i1>) -> tensor<5xi1>
    %all = stablehlo.reduce(%p init: %t) applies stablehlo.and across dimensions = [0, 1] : (tensor<4x5xi1>, tensor<i1>) -> tensor<i1>
    %five = stablehlo.constant dense<5> : tensor<4x5xi32>
    %big = stablehlo.compare GT, %z, %five, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %any = stablehlo.reduce(%big init: %f) applies stablehlo.or across dimensions = [0, 1] : (tensor<4x5xi1>, tensor<i1>) -> tensor<i1>
    %3 = stablehlo.or %all, %any : tensor<i1>
    return %0, %1, %2, %3 : tensor<4x5xi1>, tensor<4xi1>, tensor<5xi1>, tensor<i1>
  }
}
