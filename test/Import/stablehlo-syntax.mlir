// RUN: shardc-opt %s | FileCheck %s
// RUN: shardc-opt %s | shardc-opt | FileCheck %s

// The printed forms of StableHLO and Shardy that `jax.jit(...).lower()`
// writes are read into operations that keep their attributes by name;
// they print in the generic form, which reads back the same.

// CHECK: "sdy.mesh"() {axis_names = ["data", "model"], axis_sizes = array<i64: 2, 2>, sym_name = "mesh"}
// CHECK: "sdy.mesh"() {axis_names = [], axis_sizes = array<i64>, device_ids = array<i64: 0>, sym_name = "maximal"}
sdy.mesh @mesh = <["data"=2, "model"=2]>
sdy.mesh @maximal = <[], device_ids=[0]>

// CHECK-LABEL: func.func public @main
// CHECK-SAME: sdy.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>
// CHECK-SAME: sdy.sharding = #shardc.sharding<@mesh, [{"model", ?}p0, {?}], partial = {"data"}>
func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>},
                       %arg1: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model", ?}p0, {?}], replicated={"x"}, unreduced={"data"}>})
    -> (tensor<8x2xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
  // CHECK: "stablehlo.dot_general"(%arg0, %arg1) {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>}
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  // CHECK: {lhs_batching_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 1>, precision_config = ["DEFAULT", "HIGHEST"], rhs_batching_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>}
  %b = stablehlo.dot_general %0, %0, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, HIGHEST] : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8xf32>
  // CHECK: "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>}
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  // CHECK: "stablehlo.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
  %hex = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  // CHECK: "stablehlo.broadcast_in_dim"(%{{.*}}) {dims = array<i64>} : (tensor<f32>) -> tensor<8x2xf32>
  %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
  // CHECK: "stablehlo.maximum"(%{{.*}}, %{{.*}}) : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  %2 = stablehlo.maximum %0, %1 : tensor<8x2xf32>
  // CHECK: "stablehlo.reduce"(%{{.*}}, %{{.*}}) ({
  // CHECK-NEXT: }) {applies = "stablehlo.add", dimensions = array<i64: 1>}
  %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<8xf32>
  // CHECK: "stablehlo.reduce"
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
  // CHECK-NEXT: "stablehlo.maximum"
  // CHECK-NEXT: "stablehlo.return"
  // CHECK-NEXT: }) {dimensions = array<i64: 0>}
  %4 = stablehlo.reduce(%2 init: %cst) across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %c: tensor<f32>)  {
    %m = stablehlo.maximum %a, %c : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  // CHECK: "stablehlo.compare"(%{{.*}}, %{{.*}}) {compare_type = "FLOAT", comparison_direction = "GT"}
  %5 = stablehlo.compare  GT, %0, %1,  FLOAT : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xi1>
  // CHECK: "stablehlo.compare"(%{{.*}}, %{{.*}}) {comparison_direction = "LT"}
  %g = "stablehlo.compare"(%0, %1) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xi1>
  // CHECK: "stablehlo.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x2xi1>, tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  %6 = stablehlo.select %5, %0, %1 : tensor<8x2xi1>, tensor<8x2xf32>
  // CHECK: "stablehlo.iota"() {dim = 0 : i64} : () -> tensor<4xi32>
  %7 = stablehlo.iota dim = 0 : tensor<4xi32>
  // CHECK: {limit_indices = array<i64: 4, 2>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 1>}
  %8 = stablehlo.slice %6 [0:4, 1:2] : (tensor<8x2xf32>) -> tensor<4x1xf32>
  // CHECK: {limit_indices = array<i64: 8, 2>, start_indices = array<i64: 0, 0>, strides = array<i64: 2, 1>}
  %9 = stablehlo.slice %6 [0:8:2, 0:2] : (tensor<8x2xf32>) -> tensor<4x2xf32>
  // CHECK: "stablehlo.transpose"(%{{.*}}) {dims = array<i64: 1, 0>}
  %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<4x2xf32>) -> tensor<2x4xf32>
  // CHECK: "stablehlo.custom_call"(%{{.*}}) {call_target_name = "Sharding", mhlo.sharding = "{devices=[2,1]<=[2]}"}
  %12 = stablehlo.custom_call @Sharding(%6) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<8x2xf32>) -> tensor<8x2xf32>
  // CHECK: "sdy.sharding_constraint"(%{{.*}}) {sharding = #shardc.sharding<@mesh, [{"data", ?}p1, {}]>}
  %13 = sdy.sharding_constraint %6 <@mesh, [{"data", ?}p1, {}]> : tensor<8x2xf32>
  // CHECK: "stablehlo.convert"(%{{.*}}) : (tensor<4xi32>) -> tensor<4xf32>
  %14 = stablehlo.convert %7 : (tensor<4xi32>) -> tensor<4xf32>
  // CHECK: dot_dimension_numbers = {kind = "dot", lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
  %17 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  // CHECK: "stablehlo.concatenate"(%{{.*}}, %{{.*}}) {dim = 1 : i64}
  %19 = stablehlo.concatenate %8, %8, dim = 1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  // CHECK: "stablehlo.add"(%{{.*}}, %{{.*}}) {sdy.sharding = [#shardc.sharding<@mesh, [{"data"}, {}]>]}
  %20 = stablehlo.add %2, %2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<8x2xf32>
  // CHECK: "chlo.erf"(%{{.*}}) : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %21 = chlo.erf %2 : tensor<8x2xf32> -> tensor<8x2xf32>
  // CHECK: "stablehlo.dynamic_slice"(%{{.*}}, %{{.*}}, %{{.*}}) {sizes = array<i64: 2, 2>}
  %i = stablehlo.constant dense<1> : tensor<i32>
  %22 = stablehlo.dynamic_slice %0, %i, %i, sizes = [2, 2] : (tensor<8x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  // CHECK: "sdy.manual_computation"(%arg0) ({
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x4xf32>):
  // CHECK: "sdy.return"
  // CHECK-NEXT: }) {in_shardings = [#shardc.sharding<@mesh, [{"data"}, {}]>], manual_axes = ["data"], out_shardings = [#shardc.sharding<@mesh, [{"data"}, {}]>]}
  %23 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"data"} (%l: tensor<4x4xf32>) {
    %n = stablehlo.negate %l : tensor<4x4xf32>
    sdy.return %n : tensor<4x4xf32>
  } : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %2 : tensor<8x2xf32>
}
