//===- ShardingRuleOpInterface.td - ops with a sharding rule -*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDC_INTERFACES_SHARDINGRULEOPINTERFACE_TD
#define SHARDC_DIALECT_SHARDC_INTERFACES_SHARDINGRULEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def Shardc_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::shardc";
  let description = [{
    An op whose dimensions can be sharded. Its rule (see ShardingRule.h)
    relates the dimensions of its operands and results through factors:
    propagation moves shardings along factors, and partitioning derives the
    local computation and the collectives it needs from them. All rules are
    in lib/Dialect/Shardc/IR/ShardingRules.cpp.
  }];
  let methods = [
    InterfaceMethod<"The op's sharding rule.", "::shardc::ShardingRule",
                    "getShardingRule">,
    InterfaceMethod<[{
        Partitioning's hook: rewrites, in `attributes`, the attributes of the
        op's per-device copy whose values depend on shapes (a splat
        constant's value, a slice's limits), given its local operand and
        result types. The default keeps them.
      }], "void", "localizeAttributes",
      (ins "::mlir::NamedAttrList &":$attributes,
           "::mlir::TypeRange":$localOperandTypes,
           "::mlir::TypeRange":$localResultTypes),
      /*methodBody=*/"", /*defaultImplementation=*/[{ return; }]>,
  ];
}

#endif // SHARDC_DIALECT_SHARDC_INTERFACES_SHARDINGRULEOPINTERFACE_TD
