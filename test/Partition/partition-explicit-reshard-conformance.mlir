// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s
// RUN: %python %S/Inputs/check_reshard_bytes.py %s shardc | FileCheck %s --check-prefix=SUMMARY

// Conformance of the reshards shardc's partitioner puts around ops with
// Shardy's (openxla/shardy), case by case against the tests of its
// insert-explicit-reshards export pass (shardy/dialect/sdy/transforms/export/
// test/insert_explicit_reshards/: dot_dot_general, reshape, concatenate,
// elementwise_ops, transpose, pad_slice (its slices), reduce and
// broadcast_in_dim): the same shapes, meshes and operand and result
// shardings, in shardc's own syntax.
//
// Each case @NAME is one op of interest (two for @transpose_after_dot)
// whose operand shardings are the function's arguments' and whose result
// sharding is both the function result's and the op's own `shardc.shardings`,
// so that propagation changes nothing and only the partitioner decides where
// data moves; its CHECK lines pin what it emits. The comment above a case
// says what Shardy emits, and its twin @NAME_shardy writes that sequence out:
// the same signature, and one shard_map whose per-device body holds Shardy's
// collectives around the op on local shapes. Where Shardy's test leaves a
// `sdy.reshard` unlowered, its collectives are those of Shardy's
// reshard_to_collectives lowering: a bigger axis replaced by a smaller one
// on a dimension ([x] -> [y], x=4, y=2) is a collective_permute to
// [y, x:(2)2] then an all_gather over x:(2)2; a smaller one by a bigger one
// is an all_slice over x:(1)2 then a collective_permute; slices come first,
// gathers last. A padded case (`shardc.pad_uneven`) works on the padded
// blocks, as XLA pads, and its twin's shard_map takes them padded.
//
// Inputs/check_reshard_bytes.py compares the bytes each device sends (`shardc
// explain`) with its twin's for every case, and runs every twin on the
// reference interpreter against the case with its shardings removed (the
// unsharded program), on small integers, requiring the same bits: a twin
// whose collectives do not compute the op is an error. It exits 1 if shardc
// sends more anywhere it is not marked KNOWN-MORE (a known shortcoming of
// the partitioner, its reason given) or a case cannot be measured or
// checked; the SUMMARY lines pin the counts.
//
// 44 cases: 41 send the same bytes as Shardy, 3 fewer, none more. Where
// Shardy's test ends in an all_reduce and an all_slice of its result,
// which Shardy calls a reduce-scatter pattern, its figure is that of the
// reduce_scatter it ends as (4 cases). (Five
// cases sent more when the suite was written and now send what Shardy
// sends: @dot_m_n_clash_replicated, @dot_m_n_clash_keep_m and
// @dot_batch_gather_then_a2a compute at the layout of the operand whose
// split is cheaper to keep; @dot_subaxis_k_then_a2a splits the result by
// the half of "x" the lhs leaves free before the contraction;
// @broadcast_padded_move_axis moves a padded dimension's axis with one
// all_to_all.) A case that sends more may be marked KNOWN-MORE with its
// reason; none is.
// The remaining 33 of those files' cases not written here (17 dot, 15
// reshape, 1 negate) are the suite's open work.
// Of Shardy's 133 cases reviewed (all of those files but for the ten pads of
// pad_slice, out of scope, and the tails of dot_dot_general from
// @dot_general_one_is_strict_prefix_of_other and of reshape after
// @reshape_overflow_axes_split_and_merge_shape, not reviewed):
//   40 are here, and 4 more from that tail of dot_dot_general (the
//      @dot_ij_jk_ik_* tests, each factor's size ranked);
//   20 were measured while writing and left out for length, as near
//      repeats of a case here (none sends more than Shardy: 19 the same,
//      1 fewer);
//   73 are skipped:
//     17 where Shardy's test leaves a reshard unlowered and the lowering of
//        it (axes moved between or within dimensions through sub-axes) is
//        not clear enough to count by hand (4 dot, 11 reshape, the 4-d
//        transpose of transpose and elementwise_ops);
//      8 slicing a split dimension, which Shardy leaves to XLA's SPMD
//        partitioner (3 slice, 5 concatenate of slices);
//      4 with an uneven split not tried here (1 dot, 2 reshape, 1
//        transpose);
//      4 too large to run in PartitionEquivalenceTest (2 slices of
//        2048x1152x192, a bf16 reshape of 24576x8192x16384, a dot on 512
//        devices);
//      4 with ops or types this suite does not have (a product reduce, a
//        reduce of two results, 2 reshapes of i32);
//      3 with more than one op of interest or a function result unlike the
//        op's sharding (2 transpose, 1 add);
//     33 plain cases not written yet (17 dot, 15 reshape, 1 negate).

// Beside the bytes, each case gets a time on a model link (5 us per
// collective plus bytes over 150 GB/s, NVLink-class; an all_slice is a local
// slice and costs no latency), for shardc's collectives and its twin's.
// @dot_swap_m_n_axes_small_k sends the same bytes as Shardy in 4
// collectives against 3, and is slower there; five cases are faster, by
// fewer collectives or fewer bytes.
// SUMMARY: same: 41, fewer: 3, more: 0, more where Shardy uses sub-axes: 0, errors: 0
// SUMMARY-NEXT: time at 5 us + bytes / 150 GB/s per collective: faster: 5, as fast: 38, slower: 1, unknown: 0

shardc.mesh @m4x2 = <["x"=4, "y"=2]>
shardc.mesh @m4x2x4 = <["x"=4, "y"=2, "z"=4]>
shardc.mesh @m2x3 = <["x"=2, "y"=3]>

// ---- @dot_k_all_reduce (Shardy: @dot_compatible_contracting_dim_sharded) ----
// The contracting dimension is split over "y" on both sides: partial sums,
// summed over "y".
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {}] -> result [{"x"}, {}].
// Shardy, 128 bytes:
//   all_reduce over ["y"] of the 2x16 result (128).
// shardc, 128 bytes:
//   all_reduce sum over ["y"] (128).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_k_all_reduce(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce sum [[V0]] on @m4x2 ["y"] : tensor<2x16xf32>
// CHECK-NEXT: return [[V1]]
func.func @dot_k_all_reduce(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_k_all_reduce_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<16x16xf32>):
    %p = shardc.dot_general %la, %lb contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<2x16xf32>
    shardc.return %s : tensor<2x16xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_k_scatter_n (Shardy: @dot_contracting_dim_and_result_dim_sharded_same_axis) ----
// As above, but the result is split over "y" by columns too: a reduce-scatter
// pattern.
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {}] -> result [{"x"}, {"y"}].
// Shardy, 64 bytes:
//   its test emits an all_reduce over ["y"] of the 2x16 result and an
//     all_slice over ["y"] on dim 1, the pattern it names a reduce-scatter;
//     the collective it ends with is a reduce_scatter over ["y"] on dim 1
//     (64).
// shardc, 64 bytes:
//   reduce_scatter sum over ["y"] on dim 1 (64).
// Verdict: the same collective.
// CHECK-LABEL: func.func @dot_k_scatter_n(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.reduce_scatter sum [[V0]] on @m4x2 ["y"] dim = 1 : tensor<2x16xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return [[V1]]
func.func @dot_k_scatter_n(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {"y"}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_k_scatter_n_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{"x"}, {"y"}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<16x16xf32>):
    %p = shardc.dot_general %la, %lb contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %s = shardc.reduce_scatter sum %p on @m4x2 ["y"] dim = 1 : tensor<2x16xf32> -> tensor<2x8xf32>
    shardc.return %s : tensor<2x8xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_k_scatter_m_yx (Shardy: @dot_contracting_dim_and_result_dim_sharded_same_axis_incompatible_order) ----
// The partial sums over "y" end up with rows split over "y" then "x" (y
// major).
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {}] -> result [{"y", "x"}, {}].
// Shardy, 192 bytes:
//   all_reduce over ["y"] of the 2x16 result (128); then [{"x"}, {}] ->
//     [{"y", "x"}, {}] by hand as its reshard lowering does ([y] -> [x, y] in
//     its tests): all_slice over ["y"] on dim 0 (0), collective_permute of
//     the 1x16 shard (64).
// shardc, 192 bytes:
//   all_reduce sum over ["y"] (128); all_slice over ["y"] on dim 0 (0);
//     collective_permute over ["x", "y"] sources [0, 4, 1, 5, 2, 6, 3, 7]
//     (64).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_k_scatter_m_yx(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce sum [[V0]] on @m4x2 ["y"] : tensor<2x16xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_slice [[V1]] on @m4x2 ["y"] dim = 0 : tensor<2x16xf32> -> tensor<1x16xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.collective_permute [[V2]] on @m4x2 ["x", "y"] sources = [0, 4, 1, 5, 2, 6, 3, 7] : tensor<1x16xf32>
// CHECK-NEXT: return [[V3]]
func.func @dot_k_scatter_m_yx(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y", "x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"y", "x"}, {}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_k_scatter_m_yx_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y", "x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{"y", "x"}, {}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<16x16xf32>):
    %p = shardc.dot_general %la, %lb contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<2x16xf32>
    %t = shardc.all_slice %s on @m4x2 ["y"] dim = 0 : tensor<2x16xf32> -> tensor<1x16xf32>
    %u = shardc.collective_permute %t on @m4x2 ["x", "y"] sources = [0, 4, 1, 5, 2, 6, 3, 7] : tensor<1x16xf32>
    shardc.return %u : tensor<1x16xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_k_scatter_m_over_y (Shardy: @dot_incompatible_same_factor_for_contracting_dim_and_output_i) ----
// Only "y" is used: on the contracting dimension of both operands and on the
// result rows.
// On @m4x2: lhs tensor<8x32xf32> [{}, {"y"}], rhs tensor<32x16xf32> [{"y"},
//   {}] -> result [{"y"}, {}].
// Shardy, 256 bytes:
//   an all_reduce over ["y"] of the whole 8x16 result and an all_slice over
//     ["y"] on dim 0, a reduce-scatter pattern: it ends as a reduce_scatter
//     over ["y"] on dim 0 (256).
// shardc, 256 bytes:
//   reduce_scatter sum over ["y"] on dim 0 (256).
// Verdict: the same collective.
// CHECK-LABEL: func.func @dot_k_scatter_m_over_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.reduce_scatter sum [[V0]] on @m4x2 ["y"] dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return [[V1]]
func.func @dot_k_scatter_m_over_y(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"y"}, {}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_k_scatter_m_over_y_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{"y"}, {}]>] {
  ^bb0(%la: tensor<8x16xf32>, %lb: tensor<16x16xf32>):
    %p = shardc.dot_general %la, %lb contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
    %s = shardc.reduce_scatter sum %p on @m4x2 ["y"] dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
    shardc.return %s : tensor<4x16xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_gather_lhs_k (Shardy: @dot_incompatible_lhs_contracting_and_rhs_non_contracting_dims) ----
// "y" splits the lhs contracting dimension and the rhs columns, which the
// result keeps.
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32> [{},
//   {"y"}] -> result [{"x"}, {"y"}].
// Shardy, 128 bytes:
//   all_gather over ["y"] on dim 1 of the lhs, a 2x16 shard (128).
// shardc, 128 bytes:
//   all_gather over ["y"] on dim 1 (128).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_gather_lhs_k(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<32x8xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["y"] dim = 1 : tensor<2x16xf32> -> tensor<2x32xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[V0]], [[B]] contracting_dims = [1] x [0] : (tensor<2x32xf32>, tensor<32x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return [[V1]]
func.func @dot_gather_lhs_k(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {"y"}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_gather_lhs_k_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{}, {"y"}]>]
      out_shardings = [<@m4x2, [{"x"}, {"y"}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<32x8xf32>):
    %g = shardc.all_gather %la on @m4x2 ["y"] dim = 1 : tensor<2x16xf32> -> tensor<2x32xf32>
    %p = shardc.dot_general %g, %lb contracting_dims = [1] x [0] : (tensor<2x32xf32>, tensor<32x8xf32>) -> tensor<2x8xf32>
    shardc.return %p : tensor<2x8xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_m_n_clash_replicated (Shardy: @dot_incompatible_same_non_contracting_dims_out_empty) ----
// "x" splits both the lhs rows and the rhs columns, which cannot both stay;
// the result is whole.
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {"x"}] -> result [{}, {}].
// Shardy, 896 bytes:
//   all_gather over ["x"] on dim 0 of the lhs, a 2x16 shard (384); all_reduce
//     over ["y"] of the 8x4 result (128); all_gather over ["x"] on dim 1 of
//     it (384).
// shardc, 896 bytes:
//   all_gather over ["x"] on dim 0 (384); all_reduce over ["y"] (128);
//     all_gather over ["x"] on dim 1 (384).
// Verdict: shardc sends the same bytes as Shardy (896).
// CHECK-LABEL: func.func @dot_m_n_clash_replicated(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x4xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[V0]], [[B]] contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_reduce sum [[V1]] on @m4x2 ["y"] : tensor<8x4xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.all_gather [[V2]] on @m4x2 ["x"] dim = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return [[V3]]
func.func @dot_m_n_clash_replicated(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_m_n_clash_replicated_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{"y"}, {"x"}]>]
      out_shardings = [<@m4x2, [{}, {}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<16x4xf32>):
    %g = shardc.all_gather %la on @m4x2 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
    %p = shardc.dot_general %g, %lb contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<8x4xf32>
    %h = shardc.all_gather %s on @m4x2 ["x"] dim = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
    shardc.return %h : tensor<8x16xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_m_n_clash_keep_m (Shardy: @dot_incompatible_same_non_contracting_dims_out_i) ----
// As above, but the result keeps its rows split over "x".
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {"x"}] -> result [{"x"}, {}].
// Shardy, 608 bytes:
//   all_gather over ["x"] on dim 0 of the lhs (384); all_reduce over ["y"] of
//     the 8x4 result (128); all_to_all over ["x"] from dim 1 to dim 0 (96).
// shardc, 608 bytes:
//   all_gather over ["x"] on dim 0 (384); all_reduce over ["y"] (128);
//     all_to_all over ["x"] from dim 1 to dim 0 (96).
// Verdict: shardc sends the same bytes as Shardy (608).
// CHECK-LABEL: func.func @dot_m_n_clash_keep_m(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x4xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[V0]], [[B]] contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_reduce sum [[V1]] on @m4x2 ["y"] : tensor<8x4xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.all_to_all [[V2]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return [[V3]]
func.func @dot_m_n_clash_keep_m(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_m_n_clash_keep_m_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{"y"}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<16x4xf32>):
    %g = shardc.all_gather %la on @m4x2 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
    %p = shardc.dot_general %g, %lb contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<8x4xf32>
    %t = shardc.all_to_all %s on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
    shardc.return %t : tensor<2x16xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_a_times_a (Shardy: @dot_incompatible_a_times_a) ----
