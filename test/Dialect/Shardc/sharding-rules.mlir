// RUN: shardc-opt %s --shardc-print-sharding-rules | FileCheck %s

// Every op's sharding rule, as --shardc-print-sharding-rules writes it (the
// form Shardy prints its rules in): the factors each operand and result
// dimension indexes ("i*j" a dimension of several, major first; "_" one of
// none), each factor's size, the factors that are combined away
// (reduction) or must stay whole (need_replication), the operands a pending
// sum passes through (jointly: linear; each alone: linear_each), and the
// operand an op accumulates into. Propagation and partitioning know an op
// only through this rule.

// One op of each kind, on an 8x16 matrix (argmax keeps the dimension it
// searches whole, like a slice). dot_general's factors are named
// in the order they are made: the contracting one first. A slice, a
// dynamic slice or update and a concatenate keep the dimensions they cut
// or join whole; take and scatter_add index rows (scatter_add sums its
// updates over the indices and adds its operand once).
// CHECK-LABEL: func.func @ops(
// CHECK: shardc.constant {{.*}}shardc.sharding_rule = "() -> ([i, j]) {i=8, j=16}"
// CHECK: shardc.iota {{.*}}shardc.sharding_rule = "() -> ([i, j]) {i=8, j=16} need_replication={j}"
// CHECK: shardc.neg {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=16} linear={0}"
// CHECK: shardc.exp {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=16}"
// CHECK: shardc.stop_gradient {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=16} linear={0}"
// CHECK: shardc.add {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16} linear={0, 1}"
// CHECK: shardc.sub {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16} linear={0, 1}"
// CHECK: shardc.mul {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16} linear_each={0, 1}"
// CHECK: shardc.div {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16} linear={0}"
// CHECK: shardc.max {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16}"
// CHECK: shardc.compare {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=16}"
// CHECK: shardc.select {{.*}}shardc.sharding_rule = "([i, j], [i, j], [i, j]) -> ([i, j]) {i=8, j=16} linear={1, 2}"
// CHECK: shardc.convert {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=16} linear={0}"
// CHECK: shardc.dot_general {{.*}}shardc.sharding_rule = "([j, i], [i, k]) -> ([j, k]) {i=16, j=8, k=4} reduction={i} linear_each={0, 1}"
// CHECK: shardc.dot_general {{.*}}shardc.sharding_rule = "([i, k, j], [i, j, l]) -> ([i, k, l]) {i=4, j=8, k=6, l=5} reduction={j} linear_each={0, 1}"
// CHECK: shardc.reduce {{.*}}shardc.sharding_rule = "([i, j]) -> ([i]) {i=8, j=16} reduction={j} linear={0}"
// CHECK: shardc.reduce {{.*}}shardc.sharding_rule = "([i, j]) -> ([j]) {i=8, j=16} reduction={i}"
// CHECK: shardc.argmax {{.*}}shardc.sharding_rule = "([i, j]) -> ([i]) {i=8, j=16} need_replication={j}"
// CHECK: shardc.argmax {{.*}}shardc.sharding_rule = "([i, j]) -> ([j]) {i=8, j=16} need_replication={i}"
// CHECK: shardc.broadcast_in_dim {{.*}}shardc.sharding_rule = "([i]) -> ([j, i]) {i=16, j=8} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i, j*k]) -> ([i, j, k]) {i=8, j=4, k=4} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i, j]) -> ([i*j]) {i=8, j=16} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i*j, k]) -> ([i, j*k]) {i=4, j=2, k=16} linear={0}"
// CHECK: shardc.transpose {{.*}}shardc.sharding_rule = "([i, j]) -> ([j, i]) {i=8, j=16} linear={0}"
// CHECK: shardc.slice {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=8} need_replication={j} linear={0}"
// CHECK: shardc.dynamic_slice {{.*}}shardc.sharding_rule = "([i, j], [], []) -> ([i, k]) {i=8, j=16, k=2} need_replication={j, k} linear={0}"
// CHECK: shardc.dynamic_update_slice {{.*}}shardc.sharding_rule = "([i, j], [i, k], [], []) -> ([i, j]) {i=8, j=16, k=2} need_replication={j, k} linear={0, 1}"
// CHECK: shardc.concatenate {{.*}}shardc.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=8, j=32} need_replication={j} linear={0, 1}"
// CHECK: shardc.take {{.*}}shardc.sharding_rule = "([i, k], [j]) -> ([j, k]) {i=10, j=5, k=3} need_replication={i} linear={0}"
// CHECK: shardc.scatter_add {{.*}}shardc.sharding_rule = "([i, k], [j], [j, k]) -> ([i, k]) {i=10, j=5, k=3} reduction={j} need_replication={i} linear={0, 2} accumulator=0"
// CHECK: shardc.qkv_attention {{.*}}shardc.sharding_rule = "([i, j, k, l, m]) -> ([i, j, l, m]) {i=2, j=6, k=3, l=4, m=5} need_replication={j, k, m}"
// CHECK: shardc.attention {{.*}}shardc.sharding_rule = "([i, j, l, m], [i, k, l, m], [i, k, l, m], [i]) -> ([i, j, l, m]) {i=2, j=1, k=6, l=4, m=5} need_replication={k, m}"
// CHECK: shardc.attention {{.*}}shardc.sharding_rule = "([i, j, l, m], [i, k, l, m], [i, k, l, m]) -> ([i, j, l, m]) {i=2, j=6, k=6, l=4, m=5} need_replication={j, k, m}"
// CHECK: shardc.qkv_attention_grad {{.*}}shardc.sharding_rule = "([i, j, k, l, m], [i, j, l, m]) -> ([i, j, k, l, m]) {i=2, j=6, k=3, l=4, m=5} need_replication={j, k, m}"
// CHECK: shardc.attention_grad {{.*}}shardc.sharding_rule = "([i, j, l, m], [i, k, l, m], [i, k, l, m], [i, j, l, m], [i]) -> ([i, n, l, m]) {i=2, j=1, k=6, l=4, m=5, n=13} need_replication={j, k, m, n}"
func.func @ops(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %v: tensor<16xf32>,
               %b3: tensor<4x6x8xf32>, %c3: tensor<4x8x5xf32>, %idx: tensor<5xi32>,
               %p: tensor<i32>, %upd: tensor<8x2xf32>, %t: tensor<10x3xf32>, %u: tensor<5x3xf32>,
               %qkv: tensor<2x6x3x4x5xf32>, %q1: tensor<2x1x4x5xf32>, %kv: tensor<2x6x4x5xf32>,
               %lens: tensor<2xi32>) {
  %c = shardc.constant dense<1.0> : tensor<8x16xf32>
  %io = shardc.iota dim = 1 : tensor<8x16xi32>
  %n = shardc.neg %x : tensor<8x16xf32>
  %e = shardc.exp %x : tensor<8x16xf32>
  %sg = shardc.stop_gradient %x : tensor<8x16xf32>
  %a = shardc.add %x, %c : tensor<8x16xf32>
  %s = shardc.sub %x, %c : tensor<8x16xf32>
  %m = shardc.mul %x, %c : tensor<8x16xf32>
  %d = shardc.div %x, %c : tensor<8x16xf32>
  %mx = shardc.max %x, %c : tensor<8x16xf32>
  %cmp = shardc.compare gt, %x, %c : tensor<8x16xf32>
  %sel = shardc.select %cmp, %x, %c : tensor<8x16xi1>, tensor<8x16xf32>
  %cv = shardc.convert %x : tensor<8x16xf32> -> tensor<8x16xbf16>
  %dot = shardc.dot_general %x, %w contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %bdot = shardc.dot_general %b3, %c3 batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x6x8xf32>, tensor<4x8x5xf32>) -> tensor<4x6x5xf32>
  %rs = shardc.reduce sum %x dims = [1] : (tensor<8x16xf32>) -> tensor<8xf32>
  %rm = shardc.reduce max %x dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  %am1 = shardc.argmax %x dim = 1 : (tensor<8x16xf32>) -> tensor<8xi32>
  %am0 = shardc.argmax %x dim = 0 : (tensor<8x16xf32>) -> tensor<16xi32>
  %bc = shardc.broadcast_in_dim %v, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %rsplit = shardc.reshape %x : (tensor<8x16xf32>) -> tensor<8x4x4xf32>
  %rmerge = shardc.reshape %x : (tensor<8x16xf32>) -> tensor<128xf32>
  %rmix = shardc.reshape %x : (tensor<8x16xf32>) -> tensor<4x32xf32>
  %tr = shardc.transpose %x, permutation = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %sl = shardc.slice %x, start = [0, 4], limit = [8, 12], strides = [1, 1] : (tensor<8x16xf32>) -> tensor<8x8xf32>
  %ds = shardc.dynamic_slice %x [%p, %p] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<8x2xf32>
  %dus = shardc.dynamic_update_slice %x, %upd [%p, %p] : (tensor<8x16xf32>, tensor<8x2xf32>, tensor<i32>, tensor<i32>) -> tensor<8x16xf32>
  %cat = shardc.concatenate %x, %c dim = 1 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
  %tk = shardc.take %t, %idx : (tensor<10x3xf32>, tensor<5xi32>) -> tensor<5x3xf32>
  %sa = shardc.scatter_add %t, %idx, %u : (tensor<10x3xf32>, tensor<5xi32>, tensor<5x3xf32>) -> tensor<10x3xf32>
  %att = shardc.qkv_attention %qkv causal = true scale = 0.5 : (tensor<2x6x3x4x5xf32>) -> tensor<2x6x4x5xf32>
  %dec = shardc.attention %q1, %kv, %kv lengths %lens causal = false scale = 0.5 : (tensor<2x1x4x5xf32>, tensor<2x6x4x5xf32>, tensor<2x6x4x5xf32>, tensor<2xi32>) -> tensor<2x1x4x5xf32>
  %self = shardc.attention %kv, %kv, %kv causal = true scale = 0.5 : (tensor<2x6x4x5xf32>, tensor<2x6x4x5xf32>, tensor<2x6x4x5xf32>) -> tensor<2x6x4x5xf32>
  %attg = shardc.qkv_attention_grad %qkv, %att causal = true scale = 0.5 : (tensor<2x6x3x4x5xf32>, tensor<2x6x4x5xf32>) -> tensor<2x6x3x4x5xf32>
  %decg = shardc.attention_grad %q1, %kv, %kv, %dec lengths %lens causal = false scale = 0.5 : (tensor<2x1x4x5xf32>, tensor<2x6x4x5xf32>, tensor<2x6x4x5xf32>, tensor<2x1x4x5xf32>, tensor<2xi32>) -> tensor<2x13x4x5xf32>
  return
}

