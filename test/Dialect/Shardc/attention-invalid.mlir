// RUN: shardc-opt %s -split-input-file -verify-diagnostics

// shardc.qkv_attention and its gradient: the packed operand's layout, the
// scale, the element type, and the gradient's dout; shardc.attention: the
// layouts of q, k and v, and the lengths; shardc.attention_grad: the same,
// dout and its packed result.

func.func @not_packed(%x: tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32> {
  // expected-error@+2 {{qkv must be [B, T, 3, N, H] (queries, keys and values along dimension 2), not 'tensor<2x16x4x8xf32>'}}
  // expected-error@+1 {{'shardc.qkv_attention' op failed to infer returned types}}
  %y = shardc.qkv_attention %x causal = true scale = 0.125 : (tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32>
  return %y : tensor<2x16x4x8xf32>
}

// -----

func.func @two_parts(%x: tensor<2x16x2x4x8xf32>) -> tensor<2x16x4x8xf32> {
  // expected-error@+2 {{qkv must be [B, T, 3, N, H]}}
  // expected-error@+1 {{failed to infer returned types}}
  %y = shardc.qkv_attention %x causal = false scale = 0.125 : (tensor<2x16x2x4x8xf32>) -> tensor<2x16x4x8xf32>
  return %y : tensor<2x16x4x8xf32>
}

// -----

func.func @negative_scale(%x: tensor<2x16x3x4x8xf32>) -> tensor<2x16x4x8xf32> {
  // expected-error@+2 {{scale must be positive and finite, not -1.250000e-01}}
  // expected-error@+1 {{failed to infer returned types}}
  %y = shardc.qkv_attention %x causal = true scale = -0.125 : (tensor<2x16x3x4x8xf32>) -> tensor<2x16x4x8xf32>
  return %y : tensor<2x16x4x8xf32>
}

// -----

func.func @result_shape(%x: tensor<2x16x3x4x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error@+2 {{'shardc.qkv_attention' op inferred type(s) 'tensor<2x16x4x8xf32>' are incompatible with return type(s) of operation 'tensor<2x16x8xf32>'}}
  // expected-error@+1 {{'shardc.qkv_attention' op failed to infer returned types}}
  %y = shardc.qkv_attention %x causal = true scale = 0.125 : (tensor<2x16x3x4x8xf32>) -> tensor<2x16x8xf32>
  return %y : tensor<2x16x8xf32>
}

// -----

func.func @bf16(%x: tensor<2x16x3x4x8xbf16>) -> tensor<2x16x4x8xbf16> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %y = shardc.qkv_attention %x causal = true scale = 0.125 : (tensor<2x16x3x4x8xbf16>) -> tensor<2x16x4x8xbf16>
  return %y : tensor<2x16x4x8xbf16>
}

// -----

func.func @grad_dout(%x: tensor<2x16x3x4x8xf32>, %dy: tensor<2x16x4x4xf32>) -> tensor<2x16x3x4x8xf32> {
  // expected-error@+2 {{dout must have the attention result's type 'tensor<2x16x4x8xf32>', not 'tensor<2x16x4x4xf32>'}}
  // expected-error@+1 {{'shardc.qkv_attention_grad' op failed to infer returned types}}
  %g = shardc.qkv_attention_grad %x, %dy causal = true scale = 0.125 : (tensor<2x16x3x4x8xf32>, tensor<2x16x4x4xf32>) -> tensor<2x16x3x4x8xf32>
  return %g : tensor<2x16x3x4x8xf32>
}

// -----

func.func @grad_mixed_types(%x: tensor<2x16x3x4x8xf32>, %dy: tensor<2x16x4x8xf64>) -> tensor<2x16x3x4x8xf32> {
  // expected-error@+2 {{dout must have the attention result's type 'tensor<2x16x4x8xf32>', not 'tensor<2x16x4x8xf64>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %g = shardc.qkv_attention_grad %x, %dy causal = true scale = 0.125 : (tensor<2x16x3x4x8xf32>, tensor<2x16x4x8xf64>) -> tensor<2x16x3x4x8xf32>
  return %g : tensor<2x16x3x4x8xf32>
}

// -----

func.func @attention_q_rank(%q: tensor<2x4x8xf32>, %k: tensor<2x16x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error@+2 {{q must be [B, T, N, H], not 'tensor<2x4x8xf32>'}}
  // expected-error@+1 {{'shardc.attention' op failed to infer returned types}}
  %y = shardc.attention %q, %k, %k causal = false scale = 0.125 : (tensor<2x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

func.func @attention_heads(%q: tensor<2x1x4x8xf32>, %k: tensor<2x16x2x8xf32>) -> tensor<2x1x4x8xf32> {
  // expected-error@+2 {{k must be [B, S, N, H] with q's B, N, H and type, not 'tensor<2x16x2x8xf32>' for q 'tensor<2x1x4x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y = shardc.attention %q, %k, %k causal = false scale = 0.125 : (tensor<2x1x4x8xf32>, tensor<2x16x2x8xf32>, tensor<2x16x2x8xf32>) -> tensor<2x1x4x8xf32>
  return %y : tensor<2x1x4x8xf32>
}

// -----

func.func @attention_values(%q: tensor<2x1x4x8xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x12x4x8xf32>) -> tensor<2x1x4x8xf32> {
  // expected-error@+2 {{v must have k's type 'tensor<2x16x4x8xf32>', not 'tensor<2x12x4x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y = shardc.attention %q, %k, %v causal = false scale = 0.125 : (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x12x4x8xf32>) -> tensor<2x1x4x8xf32>
  return %y : tensor<2x1x4x8xf32>
}

// -----

func.func @attention_lengths(%q: tensor<2x1x4x8xf32>, %k: tensor<2x16x4x8xf32>, %n: tensor<3xi32>) -> tensor<2x1x4x8xf32> {
  // expected-error@+2 {{kv_lengths must be [B] (one length per batch item), not 'tensor<3xi32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y = shardc.attention %q, %k, %k lengths %n causal = false scale = 0.125 : (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<3xi32>) -> tensor<2x1x4x8xf32>
  return %y : tensor<2x1x4x8xf32>
}

// -----

func.func @attention_length_type(%q: tensor<2x1x4x8xf32>, %k: tensor<2x16x4x8xf32>, %n: tensor<2xi64>) -> tensor<2x1x4x8xf32> {
  // expected-error@+1 {{operand #3 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %y = shardc.attention %q, %k, %k lengths %n causal = false scale = 0.125 : (tensor<2x1x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2xi64>) -> tensor<2x1x4x8xf32>
  return %y : tensor<2x1x4x8xf32>
}

// -----

func.func @attention_grad_dout(%q: tensor<2x3x4x8xf32>, %k: tensor<2x16x4x8xf32>, %d: tensor<2x16x4x8xf32>) -> tensor<2x35x4x8xf32> {
  // expected-error@+2 {{dout must have the attention result's type 'tensor<2x3x4x8xf32>', not 'tensor<2x16x4x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %g = shardc.attention_grad %q, %k, %k, %d causal = false scale = 0.125 : (tensor<2x3x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x35x4x8xf32>
  return %g : tensor<2x35x4x8xf32>
}

// -----

func.func @attention_grad_keys(%q: tensor<2x3x4x8xf32>, %k: tensor<2x16x2x8xf32>) -> tensor<2x35x4x8xf32> {
  // expected-error@+2 {{k must be [B, S, N, H] with q's B, N, H and type, not 'tensor<2x16x2x8xf32>' for q 'tensor<2x3x4x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %g = shardc.attention_grad %q, %k, %k, %q causal = false scale = 0.125 : (tensor<2x3x4x8xf32>, tensor<2x16x2x8xf32>, tensor<2x16x2x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x35x4x8xf32>
  return %g : tensor<2x35x4x8xf32>
}

// -----

func.func @attention_grad_lengths(%q: tensor<2x3x4x8xf32>, %k: tensor<2x16x4x8xf32>, %n: tensor<3xi32>) -> tensor<2x35x4x8xf32> {
  // expected-error@+2 {{kv_lengths must be [B] (one length per batch item), not 'tensor<3xi32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %g = shardc.attention_grad %q, %k, %k, %q lengths %n causal = false scale = 0.125 : (tensor<2x3x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x3x4x8xf32>, tensor<3xi32>) -> tensor<2x35x4x8xf32>
  return %g : tensor<2x35x4x8xf32>
}

// -----

func.func @attention_grad_scale(%q: tensor<2x3x4x8xf32>, %k: tensor<2x16x4x8xf32>) -> tensor<2x35x4x8xf32> {
  // expected-error@+2 {{scale must be positive and finite, not -1.000000e+00}}
  // expected-error@+1 {{failed to infer returned types}}
  %g = shardc.attention_grad %q, %k, %k, %q causal = true scale = -1.0 : (tensor<2x3x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x35x4x8xf32>
  return %g : tensor<2x35x4x8xf32>
}

// -----

func.func @attention_grad_result(%q: tensor<2x3x4x8xf32>, %k: tensor<2x16x4x8xf32>) -> tensor<2x3x4x8xf32> {
  // expected-error@+2 {{'shardc.attention_grad' op inferred type(s) 'tensor<2x35x4x8xf32>' are incompatible with return type(s) of operation 'tensor<2x3x4x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %g = shardc.attention_grad %q, %k, %k, %q causal = false scale = 0.125 : (tensor<2x3x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  return %g : tensor<2x3x4x8xf32>
}
