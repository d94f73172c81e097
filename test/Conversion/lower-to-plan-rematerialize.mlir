// RUN: shardc-opt %s --shardc-lower-to-plan="entry=forward_backward" -o /dev/null | FileCheck %s
// RUN: shardc-opt %s --shardc-lower-to-plan="entry=shared_leaf" -o /dev/null | FileCheck %s --check-prefix=SHARED
// RUN: shardc-opt %s --shardc-lower-to-plan="entry=pick" -o /dev/null | FileCheck %s --check-prefix=PICK
// RUN: shardc-opt %s --shardc-lower-to-plan="entry=kept_for_product" -o /dev/null | FileCheck %s --check-prefix=KEEP

// What a forward pass computes elementwise from one value and its backward
// pass reads again after a product (the cut): recomputed after the cut from
// that value, not stored across it. The forward chain then stores only what
// the product reads, and its value `h` lives on instead of the three.

// (Stored across the cut, a, b and t would take the arena to 5242880 bytes.)
// CHECK-LABEL: plan @forward_backward on 1 device(s); arena 3145728 bytes per device
// CHECK: v[[H:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v0, v1
// CHECK-NEXT: v[[Y:[0-9]+]]:f32[512x512]@{{[0-9]+}} = fused v[[H]]{{$}}
// CHECK-NEXT: = dot_general v[[Y]], v1
// CHECK-NEXT: = fused v[[H]], v{{[0-9]+}}{{$}}
// CHECK-NEXT: results:
func.func @forward_backward(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %a = shardc.mul %h, %h : tensor<512x512xf32>
  %b = shardc.mul %a, %h : tensor<512x512xf32>
  %t = shardc.tanh %b : tensor<512x512xf32>
  %y = shardc.mul %t, %h : tensor<512x512xf32>
  %z = shardc.dot_general %y, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %u = shardc.mul %z, %t : tensor<512x512xf32>
  %v = shardc.add %u, %a : tensor<512x512xf32>
  %r = shardc.add %v, %b : tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// One value read after the cut, computed from one of the same size: no
// bytes to gain, so it is stored as before.
// SHARED-LABEL: plan @shared_leaf
// SHARED: v[[H:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v0, v1
// SHARED-NEXT: v[[T:[0-9]+]]:f32[512x512]@{{[0-9]+}} = tanh v[[H]]
// SHARED-NEXT: = dot_general v[[T]], v1
// SHARED-NEXT: = mul {{.*}}v[[T]]
func.func @shared_leaf(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %t = shardc.tanh %h : tensor<512x512xf32>
  %z = shardc.dot_general %t, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %u = shardc.mul %z, %t : tensor<512x512xf32>
  return %u : tensor<512x512xf32>
}

// A compare read by two selects on either side of a cut (a loss's one-hot
// pick, and its gradient's): a fused kernel cannot store the i1 value, so
// with one compare neither side would fuse. The compare is copied after
// the cut whatever it frees (here 256 KB), and both sides fuse.
// PICK-LABEL: plan @pick
// PICK-NOT: compare
// PICK-NOT: select
// PICK: = fused v0, v2{{$}}
// PICK-NEXT: = dot_general
// PICK-NEXT: = fused v0, v2, v{{[0-9]+}}{{$}}
// PICK-NEXT: results:
func.func @pick(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>, %labels: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = shardc.constant dense<0.0> : tensor<512x512xf32>
  %hit = shardc.compare eq, %x, %labels : tensor<512x512xf32>
  %picked = shardc.select %hit, %x, %zero : tensor<512x512xi1>, tensor<512x512xf32>
  %z = shardc.dot_general %picked, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %g = shardc.select %hit, %z, %zero : tensor<512x512xi1>, tensor<512x512xf32>
  return %g : tensor<512x512xf32>
}

// A forward value a product reads where it is made (`y`, stored for it
// anyway) and only a product reads again after the cut (a GELU's output
// and its weight gradient): a copy there would be a pass of its own over
// memory, so `y` is kept. `t`, read after the cut by an elementwise step,
// with `h` alive for that step, is still recomputed inside its fused pass.
// KEEP-LABEL: plan @kept_for_product
// KEEP: v[[H:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v0, v1
// KEEP-NEXT: v[[Y:[0-9]+]]:f32[512x512]@{{[0-9]+}} = fused v[[H]]{{$}}
// KEEP-NEXT: v[[Z:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v[[Y]], v1
// KEEP-NEXT: = fused v[[H]], v[[Z]]{{$}}
// KEEP-NEXT: = dot_general v[[Y]], v[[Z]]
// KEEP-NEXT: results:
func.func @kept_for_product(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %h = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %a = shardc.mul %h, %h : tensor<512x512xf32>
  %t = shardc.tanh %a : tensor<512x512xf32>
  %y = shardc.mul %t, %h : tensor<512x512xf32>
  %z = shardc.dot_general %y, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %gw = shardc.dot_general %y, %z contracting_dims = [0] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = shardc.mul %z, %t : tensor<512x512xf32>
  %u = shardc.add %m, %h : tensor<512x512xf32>
  return %gw, %u : tensor<512x512xf32>, tensor<512x512xf32>
}