// Reshapes: a dimension split or merged shares its factors, major first
// (12x5 -> 4x15 is [4*3, 5] -> [4, 3*5]); where the sizes share only a
// prefix (6x4 -> 4x6) the rest has no factor and stays whole. A rule knows
// nothing of padding: a factor of 7 is one of 7 on any mesh, and
// partitioning pads it where it is split four ways (partition-pad-uneven.mlir).
// CHECK-LABEL: func.func @more(
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i*j, k]) -> ([i, j*k]) {i=4, j=3, k=5} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i, _]) -> ([i, _]) {i=2} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i, j, k]) -> ([i*j, k]) {i=2, j=3, k=5} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i, j, k]) -> ([i*j*k]) {i=2, j=3, k=5} linear={0}"
// CHECK: shardc.reshape {{.*}}shardc.sharding_rule = "([i, j]) -> ([_, i, _, j]) {i=6, j=4} linear={0}"
// CHECK: shardc.sharding_constraint {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=7, j=3} linear={0}"
// CHECK: shardc.exp {{.*}}shardc.sharding_rule = "([i, j]) -> ([i, j]) {i=7, j=3}"
shardc.mesh @m = <["x"=4]>
func.func @more(%a: tensor<12x5xf32>, %b: tensor<6x4xf32>, %c: tensor<2x3x5xf32>, %d: tensor<7x3xf32>) {
  %r1 = shardc.reshape %a : (tensor<12x5xf32>) -> tensor<4x15xf32>
  %r2 = shardc.reshape %b : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %r3 = shardc.reshape %c : (tensor<2x3x5xf32>) -> tensor<6x5xf32>
  %r4 = shardc.reshape %c : (tensor<2x3x5xf32>) -> tensor<30xf32>
  %r5 = shardc.reshape %b : (tensor<6x4xf32>) -> tensor<1x6x1x4xf32>
  %sc = shardc.sharding_constraint %d <@m, [{"x"}, {}]> : tensor<7x3xf32>
  %e = shardc.exp %d : tensor<7x3xf32>
  return
}
