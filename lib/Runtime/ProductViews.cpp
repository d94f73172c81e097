//===- ProductViews.cpp - how a product reads its operands' matrices ------===//
//
// See ProductViews.h. The views are decoded from a product's dimension
// numbers and shapes alone, so the CPU backend and plan validation derive
// the same ones.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/ProductViews.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace shardc {

int64_t MatrixView::items() const {
  int64_t n = 1;
  for (int64_t s : batchSizes)
    n *= s;
  return n;
}

std::vector<int64_t> MatrixView::offsets() const {
  std::vector<int64_t> offsets = {0};
  for (size_t d = 0; d < batchSizes.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * batchSizes[d]);
    for (int64_t o : offsets)
      for (int64_t i = 0; i < batchSizes[d]; ++i)
        next.push_back(o + i * batchStrides[d]);
    offsets = std::move(next);
  }
  return offsets;
}

int64_t MatrixView::extent(int64_t rows, int64_t cols) const {
  if (rows <= 0 || cols <= 0 || items() <= 0)
    return 0;
  int64_t last = 0;
  for (size_t i = 0; i < batchSizes.size(); ++i)
    last += (batchSizes[i] - 1) * batchStrides[i];
  return last + (trans ? (cols - 1) * ld + rows : (rows - 1) * ld + cols);
}

std::string viewProblem(const MatrixView &v, int64_t rows, int64_t cols) {
  if (v.batchSizes.size() != v.batchStrides.size())
    return "has " + std::to_string(v.batchSizes.size()) + " batch sizes and " +
           std::to_string(v.batchStrides.size()) + " batch strides";
  for (size_t i = 0; i < v.batchSizes.size(); ++i)
    if (v.batchSizes[i] < 0 || v.batchStrides[i] < 0)
      return "has batch dimension " + std::to_string(i) + " of size " +
             std::to_string(v.batchSizes[i]) + " and stride " + std::to_string(v.batchStrides[i]);
  if (rows <= 0 || cols <= 0 || v.items() == 0)
    return "";
  int64_t length = v.trans ? rows : cols;
  if (v.ld < length)
    return "has a leading dimension of " + std::to_string(v.ld) + ", shorter than its " +
           (v.trans ? "columns" : "rows") + " of " + std::to_string(length);
  int64_t extent = v.extent(rows, cols);
  if (extent > v.elements)
    return "reads " + std::to_string(extent) + " elements of a buffer of " +
           std::to_string(v.elements);
  return "";
}

bool alignBatches(MatrixView &a, MatrixView &b) {
  if (a.batchSizes == b.batchSizes)
    return true;
  if (a.items() != b.items())
    return false;
  // Dimensions of size 1 step nowhere; the others are split from the
  // innermost out wherever one operand's size is a multiple of the other's
  // (a dimension of n items s apart is n / m items m * s apart over m
  // items s apart).
  struct Dim {
    int64_t size, stride;
  };
  auto live = [](const MatrixView &v) {
    std::vector<Dim> dims;
    for (size_t i = 0; i < v.batchSizes.size(); ++i)
      if (v.batchSizes[i] != 1)
        dims.push_back({v.batchSizes[i], v.batchStrides[i]});
    return dims;
  };
  std::vector<Dim> da = live(a), db = live(b);
  std::vector<int64_t> sizes, aStrides, bStrides;
  while (!da.empty() && !db.empty()) {
    Dim &x = da.back(), &y = db.back();
    int64_t n = std::min(x.size, y.size);
    if (n <= 0 || x.size % n || y.size % n)
      return false;
    sizes.push_back(n);
    aStrides.push_back(x.stride);
    bStrides.push_back(y.stride);
    x.size /= n, x.stride *= n;
    y.size /= n, y.stride *= n;
    if (x.size == 1)
      da.pop_back();
    if (y.size == 1)
      db.pop_back();
  }
  if (!da.empty() || !db.empty())
    return false;
  std::reverse(sizes.begin(), sizes.end());
  std::reverse(aStrides.begin(), aStrides.end());
  std::reverse(bStrides.begin(), bStrides.end());
  a.batchSizes = b.batchSizes = sizes;
  a.batchStrides = std::move(aStrides);
  b.batchStrides = std::move(bStrides);
  return true;
}

