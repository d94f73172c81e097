//===- StableHLOToShardc.cpp - import JAX's StableHLO modules -------------===//
//
// The module is rewritten in place, in four steps:
//   1. meshes: each sdy.mesh becomes a shardc.mesh (one without axes, a
//      "maximal" mesh, places a value on one device: such shardings are
//      dropped, as computing it everywhere gives the same values);
//   2. calls: private functions are inlined into their callers, then
//      erased when nothing calls them;
//   3. ops: each op of a function body, in order, is replaced by the shardc
//      ops that compute the same values (OpConversion.cpp); the op's
//      `sdy.sharding` becomes a sharding_constraint on its result;
//   4. signatures: `sdy.sharding` on arguments and results becomes
//      `shardc.sharding`, `jax.arg_info` becomes `shardc.name`, and the
//      attributes only JAX reads (layouts, result info) are dropped.
// The shardc ops verify themselves; the module is verified at the end, so a
// type StableHLO allows and shardc does not (ui8, complex, f8) is an error
// at the op that uses it.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/StableHLOToShardc.h"
#include "ImportUtil.h"
#include "OpConversion.h"
#include "shardc/Conversion/GspmdSharding.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/StableHLO/StableHLO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;
using namespace shardc::import;

namespace shardc {

namespace {

/// Inlines every call of a function defined in the module; returns failure
/// on recursion.
LogicalResult inlineCalls(ModuleOp module) {
  SymbolTable symbols(module);
  for (int round = 0;; ++round) {
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    if (round == 64)
      return calls.front().emitError("calls nest more than 64 deep (recursion?)");
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return call.emitError("calls @") << call.getCallee() << ", which has no body here";
      if (!callee.getBody().hasOneBlock())
        return call.emitError("calls @") << call.getCallee() << ", whose body has several blocks";
      Block &body = callee.getBody().front();
      IRMapping map;
      for (auto [arg, operand] : llvm::zip(body.getArguments(), call.getOperands()))
        map.map(arg, operand);
      OpBuilder b(call);
      for (Operation &op : body.without_terminator())
        b.clone(op, map);
      auto ret = cast<func::ReturnOp>(body.getTerminator());
      for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
        result.replaceAllUsesWith(map.lookupOrDefault(value));
      call.erase();
    }
  }
}

/// Whether a sharding of the function splits a dimension its axes do not
/// divide. XLA pads such dimensions; shardc does where asked.
bool splitsUnevenly(func::FuncOp fn) {
  auto uneven = [&](ShardingAttr s, Type type) {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!s || !t || t.getRank() != s.getRank())
      return false;
    auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(fn, s.getMesh());
    if (!mesh)
      return false;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t n = 1;
      for (StringRef axis : s.getDimAxes(d))
        if (mesh.getAxisIndex(axis) >= 0)
          n *= mesh.getAxisSize(axis);
      if (n > 0 && t.getDimSize(d) % n != 0)
        return true;
    }
    return false;
  };
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (uneven(fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName),
               fn.getArgumentTypes()[i]))
      return true;
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (uneven(fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName),
               fn.getResultTypes()[i]))
      return true;
  bool found = false;
  fn.walk([&](ShardingConstraintOp c) { found |= uneven(c.getSharding(), c.getType()); });
  return found;
}

} // namespace

