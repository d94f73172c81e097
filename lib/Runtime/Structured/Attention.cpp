//===- Attention.cpp - attention and its gradients ------------------------===//
//
// attention: inputs q [B,T,N,H], k and v [B,S,N,H] (and kv_lengths [B]
// i32); attention_grad: q, k, v and dout [B,T,N,H] (and kv_lengths);
// qkv_attention: qkv [B,T,3,N,H], q, k and v its slices 0, 1, 2 along
// dimension 2; qkv_attention_grad: qkv and dout [B,T,N,H]. Each of
// f32 or f64; attrs = {causal, the bits of scale as an f64}. Per batch
// item b and head n:
//   out[b,t,n] = sum over visible s of p[t,s] v[b,s,n],
//   p[t,:] = softmax over visible s of scale q[b,t,n] . k[b,s,n],
// where key s is visible to query t if s < kv_lengths[b] (clamped to
// [0, S]; all keys without lengths) and, with causal, s <= t. A query that
// sees no key gets zeros. The gradient is that of sum(out * dout): in
// qkv's layout, or [B, T + 2S, N, H] with dq, dk and dv one after another
// along positions. The references compute in double precision and store each
// row's scores.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/StructuredOps.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace shardc::structured {

namespace {

bool isF32OrF64(DType t) { return t == DType::F32 || t == DType::F64; }

/// "" or what is wrong with the attributes {causal, scale's bits}.
std::string checkAttrs(const std::vector<int64_t> &attrs) {
  if (attrs.size() != 2)
    return "has " + std::to_string(attrs.size()) + " attribute numbers, expected 2 (causal, scale)";
  if (attrs[0] != 0 && attrs[0] != 1)
    return "causal must be 0 or 1, not " + std::to_string(attrs[0]);
  double scale = attentionScale(attrs);
  if (!std::isfinite(scale) || scale <= 0)
    return "scale must be positive and finite, not " + std::to_string(scale);
  return "";
}

std::string checkPacked(const StepSignature &step, bool grad) {
  size_t inputs = grad ? 2 : 1;
  if (step.inputs.size() != inputs || step.outputs.size() != 1)
    return "takes " + std::to_string(inputs) + " input" + (grad ? "s" : "") + " and 1 output";
  if (std::string wrong = checkAttrs(step.attrs); !wrong.empty())
    return wrong;
  const TensorSignature &qkv = step.inputs[0], &out = step.outputs[0];
  if (!isF32OrF64(qkv.dtype) || qkv.shape.size() != 5 || qkv.shape[2] != 3)
    return "qkv must be [B, T, 3, N, H] of f32 or f64, not " + signatureString(qkv);
  TensorSignature rows{qkv.dtype, {qkv.shape[0], qkv.shape[1], qkv.shape[3], qkv.shape[4]}};
  if (grad && (step.inputs[1].dtype != rows.dtype || step.inputs[1].shape != rows.shape))
    return "dout must be " + signatureString(rows) + ", not " + signatureString(step.inputs[1]);
  const TensorSignature &want = grad ? qkv : rows;
  if (out.dtype != want.dtype || out.shape != want.shape)
    return "the output must be " + signatureString(want) + ", not " + signatureString(out);
  return "";
}

/// Element (b, position, n, h) of an operand at x[b * batch + position *
/// row + n * H + h].
struct View {
  std::vector<double> *x;
  int64_t batch, row;
};

/// Attention by the definition over views of q, k and v; with `dout` (laid
/// out as `out`, [B,T,N,H]) also the gradients into dq, dk and dv (views
/// of zeroed buffers laid out as the operands).
void attend(int64_t B, int64_t T, int64_t S, int64_t N, int64_t H, bool causal, double scale,
            const std::vector<int64_t> &lengths, View q, View k, View v, std::vector<double> &out,
            const std::vector<double> *dout, View dq, View dk, View dv) {
  auto at = [&](const View &w, int64_t b, int64_t pos, int64_t n) {
    return w.x->data() + b * w.batch + pos * w.row + n * H;
  };
  std::vector<double> p(S), dp(S);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t t = 0; t < T; ++t) {
        int64_t seen = std::min(lengths[b], causal ? t + 1 : S);
        if (seen <= 0)
          continue; // zeros, and no gradient
        const double *qt = at(q, b, t, n);
        double top = -INFINITY, sum = 0;
        for (int64_t s = 0; s < seen; ++s) {
          const double *ks = at(k, b, s, n);
          double score = 0;
          for (int64_t h = 0; h < H; ++h)
            score += qt[h] * ks[h];
          p[s] = score * scale;
          top = std::max(top, p[s]);
        }
        for (int64_t s = 0; s < seen; ++s)
          sum += p[s] = std::exp(p[s] - top);
        double *ot = out.data() + ((b * T + t) * N + n) * H;
        for (int64_t s = 0; s < seen; ++s) {
          p[s] /= sum;
          const double *vs = at(v, b, s, n);
          for (int64_t h = 0; h < H; ++h)
            ot[h] += p[s] * vs[h];
        }
        if (!dout)
          continue;
        // dS = P (dP - D), dP = dO V^T, D = dO . O; dQ = scale dS K,
        // dK = scale dS^T Q, dV = P^T dO.
        const double *gt = dout->data() + ((b * T + t) * N + n) * H;
        double D = 0;
        for (int64_t h = 0; h < H; ++h)
          D += gt[h] * ot[h];
        double *dqt = at(dq, b, t, n);
        for (int64_t s = 0; s < seen; ++s) {
          const double *ks = at(k, b, s, n), *vs = at(v, b, s, n);
          dp[s] = 0;
          for (int64_t h = 0; h < H; ++h)
            dp[s] += gt[h] * vs[h];
          double ds = p[s] * (dp[s] - D);
          double *dks = at(dk, b, s, n), *dvs = at(dv, b, s, n);
          for (int64_t h = 0; h < H; ++h) {
            dqt[h] += scale * ds * ks[h];
            dks[h] += scale * ds * qt[h];
            dvs[h] += p[s] * gt[h];
          }
        }
      }
}

