// RUN: shardc-opt %s --shardc-autodiff="function=split_in_three_loss wrt=0" | FileCheck %s
// RUN: shardc-opt %s --shardc-autodiff="function=overlapping_slices_loss wrt=0" | FileCheck %s --check-prefix=OVERLAP

// The gradients of disjoint slices of one value meet as one concatenation
// of the pieces: no zeros are filled and nothing is added. This is the
// fused q/k/v projection of attention, split into three.

// CHECK-LABEL: func.func @split_in_three_loss_grad
// CHECK-NOT: shardc.add {{.*}} : tensor<3x4xf32>
// CHECK-NOT: dense<0.000000e+00>
// CHECK: %[[G:[0-9]+]] = shardc.concatenate %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} dim = 0 : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
// CHECK: return %{{[0-9]+}}, %[[G]]
func.func @split_in_three_loss(%x: tensor<3x4xf32>) -> tensor<f32> {
  %q = shardc.slice %x, start = [0, 0], limit = [1, 4], strides = [1, 1] : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %k = shardc.slice %x, start = [1, 0], limit = [2, 4], strides = [1, 1] : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %v = shardc.slice %x, start = [2, 0], limit = [3, 4], strides = [1, 1] : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %qk = shardc.mul %q, %k : tensor<1x4xf32>
  %t = shardc.tanh %v : tensor<1x4xf32>
  %s = shardc.add %qk, %t : tensor<1x4xf32>
  %l = shardc.reduce sum %s dims = [0, 1] : (tensor<1x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Overlapping slices cannot be concatenated: their padded gradients add.
// OVERLAP-LABEL: func.func @overlapping_slices_loss_grad
// OVERLAP: shardc.add %{{[0-9]+}}, %{{[0-9]+}} : tensor<3x4xf32>
func.func @overlapping_slices_loss(%x: tensor<3x4xf32>) -> tensor<f32> {
  %a = shardc.slice %x, start = [0, 0], limit = [2, 4], strides = [1, 1] : (tensor<3x4xf32>) -> tensor<2x4xf32>
  %b = shardc.slice %x, start = [1, 0], limit = [3, 4], strides = [1, 1] : (tensor<3x4xf32>) -> tensor<2x4xf32>
  %p = shardc.mul %a, %b : tensor<2x4xf32>
  %l = shardc.reduce sum %p dims = [0, 1] : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
