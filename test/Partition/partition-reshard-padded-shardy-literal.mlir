// RUN: not %python %S/Inputs/check_reshard_bytes.py %s shardc | FileCheck %s

// Shardy's sequences for the padded cases of partition-reshard-conformance.mlir, as
// its tests' figures count them (by hand: Shardy's tests leave these
// reshards to its lowering), written per device on the padded blocks of
// shardc's layouts: a dimension of S split n ways is blocks of ceil(S/n),
// device k holding [k*ceil(S/n), (k+1)*ceil(S/n)). None of them returns its
// argument, so none is a reshard there; the checker says so for each (and
// exits 1). A local block that a collective's group does not divide is
// padded with zeros first. The last two cut each block to the size the
// hand figure prices after the all_to_all over "z".
//
// Why, in short: each target puts all its real data on some of the devices
// (the padding at the end), and one of Shardy's steps leaves data on the
// other side of an axis that no later collective crosses (columns 4-7 on
// x=1 in the first two, rows 2-3 on x=1 in the next two, rows 4-7 on x=1 in
// the fifth; in the last two a device holds columns [8x+4y, 8x+4y+4) where
// the next layout wants column 2x+y). The twins in partition-reshard-conformance.mlir
// are the nearest sequences that compute the reshards.

// CHECK: padded_slice_on_multiple_src_dims error: @padded_slice_on_multiple_src_dims_shardy: its result is not its argument
// CHECK: padded_slice_on_one_src_dim_but_not_other error: @padded_slice_on_one_src_dim_but_not_other_shardy: its result is not its argument
// CHECK: padded_axes_out_of_order error: @padded_axes_out_of_order_shardy: its result is not its argument
// CHECK: padded_axes_non_contiguous error: @padded_axes_non_contiguous_shardy: its result is not its argument
// CHECK: padded_src_and_tgt_out_of_order error: @padded_src_and_tgt_out_of_order_shardy: its result is not its argument
// CHECK: padded_two_tgt_dims error: @padded_two_tgt_dims_shardy: its result is not its argument
// CHECK: padded_two_tgt_dims_2 error: @padded_two_tgt_dims_2_shardy: its result is not its argument
// CHECK: same: 0, fewer: 0, more: 0, more where Shardy uses sub-axes: 0, errors: 7

shardc.mesh @m2x2x2x2 = <["x"=2, "y"=2, "z"=2, "w"=2]>
shardc.mesh @m2x2x2 = <["x"=2, "y"=2, "z"=2]>
shardc.mesh @m4x2x4 = <["x"=4, "y"=2, "z"=4]>

func.func @padded_slice_on_multiple_src_dims(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{"z"}, {"x"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]>}) {
  %c = shardc.sharding_constraint %x <@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]> : tensor<16x8x8xf32>
  return %c : tensor<16x8x8xf32>
}

func.func @padded_slice_on_multiple_src_dims_shardy(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{"z"}, {"x"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m2x2x2x2, [{"z"}, {"x"}, {}]>]
      out_shardings = [<@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]>] {
  ^bb0(%l: tensor<8x4x8xf32>):
    %s0 = shardc.all_slice %l on @m2x2x2x2 ["w"] dim = 0 : tensor<8x4x8xf32> -> tensor<4x4x8xf32>
    %s1 = shardc.all_slice %s0 on @m2x2x2x2 ["y"] dim = 1 : tensor<4x4x8xf32> -> tensor<4x2x8xf32>
    %a0 = shardc.all_to_all %s1 on @m2x2x2x2 ["x", "y"] split_dim = 2 concat_dim = 1 : tensor<4x2x8xf32> -> tensor<4x8x2xf32>
    %z = shardc.constant dense<0.0> : tensor<4x8x2xf32>
    %p = shardc.concatenate %a0, %z dim = 2 : (tensor<4x8x2xf32>, tensor<4x8x2xf32>) -> tensor<4x8x4xf32>
    %a1 = shardc.all_to_all %p on @m2x2x2x2 ["z", "w"] split_dim = 2 concat_dim = 0 : tensor<4x8x4xf32> -> tensor<16x8x1xf32>
    shardc.return %a1 : tensor<16x8x1xf32>
  } : (tensor<16x8x8xf32>) -> tensor<16x8x8xf32>
  return %r : tensor<16x8x8xf32>
}

func.func @padded_slice_on_one_src_dim_but_not_other(%x: tensor<2x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{"z"}, {"x"}, {}]>, shardc.pad_uneven})
    -> (tensor<2x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]>}) {
  %c = shardc.sharding_constraint %x <@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]> : tensor<2x8x8xf32>
  return %c : tensor<2x8x8xf32>
}