std::vector<double> doubles(const Array &a) {
  std::vector<double> x(a.numElements());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = a.getDouble(i);
  return x;
}

Array toArray(DType dtype, Shape shape, const std::vector<double> &x) {
  Array y(dtype, std::move(shape));
  for (size_t i = 0; i < x.size(); ++i)
    y.setDouble(i, x[i]);
  return y;
}

/// qkv_attention of `qkv` by the definition, and with `dout` its gradient.
StatusOr<Array> packed(const Array &qkv, const Array *dout, const std::vector<int64_t> &attrs) {
  const Shape &shape = qkv.shape();
  int64_t B = shape[0], T = shape[1], N = shape[3], H = shape[4], NH = N * H;
  double scale = attentionScale(attrs);
  std::vector<double> x = doubles(qkv), out(B * T * NH, 0.0), g, grad;
  // The slices of qkv (and of its gradient) are views T * 3NH per batch
  // item and 3NH per position apart, NH and 2NH in for k and v.
  std::vector<double> kx(x.begin() + NH, x.end()), vx(x.begin() + 2 * NH, x.end());
  if (dout) {
    g = doubles(*dout);
    grad.assign(x.size(), 0.0);
  }
  std::vector<double> dk(dout ? x.size() : 0, 0.0), dv(dout ? x.size() : 0, 0.0);
  View q{&x, T * 3 * NH, 3 * NH}, k{&kx, T * 3 * NH, 3 * NH}, v{&vx, T * 3 * NH, 3 * NH};
  View dq{&grad, T * 3 * NH, 3 * NH}, dkv{&dk, T * 3 * NH, 3 * NH}, dvv{&dv, T * 3 * NH, 3 * NH};
  attend(B, T, T, N, H, attrs[0] != 0, scale, std::vector<int64_t>(B, T), q, k, v, out,
         dout ? &g : nullptr, dq, dkv, dvv);
  if (!dout)
    return toArray(qkv.dtype(), {B, T, N, H}, out);
  // dk and dv were accumulated at offset 0 of their own buffers: move them
  // to their slices of the gradient.
  for (int64_t r = 0; r < B * T; ++r)
    for (int64_t i = 0; i < NH; ++i) {
      grad[r * 3 * NH + NH + i] = dk[r * 3 * NH + i];
      grad[r * 3 * NH + 2 * NH + i] = dv[r * 3 * NH + i];
    }
  return toArray(qkv.dtype(), shape, grad);
}

/// attention of inputs {q, k, v} (then dout where `grad`, then kv_lengths
/// where given) by the definition, and with dout its gradient: dq, dk and
/// dv one after another along positions.
StatusOr<Array> separate(const std::vector<const Array *> &inputs, bool grad,
                         const std::vector<int64_t> &attrs) {
  const Shape &qs = inputs[0]->shape(), &ks = inputs[1]->shape();
  int64_t B = qs[0], T = qs[1], S = ks[1], N = qs[2], H = qs[3], NH = N * H;
  double scale = attentionScale(attrs);
  size_t lengthsAt = grad ? 4 : 3;
  std::vector<int64_t> lengths(B, S);
  if (inputs.size() > lengthsAt)
    for (int64_t b = 0; b < B; ++b)
      lengths[b] = std::clamp<int64_t>(inputs[lengthsAt]->getInt(b), 0, S);
  std::vector<double> q = doubles(*inputs[0]), k = doubles(*inputs[1]), v = doubles(*inputs[2]);
  std::vector<double> out(B * T * NH, 0.0), g, dq, dk, dv;
  if (grad) {
    g = doubles(*inputs[3]);
    dq.assign(q.size(), 0.0), dk.assign(k.size(), 0.0), dv.assign(v.size(), 0.0);
  }
  attend(B, T, S, N, H, attrs[0] != 0, scale, lengths, {&q, T * NH, NH}, {&k, S * NH, NH},
         {&v, S * NH, NH}, out, grad ? &g : nullptr, {&dq, T * NH, NH}, {&dk, S * NH, NH},
         {&dv, S * NH, NH});
  if (!grad)
    return toArray(inputs[0]->dtype(), qs, out);
  std::vector<double> all;
  all.reserve(dq.size() + dk.size() + dv.size());
  for (int64_t b = 0; b < B; ++b) {
    all.insert(all.end(), dq.begin() + b * T * NH, dq.begin() + (b + 1) * T * NH);
    all.insert(all.end(), dk.begin() + b * S * NH, dk.begin() + (b + 1) * S * NH);
    all.insert(all.end(), dv.begin() + b * S * NH, dv.begin() + (b + 1) * S * NH);
  }
  return toArray(inputs[0]->dtype(), {B, T + 2 * S, N, H}, all);
}

} // namespace

