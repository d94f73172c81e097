// RUN: shardc-opt %s | shardc-opt | FileCheck %s
// RUN: shardc-opt %s --mlir-print-op-generic | shardc-opt | FileCheck %s
// RUN: shardc-opt %s --mlir-print-op-generic | shardc-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of the shardc ops, meshes and sharding attributes through the
// custom and the generic syntax. The ops with a reduce-kind or
// compare-direction attribute (compare, reduce, all_reduce, reduce_scatter)
// are in ops-enum-attrs.mlir.

// CHECK: shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
// CHECK: shardc.mesh @mesh_4 = <["x"=4]>
// GENERIC: "shardc.mesh"() <{axis_names = ["data", "model"], axis_sizes = array<i64: 2, 4>, sym_name = "mesh_2x4"}> : () -> ()
// GENERIC: "shardc.mesh"() <{axis_names = ["x"], axis_sizes = array<i64: 4>, sym_name = "mesh_4"}> : () -> ()
shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
shardc.mesh @mesh_4 = <["x"=4]>

//===----------------------------------------------------------------------===//
// Sharding attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @sharding_closed
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
// GENERIC: "func.func"() <{arg_attrs = [{shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}],
// GENERIC-SAME: res_attrs = [{shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}], sym_name = "sharding_closed"}>
func.func @sharding_closed(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>}) {
  return %x : tensor<8x16xf32>
}

// Sub-axes: the two halves of "model", and an all_gather over one.
// CHECK-LABEL: func.func @sharding_sub_axes
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model":(1)2}, {"data", "model":(2)2}]>}
// CHECK: shardc.all_gather %{{.*}} on @mesh_2x4 ["model:(2)2"] dim = 1
// GENERIC: shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model":(1)2}, {"data", "model":(2)2}]>
func.func @sharding_sub_axes(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"model":(1)2}, {"data", "model":(2)2}]>}) {
  %s = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"model":(1)2}, {"model":(2)2}]>]
      out_shardings = [<@mesh_2x4, [{"model":(1)2}, {}]>] {
  ^bb0(%l: tensor<4x8xf32>):
    %g = shardc.all_gather %l on @mesh_2x4 ["model:(2)2"] dim = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
    shardc.return %g : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// CHECK-LABEL: func.func @sharding_replicated
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>})
func.func @sharding_replicated(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{}, {}]>}) {
  return %x : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @sharding_open
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x4, [{?}, {"model", ?}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", ?}, {?}]>})
// GENERIC: "func.func"() <{arg_attrs = [{shardc.sharding = #shardc.sharding<@mesh_2x4, [{?}, {"model", ?}]>}],
// GENERIC-SAME: sym_name = "sharding_open"}>
func.func @sharding_open(
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{?}, {"model", ?}]>})
    -> (tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", ?}, {?}]>}) {
  return %x : tensor<8x16xf32>
}

// Dimension 0 is split over "data" (major) then "model" (minor); the order is
// kept.
// CHECK-LABEL: func.func @sharding_multi_axis
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>}
// CHECK-SAME: {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model", "data"}]>}
// CHECK-SAME: -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model", ?}, {}]>})
func.func @sharding_multi_axis(
    %x: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>},
    %y: tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{}, {"model", "data"}]>})
    -> (tensor<16x8xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data", "model", ?}, {}]>}) {
  return %x : tensor<16x8xf32>
}

// A rank-0 tensor has a sharding with no dimensions.
// CHECK-LABEL: func.func @sharding_scalar
// CHECK-SAME: tensor<f32> {shardc.sharding = #shardc.sharding<@mesh_4, []>}
func.func @sharding_scalar(
    %x: tensor<f32> {shardc.sharding = #shardc.sharding<@mesh_4, []>}) -> tensor<f32> {
  return %x : tensor<f32>
}

// A size-0 dimension is divided by any axis.
// CHECK-LABEL: func.func @sharding_empty_dim
// CHECK-SAME: tensor<0x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}
func.func @sharding_empty_dim(
    %x: tensor<0x4xf32> {shardc.sharding = #shardc.sharding<@mesh_4, [{"x"}, {}]>}) -> tensor<0x4xf32> {
  return %x : tensor<0x4xf32>
}

// CHECK-LABEL: func.func @arg_name
// CHECK-SAME: tensor<4x16xi32> {shardc.name = "tokens"}
// CHECK-SAME: tensor<8x16xf32> {shardc.name = "x", shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {?}]>}
// GENERIC: "func.func"() <{arg_attrs = [{shardc.name = "tokens"}, {shardc.name = "x", shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {?}]>}],
// GENERIC-SAME: sym_name = "arg_name"}>
func.func @arg_name(
    %tokens: tensor<4x16xi32> {shardc.name = "tokens"},
    %x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {?}]>, shardc.name = "x"})
    -> tensor<8x16xf32> {
  return %x : tensor<8x16xf32>
}