func.func @padded_slice_on_one_src_dim_but_not_other_shardy(%x: tensor<2x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{"z"}, {"x"}, {}]>, shardc.pad_uneven})
    -> (tensor<2x8x8xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m2x2x2x2, [{"z"}, {"x"}, {}]>]
      out_shardings = [<@m2x2x2x2, [{}, {}, {"x", "y", "z", "w"}]>] {
  ^bb0(%l: tensor<1x4x8xf32>):
    %s0 = shardc.all_slice %l on @m2x2x2x2 ["y"] dim = 1 : tensor<1x4x8xf32> -> tensor<1x2x8xf32>
    %s1 = shardc.all_slice %s0 on @m2x2x2x2 ["w"] dim = 2 : tensor<1x2x8xf32> -> tensor<1x2x4xf32>
    %c = shardc.collective_permute %s1 on @m2x2x2x2 ["x", "y", "z", "w"] sources = [0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15] : tensor<1x2x4xf32>
    %a0 = shardc.all_to_all %c on @m2x2x2x2 ["y"] split_dim = 2 concat_dim = 0 : tensor<1x2x4xf32> -> tensor<2x2x2xf32>
    %z = shardc.constant dense<0.0> : tensor<2x2x2xf32>
    %p = shardc.concatenate %a0, %z dim = 2 : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x4xf32>
    %a1 = shardc.all_to_all %p on @m2x2x2x2 ["z", "w"] split_dim = 2 concat_dim = 1 : tensor<2x2x4xf32> -> tensor<2x8x1xf32>
    shardc.return %a1 : tensor<2x8x1xf32>
  } : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}

func.func @padded_axes_out_of_order(%x: tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2, [{}, {"x", "z"}]>, shardc.pad_uneven})
    -> (tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2, [{"x", "y", "z"}, {}]>}) {
  %c = shardc.sharding_constraint %x <@m2x2x2, [{"x", "y", "z"}, {}]> : tensor<4x10xf32>
  return %c : tensor<4x10xf32>
}

func.func @padded_axes_out_of_order_shardy(%x: tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2, [{}, {"x", "z"}]>, shardc.pad_uneven})
    -> (tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2, [{"x", "y", "z"}, {}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m2x2x2, [{}, {"x", "z"}]>]
      out_shardings = [<@m2x2x2, [{"x", "y", "z"}, {}]>] {
  ^bb0(%l: tensor<4x3xf32>):
    %s = shardc.all_slice %l on @m2x2x2 ["y"] dim = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
    %c = shardc.collective_permute %s on @m2x2x2 ["x", "y", "z"] sources = [0, 1, 4, 5, 2, 3, 6, 7] : tensor<2x3xf32>
    %z = shardc.constant dense<0.0> : tensor<2x3xf32>
    %p = shardc.concatenate %c, %z dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %a = shardc.all_to_all %p on @m2x2x2 ["y", "z"] split_dim = 0 concat_dim = 1 : tensor<4x3xf32> -> tensor<1x12xf32>
    %t = shardc.slice %a, start = [0, 0], limit = [1, 10], strides = [1, 1] : (tensor<1x12xf32>) -> tensor<1x10xf32>
    shardc.return %t : tensor<1x10xf32>
  } : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

func.func @padded_axes_non_contiguous(%x: tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{}, {"z", "w", "y"}]>, shardc.pad_uneven})
    -> (tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{"x", "y", "z"}, {}]>}) {
  %c = shardc.sharding_constraint %x <@m2x2x2x2, [{"x", "y", "z"}, {}]> : tensor<4x10xf32>
  return %c : tensor<4x10xf32>
}

