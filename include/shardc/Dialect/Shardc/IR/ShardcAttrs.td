//===- ShardcAttrs.td - sharding attributes -----------------*- tablegen -*-===//
//
// `#shardc.sharding` and the per-dimension sharding it is made of.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARDC_IR_SHARDCATTRS_TD
#define SHARDC_DIALECT_SHARDC_IR_SHARDCATTRS_TD

include "shardc/Dialect/Shardc/IR/ShardcBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Shardc_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Shardc_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Shardc_DimShardingAttr : Shardc_Attr<"DimSharding", "dim"> {
  let summary = "How one tensor dimension is split over mesh axes";
  let description = [{
    A list of mesh axes, major to minor, that split the dimension, and whether
    the dimension is *open* (sharding propagation may add further axes) or
    *closed*. Written inside `#shardc.sharding` as:

    ```
    {}              closed, replicated
    {"data"}        closed, split over "data"
    {"a", "b"}      closed, split over a then b (a is major)
    {?}             open, nothing chosen yet
    {"a", ?}        open, split over "a" so far
    {"data"}p0      closed, split over "data", with priority 0
    ```

    A priority (`p0`, `p1`, ...; lower is stronger) on a user annotation
    orders propagation: annotations of priority 0 propagate first, to a fixed
    point, then those of priority 1 and so on, then those without one. A
    later annotation still holds for its own value but no longer changes
    what earlier ones decided elsewhere. Propagation's own output carries no
    priorities.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"::mlir::StringAttr">:$axes,
    "bool":$is_open,
    "int64_t":$priority
  );
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<::mlir::StringAttr>":$axes, "bool":$is_open), [{
      return $_get($_ctxt, axes, is_open, /*priority=*/-1);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool isReplicated() const { return getAxes().empty(); }
  }];
}

def Shardc_ShardingAttr : Shardc_Attr<"Sharding", "sharding"> {
  let summary = "How a tensor is laid out on a device mesh";
  let description = [{
    A reference to a `shardc.mesh` and one dimension sharding per tensor
    dimension:

    ```
    #shardc.sharding<@mesh, [{"data"}, {} ]>           dim 0 over "data", dim 1 replicated
    #shardc.sharding<@mesh, [{"data", "model"}, {} ]>  dim 0 over data then model
    #shardc.sharding<@mesh, [{?}, {} ]>                dim 0 open
    #shardc.sharding<@mesh, [{}, {} ], partial = {"model"}>  sum pending over "model"
    ```

    `partial` names mesh axes a sum is still pending over: each device holds
    a part, and the value is the sum of the parts over each group of those
    axes. Only a `sharding_constraint` may say so: it keeps the value
    partial there (partitioning checks it is), where it would otherwise be
    reduced. Verified wherever it is attached: the mesh must exist, every
    axis must belong to it and appear at most once (dimensions and `partial`
    together), the rank must match the tensor's, and the product of the
    sizes of a dimension's axes must divide it.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    OptionalArrayRefParameter<"DimShardingAttr">:$dims,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$partial
  );
  let builders = [
    AttrBuilder<(ins "::mlir::FlatSymbolRefAttr":$mesh,
                     "::llvm::ArrayRef<DimShardingAttr>":$dims), [{
      return $_get($_ctxt, mesh, dims, ::llvm::ArrayRef<::mlir::StringAttr>());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
    /// True when no dimension is open.
    bool isClosed() const;
    /// True when no dimension is split.
    bool isReplicated() const;
    /// Axes of dimension `dim`, major to minor.
    ::llvm::SmallVector<::llvm::StringRef> getDimAxes(int64_t dim) const;
    /// The axes a sum is pending over (`partial = {...}`).
    ::llvm::SmallVector<::llvm::StringRef> getPartialAxes() const;
    /// A closed, fully replicated sharding of the given rank.
    static ShardingAttr getReplicated(::mlir::MLIRContext *ctx,
                                      ::mlir::FlatSymbolRefAttr mesh,
                                      int64_t rank);
    /// A sharding open in every dimension.
    static ShardingAttr getOpen(::mlir::MLIRContext *ctx,
                                ::mlir::FlatSymbolRefAttr mesh, int64_t rank);
  }];
}

def Shardc_ShardingArrayAttr
    : TypedArrayAttrBase<Shardc_ShardingAttr, "array of shardings">;

#endif // SHARDC_DIALECT_SHARDC_IR_SHARDCATTRS_TD