// A matrix times itself: one value is both operands, each needing a different
// layout.
// On @m4x2: a tensor<16x16xf32> [{"x"}, {"y"}] as lhs and rhs -> result
//   [{"x"}, {"y"}].
// Shardy, 512 bytes:
//   all_gather over ["y"] on dim 1 for the lhs (128); all_gather over ["x"]
//     on dim 0 for the rhs (384).
// shardc, 512 bytes:
//   all_gather over ["y"] on dim 1 (128); all_gather over ["x"] on dim 0
//     (384).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_a_times_a(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x8xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["y"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.dot_general [[V0]], [[V1]] contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_a_times_a(
    %a: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>})
    -> (tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>}) {
  %c = shardc.dot_general %a, %a contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {"y"}]>]}
      : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

func.func @dot_a_times_a_shardy(
    %a: tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>})
    -> (tensor<16x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {"y"}]>]
      out_shardings = [<@m4x2, [{"x"}, {"y"}]>] {
  ^bb0(%la: tensor<4x8xf32>):
    %g0 = shardc.all_gather %la on @m4x2 ["y"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
    %g1 = shardc.all_gather %la on @m4x2 ["x"] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
    %p = shardc.dot_general %g0, %g1 contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    shardc.return %p : tensor<4x8xf32>
  } : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// ---- @dot_all_split_over_x (Shardy: @dot_incompatible_all_same_shardings) ----
// Lhs, rhs and result all split by rows over "x": the lhs moves "x" onto its
// contracting dimension. (Shardy's case has 4096 where this has 256, to keep
// the equivalence run small; the choices are the same.)
// On @m4x2: lhs tensor<4x256xf32> [{"x"}, {}], rhs tensor<256x256xf32>
//   [{"x"}, {}] -> result [{"x"}, {}].
// Shardy, 3840 bytes:
//   all_to_all over ["x"] of the lhs from dim 0 to dim 1 (768); an all_reduce
//     over ["x"] of the 4x256 result and an all_slice over ["x"] on dim 0, a
//     reduce-scatter pattern that ends as a reduce_scatter (3072).
// shardc, 3840 bytes:
//   all_to_all over ["x"] from dim 0 to dim 1 (768); reduce_scatter sum
//     over ["x"] on dim 0 (3072).
// Verdict: the same collectives.
// CHECK-LABEL: func.func @dot_all_split_over_x(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x256xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<64x256xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_to_all [[A]] on @m4x2 ["x"] split_dim = 1 concat_dim = 0 : tensor<1x256xf32> -> tensor<4x64xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[V0]], [[B]] contracting_dims = [1] x [0] : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.reduce_scatter sum [[V1]] on @m4x2 ["x"] dim = 0 : tensor<4x256xf32> -> tensor<1x256xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_all_split_over_x(
    %a: tensor<4x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>},
    %b: tensor<256x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>})
    -> (tensor<4x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<4x256xf32>, tensor<256x256xf32>) -> tensor<4x256xf32>
  return %c : tensor<4x256xf32>
}

func.func @dot_all_split_over_x_shardy(
    %a: tensor<4x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>},
    %b: tensor<256x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>})
    -> (tensor<4x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {}]>, <@m4x2, [{"x"}, {}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<1x256xf32>, %lb: tensor<64x256xf32>):
    %t = shardc.all_to_all %la on @m4x2 ["x"] split_dim = 1 concat_dim = 0 : tensor<1x256xf32> -> tensor<4x64xf32>
    %p = shardc.dot_general %t, %lb contracting_dims = [1] x [0] : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
    %s = shardc.reduce_scatter sum %p on @m4x2 ["x"] dim = 0 : tensor<4x256xf32> -> tensor<1x256xf32>
    shardc.return %s : tensor<1x256xf32>
  } : (tensor<4x256xf32>, tensor<256x256xf32>) -> tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}

// ---- @dot_m_x_to_y (Shardy: @dot_incompatible_i_mismatch) ----
// The result rows go from "x" (4) to "y" (2) after the partial sums over "y".
// On @m4x2: lhs tensor<8x32xf32> [{"x"}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {}] -> result [{"y"}, {}].
// Shardy, 384 bytes:
//   all_reduce over ["y"] of the 2x16 result (128); [{"x"}] -> [{"y"}] as its
//     reshard lowering replaces a bigger axis by a smaller one:
//     collective_permute to [{"y", "x":(2)2}] (128), all_gather over
//     ["x":(2)2] (128).
// shardc, 384 bytes:
//   all_reduce sum over ["y"] (128); all_slice over ["y"] on dim 0 (0);
//     collective_permute over ["x", "y"] sources [0, 4, 1, 5, 2, 6, 3, 7]
//     (64); all_gather over ["x"] on dim 0 (192).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_m_x_to_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce sum [[V0]] on @m4x2 ["y"] : tensor<2x16xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_slice [[V1]] on @m4x2 ["y"] dim = 0 : tensor<2x16xf32> -> tensor<1x16xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.collective_permute [[V2]] on @m4x2 ["x", "y"] sources = [0, 4, 1, 5, 2, 6, 3, 7] : tensor<1x16xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = shardc.all_gather [[V3]] on @m4x2 ["x"] dim = 0 : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return [[V4]]
func.func @dot_m_x_to_y(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"y"}, {}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_m_x_to_y_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{"y"}, {}]>] {
  ^bb0(%la: tensor<2x16xf32>, %lb: tensor<16x16xf32>):
    %p = shardc.dot_general %la, %lb contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<2x16xf32>
    %c = shardc.collective_permute %s on @m4x2 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<2x16xf32>
    %g = shardc.all_gather %c on @m4x2 ["x:(2)2"] dim = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
    shardc.return %g : tensor<4x16xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_swap_m_n_axes_small_k (Shardy: @dot_incompatible_in_out_mismatch_i_j_swapped_small_k) ----
// The result swaps the operands' axes (rows "y", columns "x"); with a small K
// Shardy reshards both operands.
// On @m4x2: lhs tensor<128x4xf32> [{"x"}, {}], rhs tensor<4x256xf32> [{},
//   {"y"}] -> result [{"y"}, {"x"}].
// Shardy, 2048 bytes:
//   lhs [{"x"}, {}] -> [{"y"}, {}]: collective_permute (512), all_gather over
//     ["x":(2)2] (512); rhs [{}, {"y"}] -> [{}, {"x"}]: all_slice over
//     ["x":(1)2] (0), collective_permute (1024).
// shardc, 2048 bytes:
//   all_slice over ["y"] on dim 0 (0); collective_permute over ["x", "y"]
//     sources [0, 4, 1, 5, 2, 6, 3, 7] (256); all_gather over ["x"] on dim 0
//     (768); all_slice over ["x"] on dim 1 (0); collective_permute over ["x",
//     "y"] sources [0, 2, 4, 6, 1, 3, 5, 7] (512); all_gather over ["y"] on
//     dim 1 (512).
// Verdict: shardc sends the same bytes as Shardy (2048).
// CHECK-LABEL: func.func @dot_swap_m_n_axes_small_k(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<32x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x128xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[A]] on @m4x2 ["y"] dim = 0 : tensor<32x4xf32> -> tensor<16x4xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.collective_permute [[V0]] on @m4x2 ["x", "y"] sources = [0, 4, 1, 5, 2, 6, 3, 7] : tensor<16x4xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_gather [[V1]] on @m4x2 ["x"] dim = 0 : tensor<16x4xf32> -> tensor<64x4xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.all_slice [[B]] on @m4x2 ["x"] dim = 1 : tensor<4x128xf32> -> tensor<4x32xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = shardc.collective_permute [[V3]] on @m4x2 ["x", "y"] sources = [0, 2, 4, 6, 1, 3, 5, 7] : tensor<4x32xf32>
// CHECK-NEXT: [[V5:%[0-9]+]] = shardc.all_gather [[V4]] on @m4x2 ["y"] dim = 1 : tensor<4x32xf32> -> tensor<4x64xf32>
// CHECK-NEXT: [[V6:%[0-9]+]] = shardc.dot_general [[V2]], [[V5]] contracting_dims = [1] x [0] : (tensor<64x4xf32>, tensor<4x64xf32>) -> tensor<64x64xf32>
// CHECK-NEXT: return [[V6]]
func.func @dot_swap_m_n_axes_small_k(
    %a: tensor<128x4xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>},
    %b: tensor<4x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}]>})
    -> (tensor<128x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"y"}, {"x"}]>]}
      : (tensor<128x4xf32>, tensor<4x256xf32>) -> tensor<128x256xf32>
  return %c : tensor<128x256xf32>
}

func.func @dot_swap_m_n_axes_small_k_shardy(
    %a: tensor<128x4xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>},
    %b: tensor<4x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}]>})
    -> (tensor<128x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {}]>, <@m4x2, [{}, {"y"}]>]
      out_shardings = [<@m4x2, [{"y"}, {"x"}]>] {
  ^bb0(%la: tensor<32x4xf32>, %lb: tensor<4x128xf32>):
    %c0 = shardc.collective_permute %la on @m4x2 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<32x4xf32>
    %g0 = shardc.all_gather %c0 on @m4x2 ["x:(2)2"] dim = 0 : tensor<32x4xf32> -> tensor<64x4xf32>
    %s1 = shardc.all_slice %lb on @m4x2 ["x:(1)2"] dim = 1 : tensor<4x128xf32> -> tensor<4x64xf32>
    %c1 = shardc.collective_permute %s1 on @m4x2 ["x", "y"] sources = [0, 2, 4, 6, 1, 3, 5, 7] : tensor<4x64xf32>
    %p = shardc.dot_general %g0, %c1 contracting_dims = [1] x [0] : (tensor<64x4xf32>, tensor<4x64xf32>) -> tensor<64x64xf32>
    shardc.return %p : tensor<64x64xf32>
  } : (tensor<128x4xf32>, tensor<4x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// ---- @dot_subaxis_k_then_gather (Shardy: @dot_incompatible_subaxis_no_overlap) ----
// Half of "x" splits the lhs rows, the other half the result columns.
// On @m4x2: lhs tensor<8x32xf32> [{"x":(1)2}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {}] -> result [{}, {"x":(2)2}].
// Shardy, 256 bytes:
//   all_slice of the rhs over ["x":(2)2] on dim 1 (0); all_reduce over ["y"]
//     of the 4x8 result (128); all_gather over ["x":(1)2] on dim 0 (128).
// shardc, 256 bytes:
//   all_slice over ["x":(2)2] on dim 1 (0); all_reduce sum over ["y"] (128);
//     all_gather over ["x":(1)2] on dim 0 (128).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_subaxis_k_then_gather(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[B]] on @m4x2 ["x:(2)2"] dim = 1 : tensor<16x16xf32> -> tensor<16x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[A]], [[V0]] contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_reduce sum [[V1]] on @m4x2 ["y"] : tensor<4x8xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.all_gather [[V2]] on @m4x2 ["x:(1)2"] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return [[V3]]
func.func @dot_subaxis_k_then_gather(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(1)2}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x":(2)2}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {"x":(2)2}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_subaxis_k_then_gather_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(1)2}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x":(2)2}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x":(1)2}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{}, {"x":(2)2}]>] {
  ^bb0(%la: tensor<4x16xf32>, %lb: tensor<16x16xf32>):
    %s0 = shardc.all_slice %lb on @m4x2 ["x:(2)2"] dim = 1 : tensor<16x16xf32> -> tensor<16x8xf32>
    %p = shardc.dot_general %la, %s0 contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %s1 = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<4x8xf32>
    %s2 = shardc.all_gather %s1 on @m4x2 ["x:(1)2"] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
    shardc.return %s2 : tensor<8x8xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_subaxis_k_then_a2a (Shardy: @dot_incompatible_sub_axis_overlaps) ----