// A partitioned function is the per-device program over a mesh: its types
// are local and the shardings of its arguments and results describe the
// global arrays, so a (4, 16) argument may carry the sharding of an (8, 16)
// array split over "data".
// CHECK-LABEL: func.func @partitioned_function
// CHECK-SAME: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>}
// CHECK-SAME: -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
// CHECK-SAME: attributes {shardc.partitioned = @mesh_2x4}
// GENERIC: "func.func"() <{arg_attrs = [{shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>}],
// GENERIC-SAME: sym_name = "partitioned_function"}>
// GENERIC: }) {shardc.partitioned = @mesh_2x4} : () -> ()
func.func @partitioned_function(
    %x: tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
    -> (tensor<4x16xf32> {shardc.sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}]>})
    attributes {shardc.partitioned = @mesh_2x4} {
  return %x : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @shardings_on_op
// CHECK-SAME: ([[X:%[^:]+]]: tensor<8x16xf32>)
// CHECK: [[Y:%.+]] = shardc.neg [[X]] {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {?}]>]} : tensor<8x16xf32>
// CHECK: [[Z:%.+]] = shardc.exp [[Y]] {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>]} : tensor<8x16xf32>
// CHECK: return [[Z]]
// GENERIC: sym_name = "shardings_on_op"
// GENERIC: "shardc.neg"(%{{.*}}) {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {?}]>]} : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @shardings_on_op(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %y = shardc.neg %x {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {?}]>]} : tensor<8x16xf32>
  %z = shardc.exp %y {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{"data", "model"}, {}]>]} : tensor<8x16xf32>
  return %z : tensor<8x16xf32>
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant
// CHECK: [[A:%.+]] = shardc.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK: [[B:%.+]] = shardc.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK: [[C:%.+]] = shardc.constant dense<[true, false]> : tensor<2xi1>
// CHECK: [[D:%.+]] = shardc.constant dense<{{\[\[}}1.500000e+00, 2.000000e+00]]> : tensor<1x2xbf16>
// CHECK: [[E:%.+]] = shardc.constant dense<7> : tensor<i64>
// CHECK: return [[A]], [[B]], [[C]], [[D]], [[E]]
// GENERIC: "shardc.constant"() <{value = dense<1.000000e+00> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
func.func @constant() -> (tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>, tensor<1x2xbf16>, tensor<i64>) {
  %a = shardc.constant dense<1.0> : tensor<4x8xf32>
  %b = shardc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %c = shardc.constant dense<[true, false]> : tensor<2xi1>
  %d = shardc.constant dense<[[1.5, 2.0]]> : tensor<1x2xbf16>
  %e = shardc.constant dense<7> : tensor<i64>
  return %a, %b, %c, %d, %e : tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>, tensor<1x2xbf16>, tensor<i64>
}

// CHECK-LABEL: func.func @iota
// CHECK: [[I:%.+]] = shardc.iota dim = 1 : tensor<2x3xi32>
// CHECK: [[F:%.+]] = shardc.iota dim = 0 : tensor<5xf32>
// CHECK: return [[I]], [[F]]
// GENERIC: "shardc.iota"() <{dim = 1 : i64}> : () -> tensor<2x3xi32>
func.func @iota() -> (tensor<2x3xi32>, tensor<5xf32>) {
  %i = shardc.iota dim = 1 : tensor<2x3xi32>
  %f = shardc.iota dim = 0 : tensor<5xf32>
  return %i, %f : tensor<2x3xi32>, tensor<5xf32>
}

// CHECK-LABEL: func.func @argmax
// CHECK: [[A:%.+]] = shardc.argmax %{{.*}} dim = 1 : (tensor<4x256xf32>) -> tensor<4xi32>
// CHECK: [[B:%.+]] = shardc.argmax %{{.*}} dim = 0 : (tensor<3x5x2xbf16>) -> tensor<5x2xi32>
// CHECK: return [[A]], [[B]]
// GENERIC: "shardc.argmax"(%{{.*}}) <{dim = 1 : i64}> : (tensor<4x256xf32>) -> tensor<4xi32>
func.func @argmax(%logits: tensor<4x256xf32>, %x: tensor<3x5x2xbf16>)
    -> (tensor<4xi32>, tensor<5x2xi32>) {
  %a = shardc.argmax %logits dim = 1 : (tensor<4x256xf32>) -> tensor<4xi32>
  %b = shardc.argmax %x dim = 0 : (tensor<3x5x2xbf16>) -> tensor<5x2xi32>
  return %a, %b : tensor<4xi32>, tensor<5x2xi32>
}

// CHECK-LABEL: func.func @attention
// CHECK: [[A:%.+]] = shardc.attention %{{.*}}, %{{.*}}, %{{.*}} lengths %{{.*}} causal = false scale = 1.250000e-01 : (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2xi32>) -> tensor<2x1x4x8xf32>
// CHECK: [[B:%.+]] = shardc.attention %{{.*}}, %{{.*}}, %{{.*}} causal = true scale = 5.000000e-01 : (tensor<2x16x4x8xf64>, tensor<2x16x4x8xf64>, tensor<2x16x4x8xf64>) -> tensor<2x16x4x8xf64>
// CHECK: return [[A]], [[B]]
// GENERIC: "shardc.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{causal = false, scale = 1.250000e-01 : f64}> : (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2xi32>) -> tensor<2x1x4x8xf32>
func.func @attention(%q: tensor<2x1x4x8xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x8xf32>,
                     %len: tensor<2xi32>, %x: tensor<2x16x4x8xf64>)
    -> (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf64>) {
  %a = shardc.attention %q, %k, %v lengths %len causal = false scale = 0.125
       : (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2xi32>)
       -> tensor<2x1x4x8xf32>
  %b = shardc.attention %x, %x, %x causal = true scale = 0.5
       : (tensor<2x16x4x8xf64>, tensor<2x16x4x8xf64>, tensor<2x16x4x8xf64>) -> tensor<2x16x4x8xf64>
  return %a, %b : tensor<2x1x4x8xf32>, tensor<2x16x4x8xf64>
}

