//===- Indexing.h - gather, scatter, reverse and pad ------------*- C++ -*-===//

#ifndef SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_INDEXING_H
#define SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_INDEXING_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"

namespace shardc::import {

/// A gather of whole slices along one dimension, as shardc.take (with
/// StableHLO's clamping of the indices); an error naming what else it is.
mlir::FailureOr<mlir::Value> convertGather(mlir::Operation *op, mlir::OpBuilder &b);

/// A scatter that adds whole windows along one dimension, as
/// shardc.scatter_add (out-of-range updates skipped, as StableHLO does);
/// `adds`: whether the scatter's body is one add of its two arguments.
mlir::FailureOr<mlir::Value> convertScatterAdd(mlir::Operation *op, mlir::OpBuilder &b, bool adds);

/// reverse, as takes of the reversed indices.
mlir::FailureOr<mlir::Value> convertReverse(mlir::Operation *op, mlir::OpBuilder &b);

/// pad without interior padding, as concatenations (and slices where an
/// edge is negative).
mlir::FailureOr<mlir::Value> convertPad(mlir::Operation *op, mlir::OpBuilder &b);

} // namespace shardc::import

#endif // SHARDC_LIB_CONVERSION_STABLEHLOTOSHARDC_INDEXING_H