// The lhs rows are split over the minor half of "x"; the result columns over
// all of "x".
// On @m4x2: lhs tensor<8x32xf32> [{"x":(2)2}, {"y"}], rhs tensor<32x16xf32>
//   [{"y"}, {}] -> result [{}, {"x"}].
// Shardy, 192 bytes:
//   all_slice of the rhs over ["x":(1)2] on dim 1 (0); all_reduce over ["y"]
//     of the 4x8 result (128); all_to_all over ["x":(2)2] from dim 0 to dim 1
//     (64).
// shardc, 192 bytes:
//   all_slice over ["x":(1)2] on dim 1 (0); all_reduce over ["y"] (128);
//     all_to_all over ["x":(2)2] from dim 0 to dim 1 (64).
// Verdict: shardc sends the same bytes as Shardy (192).
// CHECK-LABEL: func.func @dot_subaxis_k_then_a2a(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[B]] on @m4x2 ["x:(1)2"] dim = 1 : tensor<16x16xf32> -> tensor<16x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[A]], [[V0]] contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_reduce sum [[V1]] on @m4x2 ["y"] : tensor<4x8xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.all_to_all [[V2]] on @m4x2 ["x:(2)2"] split_dim = 1 concat_dim = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return [[V3]]
func.func @dot_subaxis_k_then_a2a(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(2)2}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {"x"}]>]}
      : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_subaxis_k_then_a2a_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(2)2}, {"y"}]>},
    %b: tensor<32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x":(2)2}, {"y"}]>, <@m4x2, [{"y"}, {}]>]
      out_shardings = [<@m4x2, [{}, {"x"}]>] {
  ^bb0(%la: tensor<4x16xf32>, %lb: tensor<16x16xf32>):
    %s0 = shardc.all_slice %lb on @m4x2 ["x:(1)2"] dim = 1 : tensor<16x16xf32> -> tensor<16x8xf32>
    %p = shardc.dot_general %la, %s0 contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %s1 = shardc.all_reduce sum %p on @m4x2 ["y"] : tensor<4x8xf32>
    %s2 = shardc.all_to_all %s1 on @m4x2 ["x:(2)2"] split_dim = 1 concat_dim = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
    shardc.return %s2 : tensor<8x4xf32>
  } : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_batch_gather_then_a2a (Shardy: @dot_general_incompatible_with_batching_dims) ----
// A batched matmul whose result moves "x" from the batch to the rows.
// On @m4x2: lhs tensor<4x8x32xf32> [{"x"}, {"y"}, {}], rhs
//   tensor<4x32x16xf32> [{"x"}, {}, {"y"}], batch dims 0 x 0, contracting 2 x
//   1 -> result [{}, {"x"}, {"y"}].
// Shardy, 704 bytes:
//   all_gather over ["y"] on dim 1 of the lhs (512); all_to_all over ["x"] of
//     the 1x8x8 result from dim 0 to dim 1 (192).
// shardc, 704 bytes:
//   all_gather over ["y"] on dim 1 (512); all_to_all over ["x"] from dim 0
//     to dim 1 (192).
// Verdict: shardc sends the same bytes as Shardy (704).
// CHECK-LABEL: func.func @dot_batch_gather_then_a2a(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x4x32xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<1x32x8xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["y"] dim = 1 : tensor<1x4x32xf32> -> tensor<1x8x32xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[V0]], [[B]] batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<1x8x32xf32>, tensor<1x32x8xf32>) -> tensor<1x8x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_to_all [[V1]] on @m4x2 ["x"] split_dim = 1 concat_dim = 0 : tensor<1x8x8xf32> -> tensor<4x2x8xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_batch_gather_then_a2a(
    %a: tensor<4x8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>},
    %b: tensor<4x32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {"y"}]>})
    -> (tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}, {"y"}]>}) {
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {"x"}, {"y"}]>]}
      : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>
  return %c : tensor<4x8x16xf32>
}

func.func @dot_batch_gather_then_a2a_shardy(
    %a: tensor<4x8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>},
    %b: tensor<4x32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {"y"}]>})
    -> (tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}, {"y"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}, {}]>, <@m4x2, [{"x"}, {}, {"y"}]>]
      out_shardings = [<@m4x2, [{}, {"x"}, {"y"}]>] {
  ^bb0(%la: tensor<1x4x32xf32>, %lb: tensor<1x32x8xf32>):
    %s0 = shardc.all_gather %la on @m4x2 ["y"] dim = 1 : tensor<1x4x32xf32> -> tensor<1x8x32xf32>
    %p = shardc.dot_general %s0, %lb batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<1x8x32xf32>, tensor<1x32x8xf32>) -> tensor<1x8x8xf32>
    %s1 = shardc.all_to_all %p on @m4x2 ["x"] split_dim = 1 concat_dim = 0 : tensor<1x8x8xf32> -> tensor<4x2x8xf32>
    shardc.return %s1 : tensor<4x2x8xf32>
  } : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>
  return %r : tensor<4x8x16xf32>
}

// ---- @dot_batch_three_axes (Shardy: @dot_general_incompatible_batching_factor_mismatch_on_all_tensors) ----
// The batch dimension is split over "x", "y" and "z" in lhs, rhs and result.
// On @m4x2x4: lhs tensor<4x8x32xf32> [{"x"}, {}, {}], rhs tensor<4x32x16xf32>
//   [{"y"}, {}, {}] -> result [{"z"}, {}, {}].
// Shardy, 2560 bytes:
//   lhs [{"x"}] -> [{"y"}]: collective_permute (1024), all_gather over
//     ["x":(2)2] (1024); result [{"y"}] -> [{"z"}]: all_slice over ["z":(1)2]
//     (0), collective_permute (512).
// shardc, 2560 bytes:
//   all_slice over ["x":(1)2] on dim 0 (0); collective_permute over ["x",
//     "y"] sources [0, 2, 4, 6, 1, 3, 5, 7] (2048); collective_permute over
//     ["x", "z"] sources [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11,
//     15] (512).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_batch_three_axes(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x8x32xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x32x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[B]] on @m4x2x4 ["x:(1)2"] dim = 0 : tensor<2x32x16xf32> -> tensor<1x32x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.collective_permute [[V0]] on @m4x2x4 ["x", "y"] sources = [0, 2, 4, 6, 1, 3, 5, 7] : tensor<1x32x16xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.dot_general [[A]], [[V1]] batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<1x8x32xf32>, tensor<1x32x16xf32>) -> tensor<1x8x16xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.collective_permute [[V2]] on @m4x2x4 ["x", "z"] sources = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15] : tensor<1x8x16xf32>
// CHECK-NEXT: return [[V3]]
func.func @dot_batch_three_axes(
    %a: tensor<4x8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}, {}]>},
    %b: tensor<4x32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}, {}]>})
    -> (tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {}, {}]>}) {
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1] {shardc.shardings = [#shardc.sharding<@m4x2x4, [{"z"}, {}, {}]>]}
      : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>
  return %c : tensor<4x8x16xf32>
}

func.func @dot_batch_three_axes_shardy(
    %a: tensor<4x8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}, {}]>},
    %b: tensor<4x32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}, {}]>})
    -> (tensor<4x8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2x4, [{"x"}, {}, {}]>, <@m4x2x4, [{"y"}, {}, {}]>]
      out_shardings = [<@m4x2x4, [{"z"}, {}, {}]>] {
  ^bb0(%la: tensor<1x8x32xf32>, %lb: tensor<2x32x16xf32>):
    // lhs [{"x"}] -> [{"y", "x":(2)2}]
    %s0 = shardc.collective_permute %la on @m4x2x4 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<1x8x32xf32>
    // lhs [{"y", "x":(2)2}] -> [{"y"}]
    %s1 = shardc.all_gather %s0 on @m4x2x4 ["x:(2)2"] dim = 0 : tensor<1x8x32xf32> -> tensor<2x8x32xf32>
    %p = shardc.dot_general %s1, %lb batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x8x32xf32>, tensor<2x32x16xf32>) -> tensor<2x8x16xf32>
    // result [{"y"}] -> [{"y", "z":(1)2}]
    %s2 = shardc.all_slice %p on @m4x2x4 ["z:(1)2"] dim = 0 : tensor<2x8x16xf32> -> tensor<1x8x16xf32>
    // result [{"y", "z":(1)2}] -> [{"z"}]
    %s3 = shardc.collective_permute %s2 on @m4x2x4 ["y", "z"] sources = [0, 2, 4, 6, 1, 3, 5, 7] : tensor<1x8x16xf32>
    shardc.return %s3 : tensor<1x8x16xf32>
  } : (tensor<4x8x32xf32>, tensor<4x32x16xf32>) -> tensor<4x8x16xf32>
  return %r : tensor<4x8x16xf32>
}

// ---- @dot_two_k_dims (Shardy: @dot_general_multiple_contracting_dims_sharded) ----
// Two contracting dimensions, split over "y" and over "x", "z": one
// all_reduce over all three.
// On @m4x2x4: lhs tensor<4x8x32xf32> [{}, {"y"}, {"x", "z"}], rhs
//   tensor<8x32x16xf32> [{"y"}, {"x", "z"}, {}], contracting 1, 2 x 0, 1 ->
//   result [{}, {}].
// Shardy, 496 bytes:
//   all_reduce over ["x", "y", "z"] of the 4x16 result (496).
// shardc, 496 bytes:
//   all_reduce sum over ["x", "y", "z"] (496).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_two_k_dims(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4x2xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x2x16xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1, 2] x [0, 1] : (tensor<4x4x2xf32>, tensor<4x2x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce sum [[V0]] on @m4x2x4 ["x", "y", "z"] : tensor<4x16xf32>
// CHECK-NEXT: return [[V1]]
func.func @dot_two_k_dims(
    %a: tensor<4x8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y"}, {"x", "z"}]>},
    %b: tensor<8x32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {"x", "z"}, {}]>})
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1, 2] x [0, 1] {shardc.shardings = [#shardc.sharding<@m4x2x4, [{}, {}]>]}
      : (tensor<4x8x32xf32>, tensor<8x32x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

func.func @dot_two_k_dims_shardy(
    %a: tensor<4x8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y"}, {"x", "z"}]>},
    %b: tensor<8x32x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {"x", "z"}, {}]>})
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2x4, [{}, {"y"}, {"x", "z"}]>, <@m4x2x4, [{"y"}, {"x", "z"}, {}]>]
      out_shardings = [<@m4x2x4, [{}, {}]>] {
  ^bb0(%la: tensor<4x4x2xf32>, %lb: tensor<4x2x16xf32>):
    %p = shardc.dot_general %la, %lb contracting_dims = [1, 2] x [0, 1] : (tensor<4x4x2xf32>, tensor<4x2x16xf32>) -> tensor<4x16xf32>
    %s0 = shardc.all_reduce sum %p on @m4x2x4 ["x", "y", "z"] : tensor<4x16xf32>
    shardc.return %s0 : tensor<4x16xf32>
  } : (tensor<4x8x32xf32>, tensor<8x32x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// The next four are Shardy's dot tests with every factor's size ranked
// (i, j and k for [i,j] x [j,k] -> [i,k]), both operands split over "x" on
// their minor dimension and the result pinned to rows over "x".

// ---- @dot_ijk_i_largest (Shardy: @dot_ij_jk_ik_i_is_largest) ----
// i (16) is the largest factor: Shardy keeps the result's rows split.
// On @m4x2: lhs tensor<16x8xf32> [{}, {"x"}], rhs tensor<8x8xf32> [{}, {"x"}]
//   -> result [{"x"}, {}].
// Shardy, 288 bytes:
//   lhs to [{"x"}, {}]: all_to_all over ["x"] from dim 1 to dim 0 of the
//     16x2 shard (96); rhs gathered: all_gather over ["x"] on dim 1 (192).
// shardc, 288 bytes:
//   all_to_all over ["x"] from dim 1 to dim 0 (96); all_gather over ["x"]
//     on dim 1 (192).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_ijk_i_largest(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<16x2xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_to_all [[A]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<16x2xf32> -> tensor<4x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[B]] on @m4x2 ["x"] dim = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.dot_general [[V0]], [[V1]] contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_ijk_i_largest(
    %a: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

func.func @dot_ijk_i_largest_shardy(
    %a: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{}, {"x"}]>, <@m4x2, [{}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<16x2xf32>, %lb: tensor<8x2xf32>):
    %a2 = shardc.all_to_all %la on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<16x2xf32> -> tensor<4x8xf32>
    %b2 = shardc.all_gather %lb on @m4x2 ["x"] dim = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
    %o = shardc.dot_general %a2, %b2 contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    shardc.return %o : tensor<4x8xf32>
  } : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// ---- @dot_ijk_j_largest (Shardy: @dot_ij_jk_ik_j_is_largest) ----