// CHECK-LABEL: func.func @attention_grad
// CHECK: [[G:%.+]] = shardc.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lengths %{{.*}} causal = true scale = 1.250000e-01 : (tensor<2x3x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x3x4x8xf32>, tensor<2xi32>) -> tensor<2x13x4x8xf32>
// CHECK: [[H:%.+]] = shardc.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} causal = false scale = 5.000000e-01 : (tensor<1x4x2x2xf64>, tensor<1x4x2x2xf64>, tensor<1x4x2x2xf64>, tensor<1x4x2x2xf64>) -> tensor<1x12x2x2xf64>
// CHECK: return [[G]], [[H]]
// GENERIC: "shardc.attention_grad"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{causal = true, scale = 1.250000e-01 : f64}> : (tensor<2x3x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x3x4x8xf32>, tensor<2xi32>) -> tensor<2x13x4x8xf32>
func.func @attention_grad(%q: tensor<2x3x4x8xf32>, %k: tensor<2x5x4x8xf32>, %dy: tensor<2x3x4x8xf32>,
                          %len: tensor<2xi32>, %x: tensor<1x4x2x2xf64>)
    -> (tensor<2x13x4x8xf32>, tensor<1x12x2x2xf64>) {
  %g = shardc.attention_grad %q, %k, %k, %dy lengths %len causal = true scale = 0.125
       : (tensor<2x3x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x3x4x8xf32>,
          tensor<2xi32>) -> tensor<2x13x4x8xf32>
  %h = shardc.attention_grad %x, %x, %x, %x causal = false scale = 0.5
       : (tensor<1x4x2x2xf64>, tensor<1x4x2x2xf64>, tensor<1x4x2x2xf64>, tensor<1x4x2x2xf64>)
       -> tensor<1x12x2x2xf64>
  return %g, %h : tensor<2x13x4x8xf32>, tensor<1x12x2x2xf64>
}

