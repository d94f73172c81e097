// RUN: shardc-opt --shardc-import-stablehlo %s -split-input-file | FileCheck %s

// The example of jax.jit(f, in_shardings=...).lower(...).as_text(): the
// mesh and the argument's sharding become shardc's; XLA's layout and result
// attributes are dropped.

// CHECK-LABEL: module @jit_step {
// CHECK-NEXT: shardc.mesh @mesh = <["data"=2]>
// CHECK-NEXT: func.func public @main(%arg0: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<4x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %0 = shardc.dot_general %arg0, %arg1 contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: %1 = shardc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %2 = shardc.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
// CHECK-NEXT: %3 = shardc.max %0, %2 : tensor<8x2xf32>
// CHECK-NEXT: return %3 : tensor<8x2xf32>
module @jit_step attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                         %arg1: tensor<4x2xf32> {mhlo.layout_mode = "default"})
      -> (tensor<8x2xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<8x2xf32>
    return %2 : tensor<8x2xf32>
  }
}

// -----

// Elementwise ops: twins, and the exact rewrites.
// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<4xf32>, %y: tensor<4xf32>, %p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  // CHECK: shardc.abs
  %0 = stablehlo.abs %x : tensor<4xf32>
  // CHECK: shardc.neg
  %1 = stablehlo.negate %0 : tensor<4xf32>
  // CHECK: shardc.exp
  %2 = stablehlo.exponential %1 : tensor<4xf32>
  // CHECK: shardc.log
  %3 = stablehlo.log %2 : tensor<4xf32>
  // CHECK: shardc.tanh
  %4 = stablehlo.tanh %3 : tensor<4xf32>
  // CHECK: shardc.sqrt
  %5 = stablehlo.sqrt %2 : tensor<4xf32>
  // CHECK: shardc.rsqrt
  %6 = stablehlo.rsqrt %5 : tensor<4xf32>
  // CHECK: shardc.log1p
  %7 = stablehlo.log_plus_one %6 : tensor<4xf32>
  // CHECK: shardc.erf
  %8 = chlo.erf %7 : tensor<4xf32> -> tensor<4xf32>
  // logistic: 1 / (1 + exp(-x))
  // CHECK: %[[N:.*]] = shardc.neg %{{.*}}
  // CHECK-NEXT: %[[E:.*]] = shardc.exp %[[N]]
  // CHECK-NEXT: %[[ONE:.*]] = shardc.constant dense<1.000000e+00> : tensor<4xf32>
  // CHECK-NEXT: %[[D:.*]] = shardc.add %[[ONE]], %[[E]]
  // CHECK-NEXT: shardc.div %[[ONE]], %[[D]]
  %9 = stablehlo.logistic %8 : tensor<4xf32>
  // sign: x > 0 ? 1 : (x < 0 ? -1 : x)
  // CHECK: shardc.compare gt
  // CHECK: shardc.compare lt
  // CHECK: shardc.select
  // CHECK: shardc.select
  %10 = stablehlo.sign %9 : tensor<4xf32>
  // CHECK: shardc.add
  %11 = stablehlo.add %10, %y : tensor<4xf32>
  // CHECK: shardc.sub
  %12 = stablehlo.subtract %11, %y : tensor<4xf32>
  // CHECK: shardc.mul
  %13 = stablehlo.multiply %12, %y : tensor<4xf32>
  // CHECK: shardc.div
  %14 = stablehlo.divide %13, %y : tensor<4xf32>
  // CHECK: shardc.max
  %15 = stablehlo.maximum %14, %y : tensor<4xf32>
  // CHECK: shardc.min
  %16 = stablehlo.minimum %15, %y : tensor<4xf32>
  // CHECK: shardc.pow
  %17 = stablehlo.power %16, %y : tensor<4xf32>
  // clamp with scalar bounds: min(max(x, lo), hi)
  // CHECK: %[[LO:.*]] = shardc.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<4xf32>
  // CHECK-NEXT: %[[HI:.*]] = shardc.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<4xf32>
  // CHECK-NEXT: %[[M:.*]] = shardc.max %{{.*}}, %[[LO]]
  // CHECK-NEXT: shardc.min %[[M]], %[[HI]]
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %18 = stablehlo.clamp %lo, %17, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: shardc.compare ge
  %19 = stablehlo.compare GE, %18, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // and: p ? q : false; or: p ? true : q; not: p ? false : true
  // CHECK: %[[F:.*]] = shardc.constant dense<false> : tensor<4xi1>
  // CHECK-NEXT: shardc.select %{{.*}}, %{{.*}}, %[[F]]
  %20 = stablehlo.and %19, %p : tensor<4xi1>
  // CHECK: %[[T:.*]] = shardc.constant dense<true> : tensor<4xi1>
  // CHECK-NEXT: shardc.select %{{.*}}, %[[T]], %{{.*}}
  %21 = stablehlo.or %20, %q : tensor<4xi1>
  // CHECK: shardc.select
  %22 = stablehlo.not %21 : tensor<4xi1>
  // CHECK: shardc.select
  %23 = stablehlo.select %22, %18, %y : tensor<4xi1>, tensor<4xf32>
  return %23, %22 : tensor<4xf32>, tensor<4xi1>
}