// j (16), the contracting factor, is the largest: Shardy gathers the lhs
// and computes at the rhs's layout (its test notes that splitting j would
// be better); shardc splits j and reduce-scatters.
// On @m4x2: lhs tensor<8x16xf32> [{}, {"x"}], rhs tensor<16x8xf32> [{}, {"x"}]
//   -> result [{"x"}, {}].
// Shardy, 432 bytes:
//   lhs gathered: all_gather over ["x"] on dim 1 of the 8x4 shard (384);
//     the 8x2 result to [{"x"}, {}]: all_to_all over ["x"] from dim 1 to
//     dim 0 (48).
// shardc, 288 bytes:
//   rhs to [{"x"}, {}]: all_to_all over ["x"] from dim 1 to dim 0 (96);
//     reduce_scatter sum over ["x"] on dim 0 of the 8x8 partial sums (192).
// Verdict: shardc sends fewer bytes than Shardy (288 against 432).
// CHECK-LABEL: func.func @dot_ijk_j_largest(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<16x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_to_all [[B]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<16x2xf32> -> tensor<4x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[A]], [[V0]] contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.reduce_scatter sum [[V1]] on @m4x2 ["x"] dim = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_ijk_j_largest(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

func.func @dot_ijk_j_largest_shardy(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{}, {"x"}]>, <@m4x2, [{}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<8x4xf32>, %lb: tensor<16x2xf32>):
    %g = shardc.all_gather %la on @m4x2 ["x"] dim = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
    %p = shardc.dot_general %g, %lb contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x2xf32>) -> tensor<8x2xf32>
    %o = shardc.all_to_all %p on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x2xf32> -> tensor<2x8xf32>
    shardc.return %o : tensor<2x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// ---- @dot_ijk_k_largest (Shardy: @dot_ij_jk_ik_k_is_largest) ----
// k (16) is the largest: both compute at the rhs's layout.
// On @m4x2: lhs tensor<8x8xf32> [{}, {"x"}], rhs tensor<8x16xf32> [{}, {"x"}]
//   -> result [{"x"}, {}].
// Shardy, 288 bytes:
//   lhs gathered: all_gather over ["x"] on dim 1 of the 8x2 shard (192);
//     the 8x4 result to [{"x"}, {}]: all_to_all over ["x"] from dim 1 to
//     dim 0 (96).
// shardc, 288 bytes:
//   all_gather over ["x"] on dim 1 (192); all_to_all over ["x"] from dim 1
//     to dim 0 (96).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @dot_ijk_k_largest(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x2xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[V0]], [[B]] contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_to_all [[V1]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_ijk_k_largest(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

func.func @dot_ijk_k_largest_shardy(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{}, {"x"}]>, <@m4x2, [{}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<8x2xf32>, %lb: tensor<8x4xf32>):
    %g = shardc.all_gather %la on @m4x2 ["x"] dim = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
    %p = shardc.dot_general %g, %lb contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %o = shardc.all_to_all %p on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
    shardc.return %o : tensor<2x16xf32>
  } : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ---- @dot_ijk_same_size (Shardy: @dot_ij_jk_ik_same_ijk) ----
// All three factors are 8: Shardy computes at the rhs's layout, shardc
// splits j; the same bytes.
// On @m4x2: lhs tensor<8x8xf32> [{}, {"x"}], rhs tensor<8x8xf32> [{}, {"x"}]
//   -> result [{"x"}, {}].
// Shardy, 240 bytes:
//   lhs gathered: all_gather over ["x"] on dim 1 of the 8x2 shard (192);
//     the 8x2 result to [{"x"}, {}]: all_to_all over ["x"] from dim 1 to
//     dim 0 (48).
// shardc, 240 bytes:
//   rhs to [{"x"}, {}]: all_to_all over ["x"] from dim 1 to dim 0 (48);
//     reduce_scatter sum over ["x"] on dim 0 of the 8x8 partial sums (192).
// Verdict: shardc sends the same bytes as Shardy (240).
// CHECK-LABEL: func.func @dot_ijk_same_size(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x2xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_to_all [[B]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x2xf32> -> tensor<2x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.dot_general [[A]], [[V0]] contracting_dims = [1] x [0] : (tensor<8x2xf32>, tensor<2x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.reduce_scatter sum [[V1]] on @m4x2 ["x"] dim = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return [[V2]]
func.func @dot_ijk_same_size(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]}
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

func.func @dot_ijk_same_size_shardy(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>},
    %b: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{}, {"x"}]>, <@m4x2, [{}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%la: tensor<8x2xf32>, %lb: tensor<8x2xf32>):
    %g = shardc.all_gather %la on @m4x2 ["x"] dim = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
    %p = shardc.dot_general %g, %lb contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
    %o = shardc.all_to_all %p on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x2xf32> -> tensor<2x8xf32>
    shardc.return %o : tensor<2x8xf32>
  } : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// ---- @reshape_3d_to_2d (Shardy: @reshape) ----
// Merging two minor dimensions, with the result columns split over "y" then
// "x".
// On @m4x2: tensor<16x2x4xf32> [{"x"}, {}, {}] -> tensor<16x8xf32> [{}, {"y",
//   "x"}].
// Shardy, 48 bytes:
//   all_slice over ["y"] on dim 1 (0); reshape; all_to_all over ["x"] from
//     dim 0 to dim 1 (48).
// shardc, 48 bytes:
//   all_slice over ["y"] on dim 1 (0); all_to_all over ["x"] from dim 0 to
//     dim 2 (48).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reshape_3d_to_2d(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x2x4xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[A]] on @m4x2 ["y"] dim = 1 : tensor<4x2x4xf32> -> tensor<4x1x4xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_to_all [[V0]] on @m4x2 ["x"] split_dim = 2 concat_dim = 0 : tensor<4x1x4xf32> -> tensor<16x1x1xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.reshape [[V1]] : (tensor<16x1x1xf32>) -> tensor<16x1xf32>
// CHECK-NEXT: return [[V2]]
func.func @reshape_3d_to_2d(
    %a: tensor<16x2x4xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>})
    -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y", "x"}]>}) {
  %r = shardc.reshape %a {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {"y", "x"}]>]} : (tensor<16x2x4xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

func.func @reshape_3d_to_2d_shardy(
    %a: tensor<16x2x4xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>})
    -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y", "x"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {}, {}]>]
      out_shardings = [<@m4x2, [{}, {"y", "x"}]>] {
  ^bb0(%l: tensor<4x2x4xf32>):
    %s0 = shardc.all_slice %l on @m4x2 ["y"] dim = 1 : tensor<4x2x4xf32> -> tensor<4x1x4xf32>
    %v = shardc.reshape %s0 : (tensor<4x1x4xf32>) -> tensor<4x4xf32>
    %s1 = shardc.all_to_all %v on @m4x2 ["x"] split_dim = 1 concat_dim = 0 : tensor<4x4xf32> -> tensor<16x1xf32>
    shardc.return %s1 : tensor<16x1xf32>
  } : (tensor<16x2x4xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// ---- @reshape_merge_x_to_y (Shardy: @reshape_simple_merge_sharding_is_from_x_to_y_and_x_fits_exactly_to_first_dim) ----
// Flattening rows split over "x" (4) into a vector split over "y" (2).
// On @m4x2: tensor<4x8xf32> [{"x"}, {}] -> tensor<32xf32> [{"y"}].
// Shardy, 64 bytes:
//   reshape; [{"x"}] -> [{"y"}]: collective_permute to [{"y", "x":(2)2}]
//     (32), all_gather over ["x":(2)2] (32).
// shardc, 64 bytes:
//   collective_permute over ["x", "y"] sources [0, 4, 2, 6, 1, 5, 3, 7]
//     (32); all_gather over ["x":(2)2] on dim 0 (32).
// Verdict: shardc sends the same bytes as Shardy (64).
// CHECK-LABEL: func.func @reshape_merge_x_to_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x8xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.collective_permute [[A]] on @m4x2 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<1x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[V0]] on @m4x2 ["x:(2)2"] dim = 0 : tensor<1x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.reshape [[V1]] : (tensor<2x8xf32>) -> tensor<16xf32>
// CHECK-NEXT: return [[V2]]
func.func @reshape_merge_x_to_y(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>})
    -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}]>}) {
  %r = shardc.reshape %a {shardc.shardings = [#shardc.sharding<@m4x2, [{"y"}]>]} : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

func.func @reshape_merge_x_to_y_shardy(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>})
    -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {}]>]
      out_shardings = [<@m4x2, [{"y"}]>] {
  ^bb0(%l: tensor<1x8xf32>):
    %v = shardc.reshape %l : (tensor<1x8xf32>) -> tensor<8xf32>
    // [{"x"}] -> [{"y", "x":(2)2}]
    %s0 = shardc.collective_permute %v on @m4x2 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<8xf32>
    %s1 = shardc.all_gather %s0 on @m4x2 ["x:(2)2"] dim = 0 : tensor<8xf32> -> tensor<16xf32>
    shardc.return %s1 : tensor<16xf32>
  } : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// ---- @reshape_merge_yx_keep_y (Shardy: @reshape_simple_merge_sharding_is_from_yx_to_y_and_y_underfits_to_first_dim) ----
// Flattening a matrix split both ways into a vector split over "y" alone.
// On @m4x2: tensor<4x8xf32> [{"y"}, {"x"}] -> tensor<32xf32> [{"y"}].
// Shardy, 48 bytes:
//   all_gather over ["x"] on dim 1 (48); reshape.
// shardc, 48 bytes:
//   all_gather over ["x"] on dim 1 (48).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reshape_merge_yx_keep_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.reshape [[V0]] : (tensor<2x8xf32>) -> tensor<16xf32>
// CHECK-NEXT: return [[V1]]
func.func @reshape_merge_yx_keep_y(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>})
    -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}]>}) {
  %r = shardc.reshape %a {shardc.shardings = [#shardc.sharding<@m4x2, [{"y"}]>]} : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

func.func @reshape_merge_yx_keep_y_shardy(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}]>})
    -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"y"}, {"x"}]>]
      out_shardings = [<@m4x2, [{"y"}]>] {
  ^bb0(%l: tensor<2x2xf32>):
    %s0 = shardc.all_gather %l on @m4x2 ["x"] dim = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
    %v = shardc.reshape %s0 : (tensor<2x8xf32>) -> tensor<16xf32>
    shardc.return %v : tensor<16xf32>
  } : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// ---- @reshape_merge_minor_split_to_major (Shardy: @reshape_simple_merge_sharding_is_from_only_second_dim_is_sharded_and_result_is_sharded) ----
// Flattening a matrix split by columns into a vector split over the same
// axis.
// On @m4x2: tensor<4x8xf32> [{}, {"x"}] -> tensor<32xf32> [{"x"}].
// Shardy, 24 bytes:
//   all_to_all over ["x"] from dim 1 to dim 0 (24); reshape.
// shardc, 24 bytes:
//   all_to_all over ["x"] from dim 1 to dim 0 (24).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reshape_merge_minor_split_to_major(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_to_all [[A]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<4x2xf32> -> tensor<1x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.reshape [[V0]] : (tensor<1x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return [[V1]]
func.func @reshape_merge_minor_split_to_major(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}]>}) {
  %r = shardc.reshape %a {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}]>]} : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

func.func @reshape_merge_minor_split_to_major_shardy(
    %a: tensor<4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}]>] {
  ^bb0(%l: tensor<4x2xf32>):
    %s0 = shardc.all_to_all %l on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<4x2xf32> -> tensor<1x8xf32>
    %v = shardc.reshape %s0 : (tensor<1x8xf32>) -> tensor<8xf32>
    shardc.return %v : tensor<8xf32>
  } : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// ---- @reshape_merge_sub_axes (Shardy: @reshape_simple_merge_sharding_is_from_of_subaxes) ----
