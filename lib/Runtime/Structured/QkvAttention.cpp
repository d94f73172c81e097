//===- QkvAttention.cpp - attention of packed q, k, v, and its gradient ---===//
//
// inputs: qkv [B,T,3,N,H] of f32 or f64 (and, for the gradient, dout
// [B,T,N,H]);
// attrs = {causal, the bits of scale as an f64}. Per batch item b and head
// n, with q, k, v the slices 0, 1, 2 of qkv's third dimension:
//   out[b,t,n] = sum over visible s of p[t,s] v[b,s,n],
//   p[t,:] = softmax over visible s of scale q[b,t,n] . k[b,s,n],
// where key s is visible to query t always, or with causal where s <= t.
// The gradient is that of sum(out * dout), in qkv's layout. The reference
// computes in double precision and stores each row's scores.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/StructuredOps.h"

#include <cmath>
#include <cstring>

namespace shardc::structured {

namespace {

std::string typeString(const TensorSignature &t) {
  return shapeString(t.shape) + " " + dtypeName(t.dtype);
}

std::string checkAttention(const StepSignature &step, bool grad) {
  size_t inputs = grad ? 2 : 1;
  if (step.inputs.size() != inputs || step.outputs.size() != 1)
    return "takes " + std::to_string(inputs) + " input" + (grad ? "s" : "") + " and 1 output";
  if (step.attrs.size() != 2)
    return "has " + std::to_string(step.attrs.size()) +
           " attribute numbers, expected 2 (causal, scale)";
  const TensorSignature &qkv = step.inputs[0], &out = step.outputs[0];
  if ((qkv.dtype != DType::F32 && qkv.dtype != DType::F64) || qkv.shape.size() != 5 ||
      qkv.shape[2] != 3)
    return "qkv must be [B, T, 3, N, H] of f32 or f64, not " + typeString(qkv);
  if (step.attrs[0] != 0 && step.attrs[0] != 1)
    return "causal must be 0 or 1, not " + std::to_string(step.attrs[0]);
  double scale;
  std::memcpy(&scale, &step.attrs[1], sizeof scale);
  if (!std::isfinite(scale) || scale <= 0)
    return "scale must be positive and finite, not " + std::to_string(scale);
  TensorSignature rows{qkv.dtype, {qkv.shape[0], qkv.shape[1], qkv.shape[3], qkv.shape[4]}};
  if (grad && (step.inputs[1].dtype != rows.dtype || step.inputs[1].shape != rows.shape))
    return "dout must be " + typeString(rows) + ", not " + typeString(step.inputs[1]);
  const TensorSignature &want = grad ? qkv : rows;
  if (out.dtype != want.dtype || out.shape != want.shape)
    return "the output must be " + typeString(want) + ", not " + typeString(out);
  return "";
}

/// Attention of `qkv` by the definition, and with `dout` its gradient.
StatusOr<Array> attention(const Array &qkv, const Array *dout, const std::vector<int64_t> &attrs) {
  const Shape &shape = qkv.shape();
  int64_t B = shape[0], T = shape[1], N = shape[3], H = shape[4];
  bool causal = attrs[0] != 0;
  double scale;
  std::memcpy(&scale, &attrs[1], sizeof scale);
  // Element (b, t, part, n, h) of qkv and (b, t, n, h) of the result.
  auto at = [&](int64_t b, int64_t t, int64_t part, int64_t n, int64_t h) {
    return (((b * T + t) * 3 + part) * N + n) * H + h;
  };
  auto rowAt = [&](int64_t b, int64_t t, int64_t n, int64_t h) {
    return ((b * T + t) * N + n) * H + h;
  };
  std::vector<double> x(qkv.numElements()), g(dout ? dout->numElements() : 0);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = qkv.getDouble(i);
  for (size_t i = 0; i < g.size(); ++i)
    g[i] = dout->getDouble(i);
  std::vector<double> out(B * T * N * H, 0.0), grad(dout ? qkv.numElements() : 0, 0.0);
  std::vector<double> p(T), dp(T);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t t = 0; t < T; ++t) {
        int64_t seen = causal ? t + 1 : T;
        double top = -INFINITY, sum = 0;
        for (int64_t s = 0; s < seen; ++s) {
          double score = 0;
          for (int64_t h = 0; h < H; ++h)
            score += x[at(b, t, 0, n, h)] * x[at(b, s, 1, n, h)];
          p[s] = score * scale;
          top = std::max(top, p[s]);
        }
        for (int64_t s = 0; s < seen; ++s)
          sum += p[s] = std::exp(p[s] - top);
        for (int64_t s = 0; s < seen; ++s) {
          p[s] /= sum;
          for (int64_t h = 0; h < H; ++h)
            out[rowAt(b, t, n, h)] += p[s] * x[at(b, s, 2, n, h)];
        }
        if (!dout)
          continue;
        // dS = P (dP - D), dP = dO V^T, D = dO . O; dQ = scale dS K,
        // dK = scale dS^T Q, dV = P^T dO.
        double D = 0;
        for (int64_t h = 0; h < H; ++h)
          D += g[rowAt(b, t, n, h)] * out[rowAt(b, t, n, h)];
        for (int64_t s = 0; s < seen; ++s) {
          dp[s] = 0;
          for (int64_t h = 0; h < H; ++h)
            dp[s] += g[rowAt(b, t, n, h)] * x[at(b, s, 2, n, h)];
          double ds = p[s] * (dp[s] - D);
          for (int64_t h = 0; h < H; ++h) {
            grad[at(b, t, 0, n, h)] += scale * ds * x[at(b, s, 1, n, h)];
            grad[at(b, s, 1, n, h)] += scale * ds * x[at(b, t, 0, n, h)];
            grad[at(b, s, 2, n, h)] += p[s] * g[rowAt(b, t, n, h)];
          }
        }
      }
  const std::vector<double> &result = dout ? grad : out;
  Array y(qkv.dtype(), dout ? shape : Shape{B, T, N, H});
  for (size_t i = 0; i < result.size(); ++i)
    y.setDouble(i, result[i]);
  return y;
}

} // namespace

std::string checkQkvAttention(const StepSignature &step) { return checkAttention(step, false); }

StatusOr<Array> referenceQkvAttention(const std::vector<const Array *> &inputs,
                                      const std::vector<int64_t> &attrs) {
  return attention(*inputs[0], nullptr, attrs);
}

std::string checkQkvAttentionGrad(const StepSignature &step) { return checkAttention(step, true); }

StatusOr<Array> referenceQkvAttentionGrad(const std::vector<const Array *> &inputs,
                                          const std::vector<int64_t> &attrs) {
  return attention(*inputs[0], inputs[1], attrs);
}

} // namespace shardc::structured
