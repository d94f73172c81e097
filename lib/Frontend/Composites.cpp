//===- Composites.cpp - neural-network functions from primitive ops -------===//
//
// The functions users expect beside the dialect's ops, written with the
// public ops only (so autodiff and partitioning see ordinary programs). The
// numerically delicate ones subtract the maximum before exponentiating (through
// stop_gradient: the shift cancels, so its gradient is zero and not computed).
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include <cmath>

namespace shardc {

using trace::fail;

Tensor relu(const Tensor &x, CallSite site) { return maximum(x, 0.0, site); }

Tensor gelu(const Tensor &x, bool approximate, CallSite site) {
  if (!isFloat(x.dtype()))
    fail(site, "gelu", "needs a float operand, got " + x.typeString());
  if (approximate) {
    Tensor inner = mul(add(x, mul(mul(mul(x, x, site), x, site), 0.044715, site), site),
                       std::sqrt(2.0 / M_PI), site);
    return mul(mul(x, 0.5, site), add(tanh(inner, site), 1.0, site), site);
  }
  return mul(mul(x, 0.5, site), add(erf(mul(x, M_SQRT1_2, site), site), 1.0, site), site);
}

Tensor log_softmax(const Tensor &x, int64_t axis, CallSite site) {
  if (!isFloat(x.dtype()))
    fail(site, "log_softmax", "needs a float operand, got " + x.typeString());
  // The shift cancels out of the result, so no gradient flows through it.
  Tensor shifted = sub(x, stop_gradient(max(x, {axis}, /*keepdims=*/true, site), site), site);
  return sub(shifted, log(sum(exp(shifted, site), {axis}, true, site), site), site);
}

Tensor softmax(const Tensor &x, int64_t axis, CallSite site) {
  if (!isFloat(x.dtype()))
    fail(site, "softmax", "needs a float operand, got " + x.typeString());
  Tensor e = exp(sub(x, stop_gradient(max(x, {axis}, true, site), site), site), site);
  return div(e, sum(e, {axis}, true, site), site);
}

Tensor layer_norm(const Tensor &x, const Tensor &gamma, const Tensor &beta, double epsilon,
                  CallSite site) {
  if (!isFloat(x.dtype()) || x.rank() < 1)
    fail(site, "layer_norm", "needs a float operand of rank >= 1, got " + x.typeString());
  Shape last{x.dim(-1)};
  if (gamma.shape() != last || beta.shape() != last)
    fail(site, "layer_norm",
         "gamma and beta must be " + trace::typeOf(x.dtype(), last) + " for " + x.typeString() +
             ", got " + gamma.typeString() + " and " + beta.typeString());
  // Each mean is the row's sum of t / n, broadcast back along the row, and
  // the variance's epsilon and square root are taken after that broadcast:
  // then nothing is computed on the rows' sums themselves, and the
  // normalization, both sums included, fuses into one pass over each row
  // (FuseElementwise.cpp's row programs). Dividing before the sum is exact
  // where n is a power of two, and otherwise rounds each term on its own.
  const double n = (double)x.dim(-1);
  auto rowMean = [&](const Tensor &t) {
    return broadcast_to(sum(div(t, n, site), {-1}, true, site), x.shape(), site);
  };
  Tensor centered = sub(x, rowMean(x), site);
  Tensor variance = rowMean(mul(centered, centered, site));
  Tensor normalized = mul(centered, rsqrt(add(variance, epsilon, site), site), site);
  return add(mul(normalized, gamma, site), beta, site);
}

Tensor softmax_cross_entropy(const Tensor &logits, const Tensor &labels, CallSite site) {
  const char *op = "softmax_cross_entropy";
  if (!isFloat(logits.dtype()) || logits.rank() < 1)
    fail(site, op, "logits must be float of rank >= 1, got " + logits.typeString());
  if (labels.dtype() != DType::I32 && labels.dtype() != DType::I64)
    fail(site, op, "labels must be i32 or i64, got " + labels.typeString());
  Shape batch(logits.shape().begin(), logits.shape().end() - 1);
  if (labels.shape() != batch)
    fail(site, op,
         "labels must be " + trace::typeOf(labels.dtype(), batch) + " for logits " +
             logits.typeString() + ", got " + labels.typeString());
  Tensor lp = log_softmax(logits, -1, site);
  // The class ids along the last dimension and the labels, compared in the
  // logits' dtype (exact below 2^24 classes), so the compare, the pick and
  // the per-row sum fuse into one pass over the logits.
  int64_t classCount = logits.dim(-1);
  DType ids = classCount < (int64_t(1) << 24) ? logits.dtype() : labels.dtype();
  Tensor classes =
      broadcast_in_dim(iota({classCount}, 0, ids, site), logits.shape(), {logits.rank() - 1}, site);
  std::vector<int64_t> dims(batch.size());
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i] = (int64_t)i;
  Tensor hit =
      equal(classes, broadcast_in_dim(astype(labels, ids, site), logits.shape(), dims, site), site);
  Tensor picked = sum(where(hit, lp, 0.0, site), {-1}, false, site); // per example
  return neg(div(sum(picked, {}, false, site), (double)numElements(batch), site), site);
}

} // namespace shardc