// Two halves of "x" on two dimensions merge back into "x" on one: nothing
// moves.
// On @m4x2: tensor<2x8xf32> [{"x":(1)2}, {"x":(2)2, "y"}] -> tensor<16xf32>
//   [{"x", "y"}].
// Shardy, 0 bytes:
//   no collective.
// shardc, 0 bytes:
//   no collective.
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reshape_merge_sub_axes(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.reshape [[A]] : (tensor<1x2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return [[V0]]
func.func @reshape_merge_sub_axes(
    %a: tensor<2x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(1)2}, {"x":(2)2, "y"}]>})
    -> (tensor<16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x", "y"}]>}) {
  %r = shardc.reshape %a {shardc.shardings = [#shardc.sharding<@m4x2, [{"x", "y"}]>]} : (tensor<2x8xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @reshape_merge_sub_axes_shardy(
    %a: tensor<2x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(1)2}, {"x":(2)2, "y"}]>})
    -> (tensor<16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x", "y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x":(1)2}, {"x":(2)2, "y"}]>]
      out_shardings = [<@m4x2, [{"x", "y"}]>] {
  ^bb0(%l: tensor<1x2xf32>):
    %v = shardc.reshape %l : (tensor<1x2xf32>) -> tensor<2xf32>
    shardc.return %v : tensor<2xf32>
  } : (tensor<2x8xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// ---- @reshape_move_split_to_merged (Shardy: @reshape_ij_k_to_i_jk_and_x_to_x_merged_dimensions_are_sharded) ----
// An 8x8 matrix split by columns becomes a 4x16 matrix split by rows.
// On @m4x2: tensor<8x8xf32> [{}, {"x"}] -> tensor<4x16xf32> [{"x"}, {}].
// Shardy, 48 bytes:
//   all_to_all over ["x"] from dim 1 to dim 0 (48); reshape.
// shardc, 48 bytes:
//   all_to_all over ["x"] from dim 1 to dim 0 (48).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reshape_move_split_to_merged(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x2xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_to_all [[A]] on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x2xf32> -> tensor<2x8xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.reshape [[V0]] : (tensor<2x8xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: return [[V1]]
func.func @reshape_move_split_to_merged(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.reshape %a {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {}]>]} : (tensor<8x8xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

func.func @reshape_move_split_to_merged_shardy(
    %a: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}]>})
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{}, {"x"}]>]
      out_shardings = [<@m4x2, [{"x"}, {}]>] {
  ^bb0(%l: tensor<8x2xf32>):
    %s0 = shardc.all_to_all %l on @m4x2 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x2xf32> -> tensor<2x8xf32>
    %v = shardc.reshape %s0 : (tensor<2x8xf32>) -> tensor<1x16xf32>
    shardc.return %v : tensor<1x16xf32>
  } : (tensor<8x8xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// ---- @concat_to_replicated (Shardy: @concatenate) ----
// Two operands split over different axes, joined along dim 1 into a whole
// result.
// On @m4x2: tensor<4x32x256xf32> [{"x"}, {}, {}] and tensor<4x48x256xf32>
//   [{"y"}, {}, {}], dim 1 -> tensor<4x80x256xf32> [{}, {}, {}].
// Shardy, 229376 bytes:
//   first operand [{"x"}] -> [{"y"}]: collective_permute (32768), all_gather
//     over ["x":(2)2] (32768); concatenate; all_gather over ["y"] on dim 0 of
//     the 2x80x256 result (163840).
// shardc, 196608 bytes:
//   all_gather over ["x"] on dim 0 (98304); all_gather over ["y"] on dim 0
//     (98304).
// Verdict: shardc sends fewer bytes than Shardy (32768 fewer).
// CHECK-LABEL: func.func @concat_to_replicated(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x32x256xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x48x256xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 0 : tensor<1x32x256xf32> -> tensor<4x32x256xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[B]] on @m4x2 ["y"] dim = 0 : tensor<2x48x256xf32> -> tensor<4x48x256xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.concatenate [[V0]], [[V1]] dim = 1 : (tensor<4x32x256xf32>, tensor<4x48x256xf32>) -> tensor<4x80x256xf32>
// CHECK-NEXT: return [[V2]]
func.func @concat_to_replicated(
    %a: tensor<4x32x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>},
    %b: tensor<4x48x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}, {}]>})
    -> (tensor<4x80x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}, {}]>}) {
  %c = shardc.concatenate %a, %b dim = 1 {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {}, {}]>]}
      : (tensor<4x32x256xf32>, tensor<4x48x256xf32>) -> tensor<4x80x256xf32>
  return %c : tensor<4x80x256xf32>
}

func.func @concat_to_replicated_shardy(
    %a: tensor<4x32x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>},
    %b: tensor<4x48x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {}, {}]>})
    -> (tensor<4x80x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {}, {}]>, <@m4x2, [{"y"}, {}, {}]>]
      out_shardings = [<@m4x2, [{}, {}, {}]>] {
  ^bb0(%la: tensor<1x32x256xf32>, %lb: tensor<2x48x256xf32>):
    %p = shardc.collective_permute %la on @m4x2 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<1x32x256xf32>
    %g = shardc.all_gather %p on @m4x2 ["x:(2)2"] dim = 0 : tensor<1x32x256xf32> -> tensor<2x32x256xf32>
    %c = shardc.concatenate %g, %lb dim = 1 : (tensor<2x32x256xf32>, tensor<2x48x256xf32>) -> tensor<2x80x256xf32>
    %s = shardc.all_gather %c on @m4x2 ["y"] dim = 0 : tensor<2x80x256xf32> -> tensor<4x80x256xf32>
    shardc.return %s : tensor<4x80x256xf32>
  } : (tensor<4x32x256xf32>, tensor<4x48x256xf32>) -> tensor<4x80x256xf32>
  return %r : tensor<4x80x256xf32>
}

// ---- @concat_along_split_dim (Shardy: @concatenate_concat_dim_is_sharded) ----
// Concatenating along a dimension split over "y": Shardy moves "y" to the
// rows for the op.
// On @m4x2: tensor<8x32x256xf32> [{"x"}, {"y"}, {}] and tensor<8x48x256xf32>
//   [{}, {"y"}, {}], dim 1 -> tensor<8x80x256xf32> [{"x"}, {"y"}, {}].
// Shardy, 81920 bytes:
//   first operand: all_to_all over ["y"] from dim 1 to dim 0 (16384); second:
//     all_slice over ["x"] on dim 0 (0), all_to_all over ["y"] from dim 1 to
//     dim 0 (24576); result: all_to_all over ["y"] from dim 0 to dim 1
//     (40960).
// shardc, 81920 bytes:
//   all_gather over ["y"] on dim 1 (32768); all_slice over ["x"] on dim 0
//     (0); all_gather over ["y"] on dim 1 (49152); all_slice over ["y"] on
//     dim 1 (0).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @concat_along_split_dim(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16x256xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x24x256xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["y"] dim = 1 : tensor<2x16x256xf32> -> tensor<2x32x256xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_slice [[B]] on @m4x2 ["x"] dim = 0 : tensor<8x24x256xf32> -> tensor<2x24x256xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_gather [[V1]] on @m4x2 ["y"] dim = 1 : tensor<2x24x256xf32> -> tensor<2x48x256xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.concatenate [[V0]], [[V2]] dim = 1 : (tensor<2x32x256xf32>, tensor<2x48x256xf32>) -> tensor<2x80x256xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = shardc.all_slice [[V3]] on @m4x2 ["y"] dim = 1 : tensor<2x80x256xf32> -> tensor<2x40x256xf32>
// CHECK-NEXT: return [[V4]]
func.func @concat_along_split_dim(
    %a: tensor<8x32x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>},
    %b: tensor<8x48x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}, {}]>})
    -> (tensor<8x80x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>}) {
  %c = shardc.concatenate %a, %b dim = 1 {shardc.shardings = [#shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>]}
      : (tensor<8x32x256xf32>, tensor<8x48x256xf32>) -> tensor<8x80x256xf32>
  return %c : tensor<8x80x256xf32>
}

func.func @concat_along_split_dim_shardy(
    %a: tensor<8x32x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>},
    %b: tensor<8x48x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"y"}, {}]>})
    -> (tensor<8x80x256xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {"y"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {"y"}, {}]>, <@m4x2, [{}, {"y"}, {}]>]
      out_shardings = [<@m4x2, [{"x"}, {"y"}, {}]>] {
  ^bb0(%la: tensor<2x16x256xf32>, %lb: tensor<8x24x256xf32>):
    %a1 = shardc.all_to_all %la on @m4x2 ["y"] split_dim = 0 concat_dim = 1 : tensor<2x16x256xf32> -> tensor<1x32x256xf32>
    %b1 = shardc.all_slice %lb on @m4x2 ["x"] dim = 0 : tensor<8x24x256xf32> -> tensor<2x24x256xf32>
    %b2 = shardc.all_to_all %b1 on @m4x2 ["y"] split_dim = 0 concat_dim = 1 : tensor<2x24x256xf32> -> tensor<1x48x256xf32>
    %c = shardc.concatenate %a1, %b2 dim = 1 : (tensor<1x32x256xf32>, tensor<1x48x256xf32>) -> tensor<1x80x256xf32>
    %s = shardc.all_to_all %c on @m4x2 ["y"] split_dim = 1 concat_dim = 0 : tensor<1x80x256xf32> -> tensor<2x40x256xf32>
    shardc.return %s : tensor<2x40x256xf32>
  } : (tensor<8x32x256xf32>, tensor<8x48x256xf32>) -> tensor<8x80x256xf32>
  return %r : tensor<8x80x256xf32>
}

// ---- @concat_then_move_axis (Shardy: @concatenate_an_axis_is_used_in_both_batch_and_concat_dims) ----
// Concatenated with rows split over "x", the result wants its columns split
// over "x", "y".
// On @m4x2: tensor<8x32xf32> [{"x"}, {}] and tensor<8x48xf32> [{"x"}, {}],
//   dim 1 -> tensor<8x80xf32> [{}, {"x", "y"}].
// Shardy, 280 bytes:
//   concatenate; then [{"x"}, {}] -> [{}, {"x", "y"}] by hand as its lowering
//     slices on the source dimension first: all_slice over ["y"] on dim 0
//     (0), all_to_all over ["x", "y"] from dim 0 to dim 1 (280).
// shardc, 280 bytes:
//   all_slice over ["y"] on dim 0 (0); all_to_all over ["x", "y"] from dim 0
//     to dim 1 (280).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @concat_then_move_axis(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x32xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x48xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.concatenate [[A]], [[B]] dim = 1 : (tensor<2x32xf32>, tensor<2x48xf32>) -> tensor<2x80xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_slice [[V0]] on @m4x2 ["y"] dim = 0 : tensor<2x80xf32> -> tensor<1x80xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_to_all [[V1]] on @m4x2 ["x", "y"] split_dim = 1 concat_dim = 0 : tensor<1x80xf32> -> tensor<8x10xf32>
// CHECK-NEXT: return [[V2]]
func.func @concat_then_move_axis(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>},
    %b: tensor<8x48xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>})
    -> (tensor<8x80xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x", "y"}]>}) {
  %c = shardc.concatenate %a, %b dim = 1 {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {"x", "y"}]>]}
      : (tensor<8x32xf32>, tensor<8x48xf32>) -> tensor<8x80xf32>
  return %c : tensor<8x80xf32>
}

func.func @concat_then_move_axis_shardy(
    %a: tensor<8x32xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>},
    %b: tensor<8x48xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}]>})
    -> (tensor<8x80xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x", "y"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2, [{"x"}, {}]>, <@m4x2, [{"x"}, {}]>]
      out_shardings = [<@m4x2, [{}, {"x", "y"}]>] {
  ^bb0(%la: tensor<2x32xf32>, %lb: tensor<2x48xf32>):
    %c = shardc.concatenate %la, %lb dim = 1 : (tensor<2x32xf32>, tensor<2x48xf32>) -> tensor<2x80xf32>
    %s0 = shardc.all_slice %c on @m4x2 ["y"] dim = 0 : tensor<2x80xf32> -> tensor<1x80xf32>
    %s1 = shardc.all_to_all %s0 on @m4x2 ["x", "y"] split_dim = 1 concat_dim = 0 : tensor<1x80xf32> -> tensor<8x10xf32>
    shardc.return %s1 : tensor<8x10xf32>
  } : (tensor<8x32xf32>, tensor<8x48xf32>) -> tensor<8x80xf32>
  return %r : tensor<8x80xf32>
}

