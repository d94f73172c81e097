// RUN: shardc-opt %s --shardc-matmul-precision="precision=bf16" | FileCheck %s
// RUN: shardc-opt %s --shardc-matmul-precision="precision=bf16" --shardc-autodiff="function=loss" | FileCheck %s --check-prefix=GRAD
// RUN: shardc-opt %s --shardc-autodiff="function=loss" --shardc-matmul-precision="precision=tf32" | FileCheck %s --check-prefix=AFTER
// RUN: shardc-opt %s --shardc-matmul-precision | FileCheck %s --check-prefix=DEFAULT
// RUN: shardc-opt %s --shardc-matmul-precision="precision=bf16" --shardc-propagate --shardc-partition --shardc-lower-to-plan -o /dev/null | FileCheck %s --check-prefix=PLAN
// RUN: not shardc-opt %s --shardc-matmul-precision="precision=fp8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not shardc-opt %s --shardc-compile="precision=fp8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: shardc-opt %s --shardc-compile="entry=loss precision=bf16" -o /dev/null | FileCheck %s --check-prefix=PIPELINE

// Mixed precision as a pass: every f32 product gets the precision; products
// that have one keep it, and integer products are left alone.

shardc.mesh @mesh = <["data"=2]>

// CHECK-LABEL: func.func @loss
// CHECK: shardc.dot_general %arg0, %arg1 contracting_dims = [1] x [0] precision = "bf16"
// CHECK: shardc.dot_general {{.*}} contracting_dims = [1] x [0] precision = "tf32"
// CHECK-NOT: precision
// CHECK: return
func.func @loss(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>},
                %w: tensor<16x4xf32>, %v: tensor<4x4xf32>) -> tensor<f32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %y = shardc.dot_general %h, %v contracting_dims = [1] x [0] precision = "tf32"
      : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %s = shardc.reduce sum %y dims = [0, 1] : (tensor<8x4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func.func @integers
// CHECK: shardc.dot_general %arg0, %arg1 contracting_dims = [1] x [0] :
func.func @integers(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// The gradients' products inherit the precision of the product they
// differentiate, whichever pass runs first.
// GRAD-LABEL: func.func @loss_grad
// GRAD: [[H:%.+]] = shardc.dot_general %arg0, %arg1 {{.*}} precision = "bf16"
// GRAD: shardc.dot_general [[H]], %arg2 {{.*}} precision = "tf32"
// GRAD: [[DH:%.+]] = shardc.dot_general {{.*}}, %arg2 contracting_dims = [1] x [1] precision = "tf32"
// GRAD: shardc.dot_general [[H]], {{.*}} contracting_dims = [0] x [0] precision = "tf32"
// GRAD: shardc.dot_general [[DH]], %arg1 contracting_dims = [1] x [1] precision = "bf16"
// GRAD: shardc.dot_general %arg0, [[DH]] contracting_dims = [0] x [0] precision = "bf16"
// GRAD: return
// AFTER-LABEL: func.func @loss_grad
// AFTER-NOT: "bf16"
// AFTER-COUNT-6: precision = "tf32"
// AFTER-NOT: "bf16"
// AFTER: return

// f32 is the default and changes nothing.
// DEFAULT-NOT: precision = "bf16"

// The plan's products carry it.
// PLAN: = dot_general v0, v1 precision bf16
// PLAN: = dot_general v{{[0-9]+}}, v2 precision tf32

// PIPELINE: = dot_general v0, v1 precision bf16

// UNKNOWN: error: --shardc-matmul-precision: precision 'fp8' is none of f32, bf16, tf32