namespace {

/// Dimensions `group` of an operand walked as one: their total size and the
/// stride of the last, when each steps over the next (else nullopt).
std::optional<std::pair<int64_t, int64_t>>
merged(const Shape &shape, const std::vector<int64_t> &strides, const std::vector<int64_t> &group) {
  int64_t size = 1;
  std::vector<int64_t> live; // size-1 dimensions have no stride to respect
  for (int64_t d : group) {
    size *= shape[d];
    if (shape[d] != 1)
      live.push_back(d);
  }
  for (size_t i = 0; i + 1 < live.size(); ++i)
    if (strides[live[i]] != shape[live[i + 1]] * strides[live[i + 1]])
      return std::nullopt;
  return std::make_pair(size, live.empty() ? int64_t(0) : strides[live.back()]);
}

/// The operand's matrices for batch dims `batch`, rows `rows` and columns
/// `cols`, read in place where BLAS can (one of the two unit-strided, the
/// other a leading dimension), else nullopt.
std::optional<MatrixView> matrixView(const Shape &shape, const std::vector<int64_t> &batch,
                                     const std::vector<int64_t> &rows,
                                     const std::vector<int64_t> &cols) {
  std::vector<int64_t> strides = stridesOf(shape);
  auto r = merged(shape, strides, rows), c = merged(shape, strides, cols);
  if (!r || !c)
    return std::nullopt;
  auto [R, sr] = *r;
  auto [C, sc] = *c;
  if (C == 1)
    sc = 1;
  if (R == 1)
    sr = std::max<int64_t>(C, 1);
  MatrixView v;
  if (sc == 1 && sr >= std::max<int64_t>(C, 1)) {
    v.ld = sr;
  } else if (sr == 1 && sc >= std::max<int64_t>(R, 1)) {
    v.trans = true;
    v.ld = sc;
  } else {
    return std::nullopt;
  }
  // Batch dimensions in order (the first major); a size-1 one steps nowhere.
  for (int64_t d : batch)
    if (shape[d] != 1) {
      v.batchSizes.push_back(shape[d]);
      v.batchStrides.push_back(strides[d]);
    }
  v.elements = numElements(shape);
  return v;
}

/// An operand read from a copy with its dimensions in `order` (batch, rows,
/// columns): [items, R, C], packed.
OperandLayout packedLayout(std::vector<int64_t> order, int64_t items, int64_t R, int64_t C) {
  OperandLayout o;
  o.pack = true;
  o.order = std::move(order);
  o.view = *matrixView(Shape{items, R, C}, {0}, {1}, {2});
  return o;
}

std::vector<int64_t> concat(std::vector<int64_t> a, const std::vector<int64_t> &b,
                            const std::vector<int64_t> &c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

/// The operand of `shape` whose matrices have batch dims `batch`, rows
/// `rows` and columns `cols`: in place where BLAS can read its matrices,
/// else packed into [items, R, C].
OperandLayout operandLayout(const Shape &shape, const std::vector<int64_t> &batch,
                            const std::vector<int64_t> &rows, const std::vector<int64_t> &cols,
                            int64_t items, int64_t R, int64_t C) {
  if (std::optional<MatrixView> v = matrixView(shape, batch, rows, cols))
    return OperandLayout{false, {}, *v};
  return packedLayout(concat(batch, rows, cols), items, R, C);
}

} // namespace

ProductOperands productOperands(const DotGeneralDims &d, const Shape &lhs, const Shape &rhs) {
  ProductOperands p;
  if (d.B * d.M * d.N * d.K == 0)
    return p; // no product runs: nothing to read
  p.a = operandLayout(lhs, d.lhsBatching, d.lhsFree, d.lhsContracting, d.B, d.M, d.K);
  p.b = operandLayout(rhs, d.rhsBatching, d.rhsContracting, d.rhsFree, d.B, d.K, d.N);
  // Both list the same batch items in the product's order, but a packed one
  // as one dimension and one read in place by its own: the first split
  // like the second. Where no split fits, both are packed.
  if (!alignBatches(p.a.view, p.b.view)) {
    p.a = packedLayout(concat(d.lhsBatching, d.lhsFree, d.lhsContracting), d.B, d.M, d.K);
    p.b = packedLayout(concat(d.rhsBatching, d.rhsContracting, d.rhsFree), d.B, d.K, d.N);
  }
  return p;
}

} // namespace shardc
