// RUN: shardc-opt %s --shardc-autodiff="function=stop_gradient_loss wrt=0" | FileCheck %s

// No gradient flows through shardc.stop_gradient: the loss sum(x * sg(x))
// has gradient sg(x) = x, not 2x; sg(x) stays a value of the forward pass.

// CHECK-LABEL: func.func @stop_gradient_loss_grad
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK: %[[S:[0-9]+]] = shardc.stop_gradient %[[X]] : tensor<4x3xf32>
// CHECK: %[[SEED:[0-9]+]] = shardc.broadcast_in_dim
// CHECK-NEXT: %[[DX:[0-9]+]] = shardc.mul %[[SEED]], %[[S]] : tensor<4x3xf32>
// CHECK-NOT: shardc.add
// CHECK: return %{{[0-9]+}}, %[[DX]]
func.func @stop_gradient_loss(%x: tensor<4x3xf32>) -> tensor<f32> {
  %s = shardc.stop_gradient %x : tensor<4x3xf32>
  %p = shardc.mul %x, %s : tensor<4x3xf32>
  %l = shardc.reduce sum %p dims = [0, 1] : (tensor<4x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
