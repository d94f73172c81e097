// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.checkpoint marks an op of a checkpointed group:
// {group = N : i64, policy = "nothing" | "dots" | "names"[, names = [...]]}.
// shardc.checkpoint_name names an op's results for a "names" policy, and
// shardc.recomputed marks what autodiff recomputes.

func.func @not_a_dictionary(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' must be a dictionary {group = N : i64, policy = "..."}}}
  %y = shardc.exp %x {shardc.checkpoint = "nothing"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @unknown_key(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' has unknown key 'polcy' (keys: group, policy, names)}}
  %y = shardc.exp %x {shardc.checkpoint = {group = 0 : i64, polcy = "nothing"}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @negative_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' needs group = N, a non-negative integer}}
  %y = shardc.exp %x {shardc.checkpoint = {group = -1 : i64, policy = "nothing"}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @unknown_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' needs policy = "nothing", "dots", "names" or "all_but_names"}}
  %y = shardc.exp %x {shardc.checkpoint = {group = 0 : i64, policy = "everything"}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @names_without_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' gives names with policy "dots" (they are read by policies "names" and "all_but_names" only)}}
  %y = shardc.exp %x {shardc.checkpoint = {group = 0 : i64, policy = "dots", names = ["a"]}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @names_missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' with policy "names" needs names = ["...", ...], non-empty strings}}
  %y = shardc.exp %x {shardc.checkpoint = {group = 0 : i64, policy = "names"}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @empty_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint' with policy "all_but_names" needs names = ["...", ...], non-empty strings}}
  %y = shardc.exp %x {shardc.checkpoint = {group = 0 : i64, policy = "all_but_names", names = [""]}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error@+1 {{'shardc.checkpoint' belongs on an op with results}}
func.func @on_a_function(%x: tensor<4xf32>) -> tensor<4xf32> attributes {shardc.checkpoint = {group = 0 : i64, policy = "nothing"}} {
  return %x : tensor<4xf32>
}

// -----

func.func @checkpoint_name_not_a_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.checkpoint_name' must be a non-empty string}}
  %y = shardc.exp %x {shardc.checkpoint_name = 3 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @recomputed_with_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shardc.recomputed' takes no value}}
  %y = shardc.exp %x {shardc.recomputed = true} : tensor<4xf32>
  return %y : tensor<4xf32>
}