func.func @padded_axes_non_contiguous_shardy(%x: tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{}, {"z", "w", "y"}]>, shardc.pad_uneven})
    -> (tensor<4x10xf32> {shardc.sharding = #shardc.sharding<@m2x2x2x2, [{"x", "y", "z"}, {}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m2x2x2x2, [{}, {"z", "w", "y"}]>]
      out_shardings = [<@m2x2x2x2, [{"x", "y", "z"}, {}]>] {
  ^bb0(%l: tensor<4x2xf32>):
    %s = shardc.all_slice %l on @m2x2x2x2 ["x"] dim = 0 : tensor<4x2xf32> -> tensor<2x2xf32>
    %c = shardc.collective_permute %s on @m2x2x2x2 ["x", "y", "z", "w"] sources = [0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15] : tensor<2x2xf32>
    %z = shardc.constant dense<0.0> : tensor<2x2xf32>
    %p = shardc.concatenate %c, %z dim = 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    %a = shardc.all_to_all %p on @m2x2x2x2 ["y", "z"] split_dim = 0 concat_dim = 1 : tensor<4x2xf32> -> tensor<1x8xf32>
    %g = shardc.all_gather %a on @m2x2x2x2 ["w"] dim = 1 : tensor<1x8xf32> -> tensor<1x16xf32>
    %t = shardc.slice %g, start = [0, 0], limit = [1, 10], strides = [1, 1] : (tensor<1x16xf32>) -> tensor<1x10xf32>
    shardc.return %t : tensor<1x10xf32>
  } : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

func.func @padded_src_and_tgt_out_of_order(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {"y", "x"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x", "y", "z"}, {}, {}]>}) {
  %c = shardc.sharding_constraint %x <@m4x2x4, [{"x", "y", "z"}, {}, {}]> : tensor<16x8x8xf32>
  return %c : tensor<16x8x8xf32>
}

func.func @padded_src_and_tgt_out_of_order_shardy(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"z"}, {"y", "x"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x", "y", "z"}, {}, {}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m4x2x4, [{"z"}, {"y", "x"}, {}]>]
      out_shardings = [<@m4x2x4, [{"x", "y", "z"}, {}, {}]>] {
  ^bb0(%l: tensor<4x1x8xf32>):
    %c = shardc.collective_permute %l on @m4x2x4 ["x", "y", "z"] sources = [0, 8, 16, 24, 4, 12, 20, 28, 1, 9, 17, 25, 5, 13, 21, 29, 2, 10, 18, 26, 6, 14, 22, 30, 3, 11, 19, 27, 7, 15, 23, 31] : tensor<4x1x8xf32>
    %z = shardc.constant dense<0.0> : tensor<4x1x8xf32>
    %p = shardc.concatenate %c, %z dim = 0 : (tensor<4x1x8xf32>, tensor<4x1x8xf32>) -> tensor<8x1x8xf32>
    %a = shardc.all_to_all %p on @m4x2x4 ["y", "z"] split_dim = 0 concat_dim = 1 : tensor<8x1x8xf32> -> tensor<1x8x8xf32>
    shardc.return %a : tensor<1x8x8xf32>
  } : (tensor<16x8x8xf32>) -> tensor<16x8x8xf32>
  return %r : tensor<16x8x8xf32>
}

func.func @padded_two_tgt_dims(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"x", "z", "y"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x", "y"}, {}, {"z"}]>}) {
  %c = shardc.sharding_constraint %x <@m4x2x4, [{"x", "y"}, {}, {"z"}]> : tensor<16x8x8xf32>
  return %c : tensor<16x8x8xf32>
}

func.func @padded_two_tgt_dims_shardy(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"x", "z", "y"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x", "y"}, {}, {"z"}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m4x2x4, [{}, {"x", "z", "y"}, {}]>]
      out_shardings = [<@m4x2x4, [{"x", "y"}, {}, {"z"}]>] {
  ^bb0(%l: tensor<16x1x8xf32>):
    %c = shardc.collective_permute %l on @m4x2x4 ["x", "y", "z"] sources = [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 16, 20, 17, 21, 18, 22, 19, 23, 24, 28, 25, 29, 26, 30, 27, 31] : tensor<16x1x8xf32>
    %a0 = shardc.all_to_all %c on @m4x2x4 ["z"] split_dim = 2 concat_dim = 1 : tensor<16x1x8xf32> -> tensor<16x4x2xf32>
    %t = shardc.slice %a0, start = [0, 0, 0], limit = [16, 1, 2], strides = [1, 1, 1] : (tensor<16x4x2xf32>) -> tensor<16x1x2xf32>
    %a1 = shardc.all_to_all %t on @m4x2x4 ["x", "y"] split_dim = 0 concat_dim = 1 : tensor<16x1x2xf32> -> tensor<2x8x2xf32>
    shardc.return %a1 : tensor<2x8x2xf32>
  } : (tensor<16x8x8xf32>) -> tensor<16x8x8xf32>
  return %r : tensor<16x8x8xf32>
}

func.func @padded_two_tgt_dims_2(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y", "z", "x"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x", "y"}, {}, {"z"}]>}) {
  %c = shardc.sharding_constraint %x <@m4x2x4, [{"x", "y"}, {}, {"z"}]> : tensor<16x8x8xf32>
  return %c : tensor<16x8x8xf32>
}

func.func @padded_two_tgt_dims_2_shardy(%x: tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{}, {"y", "z", "x"}, {}]>, shardc.pad_uneven})
    -> (tensor<16x8x8xf32> {shardc.sharding = #shardc.sharding<@m4x2x4, [{"x", "y"}, {}, {"z"}]>}) {
  %r = shardc.shard_map (%x) in_shardings = [<@m4x2x4, [{}, {"y", "z", "x"}, {}]>]
      out_shardings = [<@m4x2x4, [{"x", "y"}, {}, {"z"}]>] {
  ^bb0(%l: tensor<16x1x8xf32>):
    %c = shardc.collective_permute %l on @m4x2x4 ["x", "y", "z"] sources = [0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27, 4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31] : tensor<16x1x8xf32>
    %a0 = shardc.all_to_all %c on @m4x2x4 ["z"] split_dim = 2 concat_dim = 1 : tensor<16x1x8xf32> -> tensor<16x4x2xf32>
    %t = shardc.slice %a0, start = [0, 0, 0], limit = [16, 1, 2], strides = [1, 1, 1] : (tensor<16x4x2xf32>) -> tensor<16x1x2xf32>
    %a1 = shardc.all_to_all %t on @m4x2x4 ["x", "y"] split_dim = 0 concat_dim = 1 : tensor<16x1x2xf32> -> tensor<2x8x2xf32>
    shardc.return %a1 : tensor<2x8x2xf32>
  } : (tensor<16x8x8xf32>) -> tensor<16x8x8xf32>
  return %r : tensor<16x8x8xf32>
}
