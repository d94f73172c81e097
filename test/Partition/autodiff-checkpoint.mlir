// RUN: shardc-opt %s --shardc-autodiff="function=nothing_saved wrt=1" | FileCheck %s --check-prefix=NOTHING
// RUN: shardc-opt %s --shardc-autodiff="function=dots_saved wrt=1" | FileCheck %s --check-prefix=DOTS
// RUN: shardc-opt %s --shardc-autodiff="function=names_saved wrt=1" | FileCheck %s --check-prefix=NAMES
// RUN: shardc-opt %s --shardc-autodiff="function=all_but_names_saved wrt=1" | FileCheck %s --check-prefix=ALLBUT
// RUN: shardc-opt %s --shardc-autodiff="function=two_groups wrt=1,2" | FileCheck %s --check-prefix=GROUPS
// RUN: shardc-opt %s --shardc-autodiff="function=two_groups wrt=1,2" --shardc-propagate --shardc-partition | FileCheck %s --check-prefix=PART

// Ops carrying shardc.checkpoint form a checkpointed group, like the body of
// a jax.checkpoint: autodiff recomputes in the backward pass what the
// group's policy does not save, right where the reverse sweep reaches the
// group, and the gradient rules read the recomputed values. The clones carry
// shardc.recomputed; those no rule reads are dropped.