// ---- @neg_x_to_y (Shardy: @negate_input_sharding_is_larger) ----
// A negate whose result rows go from "x" (4) to "y" (2).
// On @m4x2x4: tensor<4x32xf32> [{"x"}, {}] -> [{"y"}, {}].
// Shardy, 256 bytes:
//   negate; collective_permute to [{"y", "x":(2)2}, {}] (128); all_gather
//     over ["x":(2)2] (128).
// shardc, 256 bytes:
//   collective_permute over ["x", "y"] sources [0, 4, 2, 6, 1, 5, 3, 7]
//     (128); all_gather over ["x":(2)2] on dim 0 (128).
// Verdict: shardc sends the same bytes as Shardy (256).
// CHECK-LABEL: func.func @neg_x_to_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x32xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.collective_permute [[A]] on @m4x2x4 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<1x32xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[V0]] on @m4x2x4 ["x:(2)2"] dim = 0 : tensor<1x32xf32> -> tensor<2x32xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.neg [[V1]] : tensor<2x32xf32>
// CHECK-NEXT: return [[V2]]
func.func @neg_x_to_y(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}]>}) {
  %n = shardc.neg %a {shardc.shardings = [#shardc.sharding<@m4x2x4, [{"y"}, {}]>]} : tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

func.func @neg_x_to_y_shardy(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2x4, [{"x"}, {}]>]
      out_shardings = [<@m4x2x4, [{"y"}, {}]>] {
  ^bb0(%la: tensor<1x32xf32>):
    %n = shardc.neg %la : tensor<1x32xf32>
    %p = shardc.collective_permute %n on @m4x2x4 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<1x32xf32>
    %g = shardc.all_gather %p on @m4x2x4 ["x:(2)2"] dim = 0 : tensor<1x32xf32> -> tensor<2x32xf32>
    shardc.return %g : tensor<2x32xf32>
  } : (tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// ---- @neg_rows_x_to_cols_y (Shardy: @negate_input_and_output_sharded_on_separate_dims) ----
// A negate whose result is split by columns over "y" instead of by rows over
// "x".
// On @m4x2x4: tensor<4x32xf32> [{"x"}, {}] -> [{}, {"y"}].
// Shardy, 192 bytes:
//   negate; all_slice over ["y"] on dim 1 (0); all_gather over ["x"] on dim 0
//     (192).
// shardc, 192 bytes:
//   all_slice over ["y"] on dim 1 (0); all_gather over ["x"] on dim 0 (192).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @neg_rows_x_to_cols_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x32xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[A]] on @m4x2x4 ["y"] dim = 1 : tensor<1x32xf32> -> tensor<1x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[V0]] on @m4x2x4 ["x"] dim = 0 : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.neg [[V1]] : tensor<4x16xf32>
// CHECK-NEXT: return [[V2]]
func.func @neg_rows_x_to_cols_y(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y"}]>}) {
  %n = shardc.neg %a {shardc.shardings = [#shardc.sharding<@m4x2x4, [{}, {"y"}]>]} : tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

func.func @neg_rows_x_to_cols_y_shardy(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2x4, [{"x"}, {}]>]
      out_shardings = [<@m4x2x4, [{}, {"y"}]>] {
  ^bb0(%la: tensor<1x32xf32>):
    %n = shardc.neg %la : tensor<1x32xf32>
    %s = shardc.all_slice %n on @m4x2x4 ["y"] dim = 1 : tensor<1x32xf32> -> tensor<1x16xf32>
    %g = shardc.all_gather %s on @m4x2x4 ["x"] dim = 0 : tensor<1x16xf32> -> tensor<4x16xf32>
    shardc.return %g : tensor<4x16xf32>
  } : (tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// ---- @add_rows_x_to_cols_y (Shardy: @add_input_and_output_sharded_on_separate_dims) ----
// An add of two operands split by rows over "x", whose result is split by
// columns over "y".
// On @m4x2x4: tensor<4x32xf32> [{"x"}, {}] twice -> [{}, {"y"}].
// Shardy, 192 bytes:
//   all_slice over ["y"] on dim 1 of both operands (0); add; all_gather over
//     ["x"] on dim 0 (192).
// shardc, 192 bytes:
//   all_slice over ["y"] on dim 1 (0); all_slice over ["y"] on dim 1 (0);
//     all_gather over ["x"] on dim 0 (192).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @add_rows_x_to_cols_y(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x32xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<1x32xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_slice [[A]] on @m4x2x4 ["y"] dim = 1 : tensor<1x32xf32> -> tensor<1x16xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_slice [[B]] on @m4x2x4 ["y"] dim = 1 : tensor<1x32xf32> -> tensor<1x16xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.add [[V0]], [[V1]] : tensor<1x16xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.all_gather [[V2]] on @m4x2x4 ["x"] dim = 0 : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return [[V3]]
func.func @add_rows_x_to_cols_y(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>},
    %b: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y"}]>}) {
  %s = shardc.add %a, %b {shardc.shardings = [#shardc.sharding<@m4x2x4, [{}, {"y"}]>]} : tensor<4x32xf32>
  return %s : tensor<4x32xf32>
}

func.func @add_rows_x_to_cols_y_shardy(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>},
    %b: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2x4, [{"x"}, {}]>, <@m4x2x4, [{"x"}, {}]>]
      out_shardings = [<@m4x2x4, [{}, {"y"}]>] {
  ^bb0(%la: tensor<1x32xf32>, %lb: tensor<1x32xf32>):
    %sa = shardc.all_slice %la on @m4x2x4 ["y"] dim = 1 : tensor<1x32xf32> -> tensor<1x16xf32>
    %sb = shardc.all_slice %lb on @m4x2x4 ["y"] dim = 1 : tensor<1x32xf32> -> tensor<1x16xf32>
    %s = shardc.add %sa, %sb : tensor<1x16xf32>
    %g = shardc.all_gather %s on @m4x2x4 ["x"] dim = 0 : tensor<1x16xf32> -> tensor<4x16xf32>
    shardc.return %g : tensor<4x16xf32>
  } : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// ---- @add_y_to_x (Shardy: @add_output_sharding_is_larger) ----
// An add of two operands split over "y" (2), whose result is split over "x"
// (4).
// On @m4x2x4: tensor<4x32xf32> [{"y"}, {}] twice -> [{"x"}, {}].
// Shardy, 128 bytes:
//   add; all_slice over ["x":(1)2] (0); collective_permute of the 1x32 shard
//     (128).
// shardc, 128 bytes:
//   all_slice over ["x":(1)2] on dim 0 (0); collective_permute over ["x",
//     "y"] sources [0, 2, 4, 6, 1, 3, 5, 7] (128).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @add_y_to_x(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x32xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x32xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.add [[A]], [[B]] : tensor<2x32xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_slice [[V0]] on @m4x2x4 ["x:(1)2"] dim = 0 : tensor<2x32xf32> -> tensor<1x32xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.collective_permute [[V1]] on @m4x2x4 ["x", "y"] sources = [0, 2, 4, 6, 1, 3, 5, 7] : tensor<1x32xf32>
// CHECK-NEXT: return [[V2]]
func.func @add_y_to_x(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}]>},
    %b: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>}) {
  %s = shardc.add %a, %b {shardc.shardings = [#shardc.sharding<@m4x2x4, [{"x"}, {}]>]} : tensor<4x32xf32>
  return %s : tensor<4x32xf32>
}

func.func @add_y_to_x_shardy(
    %a: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}]>},
    %b: tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"y"}, {}]>})
    -> (tensor<4x32xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x"}, {}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m4x2x4, [{"y"}, {}]>, <@m4x2x4, [{"y"}, {}]>]
      out_shardings = [<@m4x2x4, [{"x"}, {}]>] {
  ^bb0(%la: tensor<2x32xf32>, %lb: tensor<2x32xf32>):
    %s = shardc.add %la, %lb : tensor<2x32xf32>
    %s0 = shardc.all_slice %s on @m4x2x4 ["x:(1)2"] dim = 0 : tensor<2x32xf32> -> tensor<1x32xf32>
    %p = shardc.collective_permute %s0 on @m4x2x4 ["x", "y"] sources = [0, 2, 4, 6, 1, 3, 5, 7] : tensor<1x32xf32>
    shardc.return %p : tensor<1x32xf32>
  } : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// ---- @transpose_axes_follow (Shardy: @transpose_simple_compatible) ----
// A transpose whose result sharding is its operand's, permuted: local.
// On @m2x3: tensor<8x12xf32> [{"x"}, {"y"}] -> tensor<12x8xf32> [{"y"},
//   {"x"}].
// Shardy, 0 bytes:
//   no collective.
// shardc, 0 bytes:
//   no collective.
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @transpose_axes_follow(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.transpose [[A]], permutation = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return [[V0]]
func.func @transpose_axes_follow(
    %a: tensor<8x12xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"x"}, {"y"}]>})
    -> (tensor<12x8xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"y"}, {"x"}]>}) {
  %t = shardc.transpose %a, permutation = [1, 0] {shardc.shardings = [#shardc.sharding<@m2x3, [{"y"}, {"x"}]>]} : (tensor<8x12xf32>) -> tensor<12x8xf32>
  return %t : tensor<12x8xf32>
}

func.func @transpose_axes_follow_shardy(
    %a: tensor<8x12xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"x"}, {"y"}]>})
    -> (tensor<12x8xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"y"}, {"x"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m2x3, [{"x"}, {"y"}]>]
      out_shardings = [<@m2x3, [{"y"}, {"x"}]>] {
  ^bb0(%la: tensor<4x4xf32>):
    %t = shardc.transpose %la, permutation = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    shardc.return %t : tensor<4x4xf32>
  } : (tensor<8x12xf32>) -> tensor<12x8xf32>
  return %r : tensor<12x8xf32>
}

// ---- @transpose_after_dot (Shardy: @transpose_after_dot_only_use_is_transpose) ----
// A dot with partial sums over "y" (3 devices), its result transposed into
// [{"y"}, {"x"}].
// On @m2x3: lhs tensor<8x12xf32> [{"x"}, {"y"}], rhs tensor<12x12xf32>
//   [{"y"}, {}]; the dot is [{"x"}, {"y"}], its transpose tensor<12x8xf32>
//   [{"y"}, {"x"}].
// Shardy, 128 bytes:
//   an all_reduce over ["y"] of the 4x12 result, the transpose, and an
//     all_slice over ["y"] on dim 0: a reduce-scatter pattern, ending as a
//     reduce_scatter over ["y"] (128).
// shardc, 128 bytes:
//   reduce_scatter sum over ["y"] on dim 1 (128).
// Verdict: the same collective.
// CHECK-LABEL: func.func @transpose_after_dot(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x12xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x12xf32>) -> tensor<4x12xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.reduce_scatter sum [[V0]] on @m2x3 ["y"] dim = 1 : tensor<4x12xf32> -> tensor<4x4xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.transpose [[V1]], permutation = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return [[V2]]
func.func @transpose_after_dot(
    %a: tensor<8x12xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"x"}, {"y"}]>},
    %b: tensor<12x12xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"y"}, {}]>})
    -> (tensor<12x8xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"y"}, {"x"}]>}) {
  %d = shardc.dot_general %a, %b contracting_dims = [1] x [0] {shardc.shardings = [#shardc.sharding<@m2x3, [{"x"}, {"y"}]>]}
      : (tensor<8x12xf32>, tensor<12x12xf32>) -> tensor<8x12xf32>
  %t = shardc.transpose %d, permutation = [1, 0] {shardc.shardings = [#shardc.sharding<@m2x3, [{"y"}, {"x"}]>]} : (tensor<8x12xf32>) -> tensor<12x8xf32>
  return %t : tensor<12x8xf32>
}

func.func @transpose_after_dot_shardy(
    %a: tensor<8x12xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"x"}, {"y"}]>},
    %b: tensor<12x12xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"y"}, {}]>})
    -> (tensor<12x8xf32> {shardc.sharding = #shardc.sharding<@m2x3, [{"y"}, {"x"}]>}) {
  %r = shardc.shard_map (%a, %b) in_shardings = [<@m2x3, [{"x"}, {"y"}]>, <@m2x3, [{"y"}, {}]>]
      out_shardings = [<@m2x3, [{"y"}, {"x"}]>] {
  ^bb0(%la: tensor<4x4xf32>, %lb: tensor<4x12xf32>):
    %d = shardc.dot_general %la, %lb contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x12xf32>) -> tensor<4x12xf32>
    %t = shardc.transpose %d, permutation = [1, 0] : (tensor<4x12xf32>) -> tensor<12x4xf32>
    %s = shardc.reduce_scatter sum %t on @m2x3 ["y"] dim = 0 : tensor<12x4xf32> -> tensor<4x4xf32>
    shardc.return %s : tensor<4x4xf32>
  } : (tensor<8x12xf32>, tensor<12x12xf32>) -> tensor<12x8xf32>
  return %r : tensor<12x8xf32>
}

