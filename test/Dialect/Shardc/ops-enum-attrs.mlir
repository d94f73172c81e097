// RUN: shardc-opt %s | shardc-opt | FileCheck %s
// RUN: shardc-opt %s --mlir-print-op-generic | shardc-opt | FileCheck %s
// RUN: shardc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of the ops that carry a reduce kind or a compare direction:
// compare, reduce, all_reduce and reduce_scatter, in the custom and the
// generic syntax. The other ops are in ops.mlir.

// GENERIC-DAG: direction = #shardc<compare_direction lt>
// GENERIC-DAG: kind = #shardc<reduce_kind sum>

// CHECK: shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @compare
// CHECK-SAME: ([[X:%[^:]+]]: tensor<4xf32>, [[Y:%[^:]+]]: tensor<4xf32>, [[I:%[^:]+]]: tensor<2x3xi32>, [[J:%[^:]+]]: tensor<2x3xi32>)
// CHECK: [[EQ:%.+]] = shardc.compare eq, [[X]], [[Y]] : tensor<4xf32>
// CHECK: [[NE:%.+]] = shardc.compare ne, [[X]], [[Y]] : tensor<4xf32>
// CHECK: [[LT:%.+]] = shardc.compare lt, [[X]], [[Y]] : tensor<4xf32>
// CHECK: [[LE:%.+]] = shardc.compare le, [[X]], [[Y]] : tensor<4xf32>
// CHECK: [[GT:%.+]] = shardc.compare gt, [[I]], [[J]] : tensor<2x3xi32>
// CHECK: [[GE:%.+]] = shardc.compare ge, [[I]], [[J]] : tensor<2x3xi32>
// CHECK: return [[EQ]], [[NE]], [[LT]], [[LE]], [[GT]], [[GE]] : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2x3xi1>, tensor<2x3xi1>
func.func @compare(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<2x3xi32>, %j: tensor<2x3xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %eq = shardc.compare eq, %x, %y : tensor<4xf32>
  %ne = shardc.compare ne, %x, %y : tensor<4xf32>
  %lt = shardc.compare lt, %x, %y : tensor<4xf32>
  %le = shardc.compare le, %x, %y : tensor<4xf32>
  %gt = shardc.compare gt, %i, %j : tensor<2x3xi32>
  %ge = shardc.compare ge, %i, %j : tensor<2x3xi32>
  return %eq, %ne, %lt, %le, %gt, %ge
      : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// Compare feeding select: a ReLU.
// CHECK-LABEL: func.func @compare_select_relu
// CHECK-SAME: ([[X:%[^:]+]]: tensor<4x8xf32>)
// CHECK: [[Z:%.+]] = shardc.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: [[P:%.+]] = shardc.compare gt, [[X]], [[Z]] : tensor<4x8xf32>
// CHECK: [[R:%.+]] = shardc.select [[P]], [[X]], [[Z]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: return [[R]]
func.func @compare_select_relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = shardc.constant dense<0.0> : tensor<4x8xf32>
  %p = shardc.compare gt, %x, %zero : tensor<4x8xf32>
  %r = shardc.select %p, %x, %zero : tensor<4x8xi1>, tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: ([[X:%[^:]+]]: tensor<2x4x8xf32>, [[I:%[^:]+]]: tensor<3x5xi32>)
// CHECK: [[S:%.+]] = shardc.reduce sum [[X]] dims = [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
// CHECK: [[M:%.+]] = shardc.reduce max [[X]] dims = [0, 2] : (tensor<2x4x8xf32>) -> tensor<4xf32>
// CHECK: [[N:%.+]] = shardc.reduce min [[I]] dims = [1, 0] : (tensor<3x5xi32>) -> tensor<i32>
// CHECK: return [[S]], [[M]], [[N]]
func.func @reduce(%x: tensor<2x4x8xf32>, %i: tensor<3x5xi32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<i32>) {
  %s = shardc.reduce sum %x dims = [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %m = shardc.reduce max %x dims = [0, 2] : (tensor<2x4x8xf32>) -> tensor<4xf32>
  %n = shardc.reduce min %i dims = [1, 0] : (tensor<3x5xi32>) -> tensor<i32>
  return %s, %m, %n : tensor<2x4xf32>, tensor<4xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: ([[X:%[^:]+]]: tensor<16x10xf32>)
// CHECK: [[S:%.+]] = shardc.all_reduce sum [[X]] on @mesh_2x4 ["data"] : tensor<16x10xf32>
// CHECK: [[M:%.+]] = shardc.all_reduce mean [[S]] on @mesh_2x4 ["model"] : tensor<16x10xf32>
// CHECK: [[A:%.+]] = shardc.all_reduce max [[M]] on @mesh_2x4 ["data", "model"] : tensor<16x10xf32>
// CHECK: [[B:%.+]] = shardc.all_reduce min [[A]] on @mesh_2x4 ["model", "data"] : tensor<16x10xf32>
// CHECK: return [[B]]
func.func @all_reduce(%x: tensor<16x10xf32>) -> tensor<16x10xf32> {
  %s = shardc.all_reduce sum %x on @mesh_2x4 ["data"] : tensor<16x10xf32>
  %m = shardc.all_reduce mean %s on @mesh_2x4 ["model"] : tensor<16x10xf32>
  %a = shardc.all_reduce max %m on @mesh_2x4 ["data", "model"] : tensor<16x10xf32>
  %b = shardc.all_reduce min %a on @mesh_2x4 ["model", "data"] : tensor<16x10xf32>
  return %b : tensor<16x10xf32>
}

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: ([[X:%[^:]+]]: tensor<8x8xf32>)
// CHECK: [[Y:%.+]] = shardc.reduce_scatter sum [[X]] on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK: [[Z:%.+]] = shardc.reduce_scatter max [[X]] on @mesh_2x4 ["data", "model"] dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
// CHECK: return [[Y]], [[Z]]
func.func @reduce_scatter(%x: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<8x1xf32>) {
  %y = shardc.reduce_scatter sum %x on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %z = shardc.reduce_scatter max %x on @mesh_2x4 ["data", "model"] dim = 1
      : tensor<8x8xf32> -> tensor<8x1xf32>
  return %y, %z : tensor<4x8xf32>, tensor<8x1xf32>
}

// The pmean of a data-parallel gradient, then a reduce-scatter over "model".
// CHECK-LABEL: func.func @shard_map_collectives
// CHECK-SAME: ([[X:%[^:]+]]: tensor<8x16xf32>)
// CHECK: [[R:%.+]] = shardc.shard_map([[X]]) in_shardings = [<@mesh_2x4, [{"data"}, {}]>] out_shardings = [<@mesh_2x4, [{}, {"model"}]>] {
// CHECK-NEXT: ^bb0([[L:%[^:]+]]: tensor<4x16xf32>):
// CHECK-NEXT: [[M:%.+]] = shardc.all_reduce mean [[L]] on @mesh_2x4 ["data"] : tensor<4x16xf32>
// CHECK-NEXT: [[S:%.+]] = shardc.reduce_scatter sum [[M]] on @mesh_2x4 ["model"] dim = 1 : tensor<4x16xf32> -> tensor<4x4xf32>
// CHECK-NEXT: shardc.return [[S]] : tensor<4x4xf32>
// CHECK-NEXT: } : (tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: return [[R]]
func.func @shard_map_collectives(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {}]>]
      out_shardings = [<@mesh_2x4, [{}, {"model"}]>] {
  ^bb0(%l: tensor<4x16xf32>):
    %m = shardc.all_reduce mean %l on @mesh_2x4 ["data"] : tensor<4x16xf32>
    %s = shardc.reduce_scatter sum %m on @mesh_2x4 ["model"] dim = 1 : tensor<4x16xf32> -> tensor<4x4xf32>
    shardc.return %s : tensor<4x4xf32>
  } : (tensor<8x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