// CHECK-LABEL: func.func @qkv_attention
// CHECK: [[Y:%.+]] = shardc.qkv_attention %{{.*}} causal = true scale = 1.250000e-01 : (tensor<2x16x3x4x8xf32>) -> tensor<2x16x4x8xf32>
// CHECK: [[G:%.+]] = shardc.qkv_attention_grad %{{.*}}, [[Y]] causal = false scale = 3.000000e-01 : (tensor<2x16x3x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x16x3x4x8xf32>
// CHECK: return [[Y]], [[G]]
// GENERIC: "shardc.qkv_attention"(%{{.*}}) <{causal = true, scale = 1.250000e-01 : f64}> : (tensor<2x16x3x4x8xf32>) -> tensor<2x16x4x8xf32>
// GENERIC: "shardc.qkv_attention_grad"(%{{.*}}, %{{.*}}) <{causal = false, scale = 3.000000e-01 : f64}>
func.func @qkv_attention(%qkv: tensor<2x16x3x4x8xf32>)
    -> (tensor<2x16x4x8xf32>, tensor<2x16x3x4x8xf32>) {
  %y = shardc.qkv_attention %qkv causal = true scale = 0.125
       : (tensor<2x16x3x4x8xf32>) -> tensor<2x16x4x8xf32>
  %g = shardc.qkv_attention_grad %qkv, %y causal = false scale = 0.3
       : (tensor<2x16x3x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x16x3x4x8xf32>
  return %y, %g : tensor<2x16x4x8xf32>, tensor<2x16x3x4x8xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: ([[X:%[^:]+]]: tensor<4x8xf32>)
// CHECK: [[NEG:%.+]] = shardc.neg [[X]] : tensor<4x8xf32>
// CHECK: [[ABS:%.+]] = shardc.abs [[NEG]] : tensor<4x8xf32>
// CHECK: [[EXP:%.+]] = shardc.exp [[ABS]] : tensor<4x8xf32>
// CHECK: [[LOG:%.+]] = shardc.log [[EXP]] : tensor<4x8xf32>
// CHECK: [[TANH:%.+]] = shardc.tanh [[LOG]] : tensor<4x8xf32>
// CHECK: [[SQRT:%.+]] = shardc.sqrt [[TANH]] : tensor<4x8xf32>
// CHECK: [[RSQRT:%.+]] = shardc.rsqrt [[SQRT]] : tensor<4x8xf32>
// CHECK: [[ERF:%.+]] = shardc.erf [[RSQRT]] : tensor<4x8xf32>
// CHECK: return [[ERF]]
// GENERIC: "shardc.erf"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @unary_float(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %neg = shardc.neg %x : tensor<4x8xf32>
  %abs = shardc.abs %neg : tensor<4x8xf32>
  %exp = shardc.exp %abs : tensor<4x8xf32>
  %log = shardc.log %exp : tensor<4x8xf32>
  %tanh = shardc.tanh %log : tensor<4x8xf32>
  %sqrt = shardc.sqrt %tanh : tensor<4x8xf32>
  %rsqrt = shardc.rsqrt %sqrt : tensor<4x8xf32>
  %erf = shardc.erf %rsqrt : tensor<4x8xf32>
  return %erf : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @unary_other_types
// CHECK-SAME: ([[I:%[^:]+]]: tensor<4xi32>, [[H:%[^:]+]]: tensor<2x2xbf16>)
// CHECK: [[NEG:%.+]] = shardc.neg [[I]] : tensor<4xi32>
// CHECK: [[ABS:%.+]] = shardc.abs [[NEG]] : tensor<4xi32>
// CHECK: [[EXP:%.+]] = shardc.exp [[H]] : tensor<2x2xbf16>
// CHECK: return [[ABS]], [[EXP]]
func.func @unary_other_types(%i: tensor<4xi32>, %h: tensor<2x2xbf16>) -> (tensor<4xi32>, tensor<2x2xbf16>) {
  %neg = shardc.neg %i : tensor<4xi32>
  %abs = shardc.abs %neg : tensor<4xi32>
  %exp = shardc.exp %h : tensor<2x2xbf16>
  return %abs, %exp : tensor<4xi32>, tensor<2x2xbf16>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: ([[X:%[^:]+]]: tensor<4x8xf32>, [[Y:%[^:]+]]: tensor<4x8xf32>)
// CHECK: [[ADD:%.+]] = shardc.add [[X]], [[Y]] : tensor<4x8xf32>
// CHECK: [[SUB:%.+]] = shardc.sub [[ADD]], [[Y]] : tensor<4x8xf32>
// CHECK: [[MUL:%.+]] = shardc.mul [[SUB]], [[X]] : tensor<4x8xf32>
// CHECK: [[DIV:%.+]] = shardc.div [[MUL]], [[Y]] : tensor<4x8xf32>
// CHECK: [[MAX:%.+]] = shardc.max [[DIV]], [[X]] : tensor<4x8xf32>
// CHECK: [[MIN:%.+]] = shardc.min [[MAX]], [[Y]] : tensor<4x8xf32>
// CHECK: [[POW:%.+]] = shardc.pow [[MIN]], [[X]] : tensor<4x8xf32>
// CHECK: return [[POW]]
// GENERIC: "shardc.pow"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %add = shardc.add %x, %y : tensor<4x8xf32>
  %sub = shardc.sub %add, %y : tensor<4x8xf32>
  %mul = shardc.mul %sub, %x : tensor<4x8xf32>
  %div = shardc.div %mul, %y : tensor<4x8xf32>
  %max = shardc.max %div, %x : tensor<4x8xf32>
  %min = shardc.min %max, %y : tensor<4x8xf32>
  %pow = shardc.pow %min, %x : tensor<4x8xf32>
  return %pow : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @binary_int
// CHECK-SAME: ([[X:%[^:]+]]: tensor<3xi64>, [[Y:%[^:]+]]: tensor<3xi64>)
// CHECK: [[ADD:%.+]] = shardc.add [[X]], [[Y]] : tensor<3xi64>
// CHECK: [[DIV:%.+]] = shardc.div [[ADD]], [[Y]] : tensor<3xi64>
// CHECK: return [[DIV]]
func.func @binary_int(%x: tensor<3xi64>, %y: tensor<3xi64>) -> tensor<3xi64> {
  %add = shardc.add %x, %y : tensor<3xi64>
  %div = shardc.div %add, %y : tensor<3xi64>
  return %div : tensor<3xi64>
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: ([[P:%[^:]+]]: tensor<4xi1>, [[X:%[^:]+]]: tensor<4xf32>, [[Y:%[^:]+]]: tensor<4xf32>)
// CHECK: [[S:%.+]] = shardc.select [[P]], [[X]], [[Y]] : tensor<4xi1>, tensor<4xf32>
// CHECK: return [[S]]
// GENERIC: "shardc.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @select(%p: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = shardc.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @convert
// CHECK-SAME: ([[I:%[^:]+]]: tensor<4xi32>)
// CHECK: [[F:%.+]] = shardc.convert [[I]] : tensor<4xi32> -> tensor<4xf32>
// CHECK: [[H:%.+]] = shardc.convert [[F]] : tensor<4xf32> -> tensor<4xbf16>
// CHECK: [[P:%.+]] = shardc.convert [[F]] : tensor<4xf32> -> tensor<4xi1>
// CHECK: return [[H]], [[P]]
func.func @convert(%i: tensor<4xi32>) -> (tensor<4xbf16>, tensor<4xi1>) {
  %f = shardc.convert %i : tensor<4xi32> -> tensor<4xf32>
  %h = shardc.convert %f : tensor<4xf32> -> tensor<4xbf16>
  %p = shardc.convert %f : tensor<4xf32> -> tensor<4xi1>
  return %h, %p : tensor<4xbf16>, tensor<4xi1>
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dot_general_matmul
// CHECK-SAME: ([[A:%[^:]+]]: tensor<8x16xf32>, [[B:%[^:]+]]: tensor<16x4xf32>)
// CHECK: [[C:%.+]] = shardc.dot_general [[A]], [[B]] contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK: return [[C]]
// GENERIC: "shardc.dot_general"(%{{.*}}, %{{.*}}) <{lhs_batching_dims = array<i64>, lhs_contracting_dims = array<i64: 1>, rhs_batching_dims = array<i64>, rhs_contracting_dims = array<i64: 0>}> : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
func.func @dot_general_matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// A product's precision: bf16 operands, f32 sums.
// CHECK-LABEL: func.func @dot_general_precision
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} contracting_dims = [1] x [0] precision = "bf16" : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} batching_dims = [0] x [0], contracting_dims = [2] x [1] precision = "tf32" :
// GENERIC: "shardc.dot_general"(%{{.*}}, %{{.*}}) <{lhs_batching_dims = array<i64>, lhs_contracting_dims = array<i64: 1>, precision = "bf16", rhs_batching_dims = array<i64>, rhs_contracting_dims = array<i64: 0>}>
func.func @dot_general_precision(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>,
                                 %x: tensor<2x4x8xf32>, %y: tensor<2x8x16xf32>)
    -> (tensor<8x4xf32>, tensor<2x4x16xf32>) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %d = shardc.dot_general %x, %y batching_dims = [0] x [0], contracting_dims = [2] x [1]
         precision = "tf32" : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c, %d : tensor<8x4xf32>, tensor<2x4x16xf32>
}

// A bf16 product of operands stored rounded, one or both: f32 sums.
// CHECK-LABEL: func.func @dot_general_bf16_operands
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} contracting_dims = [1] x [0] precision = "bf16" : (tensor<8x16xbf16>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} contracting_dims = [1] x [0] precision = "bf16" : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
func.func @dot_general_bf16_operands(%a: tensor<8x16xbf16>, %b: tensor<16x4xf32>,
                                     %h: tensor<16x4xbf16>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xbf16>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %d = shardc.dot_general %a, %h contracting_dims = [1] x [0] precision = "bf16"
      : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  return %c, %d : tensor<8x4xf32>, tensor<8x4xf32>
}

// (B, M, K) x (B, K, N) -> (B, M, N)
// CHECK-LABEL: func.func @dot_general_batched
// CHECK-SAME: ([[A:%[^:]+]]: tensor<2x4x8xf32>, [[B:%[^:]+]]: tensor<2x8x16xf32>)
// CHECK: [[C:%.+]] = shardc.dot_general [[A]], [[B]] batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK: return [[C]]
// GENERIC: "shardc.dot_general"(%{{.*}}, %{{.*}}) <{lhs_batching_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_batching_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>}> : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
func.func @dot_general_batched(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %c = shardc.dot_general %a, %b batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// Batching dims come first in the result, whatever their position in the
// operands; attention scores (B, T, H, D) x (B, S, H, D) -> (B, H, T, S).
// CHECK-LABEL: func.func @dot_general_batched_inner_dims
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>) -> tensor<2x4x8x6xf32>
func.func @dot_general_batched_inner_dims(%q: tensor<2x8x4x16xf32>, %k: tensor<2x6x4x16xf32>) -> tensor<2x4x8x6xf32> {
  %s = shardc.dot_general %q, %k batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]
      : (tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>) -> tensor<2x4x8x6xf32>
  return %s : tensor<2x4x8x6xf32>
}

