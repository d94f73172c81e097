//===- ProductViews.h - how a product reads its operands' matrices -*- C++ -*-===//
//
// A dot_general reads each operand as a batch of matrices: in place where a
// library can walk them by strides (one of rows and columns unit-strided, the
// other a leading dimension), else from a packed copy. Both operands must
// walk their items by the same batch dimensions, or a library that takes one
// list of batch sizes for both (oneDNN) pairs the wrong items. The CPU
// backend reads products through these views, and plan validation checks
// that every view stays inside its operand's buffer.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_PRODUCTVIEWS_H
#define SHARDC_RUNTIME_PRODUCTVIEWS_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Plan.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardc {

/// A batch of matrices inside an operand's buffer, as a product reads them
/// in place: batch dimension i has batchSizes[i] items batchStrides[i]
/// elements apart (the first major); rows are `ld` apart (or, transposed,
/// columns are). `elements` is how many elements may be read from the
/// operand's pointer: a view that reaches past them is refused
/// (viewProblem), never read.
struct MatrixView {
  std::vector<int64_t> batchSizes, batchStrides;
  bool trans = false;
  int64_t ld = 0;
  int64_t elements = 0;
  int64_t items() const;
  /// Where each item starts, in batch order.
  std::vector<int64_t> offsets() const;
  /// The last element the view reads for rows x cols matrices, plus one
  /// (0 when it reads none): offset + sum of (size - 1) * stride.
  int64_t extent(int64_t rows, int64_t cols) const;
};

/// A view that would read past its operand's buffer: an internal error of
/// whoever made the view, raised before any library reads it.
struct ProductViewError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What is wrong with reading rows x cols matrices through `v` ("reads 6144
/// elements of a buffer of 4096"), or "" when nothing is: a view reads
/// nothing past `v.elements`, steps forward only, and has a leading
/// dimension at least as long as its lines.
std::string viewProblem(const MatrixView &v, int64_t rows, int64_t cols);

/// Rewrites `a` and `b`, which hold the same items in the same order, so
/// that both walk them by the same list of batch sizes (a packed operand's
/// one batch dimension of 224 items against the other's 32 x 7 becomes 32 x
/// 7 in both). False, with both unchanged, where no common list exists.
bool alignBatches(MatrixView &a, MatrixView &b);

/// How a product reads one operand: its matrices in place, or (`pack`) a
/// copy with its dimensions in `order` (batch, rows, columns), read packed.
struct OperandLayout {
  bool pack = false;
  std::vector<int64_t> order;
  MatrixView view;
};

/// How a dot_general of `lhs` x `rhs` with dimensions `d` reads its
/// operands: A as [B, M, K] matrices and B as [B, K, N], each in place
/// where a library can read it (attention's [B,T,H,hd] per head: rows H*hd
/// apart) or packed, both walking their items by the same batch sizes, and
/// each view's `elements` the size of what it reads from (the operand, or
/// its packed copy).
struct ProductOperands {
  OperandLayout a, b;
};
ProductOperands productOperands(const DotGeneralDims &d, const Shape &lhs, const Shape &rhs);

} // namespace shardc

#endif // SHARDC_RUNTIME_PRODUCTVIEWS_H