bool isStableHLOModule(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    if (isImportedDialect(dialectOf(op)) || op->hasAttr("sdy.sharding") ||
        op->hasAttr("mhlo.sharding"))
      found = true;
    if (auto fn = dyn_cast<func::FuncOp>(op))
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (fn.getArgAttr(i, "sdy.sharding") || fn.getArgAttr(i, "mhlo.sharding"))
          found = true;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

LogicalResult importStableHLO(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<ShardcDialect>();
  OpBuilder b(ctx);

  // 1. Meshes.
  MeshMap meshes;
  std::map<std::pair<std::vector<std::string>, std::vector<int64_t>>, std::string> byAxes;
  for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations())) {
    if (op.getName().getStringRef() != "sdy.mesh")
      continue;
    auto name = dyn_cast_or_null<StringAttr>(op.getAttr("sym_name"));
    auto axes = dyn_cast_or_null<ArrayAttr>(op.getAttr("axis_names"));
    auto sizes = dyn_cast_or_null<DenseI64ArrayAttr>(op.getAttr("axis_sizes"));
    if (!name || !axes || !sizes)
      return op.emitError("an sdy.mesh needs a name, axes and sizes");
    int64_t devices = 1;
    for (int64_t s : sizes.asArrayRef())
      devices *= s;
    if (auto ids = dyn_cast_or_null<DenseI64ArrayAttr>(op.getAttr("device_ids"))) {
      bool iota = (int64_t)ids.size() == devices;
      for (int64_t i = 0; iota && i < devices; ++i)
        iota = ids[i] == i;
      if (!iota && !axes.empty())
        return op.emitError("a mesh whose device_ids are not 0, 1, ... in order is not "
                            "supported");
    }
    if (axes.empty()) {
      meshes.to[name.getValue()] = "";
      op.erase();
      continue;
    }
    std::vector<std::string> axisNames;
    for (Attribute a : axes)
      axisNames.push_back(cast<StringAttr>(a).getValue().str());
    auto [twin, fresh] = byAxes.try_emplace(
        {axisNames, std::vector<int64_t>(sizes.asArrayRef().begin(), sizes.asArrayRef().end())},
        name.getValue().str());
    if (!fresh) { // the same mesh again: one
      meshes.to[name.getValue()] = twin->second;
      op.erase();
      continue;
    }
    b.setInsertionPoint(&op);
    MeshOp::create(b, op.getLoc(), name, axes, sizes);
    op.erase();
  }

  // 2. Calls.
  if (failed(inlineCalls(module)))
    return failure();
  SymbolTable symbols(module);
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (fn.isPrivate() && SymbolTable::symbolKnownUseEmpty(fn, module))
      fn.erase();

  // 3. Ops, and 4. signatures.
  int64_t partitions = 0;
  if (auto n = dyn_cast_or_null<IntegerAttr>(module->getAttr("mhlo.num_partitions")))
    partitions = n.getInt();
  GspmdMeshes gspmd(module, partitions);
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    for (auto [kind, types] :
         {std::pair<const char *, ArrayRef<Type>>{"argument", fn.getArgumentTypes()},
          {"result", fn.getResultTypes()}})
      for (auto [i, t] : llvm::enumerate(types))
        if (auto r = dyn_cast<RankedTensorType>(t); !r || !r.hasStaticShape())
          return fn.emitError(kind) << " #" << i << " has type " << t
                                    << ": shardc's programs take and give tensors of static "
                                       "shape";
    if (failed(convertOps(fn.getBody().front(), module, meshes, gspmd)))
      return failure();
    auto signature = [&](unsigned count, auto get, auto set, bool isArg) -> LogicalResult {
      for (unsigned i = 0; i < count; ++i) {
        DictionaryAttr attrs = get(i);
        NamedAttrList out;
        Type type = isArg ? fn.getArgumentTypes()[i] : fn.getResultTypes()[i];
        for (NamedAttribute a : attrs ? attrs.getValue() : ArrayRef<NamedAttribute>()) {
          StringRef key = a.getName().getValue();
          if (key == "sdy.sharding") {
            auto s = dyn_cast<ShardingAttr>(a.getValue());
            if (!s)
              return fn.emitError("sdy.sharding of ")
                     << (isArg ? "argument #" : "result #") << i << " is not a sharding";
            if (ShardingAttr mapped = meshes.map(s))
              out.set(ShardcDialect::kShardingAttrName, mapped);
          } else if (key == "mhlo.sharding") {
            auto text = dyn_cast<StringAttr>(a.getValue());
            auto tensor = dyn_cast<RankedTensorType>(type);
            std::string error;
            FailureOr<ShardingAttr> s =
                text && tensor ? gspmd.shardingFor(text.getValue(), tensor.getRank(), error)
                               : FailureOr<ShardingAttr>(failure());
            if (failed(s))
              return fn.emitError("mhlo.sharding of ")
                     << (isArg ? "argument #" : "result #") << i << ": " << error;
            if (*s)
              out.set(ShardcDialect::kShardingAttrName, *s);
          } else if (key == "jax.arg_info" && isArg) {
            out.set(ShardcDialect::kArgNameAttrName, a.getValue());
          } else if (key.starts_with("shardc.")) {
            out.push_back(a);
          }
          // Layouts, result names, buffer donation hints of XLA's: dropped.
        }
        set(i, out.getDictionary(fn.getContext()));
      }
      return success();
    };
    if (failed(signature(
            fn.getNumArguments(), [&](unsigned i) { return fn.getArgAttrDict(i); },
            [&](unsigned i, DictionaryAttr d) { fn.setArgAttrs(i, d); }, true)) ||
        failed(signature(
            fn.getNumResults(), [&](unsigned i) { return fn.getResultAttrDict(i); },
            [&](unsigned i, DictionaryAttr d) { fn.setResultAttrs(i, d); }, false)))
      return failure();
  }
  gspmd.declareMeshes();
  // XLA pads what a sharding splits unevenly; so does shardc, once asked.
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal() && splitsUnevenly(fn))
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        fn.setArgAttr(i, ShardcDialect::kPadUnevenAttrName, UnitAttr::get(ctx));
  for (StringRef attr : {"mhlo.num_partitions", "mhlo.num_replicas"})
    module->removeAttr(attr);
  return verify(module);
}

namespace {
struct ImportStableHLOPass : PassWrapper<ImportStableHLOPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ImportStableHLOPass)
  StringRef getArgument() const override { return "shardc-import-stablehlo"; }
  StringRef getDescription() const override {
    return "Convert a StableHLO module (with Shardy or GSPMD shardings) to the shardc dialect";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<ShardcDialect>();
  }
  void runOnOperation() override {
    // A module of shardc's own passes through untouched.
    if (isStableHLOModule(getOperation()) && failed(importStableHLO(getOperation())))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> createImportStableHLOPass() {
  return std::make_unique<ImportStableHLOPass>();
}

void registerImportStableHLOPass() { PassRegistration<ImportStableHLOPass>(); }

} // namespace shardc