// ---- @slice_then_gather (Shardy: @slice) ----
// A strided slice of the two unsplit dimensions, then the rows made whole.
// On @m4x2: tensor<32x4x8xf32> [{"x"}, {}, {}], [0:32, 1:2, 4:8:2] ->
//   tensor<32x1x2xf32> [{}, {}, {}].
// Shardy, 192 bytes:
//   slice; all_gather over ["x"] on dim 0 of the 8x1x2 shard (192).
// shardc, 192 bytes:
//   all_gather over ["x"] on dim 0 (192).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @slice_then_gather(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4x8xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.slice [[A]], start = [0, 1, 4], limit = [8, 2, 8], strides = [1, 1, 2] : (tensor<8x4x8xf32>) -> tensor<8x1x2xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[V0]] on @m4x2 ["x"] dim = 0 : tensor<8x1x2xf32> -> tensor<32x1x2xf32>
// CHECK-NEXT: return [[V1]]
func.func @slice_then_gather(
    %a: tensor<32x4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>})
    -> (tensor<32x1x2xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}, {}]>}) {
  %s = shardc.slice %a, start = [0, 1, 4], limit = [32, 2, 8], strides = [1, 1, 2] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {}, {}]>]}
      : (tensor<32x4x8xf32>) -> tensor<32x1x2xf32>
  return %s : tensor<32x1x2xf32>
}

func.func @slice_then_gather_shardy(
    %a: tensor<32x4x8xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>})
    -> (tensor<32x1x2xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {}, {}]>]
      out_shardings = [<@m4x2, [{}, {}, {}]>] {
  ^bb0(%l: tensor<8x4x8xf32>):
    %s = shardc.slice %l, start = [0, 1, 4], limit = [8, 2, 8], strides = [1, 1, 2] : (tensor<8x4x8xf32>) -> tensor<8x1x2xf32>
    %g = shardc.all_gather %s on @m4x2 ["x"] dim = 0 : tensor<8x1x2xf32> -> tensor<32x1x2xf32>
    shardc.return %g : tensor<32x1x2xf32>
  } : (tensor<32x4x8xf32>) -> tensor<32x1x2xf32>
  return %r : tensor<32x1x2xf32>
}

// ---- @slice_sliced_dim_split (Shardy: @slice_only_input_permutation_dim_is_sharded) ----
// Rows 8 to 12 of an operand whose rows are split over "z"; the result wants
// "y" on dim 2.
// On @m4x2x4: tensor<32x64x128xf32> [{"z"}, {}, {"x"}], [8:12, 0:64:8, 0:128]
//   -> tensor<4x8x128xf32> [{}, {}, {"y"}].
// Shardy, 524288 bytes:
//   the whole operand [{"z"}, {}, {"x"}] -> [{}, {}, {"y"}] before the slice:
//     collective_permute to [{"z"}, {}, {"y", "x":(2)2}] (65536); all_gather
//     over ["z"] on dim 0 and ["x":(2)2] on dim 2 (458752).
// shardc, 204800 bytes:
//   all_gather over ["z"] on dim 0 (196608); all_slice over ["y", "z"] on dim
//     2 (0); collective_permute over ["x", "y", "z"] sources [0, 1, 2, 3, 16,
//     17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23, 8, 9, 10, 11, 24, 25, 26, 27,
//     12, 13, 14, 15, 28, 29, 30, 31] (512); all_gather over ["x", "z"] on
//     dim 2 (7680).
// Verdict: shardc sends fewer bytes than Shardy (319488 fewer).
// CHECK-LABEL: func.func @slice_sliced_dim_split(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x64x32xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2x4 ["z"] dim = 0 : tensor<8x64x32xf32> -> tensor<32x64x32xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.slice [[V0]], start = [8, 0, 0], limit = [12, 64, 32], strides = [1, 8, 1] : (tensor<32x64x32xf32>) -> tensor<4x8x32xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_slice [[V1]] on @m4x2x4 ["y", "z"] dim = 2 : tensor<4x8x32xf32> -> tensor<4x8x4xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.collective_permute [[V2]] on @m4x2x4 ["x", "y", "z"] sources = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31] : tensor<4x8x4xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = shardc.all_gather [[V3]] on @m4x2x4 ["x", "z"] dim = 2 : tensor<4x8x4xf32> -> tensor<4x8x64xf32>
// CHECK-NEXT: return [[V4]]
func.func @slice_sliced_dim_split(
    %a: tensor<32x64x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {}, {"x"}]>})
    -> (tensor<4x8x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {}, {"y"}]>}) {
  %s = shardc.slice %a, start = [8, 0, 0], limit = [12, 64, 128], strides = [1, 8, 1] {shardc.shardings = [#shardc.sharding<@m4x2x4, [{}, {}, {"y"}]>]}
      : (tensor<32x64x128xf32>) -> tensor<4x8x128xf32>
  return %s : tensor<4x8x128xf32>
}

func.func @slice_sliced_dim_split_shardy(
    %a: tensor<32x64x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {}, {"x"}]>})
    -> (tensor<4x8x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {}, {"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2x4, [{"z"}, {}, {"x"}]>]
      out_shardings = [<@m4x2x4, [{}, {}, {"y"}]>] {
  ^bb0(%l: tensor<8x64x32xf32>):
    %p = shardc.collective_permute %l on @m4x2x4 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<8x64x32xf32>
    %g0 = shardc.all_gather %p on @m4x2x4 ["z"] dim = 0 : tensor<8x64x32xf32> -> tensor<32x64x32xf32>
    %g1 = shardc.all_gather %g0 on @m4x2x4 ["x:(2)2"] dim = 2 : tensor<32x64x32xf32> -> tensor<32x64x64xf32>
    %s = shardc.slice %g1, start = [8, 0, 0], limit = [12, 64, 64], strides = [1, 8, 1] : (tensor<32x64x64xf32>) -> tensor<4x8x64xf32>
    shardc.return %s : tensor<4x8x64xf32>
  } : (tensor<32x64x128xf32>) -> tensor<4x8x128xf32>
  return %r : tensor<4x8x128xf32>
}

// ---- @slice_result_split (Shardy: @slice_only_output_permutation_dim_is_sharded) ----
// The same slice of an operand split only on dim 2, into a result split over
// "z" and "y".
// On @m4x2x4: tensor<32x64x128xf32> [{}, {}, {"x"}] -> tensor<4x8x128xf32>
//   [{"z"}, {}, {"y"}].
// Shardy, 2048 bytes:
//   slice; all_slice over ["z"] on dim 0 (0); collective_permute to [...,
//     {"y", "x":(2)2}] (1024); all_gather over ["x":(2)2] (1024).
// shardc, 2048 bytes:
//   all_slice over ["z"] on dim 0 (0); all_slice over ["y"] on dim 2 (0);
//     collective_permute over ["x", "y"] sources [0, 4, 1, 5, 2, 6, 3, 7]
//     (512); all_gather over ["x"] on dim 2 (1536).
// Verdict: shardc sends the same bytes as Shardy (2048).
// CHECK-LABEL: func.func @slice_result_split(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<32x64x32xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.slice [[A]], start = [8, 0, 0], limit = [12, 64, 32], strides = [1, 8, 1] : (tensor<32x64x32xf32>) -> tensor<4x8x32xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_slice [[V0]] on @m4x2x4 ["z"] dim = 0 : tensor<4x8x32xf32> -> tensor<1x8x32xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_slice [[V1]] on @m4x2x4 ["y"] dim = 2 : tensor<1x8x32xf32> -> tensor<1x8x16xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.collective_permute [[V2]] on @m4x2x4 ["x", "y"] sources = [0, 4, 1, 5, 2, 6, 3, 7] : tensor<1x8x16xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = shardc.all_gather [[V3]] on @m4x2x4 ["x"] dim = 2 : tensor<1x8x16xf32> -> tensor<1x8x64xf32>
// CHECK-NEXT: return [[V4]]
func.func @slice_result_split(
    %a: tensor<32x64x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {}, {"x"}]>})
    -> (tensor<4x8x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {}, {"y"}]>}) {
  %s = shardc.slice %a, start = [8, 0, 0], limit = [12, 64, 128], strides = [1, 8, 1] {shardc.shardings = [#shardc.sharding<@m4x2x4, [{"z"}, {}, {"y"}]>]}
      : (tensor<32x64x128xf32>) -> tensor<4x8x128xf32>
  return %s : tensor<4x8x128xf32>
}

func.func @slice_result_split_shardy(
    %a: tensor<32x64x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {}, {"x"}]>})
    -> (tensor<4x8x128xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {}, {"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2x4, [{}, {}, {"x"}]>]
      out_shardings = [<@m4x2x4, [{"z"}, {}, {"y"}]>] {
  ^bb0(%l: tensor<32x64x32xf32>):
    %s = shardc.slice %l, start = [8, 0, 0], limit = [12, 64, 32], strides = [1, 8, 1] : (tensor<32x64x32xf32>) -> tensor<4x8x32xf32>
    %s0 = shardc.all_slice %s on @m4x2x4 ["z"] dim = 0 : tensor<4x8x32xf32> -> tensor<1x8x32xf32>
    %p = shardc.collective_permute %s0 on @m4x2x4 ["x", "y"] sources = [0, 4, 2, 6, 1, 5, 3, 7] : tensor<1x8x32xf32>
    %g = shardc.all_gather %p on @m4x2x4 ["x:(2)2"] dim = 2 : tensor<1x8x32xf32> -> tensor<1x8x64xf32>
    shardc.return %g : tensor<1x8x64xf32>
  } : (tensor<32x64x128xf32>) -> tensor<4x8x128xf32>
  return %r : tensor<4x8x128xf32>
}

// ---- @reduce_sum_two_split_dims (Shardy: @reduce_single_result_multiple_reduction_dims_sharded) ----
// A sum over two dimensions split over "y" and "x": one all_reduce over both
// axes.
// On @m4x2: tensor<2x64x13xf32> [{"y"}, {"x"}, {}], dims [0, 1] ->
//   tensor<13xf32> [{}].
// Shardy, 91 bytes:
//   all_reduce over ["x", "y"] of the 13 values (91).
// shardc, 91 bytes:
//   all_reduce sum over ["x", "y"] (91).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reduce_sum_two_split_dims(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x16x13xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.reduce sum [[A]] dims = [0, 1] : (tensor<1x16x13xf32>) -> tensor<13xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce sum [[V0]] on @m4x2 ["x", "y"] : tensor<13xf32>
// CHECK-NEXT: return [[V1]]
func.func @reduce_sum_two_split_dims(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}, {}]>})
    -> (tensor<13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}]>}) {
  %r = shardc.reduce sum %a dims = [0, 1] {shardc.shardings = [#shardc.sharding<@m4x2, [{}]>]} : (tensor<2x64x13xf32>) -> tensor<13xf32>
  return %r : tensor<13xf32>
}

func.func @reduce_sum_two_split_dims_shardy(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"y"}, {"x"}, {}]>})
    -> (tensor<13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"y"}, {"x"}, {}]>]
      out_shardings = [<@m4x2, [{}]>] {
  ^bb0(%l: tensor<1x16x13xf32>):
    %p = shardc.reduce sum %l dims = [0, 1] : (tensor<1x16x13xf32>) -> tensor<13xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["x", "y"] : tensor<13xf32>
    shardc.return %s : tensor<13xf32>
  } : (tensor<2x64x13xf32>) -> tensor<13xf32>
  return %r : tensor<13xf32>
}

// ---- @reduce_sum_sub_axes (Shardy: @reduce_single_result_multiple_reduction_dims_sharded_sub_axis) ----
// As above with the two halves of "x" on the two reduced dimensions.
// On @m4x2: tensor<2x64x13xf32> [{"x":(2)2}, {"y", "x":(1)2}, {}], dims [0,
//   1] -> tensor<13xf32> [{}].
// Shardy, 91 bytes:
//   all_reduce over ["x", "y"] (91).
// shardc, 91 bytes:
//   all_reduce sum over ["x", "y"] (91).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reduce_sum_sub_axes(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x16x13xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.reduce sum [[A]] dims = [0, 1] : (tensor<1x16x13xf32>) -> tensor<13xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce sum [[V0]] on @m4x2 ["x", "y"] : tensor<13xf32>
// CHECK-NEXT: return [[V1]]
func.func @reduce_sum_sub_axes(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(2)2}, {"y", "x":(1)2}, {}]>})
    -> (tensor<13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}]>}) {
  %r = shardc.reduce sum %a dims = [0, 1] {shardc.shardings = [#shardc.sharding<@m4x2, [{}]>]} : (tensor<2x64x13xf32>) -> tensor<13xf32>
  return %r : tensor<13xf32>
}

func.func @reduce_sum_sub_axes_shardy(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x":(2)2}, {"y", "x":(1)2}, {}]>})
    -> (tensor<13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x":(2)2}, {"y", "x":(1)2}, {}]>]
      out_shardings = [<@m4x2, [{}]>] {
  ^bb0(%l: tensor<1x16x13xf32>):
    %p = shardc.reduce sum %l dims = [0, 1] : (tensor<1x16x13xf32>) -> tensor<13xf32>
    %s = shardc.all_reduce sum %p on @m4x2 ["x", "y"] : tensor<13xf32>
    shardc.return %s : tensor<13xf32>
  } : (tensor<2x64x13xf32>) -> tensor<13xf32>
  return %r : tensor<13xf32>
}

// ---- @reduce_max_split_dim (Shardy: @reduce_max_sharded) ----
// A max over a dimension split over "x".
// On @m4x2: tensor<2x64x13xf32> [{}, {"x"}, {}], dims [1] -> tensor<2x13xf32>
//   [{}, {}].
// Shardy, 156 bytes:
//   all_reduce max over ["x"] of the 2x13 result (156).
// shardc, 156 bytes:
//   all_reduce max over ["x"] (156).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reduce_max_split_dim(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16x13xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.reduce max [[A]] dims = [1] : (tensor<2x16x13xf32>) -> tensor<2x13xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_reduce max [[V0]] on @m4x2 ["x"] : tensor<2x13xf32>
// CHECK-NEXT: return [[V1]]
func.func @reduce_max_split_dim(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}, {}]>})
    -> (tensor<2x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}]>}) {
  %r = shardc.reduce max %a dims = [1] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {}]>]} : (tensor<2x64x13xf32>) -> tensor<2x13xf32>
  return %r : tensor<2x13xf32>
}

