// RUN: shardc-opt %s --shardc-bf16-operands | FileCheck %s
// RUN: shardc-opt %s --shardc-bf16-operands --shardc-bf16-operands | FileCheck %s
// RUN: shardc-opt %s --shardc-bf16-operands --shardc-lower-to-plan -o /dev/null | FileCheck %s --check-prefix=PLAN
// RUN: shardc-opt %s --shardc-bf16-operands --shardc-lower-to-plan="bf16-outputs=1" -o /dev/null | FileCheck %s --check-prefix=FUSED
// The numbers stay: @layer with and without, on the CPU backend and the
// interpreter, bit for bit.
// RUN: rm -rf %t && mkdir -p %t/before %t/after %t/ref
// RUN: shardc-opt %s --shardc-bf16-operands -o %t/after.mlir
// RUN: %python -c "import numpy as np; r = np.random.default_rng(3); [np.save('%t/' + n + '.npy', r.standard_normal(s).astype(np.float32)) for n, s in [('x', (8, 16)), ('w', (16, 4)), ('dy', (8, 4))]]"
// RUN: shardc run %s --entry layer --input x=%t/x.npy --input w=%t/w.npy --input dy=%t/dy.npy --no-cache --output-dir %t/before
// RUN: shardc run %t/after.mlir --entry layer --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/dy.npy --no-cache --output-dir %t/after
// RUN: shardc run %t/after.mlir --entry layer --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/dy.npy --backend reference --output-dir %t/ref
// RUN: for i in 0 1 2 3 4; do cmp %t/before/layer.result$i.npy %t/after/layer.result$i.npy || exit 1; done
// shardc run fuses the converts into the chains that make their operands;
// an artifact of shardc compile keeps them steps of their own: same bytes.
// RUN: shardc compile %t/after.mlir --entry layer -o %t/portable.shardc
// RUN: shardc run %t/portable.shardc --input arg0=%t/x.npy --input arg1=%t/w.npy --input arg2=%t/dy.npy --output-dir %t/portable
// RUN: for i in 0 1 2 3 4; do cmp %t/portable/layer.result$i.npy %t/after/layer.result$i.npy || exit 1; done
// RUN: %python -c "import numpy as np; [np.testing.assert_allclose(np.load('%t/ref/layer.result%%d.npy' %% i), np.load('%t/after/layer.result%%d.npy' %% i), rtol=1e-5, atol=1e-6) for i in range(5)]"

// A value only bf16 products read, directly or through reshape, transpose
// and slice, is rounded to bf16 once where it is made; anything else
// keeps reading f32.

// %h: read by the forward product and, transposed, by the weight gradient's.
// With bf16 outputs (the CPU compiles), the chain that makes %h stores it
// at bf16 only: tanh and its convert are one fused step.
// FUSED-LABEL: plan @layer
// FUSED-NEXT: args:
// FUSED-NEXT: [[R:v[0-9]+]]:bf16[8x16]@{{[0-9]+}} = fused v0
// FUSED-NEXT: = dot_general [[R]], v1 precision bf16
// FUSED-LABEL: plan @attention
// FUSED-NEXT: args:
// FUSED-NEXT: :bf16[2x4x3x8]@{{[0-9]+}} = fused v0, v1

