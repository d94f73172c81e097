//===- Kernels.h - reference kernels for every op ---------------*- C++ -*-===//
//
// Obviously correct, unoptimized implementations of the dialect's operations
// on host arrays. They are the oracle every fast path is checked against, so
// they favour clarity: floats are computed in double and rounded to the
// element type once per op; integers in int64.
//
// Shapes and attributes are assumed valid (the dialect's verifiers check them);
// only data-dependent errors (an index out of range, an integer division by
// zero) are reported, as a Status.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_REFERENCE_KERNELS_H
#define SHARDC_REFERENCE_KERNELS_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Status.h"

#include <vector>

namespace shardc::ref {

enum class CompareFn { EQ, NE, LT, LE, GT, GE };

using Dims = std::vector<int64_t>;

// Elementwise ---------------------------------------------------------------
/// An elementwise op of OpCodes.def (isUnary / isBinary): floats by its
/// formula in double, rounded once; integers as written out here for the
/// ops that accept them.
Array unary(OpCode op, const Array &x);
StatusOr<Array> binary(OpCode op, const Array &lhs, const Array &rhs);
/// Returns an i1 array.
Array compare(CompareFn fn, const Array &lhs, const Array &rhs);
Array select(const Array &pred, const Array &onTrue, const Array &onFalse);
Array convert(const Array &x, DType to);

// Sources -------------------------------------------------------------------
Array iota(DType dtype, const Shape &shape, int64_t dim);

// Contractions and reductions -----------------------------------------------
struct DotDims {
  Dims lhsBatching, rhsBatching, lhsContracting, rhsContracting;
  /// bf16 and tf32 round the (f32) operands first; the sum is exact either
  /// way. At bf16 an operand may be bf16 already; the result is f32.
  MatmulPrecision precision = MatmulPrecision::F32;
};
/// Result dims: batching, lhs free, rhs free (as shardc.dot_general).
Array dotGeneral(const Array &lhs, const Array &rhs, const DotDims &dims);
Array reduce(Reduction kind, const Array &x, const Dims &dims);

// Data movement -------------------------------------------------------------
Array broadcastInDim(const Array &x, const Shape &resultShape, const Dims &dims);
Array reshape(const Array &x, const Shape &shape);
Array transpose(const Array &x, const Dims &permutation);
Array slice(const Array &x, const Dims &start, const Dims &limit, const Dims &strides);
Array concatenate(const std::vector<const Array *> &inputs, int64_t dim);
/// The corner of a box of `box` at run-time `indices` (integer scalars),
/// each clamped to [0, x size - box size] as StableHLO does.
Dims clampedCorner(const Shape &x, const Shape &box, const std::vector<const Array *> &indices);
/// The box of `shape` at `corner` (see clampedCorner).
Array dynamicSlice(const Array &x, const Dims &corner, const Shape &shape);
/// `x` with the box at `corner` replaced by `update`.
Array dynamicUpdateSlice(const Array &x, const Array &update, const Dims &corner);

// Collectives over one group (members ordered by group rank) ----------------
Array allReduce(Reduction kind, const std::vector<const Array *> &group);
Array allGather(const std::vector<const Array *> &group, int64_t dim);
/// Result for each member.
std::vector<Array> reduceScatter(Reduction kind, const std::vector<const Array *> &group,
                                 int64_t dim);
/// Each member keeps its own block (at its group rank) of `dim`.
std::vector<Array> allSlice(const std::vector<const Array *> &group, int64_t dim);
std::vector<Array> allToAll(const std::vector<const Array *> &group, int64_t splitDim,
                            int64_t concatDim);
/// Member r gets member sources[r]'s value.
std::vector<Array> collectivePermute(const std::vector<const Array *> &group,
                                     const std::vector<int64_t> &sources);

} // namespace shardc::ref

#endif // SHARDC_REFERENCE_KERNELS_H
