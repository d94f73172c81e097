// RUN: shardc-opt %s --shardc-propagate | FileCheck %s

// Sharding propagation: shardings move forward and backward along the
// factors of each op's sharding rule; closed dimensions never change; open
// ones are filled; conflicts go to the higher priority, then the larger
// tensor, then the first operand; an axis is never repeated within a value
// and never propagated into a dimension it does not divide. Afterwards every
// op has `shardc.shardings` and every argument and result `shardc.sharding`.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x2 = <["x"=2, "y"=2]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// The argument's sharding flows down the chain and backward into the other
// operand of the add.
// CHECK-LABEL: func.func @forward_elementwise_chain
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[A]] {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: [[T:%[a-z0-9]+]] = shardc.tanh [[N]] {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: [[S:%[a-z0-9]+]] = shardc.add [[T]], [[B]] {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: return [[S]]
func.func @forward_elementwise_chain(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %n = shardc.neg %a : tensor<8x16xf32>
  %t = shardc.tanh %n : tensor<8x16xf32>
  %s = shardc.add %t, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// The result's sharding flows back to both arguments.
// CHECK-LABEL: func.func @backward_elementwise_chain
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK: [[M:%[a-z0-9]+]] = shardc.mul [[A]], [[B]] {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {"x"}]>]}
// CHECK: shardc.abs [[M]] {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {"x"}]>]}
func.func @backward_elementwise_chain(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}) {
  %m = shardc.mul %a, %b : tensor<8x16xf32>
  %e = shardc.abs %m : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// M comes from the lhs, N from the rhs; the result and its user get both.
// CHECK-LABEL: func.func @forward_dot_general
// CHECK-SAME: -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
// CHECK: [[Y:%[a-z0-9]+]] = shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>]}
// CHECK: shardc.tanh [[Y]] {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>]}
func.func @forward_dot_general(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>},
    %w: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>})
    -> tensor<8x32xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = shardc.tanh %y : tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// The result's M and N flow back to the operands; K, which nothing reaches,
// is replicated.
// CHECK-LABEL: func.func @backward_dot_general
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>}
// CHECK-SAME: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>}
// CHECK: shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>]}
func.func @backward_dot_general(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>)
    -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}) {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// A sharded contracting dimension of one operand reaches the other's; the
// result has no dimension for it.
// CHECK-LABEL: func.func @contracting_dim_to_other_operand
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}
// CHECK-SAME: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
// CHECK: shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {}]>]}
func.func @contracting_dim_to_other_operand(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// A batching dimension reaches the other operand and the result.
// CHECK-LABEL: func.func @batch_dim_through_dot_general
// CHECK-SAME: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>}
// CHECK-SAME: tensor<4x16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>}
// CHECK-SAME: -> (tensor<4x8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>})
// CHECK: shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}, {}]>]}
func.func @batch_dim_through_dot_general(
    %a: tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}, {}]>},
    %b: tensor<4x16x8xf32>) -> tensor<4x8x8xf32> {
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  return %c : tensor<4x8x8xf32>
}

// A closed replicated argument stays replicated although its user is
// sharded.
// CHECK-LABEL: func.func @closed_dim_kept
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
func.func @closed_dim_kept(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
    -> tensor<8x16xf32> {
  %s = shardc.add %a, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// Open dimensions take what reaches them and are closed afterwards.
// CHECK-LABEL: func.func @open_dims_filled
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}
// CHECK-NOT: ?
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>]}
func.func @open_dims_filled(
    %c: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>},
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{?}, {?}]>})
    -> tensor<8x16xf32> {
  %s = shardc.add %c, %a : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// An open dimension that already has "data" is extended to the
// ["data", "model"] that reaches it.
// CHECK-LABEL: func.func @open_dim_extended
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>]}
func.func @open_dim_extended(
    %c: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>},
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", ?}, {}]>})
    -> tensor<8x16xf32> {
  %s = shardc.add %c, %a : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// Two annotations of the same priority on tensors of the same size: the
// first operand wins; the loser keeps its sharding.
// CHECK-LABEL: func.func @conflict_first_operand_wins
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>}
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>})
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"x"}, {}]>]}
func.func @conflict_first_operand_wins(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}]>})
    -> tensor<8x16xf32> {
  %s = shardc.add %a, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// The batching factor is split over "x" on the (4, 8, 4) lhs and over "y"
// on the (4, 4, 64) rhs: the larger rhs wins although it comes second.
// CHECK-LABEL: func.func @conflict_larger_tensor_wins
// CHECK-SAME: tensor<4x8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}, {}]>}
// CHECK-SAME: tensor<4x4x64xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}, {}]>}
// CHECK-SAME: -> (tensor<4x8x64xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}, {}]>})
// CHECK: shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"y"}, {}, {}]>]}
func.func @conflict_larger_tensor_wins(
    %a: tensor<4x8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}, {}]>},
    %b: tensor<4x4x64xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}, {}]>})
    -> tensor<4x8x64xf32> {
  %y = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<4x8x4xf32>, tensor<4x4x64xf32>) -> tensor<4x8x64xf32>
  return %y : tensor<4x8x64xf32>
}