func.func @reduce_max_split_dim_shardy(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}, {}]>})
    -> (tensor<2x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{}, {"x"}, {}]>]
      out_shardings = [<@m4x2, [{}, {}]>] {
  ^bb0(%l: tensor<2x16x13xf32>):
    %p = shardc.reduce max %l dims = [1] : (tensor<2x16x13xf32>) -> tensor<2x13xf32>
    %s = shardc.all_reduce max %p on @m4x2 ["x"] : tensor<2x13xf32>
    shardc.return %s : tensor<2x13xf32>
  } : (tensor<2x64x13xf32>) -> tensor<2x13xf32>
  return %r : tensor<2x13xf32>
}

// ---- @reduce_kept_dim_padded (Shardy: @reduce_single_result_reduction_dim_not_sharded) ----
// A sum over an unsplit dimension; the kept dim 0 (2) is split unevenly over
// "x" (4), padded.
// On @m4x2: tensor<2x64x13xf32> [{"x"}, {}, {}] (pad_uneven), dims [1] ->
//   tensor<2x13xf32> [{}, {}].
// Shardy, 156 bytes:
//   reduce; all_gather over ["x"] on dim 0 of the padded 1x13 shard (156).
// shardc, 156 bytes:
//   all_gather over ["x"] on dim 0 (156).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @reduce_kept_dim_padded(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x64x13xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.reduce sum [[A]] dims = [1] : (tensor<1x64x13xf32>) -> tensor<1x13xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.all_gather [[V0]] on @m4x2 ["x"] dim = 0 : tensor<1x13xf32> -> tensor<4x13xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.slice [[V1]], start = [0, 0], limit = [2, 13], strides = [1, 1] : (tensor<4x13xf32>) -> tensor<2x13xf32>
// CHECK-NEXT: return [[V2]]
func.func @reduce_kept_dim_padded(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>, shardc.pad_uneven})
    -> (tensor<2x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}]>}) {
  %r = shardc.reduce sum %a dims = [1] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {}]>]} : (tensor<2x64x13xf32>) -> tensor<2x13xf32>
  return %r : tensor<2x13xf32>
}

func.func @reduce_kept_dim_padded_shardy(
    %a: tensor<2x64x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}]>, shardc.pad_uneven})
    -> (tensor<2x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {}, {}]>]
      out_shardings = [<@m4x2, [{}, {}]>] {
  ^bb0(%la: tensor<1x64x13xf32>):
    %s = shardc.reduce sum %la dims = [1] : (tensor<1x64x13xf32>) -> tensor<1x13xf32>
    %g = shardc.all_gather %s on @m4x2 ["x"] dim = 0 : tensor<1x13xf32> -> tensor<4x13xf32>
    %c = shardc.slice %g, start = [0, 0], limit = [2, 13], strides = [1, 1] : (tensor<4x13xf32>) -> tensor<2x13xf32>
    shardc.return %c : tensor<2x13xf32>
  } : (tensor<2x64x13xf32>) -> tensor<2x13xf32>
  return %r : tensor<2x13xf32>
}

// ---- @broadcast_padded_to_replicated (Shardy: @broadcast_in_dim) ----
// A broadcast that also permutes dims 1 and 2, of an operand split unevenly
// (2 over 4), padded.
// On @m4x2: tensor<2x3x5x1x7xf32> [{"x"}, {}, {}, {}, {}] (pad_uneven), dims
//   [0, 2, 1, 3, 4] -> tensor<2x5x3x11x7x13xf32> whole.
// Shardy, 1260 bytes:
//   all_gather over ["x"] on dim 0 of the padded 1x3x5x1x7 shard (1260);
//     broadcast.
// shardc, 1260 bytes:
//   all_gather over ["x"] on dim 0 (1260).
// Verdict: shardc sends the same as Shardy.
// CHECK-LABEL: func.func @broadcast_padded_to_replicated(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x3x5x1x7xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.all_gather [[A]] on @m4x2 ["x"] dim = 0 : tensor<1x3x5x1x7xf32> -> tensor<4x3x5x1x7xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.slice [[V0]], start = [0, 0, 0, 0, 0], limit = [2, 3, 5, 1, 7], strides = [1, 1, 1, 1, 1] : (tensor<4x3x5x1x7xf32>) -> tensor<2x3x5x1x7xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.broadcast_in_dim [[V1]], dims = [0, 2, 1, 3, 4] : (tensor<2x3x5x1x7xf32>) -> tensor<2x5x3x11x7x13xf32>
// CHECK-NEXT: return [[V2]]
func.func @broadcast_padded_to_replicated(
    %a: tensor<2x3x5x1x7xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}, {}, {}]>, shardc.pad_uneven})
    -> (tensor<2x5x3x11x7x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}, {}, {}, {}, {}]>}) {
  %b = shardc.broadcast_in_dim %a, dims = [0, 2, 1, 3, 4] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {}, {}, {}, {}, {}]>]}
      : (tensor<2x3x5x1x7xf32>) -> tensor<2x5x3x11x7x13xf32>
  return %b : tensor<2x5x3x11x7x13xf32>
}

func.func @broadcast_padded_to_replicated_shardy(
    %a: tensor<2x3x5x1x7xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}, {}, {}]>, shardc.pad_uneven})
    -> (tensor<2x5x3x11x7x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {}, {}, {}, {}, {}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {}, {}, {}, {}]>]
      out_shardings = [<@m4x2, [{}, {}, {}, {}, {}, {}]>] {
  ^bb0(%la: tensor<1x3x5x1x7xf32>):
    %g = shardc.all_gather %la on @m4x2 ["x"] dim = 0 : tensor<1x3x5x1x7xf32> -> tensor<4x3x5x1x7xf32>
    %c = shardc.slice %g, start = [0, 0, 0, 0, 0], limit = [2, 3, 5, 1, 7], strides = [1, 1, 1, 1, 1] : (tensor<4x3x5x1x7xf32>) -> tensor<2x3x5x1x7xf32>
    %b = shardc.broadcast_in_dim %c, dims = [0, 2, 1, 3, 4] : (tensor<2x3x5x1x7xf32>) -> tensor<2x5x3x11x7x13xf32>
    shardc.return %b : tensor<2x5x3x11x7x13xf32>
  } : (tensor<2x3x5x1x7xf32>) -> tensor<2x5x3x11x7x13xf32>
  return %r : tensor<2x5x3x11x7x13xf32>
}

// ---- @broadcast_padded_move_axis (Shardy: @broadcast_in_dim_input_output_different) ----
// The same broadcast into a result split over "x" on dim 1 (5, padded) and
// "y" on dim 5 (13).
// On @m4x2: tensor<2x3x5x1x7xf32> [{"x"}, {}, {}, {}, {}] (pad_uneven) ->
//   [{}, {"x"}, {}, {}, {}, {"y"}].
// Shardy, 504 bytes:
//   operand [{"x"}, {}, {}, ...] -> [{}, {}, {"x"}, ...]: all_to_all over
//     ["x"] from dim 0 to dim 2 of the shard padded to 1x3x8x1x7 (504);
//     broadcast, sliced locally over "y" (0).
// shardc, 504 bytes:
//   all_to_all over ["x"] from dim 0 to dim 2 (504).
// Verdict: shardc sends the same bytes as Shardy (504).
// CHECK-LABEL: func.func @broadcast_padded_move_axis(
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x3x5x1x7xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = shardc.constant dense<0.000000e+00> : tensor<1x3x3x1x7xf32>
// CHECK-NEXT: [[V1:%[0-9]+]] = shardc.concatenate [[A]], [[V0]] dim = 2 : (tensor<1x3x5x1x7xf32>, tensor<1x3x3x1x7xf32>) -> tensor<1x3x8x1x7xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = shardc.all_to_all [[V1]] on @m4x2 ["x"] split_dim = 2 concat_dim = 0 : tensor<1x3x8x1x7xf32> -> tensor<4x3x2x1x7xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = shardc.slice [[V2]], start = [0, 0, 0, 0, 0], limit = [2, 3, 2, 1, 7], strides = [1, 1, 1, 1, 1] : (tensor<4x3x2x1x7xf32>) -> tensor<2x3x2x1x7xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = shardc.broadcast_in_dim [[V3]], dims = [0, 2, 1, 3, 4] : (tensor<2x3x2x1x7xf32>) -> tensor<2x2x3x11x7x7xf32>
// CHECK-NEXT: return [[V4]]
func.func @broadcast_padded_move_axis(
    %a: tensor<2x3x5x1x7xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}, {}, {}]>, shardc.pad_uneven})
    -> (tensor<2x5x3x11x7x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}, {}, {}, {}, {"y"}]>}) {
  %b = shardc.broadcast_in_dim %a, dims = [0, 2, 1, 3, 4] {shardc.shardings = [#shardc.sharding<@m4x2, [{}, {"x"}, {}, {}, {}, {"y"}]>]}
      : (tensor<2x3x5x1x7xf32>) -> tensor<2x5x3x11x7x13xf32>
  return %b : tensor<2x5x3x11x7x13xf32>
}

func.func @broadcast_padded_move_axis_shardy(
    %a: tensor<2x3x5x1x7xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{"x"}, {}, {}, {}, {}]>, shardc.pad_uneven})
    -> (tensor<2x5x3x11x7x13xf32> {shardc.sharding = #shardc.sharding<@m4x2, [{}, {"x"}, {}, {}, {}, {"y"}]>}) {
  %r = shardc.shard_map (%a) in_shardings = [<@m4x2, [{"x"}, {}, {}, {}, {}]>]
      out_shardings = [<@m4x2, [{}, {"x"}, {}, {}, {}, {"y"}]>] {
  ^bb0(%la: tensor<1x3x5x1x7xf32>):
    %z = shardc.constant dense<0.0> : tensor<1x3x3x1x7xf32>
    %p = shardc.concatenate %la, %z dim = 2 : (tensor<1x3x5x1x7xf32>, tensor<1x3x3x1x7xf32>) -> tensor<1x3x8x1x7xf32>
    %t = shardc.all_to_all %p on @m4x2 ["x"] split_dim = 2 concat_dim = 0 : tensor<1x3x8x1x7xf32> -> tensor<4x3x2x1x7xf32>
    %c = shardc.slice %t, start = [0, 0, 0, 0, 0], limit = [2, 3, 2, 1, 7], strides = [1, 1, 1, 1, 1] : (tensor<4x3x2x1x7xf32>) -> tensor<2x3x2x1x7xf32>
    %b = shardc.broadcast_in_dim %c, dims = [0, 2, 1, 3, 4] : (tensor<2x3x2x1x7xf32>) -> tensor<2x2x3x11x7x13xf32>
    %z2 = shardc.constant dense<0.0> : tensor<2x2x3x11x7x1xf32>
    %q = shardc.concatenate %b, %z2 dim = 5 : (tensor<2x2x3x11x7x13xf32>, tensor<2x2x3x11x7x1xf32>) -> tensor<2x2x3x11x7x14xf32>
    %s = shardc.all_slice %q on @m4x2 ["y"] dim = 5 : tensor<2x2x3x11x7x14xf32> -> tensor<2x2x3x11x7x7xf32>
    shardc.return %s : tensor<2x2x3x11x7x7xf32>
  } : (tensor<2x3x5x1x7xf32>) -> tensor<2x5x3x11x7x13xf32>
  return %r : tensor<2x5x3x11x7x13xf32>
}
