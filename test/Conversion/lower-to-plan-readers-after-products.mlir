// RUN: shardc-opt %s --shardc-lower-to-plan="entry=backward" -o /dev/null | FileCheck %s
// RUN: shardc-opt %s --shardc-lower-to-plan="entry=late_input" -o /dev/null | FileCheck %s --check-prefix=LATE
// RUN: shardc-opt %s --shardc-lower-to-plan="entry=two_readers" -o /dev/null | FileCheck %s --check-prefix=TWO
// RUN: shardc-opt %s --shardc-lower-to-plan="entry=later_reader" -o /dev/null | FileCheck %s --check-prefix=LATER

// A fused step that reads a product's result element by element moves to
// right after that product when its other inputs exist there: the CPU
// backend then runs the two block by block. Here a GELU-like derivative
// times the output gradient's product, which the weight gradient's product
// would otherwise separate from it.
// CHECK-LABEL: plan @backward
// CHECK: v[[G:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v2, v1
// CHECK-NEXT: = fused v0, v[[G]]{{$}}
// CHECK-NEXT: = dot_general v3, v2
// CHECK-NEXT: results:
func.func @backward(%h: tensor<512x512xf32>, %w: tensor<512x512xf32>, %dy: tensor<512x512xf32>, %g: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %dg = shardc.dot_general %dy, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %dw = shardc.dot_general %g, %dy contracting_dims = [0] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %t = shardc.tanh %h : tensor<512x512xf32>
  %d = shardc.mul %t, %dg : tensor<512x512xf32>
  %dh = shardc.add %d, %h : tensor<512x512xf32>
  return %dh, %dw : tensor<512x512xf32>, tensor<512x512xf32>
}

// Its other input is made after the product: it stays where it is.
// LATE-LABEL: plan @late_input
// LATE: v[[P:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v0, v1
// LATE-NEXT: v[[Q:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v1, v0
// LATE-NEXT: = fused v[[P]], v[[Q]]{{$}}
func.func @late_input(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %p = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %q = shardc.dot_general %w, %x contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %t = shardc.tanh %p : tensor<512x512xf32>
  %y = shardc.mul %t, %q : tensor<512x512xf32>
  return %y : tensor<512x512xf32>
}

// Two fused readers of one product: the first moves up to it; the second
// reads a later product too, and stays after that one.
// TWO-LABEL: plan @two_readers
// TWO: v[[P:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v0, v1
// TWO-NEXT: v[[B:[0-9]+]]:f32[512x512]@{{[0-9]+}} = fused v[[P]]{{$}}
// TWO-NEXT: v[[Q:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v1, v1
// TWO-NEXT: v[[C:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v[[B]], v[[Q]]
// TWO-NEXT: = fused v[[P]], v[[C]]{{$}}
func.func @two_readers(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %p = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %q = shardc.dot_general %w, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %a = shardc.tanh %p : tensor<512x512xf32>
  %b = shardc.exp %a : tensor<512x512xf32>
  %c = shardc.dot_general %b, %q contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %e = shardc.mul %p, %c : tensor<512x512xf32>
  %f = shardc.sqrt %e : tensor<512x512xf32>
  return %b, %f : tensor<512x512xf32>, tensor<512x512xf32>
}

// A fused step that is not the product's first reader, and whose inputs
// another step reads in between, stays where it is (as a copy
// rematerialization places late would: moved up to its product, it would
// keep its output alive across what lies between, and free nothing).
// LATER-LABEL: plan @later_reader
// LATER: v[[P:[0-9]+]]:f32[512x512]@{{[0-9]+}} = dot_general v0, v1
// LATER-NEXT: = dot_general v[[P]], v1
// LATER-NEXT: = fused v[[P]]{{$}}
func.func @later_reader(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %p = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %q = shardc.dot_general %p, %w contracting_dims = [1] x [0]
      : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %t = shardc.tanh %p : tensor<512x512xf32>
  %u = shardc.mul %t, %t : tensor<512x512xf32>
  return %q, %u : tensor<512x512xf32>, tensor<512x512xf32>
}
