// RUN: shardc-opt %s --shardc-propagate --shardc-partition --shardc-lower-to-plan -o /dev/null | FileCheck %s
// RUN: shardc-opt %s --shardc-propagate --shardc-partition --shardc-lower-to-plan="output=%t.plan" -o /dev/null && FileCheck %s < %t.plan
// RUN: not shardc-opt %s --shardc-lower-to-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPARTITIONED
// The registered pipeline is the one `shardc compile` runs: the same plan,
// byte for byte, as its --dump-stages, and the same partitioned module.
// RUN: shardc-opt %s --shardc-compile="entry=megatron_mlp" -o /dev/null | FileCheck %s
// RUN: rm -rf %t.stages && shardc compile %s --entry megatron_mlp -o %t.shardc --dump-stages %t.stages > /dev/null
// RUN: shardc-opt %s --shardc-compile="entry=megatron_mlp output=%t.opt-plan" -o %t.opt.mlir
// RUN: diff %t.stages/03-plan.txt %t.opt-plan
// RUN: diff %t.stages/02-partitioned.mlir %t.opt.mlir

// The last arrow of the flow as a pass: the Megatron MLP, propagated,
// partitioned and lowered; the plan is the one `shardc compile
// --dump-stages` writes, in its text form.

shardc.mesh @mesh_4 = <["model"=4]>

// CHECK: plan @megatron_mlp on 4 device(s); arena {{[0-9]+}} bytes per device
// CHECK-NEXT: args: x=v0:f32[8x16]@arg w1=v1:f32[16x8]@arg w2=v2:f32[8x16]@arg
// CHECK-NEXT: = dot_general v0, v1
// CHECK: = dot_general
// CHECK-NEXT: = all_reduce {{v[0-9]+}} over "model"
// CHECK-NEXT: results:
// UNPARTITIONED: error: is sharded but not partitioned; run --shardc-propagate and --shardc-partition first
func.func @megatron_mlp(%x: tensor<8x16xf32> {shardc.name = "x"},
    %w1: tensor<16x32xf32> {shardc.name = "w1", shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"model"}]>},
    %w2: tensor<32x16xf32> {shardc.name = "w2", shardc.sharding = #shardc.sharding<@mesh_4, [{"model"}, {}]>})
    -> tensor<8x16xf32> {
  %h = shardc.dot_general %x, %w1 contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %z = shardc.constant dense<0.0> : tensor<8x32xf32>
  %r = shardc.max %h, %z : tensor<8x32xf32>
  %y = shardc.dot_general %r, %w2 contracting_dims = [1] x [0]
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
