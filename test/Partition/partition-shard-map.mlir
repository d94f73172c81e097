// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// shard_map bodies are already per-device: partitioning reshards each input
// to its in_sharding, inlines the body with its explicit collectives, and
// takes the results in their out_shardings.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// JAX's pmean: the mean of the four (2, 16) blocks, replicated.
// CHECK-LABEL: func.func @pmean_inlined
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<2x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
// CHECK-NOT: shardc.shard_map
// CHECK: [[M:%[a-z0-9]+]] = shardc.all_reduce mean [[A]] on @mesh_4 ["x"] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @pmean_inlined(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<2x16xf32> {
  %r = shardc.shard_map (%a) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{}, {}]>] {
  ^bb0(%l: tensor<2x16xf32>):
    %m = shardc.all_reduce mean %l on @mesh_4 ["x"] : tensor<2x16xf32>
    shardc.return %m : tensor<2x16xf32>
  } : (tensor<8x16xf32>) -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}

// CHECK-LABEL: func.func @all_gather_inside
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<8x16xf32>
// CHECK-NOT: shardc.shard_map
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK: [[T:%[a-z0-9]+]] = shardc.tanh [[G]] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[T]]
func.func @all_gather_inside(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %r = shardc.shard_map (%a) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{}, {}]>] {
  ^bb0(%l: tensor<2x16xf32>):
    %g = shardc.all_gather %l on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
    %t = shardc.tanh %g : tensor<8x16xf32>
    shardc.return %t : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// The input is split by columns but the shard_map wants rows: one all_to_all
// before the body.
// CHECK-LABEL: func.func @input_resharded
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: -> (tensor<2x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK: [[T:%[a-z0-9]+]] = shardc.all_to_all [[A]] on @mesh_4 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[T]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[N]]
func.func @input_resharded(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<8x16xf32> {
  %r = shardc.shard_map (%a) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{"x"}, {}]>] {
  ^bb0(%l: tensor<2x16xf32>):
    %n = shardc.neg %l : tensor<2x16xf32>
    shardc.return %n : tensor<2x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A replicated input is split locally.
// CHECK-LABEL: func.func @replicated_input_sliced
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.all_slice [[A]] on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK: [[E:%[a-z0-9]+]] = shardc.exp [[S]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[E]]
func.func @replicated_input_sliced(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
    -> tensor<8x16xf32> {
  %r = shardc.shard_map (%a) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{"x"}, {}]>] {
  ^bb0(%l: tensor<2x16xf32>):
    %e = shardc.exp %l : tensor<2x16xf32>
    shardc.return %e : tensor<2x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Automatic partitioning around a hand-written gradient: the forward
// dot_general is partitioned by propagation, the gradient averaged with an
// explicit pmean over "data"; the shard_map's result feeds the rest.
// CHECK-LABEL: func.func @data_parallel_gradient_pmean
// CHECK-SAME: [[X:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK-SAME: [[W:%[a-z0-9]+]]: tensor<16x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[Y:%[a-z0-9]+]] = shardc.dot_general [[X]], [[W]] contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: [[G:%[a-z0-9]+]] = shardc.dot_general [[X]], [[Y]] contracting_dims = [0] x [0] : (tensor<4x16xf32>, tensor<4x4xf32>) -> tensor<16x4xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.all_reduce mean [[G]] on @mesh_2x4 ["data"] : tensor<16x4xf32>
// CHECK: [[U:%[a-z0-9]+]] = shardc.tanh [[M]] : tensor<16x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[U]], [[Y]]
func.func @data_parallel_gradient_pmean(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>},
    %w: tensor<16x4xf32>) -> (tensor<16x4xf32>, tensor<8x4xf32>) {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %g = shardc.shard_map (%x, %y) in_shardings = [<@mesh_2x4, [{"data"}, {}]>, <@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {}]>] {
  ^bb0(%lx: tensor<4x16xf32>, %ly: tensor<4x4xf32>):
    %lg = shardc.dot_general %lx, %ly contracting_dims = [0] x [0]
        : (tensor<4x16xf32>, tensor<4x4xf32>) -> tensor<16x4xf32>
    %m = shardc.all_reduce mean %lg on @mesh_2x4 ["data"] : tensor<16x4xf32>
    shardc.return %m : tensor<16x4xf32>
  } : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %u = shardc.tanh %g : tensor<16x4xf32>
  return %u, %y : tensor<16x4xf32>, tensor<8x4xf32>
}

// Two results, each combined over "model" inside the body: the row sums and
// the row maxima of a (8, 16) array split over both axes.
// CHECK-LABEL: func.func @two_results_on_2d_mesh
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>}, tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>})
// CHECK: [[S:%[a-z0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: [[SS:%[a-z0-9]+]] = shardc.all_reduce sum [[S]] on @mesh_2x4 ["model"] : tensor<4xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.reduce max [[A]] dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: [[MM:%[a-z0-9]+]] = shardc.all_reduce max [[M]] on @mesh_2x4 ["model"] : tensor<4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[SS]], [[MM]]
func.func @two_results_on_2d_mesh(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = shardc.shard_map (%a) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
      out_shardings = [<@mesh_2x4, [{"data"}]>, <@mesh_2x4, [{"data"}]>] {
  ^bb0(%l: tensor<4x4xf32>):
    %s = shardc.reduce sum %l dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
    %ss = shardc.all_reduce sum %s on @mesh_2x4 ["model"] : tensor<4xf32>
    %m = shardc.reduce max %l dims = [1] : (tensor<4x4xf32>) -> tensor<4xf32>
    %mm = shardc.all_reduce max %m on @mesh_2x4 ["model"] : tensor<4xf32>
    shardc.return %ss, %mm : tensor<4xf32>, tensor<4xf32>
  } : (tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// A padded shard_map (the argument opts into padding): the result's rows, 6
// over 4 devices, are blocks of 2 of the rows padded to 8; the body pads them
// itself, and the function's replicated result gathers and cuts the padding.
// CHECK-LABEL: func.func @padded_result(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<6x8xf32>
// CHECK-NEXT: [[Z:%.+]] = shardc.constant dense<0.000000e+00> : tensor<2x8xf32>
// CHECK-NEXT: [[P:%.+]] = shardc.concatenate [[A]], [[Z]] dim = 0
// CHECK-NEXT: [[S:%.+]] = shardc.all_slice [[P]] on @mesh_4 ["x"] dim = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: [[G:%.+]] = shardc.all_gather [[S]] on @mesh_4 ["x"] dim = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: [[R:%.+]] = shardc.slice [[G]], start = [0, 0], limit = [6, 8]
// CHECK-NEXT: return [[R]] : tensor<6x8xf32>
func.func @padded_result(%a: tensor<6x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>, shardc.pad_uneven})
    -> (tensor<6x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@mesh_4, [{}, {}]>]
      out_shardings = [<@mesh_4, [{"x"}, {}]>] {
  ^bb0(%la: tensor<6x8xf32>):
    %z = shardc.constant dense<0.0> : tensor<2x8xf32>
    %p = shardc.concatenate %la, %z dim = 0 : (tensor<6x8xf32>, tensor<2x8xf32>) -> tensor<8x8xf32>
    %s = shardc.all_slice %p on @mesh_4 ["x"] dim = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
    shardc.return %s : tensor<2x8xf32>
  } : (tensor<6x8xf32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}