// CHECK-LABEL: func.func @layer
// CHECK: %[[H:.*]] = shardc.tanh %arg0 : tensor<8x16xf32>
// CHECK-NEXT: %[[R:.*]] = shardc.convert %[[H]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: shardc.dot_general %[[R]], %arg1 contracting_dims = [1] x [0] precision = "bf16" : (tensor<8x16xbf16>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[T:.*]] = shardc.transpose %[[R]], permutation = [1, 0] : (tensor<8x16xbf16>) -> tensor<16x8xbf16>
// CHECK: shardc.dot_general %[[T]], %arg2 contracting_dims = [1] x [0] precision = "bf16" : (tensor<16x8xbf16>, tensor<8x4xf32>) -> tensor<16x4xf32>
// The arguments and %g (an add reads it too) stay f32, and so does what an
// f32 product reads.
// CHECK: %[[G:.*]] = shardc.exp %arg0
// CHECK-NOT: shardc.convert
// CHECK: shardc.dot_general %[[G]], %arg1 {{.*}} : (tensor<8x16xf32>, tensor<16x4xf32>)
// CHECK: %[[E:.*]] = shardc.abs %arg0
// CHECK-NOT: shardc.convert
// CHECK: shardc.dot_general %[[E]], %arg1 contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>)
// CHECK: return
func.func @layer(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %dy: tensor<8x4xf32>)
    -> (tensor<8x4xf32>, tensor<16x4xf32>, tensor<8x4xf32>, tensor<8x16xf32>, tensor<8x4xf32>) {
  %h = shardc.tanh %x : tensor<8x16xf32>
  %y = shardc.dot_general %h, %w contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %ht = shardc.transpose %h, permutation = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %dw = shardc.dot_general %ht, %dy contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %g = shardc.exp %x : tensor<8x16xf32>
  %z = shardc.dot_general %g, %w contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %s = shardc.add %g, %g : tensor<8x16xf32>
  %e = shardc.abs %x : tensor<8x16xf32>
  %f = shardc.dot_general %e, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %y, %dw, %z, %s, %f : tensor<8x4xf32>, tensor<16x4xf32>, tensor<8x4xf32>, tensor<8x16xf32>, tensor<8x4xf32>
}

// Attention's q, k and v: slices of one qkv value, reshaped, each read by
// a product: qkv is rounded once and the layout ops between move bf16.
// CHECK-LABEL: func.func @attention
// CHECK: %[[QKV:.*]] = shardc.add
// CHECK-NEXT: %[[R:.*]] = shardc.convert %[[QKV]] : tensor<2x4x3x8xf32> -> tensor<2x4x3x8xbf16>
// CHECK: shardc.slice %[[R]], {{.*}} -> tensor<2x4x1x8xbf16>
// CHECK: shardc.reshape {{.*}} -> tensor<2x4x8xbf16>
// CHECK: shardc.slice %[[R]], {{.*}} -> tensor<2x4x1x8xbf16>
// CHECK: shardc.reshape {{.*}} -> tensor<2x4x8xbf16>
// CHECK: shardc.dot_general {{.*}} precision = "bf16" : (tensor<2x4x8xbf16>, tensor<2x4x8xbf16>) -> tensor<2x4x4xf32>
// CHECK-NOT: shardc.convert
// CHECK: return
func.func @attention(%p: tensor<2x4x3x8xf32>, %b: tensor<2x4x3x8xf32>) -> tensor<2x4x4xf32> {
  %qkv = shardc.add %p, %b : tensor<2x4x3x8xf32>
  %q1 = shardc.slice %qkv, start = [0, 0, 0, 0], limit = [2, 4, 1, 8], strides = [1, 1, 1, 1] : (tensor<2x4x3x8xf32>) -> tensor<2x4x1x8xf32>
  %q = shardc.reshape %q1 : (tensor<2x4x1x8xf32>) -> tensor<2x4x8xf32>
  %k1 = shardc.slice %qkv, start = [0, 0, 1, 0], limit = [2, 4, 2, 8], strides = [1, 1, 1, 1] : (tensor<2x4x3x8xf32>) -> tensor<2x4x1x8xf32>
  %k = shardc.reshape %k1 : (tensor<2x4x1x8xf32>) -> tensor<2x4x8xf32>
  %s = shardc.dot_general %q, %k batching_dims = [0] x [0], contracting_dims = [2] x [2]
      precision = "bf16" : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  return %s : tensor<2x4x4xf32>
}

// The plan keeps the bf16 copy, and the f32 value's buffer is free again
// once it is rounded.
// PLAN-LABEL: plan @layer
// PLAN: v3:f32[8x16]@[[AT:[0-9]+]] = tanh v0
// PLAN-NEXT: v4:bf16[8x16]@{{[0-9]+}} = convert v3
// PLAN-NEXT: v5:f32[8x4]@[[AT]] = dot_general v4, v1 precision bf16
// PLAN-NEXT: v6:bf16[16x8]@{{[0-9]+}} = transpose v4
// PLAN-NEXT: v7:f32[16x4]@{{[0-9]+}} = dot_general v6, v2 precision bf16
