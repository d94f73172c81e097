//===- StableHLO.h - the dialects of JAX's programs, as read ----*- C++ -*-===//
//
// What `jax.jit(f).lower(...).as_text()` prints: StableHLO ops (`stablehlo`,
// and `chlo` for the few JAX keeps as composites), with shardings in
// Shardy's `sdy` dialect. shardc reads these modules to import them
// (StableHLOToShardc.h): the three dialects here parse the ops' printed
// forms, and also their generic forms, into operations that keep their
// attributes by name. They have no verifiers and nothing runs them; the
// importer checks each op it converts and rejects the others by name.
//
// Attributes: `#stablehlo<comparison_direction LT>` and the like read as
// strings, `#stablehlo.dot<...>`, `.gather<...>` and `.scatter<...>` as
// dictionaries of integer arrays. `#sdy.sharding<@mesh, [...]>` reads as
// shardc's own `#shardc.sharding`, which is the same model (Shardy's
// `unreduced` axes are shardc's `partial` ones); `replicated={...}` is
// dropped, and `#sdy.sharding_per_value<[...]>` reads as an array of them.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_STABLEHLO_STABLEHLO_H
#define SHARDC_DIALECT_STABLEHLO_STABLEHLO_H

#include "mlir/IR/Dialect.h"
#include "mlir/Support/TypeID.h"

namespace shardc {

/// What the three have in common: their operations are unregistered, read
/// by a parse hook, and kept by name.
class ImportedDialect : public mlir::Dialect {
protected:
  ImportedDialect(llvm::StringRef name, mlir::MLIRContext *ctx, mlir::TypeID id)
      : Dialect(name, ctx, id) {
    allowUnknownOperations();
  }
};

class StableHLODialect : public ImportedDialect {
public:
  explicit StableHLODialect(mlir::MLIRContext *ctx);
  static constexpr llvm::StringLiteral getDialectNamespace() { return "stablehlo"; }
  std::optional<ParseOpHook> getParseOperationHook(llvm::StringRef opName) const override;
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser, mlir::Type type) const override;
};

/// CHLO: the elementwise ops JAX does not expand (erf, tan, ...), written
/// like StableHLO's.
class ChloDialect : public ImportedDialect {
public:
  explicit ChloDialect(mlir::MLIRContext *ctx);
  static constexpr llvm::StringLiteral getDialectNamespace() { return "chlo"; }
  std::optional<ParseOpHook> getParseOperationHook(llvm::StringRef opName) const override;
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser, mlir::Type type) const override;
};

class SdyDialect : public ImportedDialect {
public:
  explicit SdyDialect(mlir::MLIRContext *ctx);
  static constexpr llvm::StringLiteral getDialectNamespace() { return "sdy"; }
  std::optional<ParseOpHook> getParseOperationHook(llvm::StringRef opName) const override;
  mlir::Attribute parseAttribute(mlir::DialectAsmParser &parser, mlir::Type type) const override;
};

/// Loads the three, so that a module read in `ctx` may be StableHLO.
void loadStableHLODialects(mlir::MLIRContext &ctx);

} // namespace shardc

MLIR_DECLARE_EXPLICIT_TYPE_ID(shardc::StableHLODialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(shardc::ChloDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(shardc::SdyDialect)

#endif // SHARDC_DIALECT_STABLEHLO_STABLEHLO_H