// CHECK-LABEL: func.func @dot_general_multi_contracting
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} contracting_dims = [1, 2] x [0, 1] : (tensor<4x2x3xi32>, tensor<2x3x5xi32>) -> tensor<4x5xi32>
func.func @dot_general_multi_contracting(%a: tensor<4x2x3xi32>, %b: tensor<2x3x5xi32>) -> tensor<4x5xi32> {
  %c = shardc.dot_general %a, %b contracting_dims = [1, 2] x [0, 1]
      : (tensor<4x2x3xi32>, tensor<2x3x5xi32>) -> tensor<4x5xi32>
  return %c : tensor<4x5xi32>
}

// No contracting dims: an outer product.
// CHECK-LABEL: func.func @dot_general_outer
// CHECK: shardc.dot_general %{{.*}}, %{{.*}} contracting_dims = [] x [] : (tensor<4xf32>, tensor<3xf32>) -> tensor<4x3xf32>
func.func @dot_general_outer(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %c = shardc.dot_general %a, %b contracting_dims = [] x []
      : (tensor<4xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: ([[B:%[^:]+]]: tensor<8xf32>, [[R:%[^:]+]]: tensor<1x8xf32>, [[S:%[^:]+]]: tensor<f32>)
// CHECK: [[X:%.+]] = shardc.broadcast_in_dim [[B]], dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: [[Y:%.+]] = shardc.broadcast_in_dim [[R]], dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
// CHECK: [[Z:%.+]] = shardc.broadcast_in_dim [[S]], dims = [] : (tensor<f32>) -> tensor<4x8xf32>
// CHECK: return [[X]], [[Y]], [[Z]]
// GENERIC: "shardc.broadcast_in_dim"(%{{.*}}) <{dims = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
func.func @broadcast_in_dim(%b: tensor<8xf32>, %r: tensor<1x8xf32>, %s: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %x = shardc.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %y = shardc.broadcast_in_dim %r, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
  %z = shardc.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  return %x, %y, %z : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: ([[X:%[^:]+]]: tensor<4x8xf32>)
// CHECK: [[Y:%.+]] = shardc.reshape [[X]] : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK: [[Z:%.+]] = shardc.reshape [[Y]] : (tensor<32xf32>) -> tensor<2x4x4xf32>
// CHECK: return [[Z]]
// GENERIC: "shardc.reshape"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<32xf32>
func.func @reshape(%x: tensor<4x8xf32>) -> tensor<2x4x4xf32> {
  %y = shardc.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
  %z = shardc.reshape %y : (tensor<32xf32>) -> tensor<2x4x4xf32>
  return %z : tensor<2x4x4xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: ([[X:%[^:]+]]: tensor<2x4x8xf32>)
// CHECK: [[Y:%.+]] = shardc.transpose [[X]], permutation = [2, 0, 1] : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
// CHECK: return [[Y]]
// GENERIC: "shardc.transpose"(%{{.*}}) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
func.func @transpose(%x: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  %y = shardc.transpose %x, permutation = [2, 0, 1] : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
  return %y : tensor<8x2x4xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: ([[X:%[^:]+]]: tensor<4x8xf32>)
// CHECK: [[Y:%.+]] = shardc.slice [[X]], start = [0, 2], limit = [4, 8], strides = [1, 2] : (tensor<4x8xf32>) -> tensor<4x3xf32>
// CHECK: [[Z:%.+]] = shardc.slice [[X]], start = [1, 3], limit = [1, 8], strides = [1, 3] : (tensor<4x8xf32>) -> tensor<0x2xf32>
// CHECK: return [[Y]], [[Z]]
// GENERIC: "shardc.slice"(%{{.*}}) <{limit = array<i64: 4, 8>, start = array<i64: 0, 2>, strides = array<i64: 1, 2>}> : (tensor<4x8xf32>) -> tensor<4x3xf32>
func.func @slice(%x: tensor<4x8xf32>) -> (tensor<4x3xf32>, tensor<0x2xf32>) {
  %y = shardc.slice %x, start = [0, 2], limit = [4, 8], strides = [1, 2]
      : (tensor<4x8xf32>) -> tensor<4x3xf32>
  %z = shardc.slice %x, start = [1, 3], limit = [1, 8], strides = [1, 3]
      : (tensor<4x8xf32>) -> tensor<0x2xf32>
  return %y, %z : tensor<4x3xf32>, tensor<0x2xf32>
}

// CHECK-LABEL: func.func @dynamic_slices
// CHECK-SAME: ([[K:%[^:]+]]: tensor<1x4x128x64xf32> {shardc.donated}, [[U:%[^:]+]]: tensor<1x4x1x64xf32>, [[P:%[^:]+]]: tensor<i32>, [[Z:%[^:]+]]: tensor<i32>)
// CHECK: [[K2:%.+]] = shardc.dynamic_update_slice [[K]], [[U]] {{\[}}[[Z]], [[Z]], [[P]], [[Z]]{{\]}} : (tensor<1x4x128x64xf32>, tensor<1x4x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x128x64xf32>
// CHECK: [[R:%.+]] = shardc.dynamic_slice [[K2]] {{\[}}[[Z]], [[Z]], [[P]], [[Z]]{{\]}} : (tensor<1x4x128x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x64xf32>
// CHECK: return [[K2]], [[R]]
// GENERIC: "shardc.dynamic_update_slice"(%{{.*}}) : (tensor<1x4x128x64xf32>, tensor<1x4x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x128x64xf32>
// GENERIC: "shardc.dynamic_slice"(%{{.*}}) : (tensor<1x4x128x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x2x64xf32>
func.func @dynamic_slices(%k: tensor<1x4x128x64xf32> {shardc.donated}, %u: tensor<1x4x1x64xf32>,
                          %pos: tensor<i32>, %zero: tensor<i32>)
    -> (tensor<1x4x128x64xf32>, tensor<1x4x2x64xf32>) {
  %k2 = shardc.dynamic_update_slice %k, %u [%zero, %zero, %pos, %zero]
      : (tensor<1x4x128x64xf32>, tensor<1x4x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>,
         tensor<i32>) -> tensor<1x4x128x64xf32>
  %r = shardc.dynamic_slice %k2 [%zero, %zero, %pos, %zero]
      : (tensor<1x4x128x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
      -> tensor<1x4x2x64xf32>
  return %k2, %r : tensor<1x4x128x64xf32>, tensor<1x4x2x64xf32>
}

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: ([[A:%[^:]+]]: tensor<2x8xf32>, [[B:%[^:]+]]: tensor<3x8xf32>, [[C:%[^:]+]]: tensor<1x8xf32>)
// CHECK: [[X:%.+]] = shardc.concatenate [[A]], [[B]], [[C]] dim = 0 : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<1x8xf32>) -> tensor<6x8xf32>
// CHECK: [[Y:%.+]] = shardc.concatenate [[A]], [[A]] dim = 1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x16xf32>
// CHECK: [[Z:%.+]] = shardc.concatenate [[C]] dim = 0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
// CHECK: return [[X]], [[Y]], [[Z]]
// GENERIC: "shardc.concatenate"(%{{.*}}, %{{.*}}, %{{.*}}) <{dim = 0 : i64}> : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<1x8xf32>) -> tensor<6x8xf32>
func.func @concatenate(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>, %c: tensor<1x8xf32>)
    -> (tensor<6x8xf32>, tensor<2x16xf32>, tensor<1x8xf32>) {
  %x = shardc.concatenate %a, %b, %c dim = 0
      : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<1x8xf32>) -> tensor<6x8xf32>
  %y = shardc.concatenate %a, %a dim = 1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x16xf32>
  %z = shardc.concatenate %c dim = 0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %x, %y, %z : tensor<6x8xf32>, tensor<2x16xf32>, tensor<1x8xf32>
}

// CHECK-LABEL: func.func @take
// CHECK-SAME: ([[WTE:%[^:]+]]: tensor<256x64xf32>, [[TOK:%[^:]+]]: tensor<4x16xi32>, [[IDX:%[^:]+]]: tensor<3xi64>)
// CHECK: [[E:%.+]] = shardc.take [[WTE]], [[TOK]] : (tensor<256x64xf32>, tensor<4x16xi32>) -> tensor<4x16x64xf32>
// CHECK: [[R:%.+]] = shardc.take [[WTE]], [[IDX]] : (tensor<256x64xf32>, tensor<3xi64>) -> tensor<3x64xf32>
// CHECK: return [[E]], [[R]]
// GENERIC: "shardc.take"(%{{.*}}, %{{.*}}) : (tensor<256x64xf32>, tensor<4x16xi32>) -> tensor<4x16x64xf32>
func.func @take(%wte: tensor<256x64xf32>, %tokens: tensor<4x16xi32>, %idx: tensor<3xi64>)
    -> (tensor<4x16x64xf32>, tensor<3x64xf32>) {
  %e = shardc.take %wte, %tokens : (tensor<256x64xf32>, tensor<4x16xi32>) -> tensor<4x16x64xf32>
  %r = shardc.take %wte, %idx : (tensor<256x64xf32>, tensor<3xi64>) -> tensor<3x64xf32>
  return %e, %r : tensor<4x16x64xf32>, tensor<3x64xf32>
}

// CHECK-LABEL: func.func @take_scalar_rows
// CHECK: shardc.take %{{.*}}, %{{.*}} : (tensor<10xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
func.func @take_scalar_rows(%t: tensor<10xf32>, %i: tensor<2x3xi32>) -> tensor<2x3xf32> {
  %r = shardc.take %t, %i : (tensor<10xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: ([[Z:%[^:]+]]: tensor<256x64xf32>, [[TOK:%[^:]+]]: tensor<4x16xi32>, [[D:%[^:]+]]: tensor<4x16x64xf32>)
// CHECK: [[G:%.+]] = shardc.scatter_add [[Z]], [[TOK]], [[D]] : (tensor<256x64xf32>, tensor<4x16xi32>, tensor<4x16x64xf32>) -> tensor<256x64xf32>
// CHECK: return [[G]]
// GENERIC: "shardc.scatter_add"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<256x64xf32>, tensor<4x16xi32>, tensor<4x16x64xf32>) -> tensor<256x64xf32>
func.func @scatter_add(%zeros: tensor<256x64xf32>, %tokens: tensor<4x16xi32>, %d: tensor<4x16x64xf32>)
    -> tensor<256x64xf32> {
  %g = shardc.scatter_add %zeros, %tokens, %d
      : (tensor<256x64xf32>, tensor<4x16xi32>, tensor<4x16x64xf32>) -> tensor<256x64xf32>
  return %g : tensor<256x64xf32>
}

//===----------------------------------------------------------------------===//
// Sharding ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @sharding_constraint
// CHECK-SAME: ([[X:%[^:]+]]: tensor<8x16xf32>)
// CHECK: [[Y:%.+]] = shardc.sharding_constraint [[X]] <@mesh_2x4, [{"data"}, {?}]> : tensor<8x16xf32>
// CHECK: [[Z:%.+]] = shardc.sharding_constraint [[Y]] <@mesh_2x4, [{"data", "model"}, {}]> : tensor<8x16xf32>
// CHECK: [[W:%.+]] = shardc.sharding_constraint [[Z]] <@mesh_4, [{}, {"x", ?}]> : tensor<8x16xf32>
// CHECK: [[P:%.+]] = shardc.sharding_constraint [[W]] <@mesh_2x4, [{"data"}, {}], partial = {"model"}> : tensor<8x16xf32>
// CHECK: [[Q:%.+]] = shardc.sharding_constraint [[P]] <@mesh_2x4, [{"data"}p0, {"model", ?}p2]> : tensor<8x16xf32>
// CHECK: return [[Q]]
// GENERIC: "shardc.sharding_constraint"(%{{.*}}) <{sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {?}]>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC: "shardc.sharding_constraint"(%{{.*}}) <{sharding = #shardc.sharding<@mesh_2x4, [{"data"}, {}], partial = {"model"}>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @sharding_constraint(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %y = shardc.sharding_constraint %x <@mesh_2x4, [{"data"}, {?}]> : tensor<8x16xf32>
  %z = shardc.sharding_constraint %y <@mesh_2x4, [{"data", "model"}, {}]> : tensor<8x16xf32>
  %w = shardc.sharding_constraint %z <@mesh_4, [{}, {"x", ?}]> : tensor<8x16xf32>
  %p = shardc.sharding_constraint %w <@mesh_2x4, [{"data"}, {}], partial = {"model"}> : tensor<8x16xf32>
  %q = shardc.sharding_constraint %p <@mesh_2x4, [{"data"}p0, {"model", ?}p2]> : tensor<8x16xf32>
  return %q : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @shard_map
// CHECK-SAME: ([[X:%[^:]+]]: tensor<8x16xf32>)
// CHECK: [[R:%.+]] = shardc.shard_map([[X]]) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>] out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
// CHECK-NEXT: ^bb0([[L:%[^:]+]]: tensor<4x4xf32>):
// CHECK-NEXT: [[G:%.+]] = shardc.all_gather [[L]] on @mesh_2x4 ["model"] dim = 1 : tensor<4x4xf32> -> tensor<4x16xf32>
// CHECK-NEXT: shardc.return [[G]] : tensor<4x16xf32>
// CHECK-NEXT: } : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: return [[R]]
// GENERIC: "shardc.shard_map"(%{{.*}}) <{in_shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {"model"}]>], out_shardings = [#shardc.sharding<@mesh_2x4, [{"data"}, {}]>]}> ({
// GENERIC: "shardc.return"(%{{.*}}) : (tensor<4x16xf32>) -> ()
// GENERIC: }) : (tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @shard_map(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_2x4, [{"data"}, {"model"}]>]
      out_shardings = [<@mesh_2x4, [{"data"}, {}]>] {
  ^bb0(%l: tensor<4x4xf32>):
    %g = shardc.all_gather %l on @mesh_2x4 ["model"] dim = 1 : tensor<4x4xf32> -> tensor<4x16xf32>
    shardc.return %g : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Two inputs, two results, multi-axis and replicated shardings, and an
// operation with shardc.shardings inside the body.
// CHECK-LABEL: func.func @shard_map_two_results
// CHECK-SAME: ([[X:%[^:]+]]: tensor<16x4xf32>, [[Y:%[^:]+]]: tensor<4xf32>)
// CHECK: [[R:%.+]]:2 = shardc.shard_map([[X]], [[Y]]) in_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>, <@mesh_2x4, [{}]>] out_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>, <@mesh_2x4, [{"model"}]>] {
// CHECK-NEXT: ^bb0([[LX:%[^:]+]]: tensor<2x4xf32>, [[LY:%[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: [[N:%.+]] = shardc.neg [[LX]] {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{}, {}]>]} : tensor<2x4xf32>
// CHECK-NEXT: [[S:%.+]] = shardc.slice [[LY]], start = [0], limit = [1], strides = [1] : (tensor<4xf32>) -> tensor<1xf32>
// CHECK-NEXT: shardc.return [[N]], [[S]] : tensor<2x4xf32>, tensor<1xf32>
// CHECK-NEXT: } : (tensor<16x4xf32>, tensor<4xf32>) -> (tensor<16x4xf32>, tensor<4xf32>)
// CHECK: return [[R]]#0, [[R]]#1
func.func @shard_map_two_results(%x: tensor<16x4xf32>, %y: tensor<4xf32>) -> (tensor<16x4xf32>, tensor<4xf32>) {
  %r:2 = shardc.shard_map (%x, %y)
      in_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>, <@mesh_2x4, [{}]>]
      out_shardings = [<@mesh_2x4, [{"data", "model"}, {}]>, <@mesh_2x4, [{"model"}]>] {
  ^bb0(%lx: tensor<2x4xf32>, %ly: tensor<4xf32>):
    %n = shardc.neg %lx {shardc.shardings = [#shardc.sharding<@mesh_2x4, [{}, {}]>]} : tensor<2x4xf32>
    %s = shardc.slice %ly, start = [0], limit = [1], strides = [1] : (tensor<4xf32>) -> tensor<1xf32>
    shardc.return %n, %s : tensor<2x4xf32>, tensor<1xf32>
  } : (tensor<16x4xf32>, tensor<4xf32>) -> (tensor<16x4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<16x4xf32>, tensor<4xf32>
}

// With no inputs and no results there is nothing to shard; the return is
// implicit.
// CHECK-LABEL: func.func @shard_map_empty
// CHECK: shardc.shard_map() in_shardings = [] out_shardings = [] {
// CHECK-NEXT: } : () -> ()
// GENERIC: sym_name = "shard_map_empty"
// GENERIC: "shardc.shard_map"() <{in_shardings = [], out_shardings = []}> ({
// GENERIC-NEXT: "shardc.return"() : () -> ()
func.func @shard_map_empty() {
  shardc.shard_map () in_shardings = [] out_shardings = [] {
  } : () -> ()
  return
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: ([[X:%[^:]+]]: tensor<2x8xf32>)
// CHECK: [[Y:%.+]] = shardc.all_gather [[X]] on @mesh_2x4 ["data"] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK: [[Z:%.+]] = shardc.all_gather [[X]] on @mesh_2x4 ["data", "model"] dim = 1 : tensor<2x8xf32> -> tensor<2x64xf32>
// CHECK: return [[Y]], [[Z]]
// GENERIC: "shardc.all_gather"(%{{.*}}) <{axes = ["data"], dim = 0 : i64, mesh = @mesh_2x4}> : (tensor<2x8xf32>) -> tensor<4x8xf32>
func.func @all_gather(%x: tensor<2x8xf32>) -> (tensor<4x8xf32>, tensor<2x64xf32>) {
  %y = shardc.all_gather %x on @mesh_2x4 ["data"] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %z = shardc.all_gather %x on @mesh_2x4 ["data", "model"] dim = 1 : tensor<2x8xf32> -> tensor<2x64xf32>
  return %y, %z : tensor<4x8xf32>, tensor<2x64xf32>
}

// CHECK-LABEL: func.func @all_slice
// CHECK-SAME: ([[X:%[^:]+]]: tensor<8x8xf32>)
// CHECK: [[Y:%.+]] = shardc.all_slice [[X]] on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK: [[Z:%.+]] = shardc.all_slice [[X]] on @mesh_2x4 ["model", "data"] dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
// CHECK: return [[Y]], [[Z]]
// GENERIC: "shardc.all_slice"(%{{.*}}) <{axes = ["data"], dim = 0 : i64, mesh = @mesh_2x4}> : (tensor<8x8xf32>) -> tensor<4x8xf32>
func.func @all_slice(%x: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<8x1xf32>) {
  %y = shardc.all_slice %x on @mesh_2x4 ["data"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %z = shardc.all_slice %x on @mesh_2x4 ["model", "data"] dim = 1 : tensor<8x8xf32> -> tensor<8x1xf32>
  return %y, %z : tensor<4x8xf32>, tensor<8x1xf32>
}

// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME: ([[X:%[^:]+]]: tensor<2x8xf32>)
// CHECK: [[Y:%.+]] = shardc.all_to_all [[X]] on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
// CHECK: [[Z:%.+]] = shardc.all_to_all [[X]] on @mesh_4 ["x"] split_dim = 1 concat_dim = 1 : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK: return [[Y]], [[Z]]
// GENERIC: "shardc.all_to_all"(%{{.*}}) <{axes = ["model"], concat_dim = 0 : i64, mesh = @mesh_2x4, split_dim = 1 : i64}> : (tensor<2x8xf32>) -> tensor<8x2xf32>
func.func @all_to_all(%x: tensor<2x8xf32>) -> (tensor<8x2xf32>, tensor<2x8xf32>) {
  %y = shardc.all_to_all %x on @mesh_2x4 ["model"] split_dim = 1 concat_dim = 0
      : tensor<2x8xf32> -> tensor<8x2xf32>
  %z = shardc.all_to_all %x on @mesh_4 ["x"] split_dim = 1 concat_dim = 1
      : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y, %z : tensor<8x2xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @collective_permute
// CHECK: shardc.collective_permute {{%.+}} on @mesh_2x4 ["data", "model"] sources = [4, 5, 6, 7, 0, 1, 2, 3] : tensor<2x8xf32>
// GENERIC: "shardc.collective_permute"(%{{.*}}) <{axes = ["data", "model"], mesh = @mesh_2x4, sources = array<i64: 4, 5, 6, 7, 0, 1, 2, 3>}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @collective_permute(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = shardc.collective_permute %x on @mesh_2x4 ["data", "model"] sources = [4, 5, 6, 7, 0, 1, 2, 3]
      : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// Moving the split of a (2, 8) block from dimension 0 to dimension 1 inside a
// shard_map.
// CHECK-LABEL: func.func @all_to_all_in_shard_map
// CHECK: shardc.shard_map(%{{.*}}) in_shardings = [<@mesh_4, [{"x"}, {}]>] out_shardings = [<@mesh_4, [{}, {"x"}]>] {
// CHECK: shardc.all_to_all %{{.*}} on @mesh_4 ["x"] split_dim = 1 concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
func.func @all_to_all_in_shard_map(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = shardc.shard_map (%x) in_shardings = [<@mesh_4, [{"x"}, {}]>]
      out_shardings = [<@mesh_4, [{}, {"x"}]>] {
  ^bb0(%l: tensor<2x8xf32>):
    %t = shardc.all_to_all %l on @mesh_4 ["x"] split_dim = 1 concat_dim = 0
        : tensor<2x8xf32> -> tensor<8x2xf32>
    shardc.return %t : tensor<8x2xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