// Explicit priorities (lower is stronger) order the annotations: %b's
// p0 propagates first, to the sum and through the neg to %a's use, before
// %a's p1 is applied (to %a alone; partitioning reshards it). Without them
// the first operand would win (above).
// CHECK-LABEL: func.func @priority_p0_before_p1
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>}
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}]>})
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"y"}, {}]>]}
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"y"}, {}]>]}
func.func @priority_p0_before_p1(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}p1, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}p0, {}]>})
    -> tensor<8x16xf32> {
  %n = shardc.neg %a : tensor<8x16xf32>
  %s = shardc.add %n, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// Priorities per dimension: dimension 0 follows %a's p0, dimension 1 %b's.
// CHECK-LABEL: func.func @priority_per_dimension
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>]}
func.func @priority_per_dimension(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}p0, {}p1]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{}p1, {"y"}p0]>})
    -> tensor<8x16xf32> {
  %s = shardc.add %a, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// A user annotation beats a propagated sharding: the neg's "x" came from
// %a, %b's "y" was written on %b itself, so the sum takes "y" (and the neg
// keeps "x"; partitioning reshards it).
// CHECK-LABEL: func.func @conflict_annotation_beats_propagated
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"x"}, {}]>]}
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x2, [{"y"}, {}]>]}
// CHECK: return
func.func @conflict_annotation_beats_propagated(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>},
    %b: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"y"}, {}]>})
    -> tensor<8x8xf32> {
  %n = shardc.neg %a : tensor<8x8xf32>
  %s = shardc.add %n, %b : tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}

// An annotation on a use only extends the value's own: the argument keeps
// its "a" under a result annotated [{?}, {"b", ?}], and both come out
// [{"a"}, {"b"}] (Shardy's answer).
// CHECK-LABEL: func.func @use_annotation_only_extends
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>}
// CHECK-SAME: -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {"y"}]>})
func.func @use_annotation_only_extends(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x", ?}, {?}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{?}, {"y", ?}]>}) {
  return %a : tensor<8x8xf32>
}

// Every dimension is closed afterwards, results included: an open result
// takes what propagation found.
// CHECK-LABEL: func.func @open_results_are_closed
// CHECK-SAME: -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>})
// CHECK-NOT: ?
// CHECK: return
func.func @open_results_are_closed(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{"x"}, {}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x2, [{?}, {?}]>}) {
  %n = shardc.neg %a : tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}

// An annotated sharding beats a dimension nothing reached: the replicated
// default of the unannotated operand does not compete.
// CHECK-LABEL: func.func @conflict_annotation_beats_unset
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>}
// CHECK: shardc.sub {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {"x"}]>]}
func.func @conflict_annotation_beats_unset(
    %a: tensor<8x16xf32>,
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{?}, {"x"}]>})
    -> tensor<8x16xf32> {
  %s = shardc.sub %a, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// A sharding_constraint seeds the values before and after it.
// CHECK-LABEL: func.func @sharding_constraint_seeds
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: shardc.sharding_constraint {{.*}} <@mesh_4, [{"x"}, {}]> {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: shardc.exp {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
func.func @sharding_constraint_seeds(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %n = shardc.neg %a : tensor<8x16xf32>
  %c = shardc.sharding_constraint %n <@mesh_4, [{"x"}, {}]> : tensor<8x16xf32>
  %e = shardc.exp %c : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// A constraint's open dimension is filled like any other.
// CHECK-LABEL: func.func @sharding_constraint_open_dim
// CHECK: shardc.sharding_constraint {{.*}} <@mesh_2x4, [{"data"}, {?}]> {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>]}
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>]}
func.func @sharding_constraint_open_dim(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model"}]>})
    -> tensor<8x16xf32> {
  %c = shardc.sharding_constraint %a <@mesh_2x4, [{"data"}, {?}]> : tensor<8x16xf32>
  %n = shardc.neg %c : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// The in_shardings of a shard_map seed its inputs' producers, the
// out_shardings its results' users. The body is per-device and gets no
// shardings.
// CHECK-LABEL: func.func @shard_map_seeds
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: shardc.shard_map
// CHECK-NOT: shardc.shardings
// CHECK: } {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {"x"}]>]}
// CHECK: shardc.exp {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {"x"}]>]}
func.func @shard_map_seeds(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %n = shardc.neg %a : tensor<8x16xf32>
  %r = shardc.shard_map (%n) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{}, {"x"}]>] {
  ^bb0(%l: tensor<2x16xf32>):
    %t = shardc.transpose %l, permutation = [1, 0] : (tensor<2x16xf32>) -> tensor<16x2xf32>
    %u = shardc.reshape %t : (tensor<16x2xf32>) -> tensor<8x4xf32>
    shardc.return %u : tensor<8x4xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %e = shardc.exp %r : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// M and N both reach the result over "x"; it is used once, by the factor
// of the larger tensor (N, from the 16x32 weight): gathering the smaller
// operand instead of the larger one.
// CHECK-LABEL: func.func @axis_not_repeated
// CHECK-SAME: -> (tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
// CHECK: shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{}, {"x"}]>]}
func.func @axis_not_repeated(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %w: tensor<16x32xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<8x32xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// The reshape's major factor has size 6, which "x"=4 does not divide: the
// major half of "x", the sub-axis "x":(1)2, divides it and carries (as in
// Shardy); the minor half cannot follow into the 8, since the 6 is not
// split whole.
// CHECK-LABEL: func.func @non_dividing_axis_not_propagated
// CHECK-SAME: -> (tensor<6x8xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x":(1)2}, {}]>})
// CHECK: shardc.reshape {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x":(1)2}, {}]>]}
func.func @non_dividing_axis_not_propagated(
    %a: tensor<48xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}]>})
    -> tensor<6x8xf32> {
  %r = shardc.reshape %a : (tensor<48xf32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}

// The same factor of size 6 takes "data"=2, which divides it.
// CHECK-LABEL: func.func @dividing_axis_propagated
// CHECK-SAME: -> (tensor<6x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
// CHECK: shardc.reshape {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {}]>]}
func.func @dividing_axis_propagated(
    %a: tensor<48xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>})
    -> tensor<6x8xf32> {
  %r = shardc.reshape %a : (tensor<48xf32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}

// Values no annotation reaches are replicated, and still annotated: every
// argument, result and op.
// CHECK-LABEL: func.func @unreached_values_replicated
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
// CHECK-SAME: tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}, tensor<4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}]>})
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{"x"}, {}]>]}
// CHECK: shardc.neg {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{}]>]}
// CHECK: shardc.constant {shardc.shardings = [#shardc.sharding<@mesh_4, [{}]>]}
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_4, [{}]>]}
func.func @unreached_values_replicated(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<4xf32>) -> (tensor<8x16xf32>, tensor<4xf32>) {
  %n = shardc.neg %a : tensor<8x16xf32>
  %m = shardc.neg %b : tensor<4xf32>
  %c = shardc.constant dense<1.0> : tensor<4xf32>
  %s = shardc.add %m, %c : tensor<4xf32>
  return %n, %s : tensor<8x16xf32>, tensor<4xf32>
}

