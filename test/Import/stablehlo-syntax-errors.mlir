// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// What the reader does not take is an error at the op, naming it.

func.func @f(%arg0: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{custom op 'stablehlo.while' is not supported by shardc's StableHLO importer (control flow and tokens are not)}}
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'sdy.named_computation' is not supported by shardc's StableHLO importer}}
  %0 = sdy.named_computation<"f">(%arg0) (%a: tensor<4xf32>) { sdy.return %a : tensor<4xf32> } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected '@mesh': a sharding names an sdy.mesh}}
func.func @f(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<mesh<["a"=2]>, [{"a"}]>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

// -----

func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unexpected 'LT' in stablehlo.add}}
  %0 = stablehlo.add LT, %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the op has 2 operands but its type lists 3}}
  %0 = stablehlo.add %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown field 'bogus' in a sharding}}
func.func @f(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@m, [{}], bogus={"a"}>}) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
