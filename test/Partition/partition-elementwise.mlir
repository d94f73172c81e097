// RUN: shardc-opt %s --shardc-propagate --shardc-partition | FileCheck %s

// Elementwise ops compute on local blocks with no communication when their
// operands agree; an operand in another layout is resharded first.

shardc.mesh @mesh_4 = <["x"=4]>
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @same_sharding_no_communication
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<2x16xf32>
// CHECK-SAME: shardc.partitioned = @mesh_4
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: [[S:%[a-z0-9]+]] = shardc.add [[A]], [[B]] : tensor<2x16xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.mul [[S]], [[A]] : tensor<2x16xf32>
// CHECK: [[N:%[a-z0-9]+]] = shardc.neg [[M]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK-NOT: shardc.reduce_scatter
// CHECK: return [[N]]
func.func @same_sharding_no_communication(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<8x16xf32> {
  %s = shardc.add %a, %b : tensor<8x16xf32>
  %m = shardc.mul %s, %a : tensor<8x16xf32>
  %n = shardc.neg %m : tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}

// A closed replicated operand is split locally (all_slice, no data moves).
// CHECK-LABEL: func.func @replicated_operand_sliced
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x16xf32>
// CHECK: [[BS:%[a-z0-9]+]] = shardc.all_slice [[B]] on @mesh_4 ["x"] dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.sub [[A]], [[BS]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]]
func.func @replicated_operand_sliced(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
    -> tensor<8x16xf32> {
  %s = shardc.sub %a, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// A replicated result: the operand is gathered once and the op computed
// whole.
// CHECK-LABEL: func.func @result_replicated_gathers
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: -> (tensor<8x16xf32>
// CHECK: [[G:%[a-z0-9]+]] = shardc.all_gather [[A]] on @mesh_4 ["x"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK: [[T:%[a-z0-9]+]] = shardc.tanh [[G]] : tensor<8x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[T]]
func.func @result_replicated_gathers(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}) {
  %e = shardc.tanh %a : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// The second operand is split by columns, the first (which wins) by rows:
// one all_to_all moves "x" from dimension 1 to dimension 0.
// CHECK-LABEL: func.func @operand_axis_moved
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK: [[BT:%[a-z0-9]+]] = shardc.all_to_all [[B]] on @mesh_4 ["x"] split_dim = 0 concat_dim = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.max [[A]], [[BT]] : tensor<2x16xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @operand_axis_moved(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>})
    -> tensor<8x16xf32> {
  %s = shardc.max %a, %b : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// Both dimensions split on a 2-D mesh; the unannotated operand follows.
// CHECK-LABEL: func.func @mesh_2d_both_dims
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<4x4xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}
// CHECK-SAME: shardc.partitioned = @mesh_2x4
// CHECK-NOT: shardc.all_
// CHECK: [[E:%[a-z0-9]+]] = shardc.exp [[B]] : tensor<4x4xf32>
// CHECK: [[D:%[a-z0-9]+]] = shardc.div [[A]], [[E]] : tensor<4x4xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.min [[D]], [[A]] : tensor<4x4xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @mesh_2d_both_dims(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>},
    %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = shardc.exp %b : tensor<8x16xf32>
  %d = shardc.div %a, %e : tensor<8x16xf32>
  %m = shardc.min %d, %a : tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// Every unary op on blocks of a dimension split over two axes; the splat
// constant is built at the local shape.
// CHECK-LABEL: func.func @unary_chain
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: shardc.constant dense<1.000000e+00> : tensor<2x8xf32>
// CHECK: shardc.abs [[A]] : tensor<2x8xf32>
// CHECK: shardc.log {{.*}} : tensor<2x8xf32>
// CHECK: shardc.sqrt {{.*}} : tensor<2x8xf32>
// CHECK: shardc.rsqrt {{.*}} : tensor<2x8xf32>
// CHECK: shardc.exp [[A]] : tensor<2x8xf32>
// CHECK: shardc.tanh [[A]] : tensor<2x8xf32>
// CHECK: shardc.erf [[A]] : tensor<2x8xf32>
// CHECK: shardc.log1p {{.*}} : tensor<2x8xf32>
// CHECK: shardc.expm1 [[A]] : tensor<2x8xf32>
// CHECK: shardc.sin [[A]] : tensor<2x8xf32>
// CHECK: shardc.cos [[A]] : tensor<2x8xf32>
// CHECK: shardc.floor [[A]] : tensor<2x8xf32>
// CHECK: shardc.ceil [[A]] : tensor<2x8xf32>
// CHECK: shardc.round_even [[A]] : tensor<2x8xf32>
// CHECK: shardc.round_afz [[A]] : tensor<2x8xf32>
// CHECK: shardc.tan [[A]] : tensor<2x8xf32>
// CHECK: shardc.cbrt [[A]] : tensor<2x8xf32>
// CHECK: shardc.atan2 [[A]], {{.*}} : tensor<2x8xf32>
// CHECK: shardc.rem [[A]], {{.*}} : tensor<2x8xf32>
// CHECK: shardc.pow {{.*}}, [[A]] : tensor<2x8xf32>
// CHECK-NOT: shardc.all_
// CHECK: return {{.*}} : tensor<2x8xf32>
func.func @unary_chain(
    %a: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>})
    -> tensor<16x8xf32> {
  %one = shardc.constant dense<1.0> : tensor<16x8xf32>
  %abs = shardc.abs %a : tensor<16x8xf32>
  %pos = shardc.add %abs, %one : tensor<16x8xf32>
  %l = shardc.log %pos : tensor<16x8xf32>
  %s = shardc.sqrt %pos : tensor<16x8xf32>
  %r = shardc.rsqrt %pos : tensor<16x8xf32>
  %e = shardc.exp %a : tensor<16x8xf32>
  %t = shardc.tanh %a : tensor<16x8xf32>
  %f = shardc.erf %a : tensor<16x8xf32>
  %lp = shardc.log1p %abs : tensor<16x8xf32>
  %em = shardc.expm1 %a : tensor<16x8xf32>
  %sn = shardc.sin %a : tensor<16x8xf32>
  %cs = shardc.cos %a : tensor<16x8xf32>
  %fl = shardc.floor %a : tensor<16x8xf32>
  %ce = shardc.ceil %a : tensor<16x8xf32>
  %re = shardc.round_even %a : tensor<16x8xf32>
  %ra = shardc.round_afz %a : tensor<16x8xf32>
  %tn = shardc.tan %a : tensor<16x8xf32>
  %cr = shardc.cbrt %a : tensor<16x8xf32>
  %at = shardc.atan2 %a, %pos : tensor<16x8xf32>
  %rm = shardc.rem %a, %pos : tensor<16x8xf32>
  %p = shardc.pow %pos, %a : tensor<16x8xf32>
  %s1 = shardc.add %l, %s : tensor<16x8xf32>
  %s2 = shardc.add %s1, %r : tensor<16x8xf32>
  %s3 = shardc.add %s2, %e : tensor<16x8xf32>
  %s4 = shardc.add %s3, %t : tensor<16x8xf32>
  %s5 = shardc.add %s4, %f : tensor<16x8xf32>
  %s6 = shardc.add %s5, %lp : tensor<16x8xf32>
  %s7 = shardc.add %s6, %p : tensor<16x8xf32>
  %s8 = shardc.add %s7, %em : tensor<16x8xf32>
  %s9 = shardc.add %s8, %sn : tensor<16x8xf32>
  %s10 = shardc.add %s9, %cs : tensor<16x8xf32>
  %s11 = shardc.add %s10, %fl : tensor<16x8xf32>
  %s12 = shardc.add %s11, %ce : tensor<16x8xf32>
  %s13 = shardc.add %s12, %re : tensor<16x8xf32>
  %s14 = shardc.add %s13, %ra : tensor<16x8xf32>
  %s15 = shardc.add %s14, %tn : tensor<16x8xf32>
  %s16 = shardc.add %s15, %cr : tensor<16x8xf32>
  %s17 = shardc.add %s16, %at : tensor<16x8xf32>
  %s18 = shardc.add %s17, %rm : tensor<16x8xf32>
  return %s18 : tensor<16x8xf32>
}

// compare, select and convert keep the split of their operands across
// element types.
// CHECK-LABEL: func.func @compare_select_convert
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-SAME: -> (tensor<8x4xf32> {{.*}}, tensor<8x4xi32>
// CHECK: [[P:%[a-z0-9]+]] = shardc.compare gt, [[A]], [[B]] : tensor<8x4xf32>
// CHECK: [[S:%[a-z0-9]+]] = shardc.select [[P]], [[A]], [[B]] : tensor<8x4xi1>, tensor<8x4xf32>
// CHECK: [[I:%[a-z0-9]+]] = shardc.convert [[P]] : tensor<8x4xi1> -> tensor<8x4xi32>
// CHECK-NOT: shardc.all_
// CHECK: return [[S]], [[I]]
func.func @compare_select_convert(
    %a: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {"x"}]>},
    %b: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xi32>) {
  %p = shardc.compare gt, %a, %b : tensor<8x16xf32>
  %m = shardc.select %p, %a, %b : tensor<8x16xi1>, tensor<8x16xf32>
  %i = shardc.convert %p : tensor<8x16xi1> -> tensor<8x16xi32>
  return %m, %i : tensor<8x16xf32>, tensor<8x16xi32>
}

// Integer elementwise ops.
// CHECK-LABEL: func.func @integer_elementwise
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<2x4xi32>
// CHECK-SAME: [[B:%[a-z0-9]+]]: tensor<2x4xi32>
// CHECK: [[ONE:%[a-z0-9]+]] = shardc.constant dense<1> : tensor<2x4xi32>
// CHECK: [[D:%[a-z0-9]+]] = shardc.add [[B]], [[ONE]] : tensor<2x4xi32>
// CHECK: [[Q:%[a-z0-9]+]] = shardc.div [[A]], [[D]] : tensor<2x4xi32>
// CHECK: shardc.mul [[Q]], [[A]] : tensor<2x4xi32>
// CHECK-NOT: shardc.all_
// CHECK: return
func.func @integer_elementwise(
    %a: tensor<8x4xi32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>},
    %b: tensor<8x4xi32>) -> tensor<8x4xi32> {
  %one = shardc.constant dense<1> : tensor<8x4xi32>
  %d = shardc.add %b, %one : tensor<8x4xi32>
  %q = shardc.div %a, %d : tensor<8x4xi32>
  %s = shardc.mul %q, %a : tensor<8x4xi32>
  return %s : tensor<8x4xi32>
}

// A non-splat constant is built whole, then each device keeps its block.
// CHECK-LABEL: func.func @non_splat_constant_sliced
// CHECK-SAME: [[A:%[a-z0-9]+]]: tensor<1x2xf32>
// CHECK: [[C:%[a-z0-9]+]] = shardc.constant dense<{{.*}}> : tensor<4x2xf32>
// CHECK: [[CS:%[a-z0-9]+]] = shardc.all_slice [[C]] on @mesh_4 ["x"] dim = 0 : tensor<4x2xf32> -> tensor<1x2xf32>
// CHECK: [[M:%[a-z0-9]+]] = shardc.mul [[A]], [[CS]] : tensor<1x2xf32>
// CHECK-NOT: shardc.all_
// CHECK: return [[M]]
func.func @non_splat_constant_sliced(
    %a: tensor<4x2xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>})
    -> tensor<4x2xf32> {
  %c = shardc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %s = shardc.mul %a, %c : tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}
