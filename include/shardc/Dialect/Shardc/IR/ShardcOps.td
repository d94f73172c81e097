//===- ShardcOps.td - shardc operations ---------------------*- tablegen -*-===//
//
// Every operation of the dialect. Each has a summary, its operands and
// attributes, and an IR example; the dialect reference in docs/ is generated
// from this file.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_TD
#define SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_TD

include "shardc/Dialect/Shardc/IR/ShardcBase.td"
include "shardc/Dialect/Shardc/IR/ShardcAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "shardc/Dialect/Shardc/Interfaces/ShardingRuleOpInterface.td"

defvar ShardingRule = DeclareOpInterfaceMethods<Shardc_ShardingRuleOpInterface>;
// Ops whose per-device copy rewrites attributes that depend on shapes.
defvar ShardingRuleLocalized =
    DeclareOpInterfaceMethods<Shardc_ShardingRuleOpInterface, ["localizeAttributes"]>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def Shardc_MeshOp : Shardc_Op<"mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A named logical device mesh";
  let description = [{
    Declares a mesh of devices with named axes. The number of devices is the
    product of the axis sizes; device `d` has mesh coordinates given by the
    row-major (first axis major) decomposition of `d`.

    ```mlir
    shardc.mesh @mesh_2x4 = <["data"=2, "model"=4]>
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    StrArrayAttr:$axis_names,
    DenseI64ArrayAttr:$axis_sizes
  );
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of devices in the mesh.
    int64_t getNumDevices();
    /// Position of `axis` in the mesh (of the axis a sub-axis "a:(pre)size"
    /// is a factor of), or -1 if there is none or the sub-axis does not
    /// divide it.
    int64_t getAxisIndex(::llvm::StringRef axis);
    /// Size of `axis` or sub-axis; it must exist.
    int64_t getAxisSize(::llvm::StringRef axis);
    /// Whether two axes or sub-axes share devices' coordinates: the same
    /// axis, with overlapping factors ("a" and "a:(1)2" do, "a:(1)2" and
    /// "a:(2)2" do not).
    bool axesOverlap(::llvm::StringRef a, ::llvm::StringRef b);
    /// The pre-size of an axis (1) or sub-axis, the product of the sizes of
    /// the factors of its axis before it: the order of factors in an axis.
    int64_t getAxisPreSize(::llvm::StringRef axis);
  }];
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

def Shardc_ConstantOp : Shardc_Op<"constant",
    [ShardingRuleLocalized, ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor";
  let description = [{
    ```mlir
    %c = shardc.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Shardc_IotaOp : Shardc_Op<"iota", [ShardingRule, Pure]> {
  let summary = "Counts up along one dimension";
  let description = [{
    Each element is its index along `dim`:

    ```mlir
    %i = shardc.iota dim = 1 : tensor<2x3xi32>   // [[0, 1, 2], [0, 1, 2]]
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Shardc_UnaryOp<string mnemonic, Type ty, string what>
    : Shardc_Op<mnemonic, [ShardingRule, Pure, Elementwise, SameOperandsAndResultType,
                          InferTypeOpInterface]> {
  let summary = "Elementwise " # what;
  let description = [{
    ```mlir
    %y = shardc.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins ty:$operand);
  let results = (outs ty:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  // Its row of OpCodes.def, found by name, says how it runs and how a
  // pending sum passes through it.
  let extraClassDefinition = [{
    ::shardc::ShardingRule $cppClass::getShardingRule() {
      return ::shardc::elementwiseShardingRule(*this);
    }
  }];
}

def Shardc_NegOp : Shardc_UnaryOp<"neg", Shardc_NumericTensor, "negation">;
def Shardc_AbsOp : Shardc_UnaryOp<"abs", Shardc_NumericTensor, "absolute value">;
def Shardc_ExpOp : Shardc_UnaryOp<"exp", Shardc_FloatTensor, "exponential">;
def Shardc_LogOp : Shardc_UnaryOp<"log", Shardc_FloatTensor,
    "natural logarithm (NaN for negative inputs, -inf for zero)">;
def Shardc_TanhOp : Shardc_UnaryOp<"tanh", Shardc_FloatTensor, "hyperbolic tangent">;
def Shardc_SqrtOp : Shardc_UnaryOp<"sqrt", Shardc_FloatTensor,
    "square root (NaN for negative inputs)">;
def Shardc_RsqrtOp : Shardc_UnaryOp<"rsqrt", Shardc_FloatTensor,
    "reciprocal square root">;
def Shardc_ErfOp : Shardc_UnaryOp<"erf", Shardc_FloatTensor, "error function">;
def Shardc_Log1pOp : Shardc_UnaryOp<"log1p", Shardc_FloatTensor,
    "log(1 + x), accurate for x near 0 (NaN below -1, -inf at -1)">;
def Shardc_Expm1Op : Shardc_UnaryOp<"expm1", Shardc_FloatTensor,
    "exp(x) - 1, accurate for x near 0">;
def Shardc_SinOp : Shardc_UnaryOp<"sin", Shardc_FloatTensor, "sine (of radians)">;
def Shardc_CosOp : Shardc_UnaryOp<"cos", Shardc_FloatTensor, "cosine (of radians)">;
def Shardc_FloorOp : Shardc_UnaryOp<"floor", Shardc_FloatTensor,
    "the largest integer not above x (keeps -0, infinities and NaN)">;
def Shardc_CeilOp : Shardc_UnaryOp<"ceil", Shardc_FloatTensor,
    "the smallest integer not below x (keeps -0, infinities and NaN)">;
def Shardc_RoundEvenOp : Shardc_UnaryOp<"round_even", Shardc_FloatTensor,
    "the nearest integer, halves to even (like StableHLO's round_nearest_even)">;
def Shardc_RoundAfzOp : Shardc_UnaryOp<"round_afz", Shardc_FloatTensor,
    "the nearest integer, halves away from zero (like StableHLO's round_nearest_afz)">;
def Shardc_TanOp : Shardc_UnaryOp<"tan", Shardc_FloatTensor, "tangent (of radians)">;
def Shardc_CbrtOp : Shardc_UnaryOp<"cbrt", Shardc_FloatTensor,
    "cube root (negative for negative inputs)">;

def Shardc_StopGradientOp : Shardc_UnaryOp<"stop_gradient", Shardc_Tensor, "identity"> {
  let summary = "The operand, through which no gradient flows";
  let description = [{
    Returns its operand unchanged; `--shardc-autodiff` treats the result as
    a constant (like `jax.lax.stop_gradient`). Softmax subtracts the row
    maximum through it: the result does not depend on the shift, so its
    gradient would be zero, computed at the cost of several passes.

    ```mlir
    %m = shardc.stop_gradient %x : tensor<4x8xf32>
    ```
  }];
  let extraClassDefinition = ""; // an identity, not a row of OpCodes.def
}

class Shardc_BinaryOp<string mnemonic, string what>
    : Shardc_Op<mnemonic, [ShardingRule, Pure, Elementwise, SameOperandsAndResultType,
                          InferTypeOpInterface]> {
  let summary = "Elementwise " # what;
  let description = [{
    Operands and result have one type; broadcasting is explicit with
    `shardc.broadcast_in_dim`.

    ```mlir
    %z = shardc.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Shardc_NumericTensor:$lhs, Shardc_NumericTensor:$rhs);
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let extraClassDefinition = [{
    ::shardc::ShardingRule $cppClass::getShardingRule() {
      return ::shardc::elementwiseShardingRule(*this);
    }
  }];
}

def Shardc_AddOp : Shardc_BinaryOp<"add", "addition">;
def Shardc_SubOp : Shardc_BinaryOp<"sub", "subtraction">;
def Shardc_MulOp : Shardc_BinaryOp<"mul", "multiplication">;
def Shardc_DivOp : Shardc_BinaryOp<"div",
    "division (integer division truncates toward zero)">;
def Shardc_MaxOp : Shardc_BinaryOp<"max", "maximum (NaN if either is NaN)">;
def Shardc_MinOp : Shardc_BinaryOp<"min", "minimum (NaN if either is NaN)">;
def Shardc_PowOp : Shardc_BinaryOp<"pow", "power">;
def Shardc_RemOp : Shardc_BinaryOp<"rem",
    "remainder of the division rounded toward zero, with the sign of lhs (C's fmod; floats only)">;
def Shardc_Atan2Op : Shardc_BinaryOp<"atan2",
    "the angle of the point (rhs, lhs) in radians, in [-pi, pi] (floats only)">;

def Shardc_CompareOp : Shardc_Op<"compare", [ShardingRule, Pure, Elementwise,
    AllTypesMatch<["lhs", "rhs"]>, SameOperandsAndResultShape,
    InferTypeOpAdaptor]> {
  let summary = "Elementwise comparison giving i1";
  let description = [{
    ```mlir
    %p = shardc.compare lt, %x, %y : tensor<4xf32>   // -> tensor<4xi1>
    ```
    Comparisons with NaN are false, except `ne` which is true.
  }];
  let arguments = (ins Shardc_CompareDirectionAttr:$direction,
                       Shardc_NumericTensor:$lhs, Shardc_NumericTensor:$rhs);
  let results = (outs Shardc_PredTensor:$result);
  let assemblyFormat = "`` $direction `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Shardc_SelectOp : Shardc_Op<"select", [ShardingRule, Pure, Elementwise,
    AllTypesMatch<["on_true", "on_false", "result"]>,
    SameOperandsAndResultShape]> {
  let summary = "Elementwise choice by a predicate";
  let description = [{
    ```mlir
    %z = shardc.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Shardc_PredTensor:$pred, Shardc_Tensor:$on_true,
                       Shardc_Tensor:$on_false);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` type($result)
  }];
}

def Shardc_ConvertOp : Shardc_Op<"convert", [ShardingRule, Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "Elementwise element type conversion";
  let description = [{
    Float to integer truncates toward zero and saturates (NaN gives 0);
    integer or float to i1 is `x != 0`.

    ```mlir
    %y = shardc.convert %x : tensor<4xi32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Contractions and reductions
//===----------------------------------------------------------------------===//

def Shardc_DotGeneralOp : Shardc_Op<"dot_general", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Generalized matrix product";
  let description = [{
    Contracts `lhs_contracting_dims` of `lhs` with `rhs_contracting_dims` of
    `rhs`, batched over the paired batching dimensions. The result dimensions
    are the batching dimensions, then the remaining (free) dimensions of `lhs`,
    then those of `rhs`, each in order. Operands share their element type.

    `precision` says how the products of f32 operands are computed, like
    `jax.lax.Precision` and PyTorch's autocast: `"bf16"` rounds both
    operands to bf16 (nearest even) and accumulates in f32, `"tf32"` rounds
    them to 10 mantissa bits, `"f32"` (the default) uses them as they are.
    The result is f32 either way. `--shardc-matmul-precision` sets it on
    every f32 product that has none. A `"bf16"` product may also read bf16
    operands, one or both (values rounded once for every product that reads
    them, by `--shardc-bf16-operands`): the result is the same as from their
    f32 values, and still f32.

    ```mlir
    // (B, M, K) x (B, K, N) -> (B, M, N)
    %c = shardc.dot_general %a, %b batching_dims = [0] x [0],
           contracting_dims = [2] x [1]
         : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
    // bf16 operands, f32 sums
    %d = shardc.dot_general %x, %w contracting_dims = [1] x [0] precision = "bf16"
         : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // the same, %h rounded already
    %e = shardc.dot_general %h, %w contracting_dims = [1] x [0] precision = "bf16"
         : (tensor<4x8xbf16>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins
    Shardc_NumericTensor:$lhs,
    Shardc_NumericTensor:$rhs,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$lhs_batching_dims,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$rhs_batching_dims,
    DenseI64ArrayAttr:$lhs_contracting_dims,
    DenseI64ArrayAttr:$rhs_contracting_dims,
    OptionalAttr<Shardc_PrecisionAttr>:$precision
  );
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs
    (`batching_dims` `=` $lhs_batching_dims^ `x` $rhs_batching_dims `,`)?
    `contracting_dims` `=` $lhs_contracting_dims `x` $rhs_contracting_dims
    (`precision` `=` $precision^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let builders = [
    // Without a precision: the products use their operands as they are.
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs,
                   "::llvm::ArrayRef<int64_t>":$lhsBatchingDims,
                   "::llvm::ArrayRef<int64_t>":$rhsBatchingDims,
                   "::llvm::ArrayRef<int64_t>":$lhsContractingDims,
                   "::llvm::ArrayRef<int64_t>":$rhsContractingDims), [{
      build($_builder, $_state, lhs, rhs, lhsBatchingDims, rhsBatchingDims,
            lhsContractingDims, rhsContractingDims, ::mlir::StringAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The products' precision: the attribute's, else f32.
    ::shardc::MatmulPrecision getProductPrecision() {
      return getPrecision().value_or(::shardc::MatmulPrecision::F32);
    }
  }];
  let hasVerifier = 1;
}

def Shardc_ReduceOp : Shardc_Op<"reduce", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Reduction over dimensions";
  let description = [{
    Combines the elements along `dims` with `sum`, `max` or `min`; the result
    drops those dimensions. At least one dimension must be reduced and none of
    them may be empty (a max of nothing has no value).

    ```mlir
    %s = shardc.reduce sum %x dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Shardc_ReduceKindAttr:$kind, Shardc_NumericTensor:$operand,
                       DenseI64ArrayAttr:$dims);
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = [{
    `` $kind $operand `dims` `=` $dims attr-dict `:` functional-type(operands, results)
  }];
}

def Shardc_ArgMaxOp : Shardc_Op<"argmax", [ShardingRule, Pure, InferTypeOpAdaptor]> {
  let summary = "Index of the largest element along a dimension";
  let description = [{
    The result drops `dim` and holds, at each position, the index (i32)
    along `dim` of the largest element: the first of equal ones, and NaN
    above every number (the first NaN), as `numpy.argmax` and
    `torch.argmax` do. `dim` must not be empty. Greedy decoding picks its
    next token with it on the device. A structured op of the table (its row
    in OpCodes.def): the plan's attributes are `{dim}`.

    ```mlir
    %i = shardc.argmax %logits dim = 1 : (tensor<4x256xf32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Shardc_FloatTensor:$operand, I64Attr:$dim);
  let results = (outs TensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $operand `dim` `=` $dim attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The plan step's attributes (OpCodes.def: attrs = {dim}).
    std::vector<int64_t> getPlanAttrs() { return {(int64_t)getDim()}; }
  }];
}

def Shardc_QkvAttentionOp : Shardc_Op<"qkv_attention", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Scaled dot-product self-attention of packed queries, keys and values";
  let description = [{
    `qkv` is `[B, T, 3, N, H]`: along its third dimension the queries, keys
    and values of `N` heads of width `H` at `T` positions (the layout
    flash-attn's `qkvpacked` functions take, and the one a single product
    by a `[d, 3, N, H]` weight gives). Per batch item and head, the result
    `[B, T, N, H]` is `softmax(scale * q k^T) v` over the keys each query
    sees: all of them, or with `causal`, those at its position and before.
    f32 or f64. Its gradient is `shardc.qkv_attention_grad`.

    Backends need not store the `[B, N, T, T]` scores: the CPU backend runs
    each (batch, head) item of f32 in one pass with its scores in cache. A
    structured op of the table: the plan's attributes are `{causal, the
    bits of scale as an f64}`.

    ```mlir
    %y = shardc.qkv_attention %qkv causal = true scale = 0.125
         : (tensor<2x16x3x4x8xf32>) -> tensor<2x16x4x8xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$qkv, BoolAttr:$causal, F64Attr:$scale);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $qkv `causal` `=` $causal `scale` `=` $scale attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The plan step's attributes (OpCodes.def: {causal, scale's bits}).
    std::vector<int64_t> getPlanAttrs();
  }];
}

def Shardc_AttentionOp : Shardc_Op<"attention", [ShardingRule, Pure, InferTypeOpAdaptor]> {
  let summary = "Scaled dot-product attention of queries over keys and values";
  let description = [{
    `q` is `[B, T, N, H]`, `k` and `v` are `[B, S, N, H]` (the layout of
    JAX's `dot_product_attention`): per batch item and head, the result
    `[B, T, N, H]` is `softmax(scale * q k^T) v` over the keys each query
    sees. Query `t` of item `b` sees key `s` where `s < kv_lengths[b]`
    (where given: `[B]` i32, clamped to `[0, S]`, as JAX's
    `key_value_seq_lengths`) and, with `causal`, `s <= t`. A query that sees
    no key gets zeros. f32 or f64. A decoding step attends its one position
    over a cache with it. Its gradient is `shardc.attention_grad`; for
    self-attention, `shardc.qkv_attention` reads q, k and v where one
    product wrote them.

    ```mlir
    %y = shardc.attention %q, %k, %v lengths %len causal = false scale = 0.125
         : (tensor<1x1x4x64xf32>, tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32>,
            tensor<1xi32>) -> tensor<1x1x4x64xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$q, StaticShapeTensorOf<[F32, F64]>:$k,
                       StaticShapeTensorOf<[F32, F64]>:$v,
                       Optional<StaticShapeTensorOf<[I32]>>:$kv_lengths,
                       BoolAttr:$causal, F64Attr:$scale);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`lengths` $kv_lengths^)? `causal` `=` $causal `scale` `=` $scale
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The plan step's attributes (OpCodes.def: {causal, scale's bits}).
    std::vector<int64_t> getPlanAttrs();
  }];
}

def Shardc_AttentionGradOp : Shardc_Op<"attention_grad", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "The gradient of shardc.attention with respect to q, k and v";
  let description = [{
    From the operands of `shardc.attention` (with the same `causal`,
    `scale` and `kv_lengths`) and the gradient `dout` of its result
    (`[B, T, N, H]`, as `q`), the gradients of `q`, `k` and `v`, one after
    another along positions: the result is `[B, T + 2 S, N, H]`, positions
    `[0, T)` the queries', `[T, T + S)` the keys' and `[T + S, T + 2 S)` the
    values'. The probabilities are recomputed, so the forward op's result is
    not an operand. Keys no query sees get zeros. It has no gradient of its
    own.

    ```mlir
    %g = shardc.attention_grad %q, %k, %v, %dy lengths %len causal = false scale = 0.125
         : (tensor<2x3x4x8xf32>, tensor<2x5x4x8xf32>, tensor<2x5x4x8xf32>,
            tensor<2x3x4x8xf32>, tensor<2xi32>) -> tensor<2x13x4x8xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$q, StaticShapeTensorOf<[F32, F64]>:$k,
                       StaticShapeTensorOf<[F32, F64]>:$v, StaticShapeTensorOf<[F32, F64]>:$dout,
                       Optional<StaticShapeTensorOf<[I32]>>:$kv_lengths,
                       BoolAttr:$causal, F64Attr:$scale);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $dout (`lengths` $kv_lengths^)? `causal` `=` $causal `scale` `=` $scale
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The plan step's attributes (OpCodes.def: {causal, scale's bits}).
    std::vector<int64_t> getPlanAttrs();
  }];
}

def Shardc_QkvAttentionGradOp : Shardc_Op<"qkv_attention_grad", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "The gradient of shardc.qkv_attention with respect to its packed operand";
  let description = [{
    From `qkv` and the gradient `dout` of `shardc.qkv_attention`'s result
    (with the same `causal` and `scale`), the gradient of `qkv`, in its
    layout `[B, T, 3, N, H]`: the queries' gradient, then the keys', then
    the values'. The probabilities are recomputed from `qkv`, so the forward
    op's result is not an operand. It has no gradient of its own.

    ```mlir
    %g = shardc.qkv_attention_grad %qkv, %dy causal = true scale = 0.125
         : (tensor<2x16x3x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x16x3x4x8xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F64]>:$qkv,
                       StaticShapeTensorOf<[F32, F64]>:$dout, BoolAttr:$causal, F64Attr:$scale);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $qkv `,` $dout `causal` `=` $causal `scale` `=` $scale attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The plan step's attributes (OpCodes.def: {causal, scale's bits}).
    std::vector<int64_t> getPlanAttrs();
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Shardc_BroadcastInDimOp : Shardc_Op<"broadcast_in_dim", [ShardingRule, Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Broadcasts a tensor into a larger shape";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; its size must be
    1 (it is then repeated) or equal to that result dimension. Result
    dimensions not in `dims` repeat the operand.

    ```mlir
    %y = shardc.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dims attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Shardc_ReshapeOp : Shardc_Op<"reshape", [ShardingRule, Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Reinterprets the row-major elements in a new shape";
  let description = [{
    ```mlir
    %y = shardc.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Shardc_TransposeOp : Shardc_Op<"transpose", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Permutes dimensions";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    ```mlir
    %y = shardc.transpose %x, permutation = [1, 0]
         : (tensor<4x8xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:`
    functional-type(operands, results)
  }];
}

def Shardc_SliceOp : Shardc_Op<"slice", [ShardingRuleLocalized, Pure,
    InferTypeOpAdaptor]> {
  let summary = "A strided box of a tensor";
  let description = [{
    Takes indices `start[d], start[d] + strides[d], ...` below `limit[d]` in
    every dimension `d`.

    ```mlir
    %y = shardc.slice %x, start = [0, 2], limit = [4, 8], strides = [1, 2]
         : (tensor<4x8xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$strides);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start `,` `limit` `=` $limit `,`
    `strides` `=` $strides attr-dict `:` functional-type(operands, results)
  }];
}

def Shardc_DynamicSliceOp : Shardc_Op<"dynamic_slice", [ShardingRule, Pure]> {
  let summary = "A box of a tensor at a run-time offset";
  let description = [{
    Takes the box of the result's shape whose corner is at the run-time
    indices `start_indices` (one integer scalar per dimension), like
    StableHLO's dynamic_slice. Each index is clamped to
    `[0, operand size - result size]`, so the box always lies inside the
    operand.

    ```mlir
    %row = shardc.dynamic_slice %pos_emb [%i, %zero]
           : (tensor<128x256xf32>, tensor<i32>, tensor<i32>) -> tensor<1x256xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand,
                       Variadic<Shardc_IndexScalar>:$start_indices);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand ` ` `[` $start_indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Shardc_DynamicUpdateSliceOp : Shardc_Op<"dynamic_update_slice", [ShardingRule, Pure,
    AllTypesMatch<["operand", "result"]>]> {
  let summary = "Writes a box into a tensor at a run-time offset";
  let description = [{
    The operand with the box of `update`'s shape at the run-time indices
    `start_indices` replaced by `update`, like StableHLO's
    dynamic_update_slice. Each index is clamped to
    `[0, operand size - update size]`. Lowering writes the box in place when
    the operand is not used afterwards (a key/value cache updated one
    position per step is never copied).

    ```mlir
    %k2 = shardc.dynamic_update_slice %k, %k_t [%zero, %zero, %pos, %zero]
          : (tensor<1x4x128x64xf32>, tensor<1x4x1x64xf32>, tensor<i32>, tensor<i32>,
             tensor<i32>, tensor<i32>) -> tensor<1x4x128x64xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, Shardc_Tensor:$update,
                       Variadic<Shardc_IndexScalar>:$start_indices);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $update ` ` `[` $start_indices `]` attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Shardc_ConcatenateOp : Shardc_Op<"concatenate", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Joins tensors along one dimension";
  let description = [{
    ```mlir
    %y = shardc.concatenate %a, %b dim = 0
         : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Shardc_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` functional-type($inputs, results)
  }];
}

def Shardc_TakeOp : Shardc_Op<"take", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Gathers rows of a table by index (embedding lookup)";
  let description = [{
    `result[i..., j...] = table[indices[i...], j...]`: the result shape is the
    indices' shape followed by the table's shape without its first dimension.
    An index outside `[0, rows)` is a runtime error.

    ```mlir
    %e = shardc.take %wte, %tokens
         : (tensor<256x64xf32>, tensor<4x16xi32>) -> tensor<4x16x64xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$table, Shardc_IndexTensor:$indices);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The attribute numbers of its plan step (OpCodes.def): none.
    std::vector<int64_t> getPlanAttrs() { return {}; }
  }];
}

def Shardc_ScatterAddOp : Shardc_Op<"scatter_add", [ShardingRule, Pure,
    InferTypeOpAdaptor]> {
  let summary = "Adds rows into a table by index (the adjoint of take)";
  let description = [{
    Starts from `operand` and adds `updates[i..., j...]` into row
    `indices[i...]`; repeated indices accumulate. `updates` has the shape
    `shardc.take` would give for the same table and indices. An index outside
    `[0, rows)` is a runtime error.

    ```mlir
    %g = shardc.scatter_add %zeros, %tokens, %d
         : (tensor<256x64xf32>, tensor<4x16xi32>, tensor<4x16x64xf32>)
         -> tensor<256x64xf32>
    ```
  }];
  let arguments = (ins Shardc_NumericTensor:$operand, Shardc_IndexTensor:$indices,
                       Shardc_NumericTensor:$updates);
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `,` $updates attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The attribute numbers of its plan step (OpCodes.def): none.
    std::vector<int64_t> getPlanAttrs() { return {}; }
  }];
}

//===----------------------------------------------------------------------===//
// Sharding
//===----------------------------------------------------------------------===//

def Shardc_ShardingConstraintOp : Shardc_Op<"sharding_constraint", [ShardingRule, Pure,
    SameOperandsAndResultType, InferTypeOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Pins the sharding of a value at this point";
  let description = [{
    Returns its input unchanged, stating that the result must have `sharding`
    (open dimensions are left for propagation to fill). Partitioning turns it
    into whatever data movement that requires.

    ```mlir
    %y = shardc.sharding_constraint %x <@mesh, [{"data"}, {?} ]> : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$input, Shardc_ShardingAttr:$sharding);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = "$input $sharding attr-dict `:` type($result)";
}

def Shardc_ShardMapOp : Shardc_Op<"shard_map", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"ReturnOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A region computed per device on local shards (like JAX shard_map)";
  let description = [{
    Splits each input by its entry of `in_shardings`, runs the body once per
    device of the mesh on the local shards, and assembles the results by
    `out_shardings`. All shardings are closed and on one mesh. The body works
    in the per-device view: its block arguments have the local shapes, and it
    may use collectives over the mesh axes. A result dimension that is
    replicated in `out_shardings` must be equal on all devices of the
    corresponding group (as in JAX, this is not checked; the first device's
    value is taken).

    A sharding whose axes do not divide a dimension pads it, as elsewhere in
    a function that asks for padding (`shardc.pad_uneven` on an argument, or
    `--shardc-partition="pad-uneven"`; partitioning rejects it otherwise):
    the local type is the block of the dimension padded to a multiple of the
    group, and the padding of a result is dropped. What the padding of an
    input holds is unspecified, so the body keeps it out of the real elements
    (a slice, or a mask before a reduction over that dimension).

    ```mlir
    %r = shardc.shard_map (%x) in_shardings = [<@mesh, [{"data"}, {} ]>]
           out_shardings = [<@mesh, [{}, {} ]>] {
    ^bb0(%lx: tensor<2x8xf32>):
      %m = shardc.all_reduce mean %lx on @mesh ["data"] : tensor<2x8xf32>
      shardc.return %m : tensor<2x8xf32>
    } : (tensor<8x8xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Shardc_Tensor>:$inputs,
                       Shardc_ShardingArrayAttr:$in_shardings,
                       Shardc_ShardingArrayAttr:$out_shardings);
  let results = (outs Variadic<Shardc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` `in_shardings` `=` custom<ShardingList>($in_shardings)
    `out_shardings` `=` custom<ShardingList>($out_shardings)
    $body attr-dict `:` functional-type($inputs, results)
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The mesh all shardings refer to.
    ::mlir::FlatSymbolRefAttr getMeshRef();
  }];
}

def Shardc_ReturnOp : Shardc_Op<"return", [Pure, Terminator, ReturnLike,
    HasParent<"ShardMapOp">]> {
  let summary = "Ends a shard_map body";
  let description = [{
    ```mlir
    shardc.return %y : tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Shardc_Tensor>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Collectives (per-device view)
//===----------------------------------------------------------------------===//

def Shardc_CollectiveTrait : NativeOpTrait<"ShardcCollective">;

class Shardc_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Shardc_Op<mnemonic, traits # [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>, Shardc_CollectiveTrait]> {
  let extraClassDeclaration = [{
    /// Number of devices in each group (the product of the axes' sizes).
    /// The mesh must have been verified.
    int64_t getGroupSize();
  }];
}

def Shardc_AllReduceOp : Shardc_CollectiveOp<"all_reduce",
    [SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Combines a value over the devices of each group";
  let description = [{
    Devices that differ only in their coordinates along `axes` form a group;
    every device of a group gets the `sum`, `mean` (JAX's pmean), `max` or
    `min` of the group's values. An integer mean truncates toward zero.

    ```mlir
    %g = shardc.all_reduce sum %x on @mesh ["data"] : tensor<1024x10xf32>
    ```
  }];
  let arguments = (ins Shardc_ReduceKindAttr:$kind, Shardc_NumericTensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes);
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = "`` $kind $operand `on` $mesh $axes attr-dict `:` type($result)";
}

def Shardc_AllGatherOp : Shardc_CollectiveOp<"all_gather",
    [SameOperandsAndResultElementType]> {
  let summary = "Concatenates the group's shards along a dimension";
  let description = [{
    The result is the concatenation along `dim` of the operands of the devices
    in the group, ordered by their coordinates along `axes` (first axis major).

    ```mlir
    %y = shardc.all_gather %x on @mesh ["data"] dim = 0
         : tensor<2x8xf32> -> tensor<8x8xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `on` $mesh $axes `dim` `=` $dim attr-dict `:`
    type($operand) `->` type($result)
  }];
}

def Shardc_AllSliceOp : Shardc_CollectiveOp<"all_slice",
    [SameOperandsAndResultElementType]> {
  let summary = "Keeps this device's block of a dimension (no communication)";
  let description = [{
    The inverse of `all_gather` for a value that is the same on every device
    of the group: splits `dim` into one block per device of the group and
    keeps the block at this device's position. Partitioning uses it to go
    from replicated to sharded without moving data.

    ```mlir
    %y = shardc.all_slice %x on @mesh ["data"] dim = 0
         : tensor<8x8xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `on` $mesh $axes `dim` `=` $dim attr-dict `:`
    type($operand) `->` type($result)
  }];
}

def Shardc_ReduceScatterOp : Shardc_CollectiveOp<"reduce_scatter",
    [SameOperandsAndResultElementType]> {
  let summary = "Combines over the group, keeping this device's block";
  let description = [{
    Like `all_reduce`, then splits the result along `dim` into one block per
    device of the group and keeps the block at this device's position.

    ```mlir
    %y = shardc.reduce_scatter sum %x on @mesh ["data"] dim = 0
         : tensor<8x8xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Shardc_ReduceKindAttr:$kind, Shardc_NumericTensor:$operand,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs Shardc_NumericTensor:$result);
  let assemblyFormat = [{
    `` $kind $operand `on` $mesh $axes `dim` `=` $dim attr-dict `:`
    type($operand) `->` type($result)
  }];
}

def Shardc_AllToAllOp : Shardc_CollectiveOp<"all_to_all",
    [SameOperandsAndResultElementType]> {
  let summary = "Moves a split from one dimension to another";
  let description = [{
    Each device splits its operand along `split_dim` into one block per device
    of the group and sends block `j` to the device at position `j`; the
    received blocks are concatenated along `concat_dim` in position order.

    ```mlir
    %y = shardc.all_to_all %x on @mesh ["model"] split_dim = 1 concat_dim = 0
         : tensor<2x8xf32> -> tensor<8x2xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$split_dim, I64Attr:$concat_dim);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `on` $mesh $axes `split_dim` `=` $split_dim `concat_dim` `=`
    $concat_dim attr-dict `:` type($operand) `->` type($result)
  }];
}

def Shardc_CollectivePermuteOp : Shardc_CollectiveOp<"collective_permute",
    [SameOperandsAndResultType]> {
  let summary = "Moves each device's value to another device of its group";
  let description = [{
    The device at position `r` of each group (its coordinates along `axes`,
    first axis major) receives the operand of the device at position
    `sources[r]`; `sources` is a permutation of the group's positions.
    Partitioning uses it where dimensions change axes but not their number
    of blocks (a dimension moving from axis "a" to an axis "b" of the same
    size, or a reorder of a dimension's axes): each device sends its value
    once, where a gather and a slice would send the group's.

    ```mlir
    %y = shardc.collective_permute %x on @mesh ["a", "b"] sources = [0, 2, 1, 3]
         : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Shardc_Tensor:$operand, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, DenseI64ArrayAttr:$sources);
  let results = (outs Shardc_Tensor:$result);
  let assemblyFormat = [{
    $operand `on` $mesh $axes `sources` `=` $sources attr-dict `:` type($result)
  }];
}

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCOPS_TD