// -----

// Products, reductions and data movement.
// CHECK-LABEL: func.func @structured
func.func @structured(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xbf16>, %v: tensor<4xf32>, %m: tensor<3x4xf32>) -> tensor<2x3x5xf32> {
  // A preferred element type: the operands are converted first.
  // CHECK: %[[B:.*]] = shardc.convert %{{.*}} : tensor<2x4x5xbf16> -> tensor<2x4x5xf32>
  // CHECK-NEXT: shardc.dot_general %{{.*}}, %[[B]] batching_dims = [0] x [0], contracting_dims = [2] x [1]
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xbf16>) -> tensor<2x3x5xf32>
  // CHECK: shardc.dot_general %{{.*}}, %{{.*}} contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  %1 = stablehlo.dot %m, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // CHECK: shardc.reduce sum %{{.*}} dims = [1] : (tensor<2x3x5xf32>) -> tensor<2x5xf32>
  %2 = stablehlo.reduce(%0 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  // The identity of max needs nothing more.
  // CHECK: shardc.reduce max %{{.*}} dims = [0] : (tensor<2x5xf32>) -> tensor<5xf32>
  // CHECK-NOT: shardc.max
  %3 = stablehlo.reduce(%2 init: %ninf) across dimensions = [0] : (tensor<2x5xf32>, tensor<f32>) -> tensor<5xf32>
   reducer(%p: tensor<f32>, %q: tensor<f32>) {
    %r = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }
  // Another initial value joins the result.
  // CHECK: %[[R:.*]] = shardc.reduce min %{{.*}} dims = [0]
  // CHECK-NEXT: %[[I:.*]] = shardc.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<4xf32>
  // CHECK-NEXT: shardc.min %[[R]], %[[I]]
  %4 = stablehlo.reduce(%m init: %zero) applies stablehlo.minimum across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: shardc.reshape %{{.*}} : (tensor<3x4xf32>) -> tensor<12xf32>
  %5 = stablehlo.reshape %m : (tensor<3x4xf32>) -> tensor<12xf32>
  // CHECK: shardc.transpose %{{.*}}, permutation = [1, 0]
  %6 = stablehlo.transpose %m, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  // CHECK: shardc.slice %{{.*}}, start = [0, 1], limit = [4, 3], strides = [2, 1]
  %7 = stablehlo.slice %6 [0:4:2, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
  // CHECK: shardc.concatenate %{{.*}}, %{{.*}} dim = 0
  %8 = stablehlo.concatenate %7, %7, dim = 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  // CHECK: shardc.iota dim = 1 : tensor<2x3xi32>
  %9 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %i = stablehlo.constant dense<1> : tensor<i32>
  // CHECK: shardc.dynamic_slice %{{.*}} [%{{.*}}, %{{.*}}] : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %10 = stablehlo.dynamic_slice %m, %i, %i, sizes = [2, 2] : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  // CHECK: shardc.dynamic_update_slice %{{.*}}, %{{.*}} [%{{.*}}, %{{.*}}]
  %11 = stablehlo.dynamic_update_slice %m, %10, %i, %i : (tensor<3x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Calls to private functions are inlined, and the functions dropped.
// CHECK-LABEL: module {
// CHECK-NOT: func.func private
// CHECK: func.func @main
// CHECK-NEXT: %[[A:.*]] = shardc.tanh %arg0
// CHECK-NEXT: %[[B:.*]] = shardc.tanh %[[A]]
// CHECK-NEXT: return %[[B]]
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @inner(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Shardy's shardings: on arguments and results, per op result, and as
// constraints; shardings on a mesh without axes (one device) are dropped.
// CHECK: shardc.mesh @mesh = <["x"=2, "y"=4]>
// CHECK-NOT: maximal
// CHECK: func.func @main(%arg0: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"x", ?}p0, {"y":(1)2}]>}, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{}, {"y"}]>})
// CHECK-NEXT: %[[A:.*]] = shardc.add %arg0, %arg1
// CHECK-NEXT: %[[C:.*]] = shardc.sharding_constraint %[[A]] <@mesh, [{"x"}, {}]>
// CHECK-NEXT: %[[D:.*]] = shardc.sharding_constraint %[[C]] <@mesh, [{}, {"x", "y"}]>
// CHECK-NEXT: %[[E:.*]] = shardc.sharding_constraint %[[D]] <@mesh, [{?}, {?}], partial = {"y"}>
// CHECK-NEXT: return %[[E]]
sdy.mesh @mesh = <["x"=2, "y"=4]>
sdy.mesh @maximal = <[], device_ids=[0]>
func.func @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}p0, {"y":(1)2}]>},
                %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@maximal, [{}, {}]>})
    -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x8xf32>
  %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"x", "y"}]> : tensor<8x8xf32>
  %2 = sdy.reshard %1 <@mesh, [{?}, {?}], unreduced={"y"}> : tensor<8x8xf32>
  %3 = sdy.sharding_constraint %2 <@maximal, [{}, {}]> : tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}