std::string checkAttention(const StepSignature &step) {
  if ((step.inputs.size() != 3 && step.inputs.size() != 4) || step.outputs.size() != 1)
    return "takes 3 or 4 inputs (q, k, v, kv_lengths) and 1 output";
  if (std::string wrong = checkAttrs(step.attrs); !wrong.empty())
    return wrong;
  const TensorSignature &q = step.inputs[0], &k = step.inputs[1], &v = step.inputs[2];
  if (!isF32OrF64(q.dtype) || q.shape.size() != 4)
    return "q must be [B, T, N, H] of f32 or f64, not " + signatureString(q);
  if (k.dtype != q.dtype || k.shape.size() != 4 || k.shape[0] != q.shape[0] ||
      k.shape[2] != q.shape[2] || k.shape[3] != q.shape[3])
    return "k must be [B, S, N, H] with q's B, N, H and type, not " + signatureString(k);
  if (v.dtype != k.dtype || v.shape != k.shape)
    return "v must be " + signatureString(k) + ", not " + signatureString(v);
  if (step.inputs.size() == 4 &&
      (step.inputs[3].dtype != DType::I32 || step.inputs[3].shape != Shape{q.shape[0]}))
    return "kv_lengths must be [" + std::to_string(q.shape[0]) + "] i32, not " +
           signatureString(step.inputs[3]);
  if (step.outputs[0].dtype != q.dtype || step.outputs[0].shape != q.shape)
    return "the output must be " + signatureString(q) + ", not " + signatureString(step.outputs[0]);
  return "";
}

StatusOr<Array> referenceAttention(const std::vector<const Array *> &inputs,
                                   const std::vector<int64_t> &attrs) {
  return separate(inputs, false, attrs);
}

std::string checkAttentionGrad(const StepSignature &step) {
  if ((step.inputs.size() != 4 && step.inputs.size() != 5) || step.outputs.size() != 1)
    return "takes 4 or 5 inputs (q, k, v, dout, kv_lengths) and 1 output";
  // The operands are attention's, with dout beside them.
  StepSignature forward = step;
  forward.inputs.erase(forward.inputs.begin() + 3);
  forward.outputs = {step.inputs[0]};
  if (std::string wrong = checkAttention(forward); !wrong.empty())
    return wrong;
  const TensorSignature &q = step.inputs[0], &dout = step.inputs[3];
  if (dout.dtype != q.dtype || dout.shape != q.shape)
    return "dout must be " + signatureString(q) + ", not " + signatureString(dout);
  TensorSignature want{
      q.dtype, {q.shape[0], q.shape[1] + 2 * step.inputs[1].shape[1], q.shape[2], q.shape[3]}};
  if (step.outputs[0].dtype != want.dtype || step.outputs[0].shape != want.shape)
    return "the output must be " + signatureString(want) +
           " (dq, dk and dv along positions), not " + signatureString(step.outputs[0]);
  return "";
}

StatusOr<Array> referenceAttentionGrad(const std::vector<const Array *> &inputs,
                                       const std::vector<int64_t> &attrs) {
  return separate(inputs, true, attrs);
}

std::string checkQkvAttention(const StepSignature &step) { return checkPacked(step, false); }

StatusOr<Array> referenceQkvAttention(const std::vector<const Array *> &inputs,
                                      const std::vector<int64_t> &attrs) {
  return packed(*inputs[0], nullptr, attrs);
}

std::string checkQkvAttentionGrad(const StepSignature &step) { return checkPacked(step, true); }

StatusOr<Array> referenceQkvAttentionGrad(const std::vector<const Array *> &inputs,
                                          const std::vector<int64_t> &attrs) {
  return packed(*inputs[0], inputs[1], attrs);
}

} // namespace shardc::structured
