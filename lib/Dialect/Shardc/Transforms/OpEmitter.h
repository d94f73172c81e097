//===- OpEmitter.h - building the dialect's ops for math --------*- C++ -*-===//

#ifndef SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPEMITTER_H
#define SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPEMITTER_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"

namespace shardc {

/// Builds the dialect's ops at one location, with the shapes worked out:
/// what the gradient rules and the optimizers write their math with.
struct Emitter {
  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::RankedTensorType typeOf(mlir::Value v) {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }

  mlir::Value splat(mlir::RankedTensorType type, double value) {
    mlir::Attribute element = b.getFloatAttr(type.getElementType(), value);
    return ConstantOp::create(b, loc, mlir::DenseElementsAttr::get(type, element));
  }
  mlir::Value zerosLike(mlir::Value v) { return splat(typeOf(v), 0.0); }
  mlir::Value scalarLike(mlir::Value v, double value) { return splat(typeOf(v), value); }

  mlir::Value add(mlir::Value x, mlir::Value y) { return AddOp::create(b, loc, x, y); }
  mlir::Value sub(mlir::Value x, mlir::Value y) { return SubOp::create(b, loc, x, y); }
  mlir::Value mul(mlir::Value x, mlir::Value y) { return MulOp::create(b, loc, x, y); }
  mlir::Value div(mlir::Value x, mlir::Value y) { return DivOp::create(b, loc, x, y); }
  mlir::Value neg(mlir::Value x) { return NegOp::create(b, loc, x); }
  mlir::Value select(mlir::Value p, mlir::Value x, mlir::Value y) {
    return SelectOp::create(b, loc, p, x, y);
  }
  mlir::Value compare(CompareDirection d, mlir::Value x, mlir::Value y) {
    return CompareOp::create(b, loc, d, x, y);
  }
  mlir::Value convert(mlir::Value x, mlir::Type elementType) {
    auto type = mlir::RankedTensorType::get(typeOf(x).getShape(), elementType);
    return ConvertOp::create(b, loc, type, x);
  }
  mlir::Value reduceSum(mlir::Value x, llvm::ArrayRef<int64_t> dims) {
    if (dims.empty())
      return x;
    return ReduceOp::create(b, loc, ReduceKind::Sum, x, b.getDenseI64ArrayAttr(dims));
  }
  mlir::Value broadcast(mlir::Value x, mlir::RankedTensorType to, llvm::ArrayRef<int64_t> dims) {
    return BroadcastInDimOp::create(b, loc, to, x, b.getDenseI64ArrayAttr(dims));
  }
  mlir::Value reshape(mlir::Value x, mlir::RankedTensorType to) {
    return typeOf(x) == to ? x : ReshapeOp::create(b, loc, to, x).getResult();
  }
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm) {
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i)
      identity &= perm[i] == (int64_t)i;
    return identity ? x : TransposeOp::create(b, loc, x, b.getDenseI64ArrayAttr(perm)).getResult();
  }
  /// g broadcast back over the dimensions `kept` of a value of type `to`
  /// that a reduction removed.
  mlir::Value unreduce(mlir::Value g, mlir::RankedTensorType to, llvm::ArrayRef<int64_t> reduced) {
    llvm::SmallVector<int64_t> kept;
    for (int64_t d = 0; d < to.getRank(); ++d)
      if (!llvm::is_contained(reduced, d))
        kept.push_back(d);
    return broadcast(g, mlir::RankedTensorType::get(to.getShape(), typeOf(g).getElementType()),
                     kept);
  }

  /// A rank-0 value broadcast to `like`'s type (converted to its element
  /// type first).
  mlir::Value spread(mlir::Value scalar, mlir::Value like) {
    auto t = typeOf(like);
    mlir::Value s = scalar;
    if (typeOf(scalar).getElementType() != t.getElementType())
      s = convert(scalar, t.getElementType());
    return broadcast(s, t, {});
  }
  mlir::Value scale(mlir::Value x, double k) { return mul(x, scalarLike(x, k)); }
};

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_OPEMITTER_H