// A sharding travels through several op kinds: the batch split of the
// input reaches the bias through the dot_general and the add, and the
// reduction result.
// CHECK-LABEL: func.func @through_dot_and_reduce
// CHECK-SAME: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>}
// CHECK-SAME: tensor<16x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {}]>}
// CHECK-SAME: tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>}
// CHECK-SAME: -> (tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}]>})
// CHECK: shardc.dot_general {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {}]>]}
// CHECK: shardc.add {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {}]>]}
// CHECK: shardc.reduce sum {{.*}} {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}]>]}
func.func @through_dot_and_reduce(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>},
    %w: tensor<16x4xf32>, %b: tensor<8x4xf32>) -> tensor<8xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %z = shardc.add %y, %b : tensor<8x4xf32>
  %s = shardc.reduce sum %z dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// An open dimension is extended by a sharding that agrees with it and says
// more, whichever operand order the op has.
// CHECK-LABEL: func.func @open_dim_extended_from_result
// CHECK-SAME: shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>
// CHECK: shardc.neg {{.*}}shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>]
func.func @open_dim_extended_from_result(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", ?}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}) {
  %n = shardc.neg %a : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// Two claims on one axis: "d" from %arg2 (256 bytes) and "d", "b" from %arg0
// (32 bytes) reach both dimensions of %arg1 through the two contractions.
// The larger tensor's "d" holds %arg1's first dimension even after the
// smaller one's "b" extends it; were the extension to weaken its hold, the
// dimensions of %arg1 would trade "d" back and forth and propagation would
// never settle.
// CHECK-LABEL: func.func @extension_keeps_the_stronger_hold
// CHECK-SAME: %arg1: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_bd, [{"d", "b"}, {}]>}
// CHECK-SAME: %arg2: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_bd, [{"d"}, {}]>}
// CHECK: shardc.sub {{.*}}shardc.shardings = [#shardc.sharding<@mesh_bd, [{"d"}, {}]>]
// CHECK: shardc.dot_general {{.*}}shardc.shardings = [#shardc.sharding<@mesh_bd, [{}, {"d", "b"}]>]
shardc.mesh @mesh_bd = <["b"=2, "d"=2]>
func.func @extension_keeps_the_stronger_hold(
    %arg0: tensor<8xf32> {shardc.sharding = #shardc.sharding<@mesh_bd, [{"d", "b", ?}]>},
    %arg1: tensor<8x8xf32>,
    %arg2: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh_bd, [{"d", ?}, {?}]>})
    -> tensor<8xf32> {
  %v0 = shardc.dot_general %arg0, %arg1 contracting_dims = [0] x [1] : (tensor<8xf32>, tensor<8x8xf32>) -> tensor<8xf32>
  %v1 = shardc.sub %arg1, %arg2 : tensor<8x8xf32>
  %v2 = shardc.dot_general %v1, %arg1 contracting_dims = [0] x [1] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %v4 = shardc.dot_general %v2, %arg0 contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %v4 : tensor<8xf32>
}
