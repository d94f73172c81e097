//===- Padding.h - partitioning of dimensions split unevenly ----*- C++ -*-===//
//
// A sharding whose axes do not divide a dimension pads it to the next
// multiple (docs/sharding.md). Partitioning allows that only where it is
// asked to, and keeps the padding from every real value: a reduction over a
// padded dimension sees its identity there. The reshards of padded
// dimensions are in Reshard.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_PADDING_H
#define SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_PADDING_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace shardc {

/// Every sharding of `fn` that pads a dimension must be allowed to: an
/// argument's by `padUneven` or its own `shardc.pad_uneven`; any other
/// (results, constraints, the shardings propagation gave ops) by `padUneven`
/// or an argument marked so, whose layout propagation carried. Otherwise an
/// error names the value, the dimension, the axes and both ways to ask.
mlir::LogicalResult checkPadding(mlir::func::FuncOp fn, MeshOp mesh, bool padUneven);

/// The masks that replace padding by a reduction's identity, each made once
/// per function.
class PaddingMasks {
public:
  PaddingMasks(mlir::OpBuilder &b, MeshOp mesh) : b(b), mesh(mesh) {}

  /// `local`, split along `dim` (of global size `size`) over `axes` with
  /// padding, with the padding replaced by the identity of `kind`: what a
  /// reduction over that dimension may see.
  mlir::Value mask(mlir::Location at, mlir::Value local, int64_t dim, int64_t size,
                   llvm::ArrayRef<llvm::StringRef> axes, Reduction kind);

private:
  mlir::OpBuilder &b;
  MeshOp mesh;
  /// Per padded size and axes: which of a device's elements are real.
  llvm::StringMap<mlir::Value> made;
};

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_PADDING_H