// -----

// shard_map: the body's collectives on the mesh axes their replica groups
// span; the shardings of a partly manual region keep its manual axes.
// CHECK-LABEL: func.func @manual
// CHECK: shardc.shard_map(%arg0) in_shardings = [<@mesh, [{"x"}, {"y"}]>] out_shardings = [<@mesh, [{}, {"y"}]>] {
// CHECK-NEXT: ^bb0(%[[L:.*]]: tensor<4x2xf32>):
// CHECK-NEXT: %[[R:.*]] = shardc.all_reduce sum %[[L]] on @mesh ["x"] : tensor<4x2xf32>
// CHECK-NEXT: %[[G:.*]] = shardc.all_gather %[[R]] on @mesh ["x", "y"] dim = 0 : tensor<4x2xf32> -> tensor<16x2xf32>
// CHECK-NEXT: %[[P:.*]] = shardc.collective_permute %[[L]] on @mesh ["y"] sources = [1, 0] : tensor<4x2xf32>
// CHECK-NEXT: shardc.return %[[R]] : tensor<4x2xf32>
// CHECK: shardc.shard_map(%arg0) in_shardings = [<@mesh, [{"x"}, {}]>] out_shardings = [<@mesh, [{"x"}, {}]>] {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x4xf32>):
// CHECK-NEXT: shardc.neg
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @manual(%a: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<8x4xf32>) {
  %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"x", "y"} (%l: tensor<4x2xf32>) {
    %1 = "stablehlo.all_reduce"(%l) <{replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> : (tensor<4x2xf32>) -> tensor<16x2xf32>
    %3 = "stablehlo.collective_permute"(%l) <{source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    sdy.return %1 : tensor<4x2xf32>
  } : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %4 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%l: tensor<4x4xf32>) {
    %n = stablehlo.negate %l : tensor<4x4xf32>
    sdy.return %n : tensor<4x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0, %4 : tensor<4x4xf32>, tensor<8x4xf32>
}

// -----

// Twin meshes are one; a sharding that does not divide its dimension marks
// the arguments shardc.pad_uneven (XLA pads such dimensions); data-flow
// edges are their operand.
// CHECK: shardc.mesh @m = <["a"=4]>
// CHECK-NOT: shardc.mesh
// CHECK: func.func @uneven(%arg0: tensor<6xf32> {shardc.pad_uneven, shardc.sharding = #shardc.sharding<@m, [{"a"}]>}, %arg1: tensor<6xf32> {shardc.pad_uneven})
// CHECK-NEXT: %[[A:.*]] = shardc.add %arg0, %arg1
// CHECK-NEXT: shardc.sharding_constraint %[[A]] <@m, [{"a"}]>
sdy.mesh @m = <["a"=4]>
sdy.mesh @m_twin = <["a"=4]>
func.func @uneven(%x: tensor<6xf32> {sdy.sharding = #sdy.sharding<@m, [{"a"}]>}, %y: tensor<6xf32>) -> tensor<6xf32> {
  %0 = stablehlo.add %x, %y : tensor<6xf32>
  %1 = sdy.data_flow_edge %0 sharding=<@m_twin, [{"a"}]> : tensor<6xf32>
  %2 = sdy.sharding_constraint %1 <@m_twin, [{"a"}]> : tensor<6xf32>
  return %2 : tensor<6xf32>
}