// "nothing": the product and the tanh are recomputed from the inputs, and
// tanh's and mul's rules read the recomputed tanh.
// NOTHING-LABEL: func.func @nothing_saved_grad
// NOTHING: %[[H:[0-9]+]] = shardc.dot_general %arg0, %arg1 {{.*}}{shardc.checkpoint = {group = 0 : i64, policy = "nothing"}}
// NOTHING: %[[T:[0-9]+]] = shardc.tanh %[[H]] {shardc.checkpoint
// NOTHING: %[[RH:[0-9]+]] = shardc.dot_general %arg0, %arg1 {{.*}}{shardc.recomputed}
// NOTHING-NEXT: %[[RT:[0-9]+]] = shardc.tanh %[[RH]] {shardc.recomputed}
// NOTHING-NOT: shardc.recomputed
// NOTHING: shardc.mul %{{[0-9]+}}, %[[RT]]
// NOTHING-NOT: %[[T]]{{[^0-9]}}
// NOTHING: return
func.func @nothing_saved(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<f32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0] {shardc.checkpoint = {group = 0 : i64, policy = "nothing"}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = shardc.tanh %h {shardc.checkpoint = {group = 0 : i64, policy = "nothing"}} : tensor<4x8xf32>
  %s = shardc.mul %t, %t {shardc.checkpoint = {group = 0 : i64, policy = "nothing"}} : tensor<4x8xf32>
  %l = shardc.reduce sum %s dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// "dots": the product is saved; only the tanh is recomputed, from it.
// DOTS-LABEL: func.func @dots_saved_grad
// DOTS: %[[H:[0-9]+]] = shardc.dot_general %arg0, %arg1 {{.*}}{shardc.checkpoint = {group = 0 : i64, policy = "dots"}}
// DOTS-NOT: shardc.dot_general {{.*}}shardc.recomputed
// DOTS: %[[RT:[0-9]+]] = shardc.tanh %[[H]] {shardc.recomputed}
// DOTS-NOT: shardc.recomputed
// DOTS: shardc.mul %{{[0-9]+}}, %[[RT]]
// DOTS: return
func.func @dots_saved(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<f32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0] {shardc.checkpoint = {group = 0 : i64, policy = "dots"}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = shardc.tanh %h {shardc.checkpoint = {group = 0 : i64, policy = "dots"}} : tensor<4x8xf32>
  %s = shardc.mul %t, %t {shardc.checkpoint = {group = 0 : i64, policy = "dots"}} : tensor<4x8xf32>
  %l = shardc.reduce sum %s dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// "names": the tanh, named "act", is saved; nothing its rules read is left
// to recompute (the product's rule reads only the inputs).
// NAMES-LABEL: func.func @names_saved_grad
// NAMES-NOT: shardc.recomputed
// NAMES: return
func.func @names_saved(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<f32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0] {shardc.checkpoint = {group = 0 : i64, policy = "names", names = ["act"]}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = shardc.tanh %h {shardc.checkpoint = {group = 0 : i64, policy = "names", names = ["act"]}, shardc.checkpoint_name = "act"} : tensor<4x8xf32>
  %s = shardc.mul %t, %t {shardc.checkpoint = {group = 0 : i64, policy = "names", names = ["act"]}} : tensor<4x8xf32>
  %l = shardc.reduce sum %s dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Two blocks, each its own group: the second block's recomputation comes
// first in the backward pass, the first block's after the second block's
// gradients, so that only one block's values are live at a time.
// GROUPS-LABEL: func.func @two_groups_grad
// GROUPS: shardc.tanh {{.*}}group = 0
// GROUPS: shardc.tanh {{.*}}group = 1
// GROUPS: %[[R1:[0-9]+]] = shardc.dot_general %{{[0-9]+}}, %arg2 {{.*}}{shardc.recomputed}
// GROUPS-NEXT: shardc.tanh %[[R1]] {shardc.recomputed}
// GROUPS: shardc.dot_general {{.*}}contracting_dims = [0] x [0]
// GROUPS: %[[R0:[0-9]+]] = shardc.dot_general %arg0, %arg1 {{.*}}{shardc.recomputed}
// GROUPS-NEXT: shardc.tanh %[[R0]] {shardc.recomputed}
// GROUPS: return
//
// The recomputation is partitioned like the forward pass: each block's
// product runs twice per device, on the device's rows of the batch.
// PART-LABEL: func.func @two_groups_grad
// PART-COUNT-4: shardc.dot_general {{%[0-9a-z]+}}, {{%[0-9a-z]+}} contracting_dims = [1] x [0] {{.*}}: (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
// PART-NOT: contracting_dims = [1] x [0]
// PART: return
shardc.mesh @mesh = <["data"=2]>
func.func @two_groups(
    %x: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>},
    %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>) -> tensor<f32> {
  %h0 = shardc.dot_general %x, %w0 contracting_dims = [1] x [0] {shardc.checkpoint = {group = 0 : i64, policy = "nothing"}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t0 = shardc.tanh %h0 {shardc.checkpoint = {group = 0 : i64, policy = "nothing"}} : tensor<4x8xf32>
  %h1 = shardc.dot_general %t0, %w1 contracting_dims = [1] x [0] {shardc.checkpoint = {group = 1 : i64, policy = "nothing"}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t1 = shardc.tanh %h1 {shardc.checkpoint = {group = 1 : i64, policy = "nothing"}} : tensor<4x8xf32>
  %l = shardc.reduce sum %t1 dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// "all_but_names": everything is kept but the tanh, named "act", which is
// recomputed from the kept product.
// ALLBUT-LABEL: func.func @all_but_names_saved_grad
// ALLBUT: %[[H:[0-9]+]] = shardc.dot_general %arg0, %arg1
// ALLBUT-NOT: shardc.dot_general {{.*}}shardc.recomputed
// ALLBUT: %[[RT:[0-9]+]] = shardc.tanh %[[H]] {shardc.recomputed}
// ALLBUT-NOT: shardc.recomputed
// ALLBUT: return
func.func @all_but_names_saved(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<f32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0] {shardc.checkpoint = {group = 0 : i64, policy = "all_but_names", names = ["act"]}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = shardc.tanh %h {shardc.checkpoint = {group = 0 : i64, policy = "all_but_names", names = ["act"]}, shardc.checkpoint_name = "act"} : tensor<4x8xf32>
  %s = shardc.mul %t, %t {shardc.checkpoint = {group = 0 : i64, policy = "all_but_names", names = ["act"]}} : tensor<4x8xf32>
  %l = shardc.reduce sum %s dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
