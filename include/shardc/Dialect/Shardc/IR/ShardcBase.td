//===- ShardcBase.td - the shardc dialect and its enums -----*- tablegen -*-===//
//
// The dialect definition and the enumerations shared by its attributes and
// operations.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDCBASE_TD
#define SHARDC_DIALECT_SHARDC_IR_SHARDCBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Shardc_Dialect : Dialect {
  let name = "shardc";
  let cppNamespace = "::shardc";
  let summary = "Tensor programs whose values carry device-mesh shardings.";
  let description = [{
    The `shardc` dialect expresses tensor computations on static shapes together
    with where their values live on a logical device mesh. A program is first
    written in the *global view*: ops compute on whole arrays, and function
    arguments, results and `shardc.sharding_constraint` ops say how some of them
    are split over the axes of a `shardc.mesh`. Sharding propagation completes
    the annotations and SPMD partitioning rewrites the program into the
    *per-device view*, where shapes are local and communication is explicit
    through the collective ops (`shardc.all_reduce`, `shardc.all_gather`,
    `shardc.reduce_scatter`, `shardc.all_to_all`). `shardc.shard_map` embeds a
    per-device region in a global program, like JAX's `shard_map`.

    Function arguments and results carry their sharding in the
    `shardc.sharding` attribute; after propagation every op with tensor results
    carries `shardc.shardings`, an array with one sharding per result. An
    argument may be given a name for the driver's `--input NAME=FILE.npy` with
    the `shardc.name` string attribute, and marked `shardc.donated` (a unit
    attribute, like JAX's donate_argnums) when the caller gives its buffer
    up: lowering may then write a result over it in place. An argument
    marked `shardc.pad_uneven` (a unit attribute) may be sharded over axes
    that do not divide a dimension: partitioning pads it, as
    `--shardc-partition="pad-uneven"` allows for every value. An op of the
    forward program may belong to a checkpointed group, like the body of a
    `jax.checkpoint`: `shardc.checkpoint = {group = N : i64, policy = ...}`
    (see `--shardc-autodiff`), and name its results for a policy with
    `shardc.checkpoint_name`; autodiff marks what it recomputes
    `shardc.recomputed`. A partitioned
    function records the global shape of a padded argument or result in
    `shardc.global_shape` (`array<i64: ...>`), which the local type and the
    sharding alone no longer give.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Attribute names used on operations and function arguments/results.
    static constexpr ::llvm::StringLiteral kShardingAttrName = "shardc.sharding";
    static constexpr ::llvm::StringLiteral kShardingsAttrName = "shardc.shardings";
    static constexpr ::llvm::StringLiteral kArgNameAttrName = "shardc.name";
    static constexpr ::llvm::StringLiteral kDonatedAttrName = "shardc.donated";
    static constexpr ::llvm::StringLiteral kPadUnevenAttrName = "shardc.pad_uneven";
    static constexpr ::llvm::StringLiteral kGlobalShapeAttrName = "shardc.global_shape";
    /// An op's sharding rule in words, as --shardc-print-sharding-rules
    /// writes it: for reading and tests only.
    static constexpr ::llvm::StringLiteral kShardingRuleAttrName = "shardc.sharding_rule";
    /// On a function: it is the per-device program over this mesh; the
    /// shardings of its arguments and results describe the global arrays.
    static constexpr ::llvm::StringLiteral kPartitionedAttrName = "shardc.partitioned";
    /// On an op of the forward program: it belongs to a checkpointed group
    /// (like jax.checkpoint), `{group = N : i64, policy = "nothing" |
    /// "dots" | "names" | "all_but_names"[, names = [...]]}`. Autodiff
    /// recomputes in the backward pass what the policy does not save:
    /// "nothing" saves nothing, "dots" the results of dot_general, "names"
    /// the results of ops whose shardc.checkpoint_name is listed,
    /// "all_but_names" all but those.
    static constexpr ::llvm::StringLiteral kCheckpointAttrName = "shardc.checkpoint";
    /// A name for an op's results that a "names" policy may save (like
    /// jax.ad_checkpoint.checkpoint_name).
    static constexpr ::llvm::StringLiteral kCheckpointNameAttrName = "shardc.checkpoint_name";
    /// On an op autodiff emitted to recompute a checkpointed forward value.
    static constexpr ::llvm::StringLiteral kRecomputedAttrName = "shardc.recomputed";

  private:
    void registerAttributes();
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Shardc_ReduceKind : I32EnumAttr<"ReduceKind", "how values are combined", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Mean", 3, "mean">
  ]> {
  let cppNamespace = "::shardc";
  let genSpecializedAttr = 0;
}
def Shardc_ReduceKindAttr : EnumAttr<Shardc_Dialect, Shardc_ReduceKind, "reduce_kind">;

def Shardc_CompareDirection : I32EnumAttr<"CompareDirection",
    "comparison predicate", [
    I32EnumAttrCase<"EQ", 0, "eq">,
    I32EnumAttrCase<"NE", 1, "ne">,
    I32EnumAttrCase<"LT", 2, "lt">,
    I32EnumAttrCase<"LE", 3, "le">,
    I32EnumAttrCase<"GT", 4, "gt">,
    I32EnumAttrCase<"GE", 5, "ge">
  ]> {
  let cppNamespace = "::shardc";
  let genSpecializedAttr = 0;
}
def Shardc_CompareDirectionAttr
    : EnumAttr<Shardc_Dialect, Shardc_CompareDirection, "compare_direction">;

/// A product's precision, typed for C++ (getPrecision() returns a
/// ::shardc::MatmulPrecision, setPrecision takes one) and stored as its name,
/// so that it prints as it always has: `precision = "bf16"`, in the custom
/// and the generic form. The op's verifier rejects any other name.
def Shardc_PrecisionAttr : StringBasedAttr<CPred<"::llvm::isa<::mlir::StringAttr>($_self)">,
    "how f32 products are computed: \"f32\", \"bf16\" or \"tf32\""> {
  let returnType = "::shardc::MatmulPrecision";
  let convertFromStorage =
      "::shardc::matmulPrecisionOr($_self.getValue().str(), ::shardc::MatmulPrecision::F32)";
  let constBuilderCall =
      "::mlir::StringAttr::get($_builder.getContext(), ::shardc::matmulPrecisionName($0))";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Shardc_Float : AnyTypeOf<[F32, F64, F16, BF16]>;
def Shardc_Int : AnyTypeOf<[I32, I64]>;
def Shardc_Element : AnyTypeOf<[F32, F64, F16, BF16, I1, I32, I64]>;

// Shapes are static: every tensor of the dialect has a known shape.
def Shardc_Tensor : StaticShapeTensorOf<[Shardc_Element]>;
def Shardc_FloatTensor : StaticShapeTensorOf<[Shardc_Float]>;
def Shardc_NumericTensor : StaticShapeTensorOf<[Shardc_Float, Shardc_Int]>;
def Shardc_IndexTensor : StaticShapeTensorOf<[Shardc_Int]>;
def Shardc_IndexScalar : 0DTensorOf<[I32, I64]>;
def Shardc_PredTensor : StaticShapeTensorOf<[I1]>;

class Shardc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Shardc_Dialect, mnemonic, traits>;

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCBASE_TD
