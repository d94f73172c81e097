//===- Interpreter.cpp - the reference interpreter ------------------------===//
//
// A walk over the ops of a function. Every SSA value maps to its array on each
// device ("lanes"); each op maps to a reference kernel run once per device,
// except collectives (once per device group) and shard_map (a nested run on
// the devices of its mesh).
//
//===----------------------------------------------------------------------===//

#include "shardc/Interpreter/Interpreter.h"

#include "shardc/Conversion/RuntimeTypes.h"
#include "shardc/Runtime/StructuredOps.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Reference/Kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace shardc {

namespace {

ref::Dims toDims(ArrayRef<int64_t> a) { return ref::Dims(a.begin(), a.end()); }

Shape shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return Shape(t.getShape().begin(), t.getShape().end());
}

DType dtypeOf(Value v) { return *toDType(cast<RankedTensorType>(v.getType()).getElementType()); }

ref::CompareFn toCompare(CompareDirection d) {
  switch (d) {
  case CompareDirection::EQ:
    return ref::CompareFn::EQ;
  case CompareDirection::NE:
    return ref::CompareFn::NE;
  case CompareDirection::LT:
    return ref::CompareFn::LT;
  case CompareDirection::LE:
    return ref::CompareFn::LE;
  case CompareDirection::GT:
    return ref::CompareFn::GT;
  case CompareDirection::GE:
    return ref::CompareFn::GE;
  }
  return ref::CompareFn::EQ;
}

/// Converts a constant's elements to an Array. Fails for attributes whose
/// elements cannot be enumerated (an elided or external `dense_resource`).
std::vector<std::string> axisList(ArrayAttr axes) {
  std::vector<std::string> out;
  for (Attribute a : axes)
    out.push_back(cast<StringAttr>(a).getValue().str());
  return out;
}

class Interpreter {
public:
  explicit Interpreter(int64_t numDevices) : numDevices(numDevices) {}

  /// Runs `block` with its arguments bound to `args`; returns the operands of
  /// its terminator.
  FailureOr<std::vector<DeviceArrays>> run(Block &block, const std::vector<DeviceArrays> &args) {
    for (auto [arg, lanes] : llvm::zip(block.getArguments(), args))
      env[arg] = lanes;
    for (Operation &op : block.without_terminator())
      if (failed(eval(&op)))
        return failure();
    std::vector<DeviceArrays> results;
    for (Value v : block.getTerminator()->getOperands())
      results.push_back(env.lookup(v));
    return results;
  }

private:
  int64_t numDevices;
  llvm::DenseMap<Value, DeviceArrays> env;

  const Array &get(Value v, int64_t d) { return env[v][d]; }

  /// Runs `fn(d)` for every device and binds the op's single result.
  template <typename Fn> LogicalResult perDevice(Operation *op, Fn fn) {
    DeviceArrays out;
    for (int64_t d = 0; d < numDevices; ++d) {
      StatusOr<Array> r = fn(d);
      if (!r.ok()) {
        InFlightDiagnostic diag = op->emitError() << r.message();
        if (numDevices > 1)
          diag << " (on device " << d << ")";
        return failure();
      }
      out.push_back(std::move(*r));
    }
    env[op->getResult(0)] = std::move(out);
    return success();
  }

  LogicalResult unary(Operation *op, OpCode code) {
    return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
      return ref::unary(code, get(op->getOperand(0), d));
    });
  }

  LogicalResult binary(Operation *op, OpCode code) {
    return perDevice(op, [&](int64_t d) {
      return ref::binary(code, get(op->getOperand(0), d), get(op->getOperand(1), d));
    });
  }

  /// The mesh of a collective; it must span exactly the devices we run on.
  FailureOr<Mesh> collectiveMesh(Operation *op, FlatSymbolRefAttr ref) {
    MeshOp mesh = lookupMesh(op, ref);
    if (!mesh)
      return op->emitError() << "unknown mesh " << ref;
    if (mesh.getNumDevices() != numDevices)
      return op->emitError() << "collective over mesh " << ref << " (" << mesh.getNumDevices()
                             << " devices) in a program running on " << numDevices
                             << " device(s); collectives belong inside a shard_map or "
                                "in a partitioned program";
    return toRuntimeMesh(mesh);
  }

  /// Runs `fn(members)` once per group; it returns one array per member.
  template <typename Fn>
  LogicalResult perGroup(Operation *op, FlatSymbolRefAttr meshRef, ArrayAttr axes, Fn fn) {
    FailureOr<Mesh> mesh = collectiveMesh(op, meshRef);
    if (failed(mesh))
      return failure();
    std::vector<std::string> names = axisList(axes);
    DeviceArrays out(numDevices);
    for (int64_t d = 0; d < numDevices; ++d) {
      std::vector<int64_t> members = mesh->group(names, d);
      if (members[0] != d)
        continue; // each group is handled by its first member
      std::vector<const Array *> operands;
      for (int64_t m : members)
        operands.push_back(&get(op->getOperand(0), m));
      std::vector<Array> results = fn(operands);
      for (size_t k = 0; k < members.size(); ++k)
        out[members[k]] = std::move(results[k]);
    }
    env[op->getResult(0)] = std::move(out);
    return success();
  }

  LogicalResult evalShardMap(ShardMapOp op) {
    if (numDevices != 1)
      return op.emitError("shard_map in a per-device program is not supported; "
                          "it belongs to the global view");
    FlatSymbolRefAttr meshRef = op.getMeshRef();
    MeshOp mesh = meshRef ? lookupMesh(op, meshRef) : MeshOp();
    int64_t n = mesh ? mesh.getNumDevices() : 1;
    std::vector<DeviceArrays> args;
    for (auto [input, attr] : llvm::zip(op.getInputs(), op.getInShardings())) {
      NamedSharding s = toNamedSharding(cast<ShardingAttr>(attr), mesh);
      DeviceArrays shards;
      for (int64_t d = 0; d < n; ++d)
        shards.push_back(s.shard(get(input, 0), d));
      args.push_back(std::move(shards));
    }
    Interpreter inner(n);
    FailureOr<std::vector<DeviceArrays>> results = inner.run(op.getBody().front(), args);
    if (failed(results))
      return failure();
    for (auto [i, attr] : llvm::enumerate(op.getOutShardings())) {
      NamedSharding s = toNamedSharding(cast<ShardingAttr>(attr), mesh);
      // The global shape drops the padding of a dimension split unevenly.
      env[op.getResult(i)] = DeviceArrays{s.assemble((*results)[i], shapeOf(op.getResult(i)))};
    }
    return success();
  }

  LogicalResult eval(Operation *op) {
    // Every result is an array held whole, on each device.
    if (op->getNumResults() == 1 && failed(checkResultFitsInMemory(op)))
      return failure();
    for (auto group :
         {&Interpreter::evalCompute, &Interpreter::evalLayout, &Interpreter::evalDistributed})
      if (std::optional<LogicalResult> done = (this->*group)(op))
        return *done;
    return op->emitError("the reference interpreter does not support '") << op->getName() << "'";
  }

  /// Values computed from others: constants, elementwise ops, contractions,
  /// reductions and the structured ops of the table. None where `op` is
  /// not one of them.
  std::optional<LogicalResult> evalCompute(Operation *op) {
    return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
        .Case([&](ConstantOp c) -> LogicalResult {
          std::optional<Array> value = elementsToArray(c.getValue());
          if (!value)
            return c.emitError("the reference interpreter cannot read the elements of ")
                   << c.getValue();
          env[c.getResult()] = DeviceArrays(numDevices, *value);
          return success();
        })
        .Case([&](IotaOp c) {
          return perDevice(op, [&](int64_t) -> StatusOr<Array> {
            return ref::iota(dtypeOf(c), shapeOf(c), c.getDim());
          });
        })
#define SHARDC_UNARY(Name, ...) .Case([&](Name##Op) { return unary(op, OpCode::Name); })
#define SHARDC_BINARY(Name, ...) .Case([&](Name##Op) { return binary(op, OpCode::Name); })
#include "shardc/Common/OpCodes.def"
        .Case([&](CompareOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::compare(toCompare(c.getDirection()), get(c.getLhs(), d),
                                get(c.getRhs(), d));
          });
        })
        .Case([&](SelectOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::select(get(c.getPred(), d), get(c.getOnTrue(), d), get(c.getOnFalse(), d));
          });
        })
        .Case([&](ConvertOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::convert(get(c.getOperand(), d), dtypeOf(c));
          });
        })
        .Case([&](DotGeneralOp c) {
          ref::DotDims dims{toDims(c.getLhsBatchingDims()), toDims(c.getRhsBatchingDims()),
                            toDims(c.getLhsContractingDims()), toDims(c.getRhsContractingDims())};
          dims.precision = c.getProductPrecision();
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::dotGeneral(get(c.getLhs(), d), get(c.getRhs(), d), dims);
          });
        })
        .Case([&](ReduceOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::reduce(toReduction(c.getKind()), get(c.getOperand(), d),
                               toDims(c.getDims()));
          });
        })
#define SHARDC_STRUCTURED(Name, ...)                                                               \
  .Case([&](Name##Op c) {                                                                          \
    return perDevice(op, [&](int64_t d) -> StatusOr<Array> {                                       \
      std::vector<const Array *> inputs;                                                           \
      for (Value v : c->getOperands())                                                             \
        inputs.push_back(&get(v, d));                                                              \
      return structuredOp(OpCode::Name)->reference(inputs, c.getPlanAttrs());                      \
    });                                                                                            \
  })
#include "shardc/Common/OpCodes.def"
        .Default([](Operation *) { return std::nullopt; });
  }

  /// Data movement: broadcasts, reshapes, transposes, slices, concatenation.
  std::optional<LogicalResult> evalLayout(Operation *op) {
    return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
        .Case([&](BroadcastInDimOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::broadcastInDim(get(c.getOperand(), d), shapeOf(c), toDims(c.getDims()));
          });
        })
        .Case([&](StopGradientOp c) {
          return perDevice(op,
                           [&](int64_t d) -> StatusOr<Array> { return get(c.getOperand(), d); });
        })
        .Case([&](ReshapeOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::reshape(get(c.getOperand(), d), shapeOf(c));
          });
        })
        .Case([&](TransposeOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::transpose(get(c.getOperand(), d), toDims(c.getPermutation()));
          });
        })
        .Case([&](SliceOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            return ref::slice(get(c.getOperand(), d), toDims(c.getStart()), toDims(c.getLimit()),
                              toDims(c.getStrides()));
          });
        })
        .Case([&](DynamicSliceOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            const Array &x = get(c.getOperand(), d);
            std::vector<const Array *> indices;
            for (Value v : c.getStartIndices())
              indices.push_back(&get(v, d));
            Shape box = shapeOf(c);
            return ref::dynamicSlice(x, ref::clampedCorner(x.shape(), box, indices), box);
          });
        })
        .Case([&](DynamicUpdateSliceOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            const Array &x = get(c.getOperand(), d), &update = get(c.getUpdate(), d);
            std::vector<const Array *> indices;
            for (Value v : c.getStartIndices())
              indices.push_back(&get(v, d));
            return ref::dynamicUpdateSlice(x, update,
                                           ref::clampedCorner(x.shape(), update.shape(), indices));
          });
        })
        .Case([&](ConcatenateOp c) {
          return perDevice(op, [&](int64_t d) -> StatusOr<Array> {
            std::vector<const Array *> inputs;
            for (Value v : c.getInputs())
              inputs.push_back(&get(v, d));
            return ref::concatenate(inputs, c.getDim());
          });
        })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// Sharding constraints, shard_map bodies and the collectives.
  std::optional<LogicalResult> evalDistributed(Operation *op) {
    return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
        .Case([&](ShardingConstraintOp c) {
          // Copy first: inserting the result may grow the map and move the
          // input's entry.
          DeviceArrays value = env.lookup(c.getInput());
          env[c.getResult()] = std::move(value);
          return success();
        })
        .Case([&](ShardMapOp c) { return evalShardMap(c); })
        .Case([&](AllReduceOp c) {
          return perGroup(
              op, c.getMeshAttr(), c.getAxes(), [&](const std::vector<const Array *> &g) {
                return std::vector<Array>(g.size(), ref::allReduce(toReduction(c.getKind()), g));
              });
        })
        .Case([&](AllGatherOp c) {
          return perGroup(op, c.getMeshAttr(), c.getAxes(),
                          [&](const std::vector<const Array *> &g) {
                            return std::vector<Array>(g.size(), ref::allGather(g, c.getDim()));
                          });
        })
        .Case([&](ReduceScatterOp c) {
          return perGroup(op, c.getMeshAttr(), c.getAxes(),
                          [&](const std::vector<const Array *> &g) {
                            return ref::reduceScatter(toReduction(c.getKind()), g, c.getDim());
                          });
        })
        .Case([&](AllSliceOp c) {
          return perGroup(
              op, c.getMeshAttr(), c.getAxes(),
              [&](const std::vector<const Array *> &g) { return ref::allSlice(g, c.getDim()); });
        })
        .Case([&](AllToAllOp c) {
          return perGroup(op, c.getMeshAttr(), c.getAxes(),
                          [&](const std::vector<const Array *> &g) {
                            return ref::allToAll(g, c.getSplitDim(), c.getConcatDim());
                          });
        })
        .Case([&](CollectivePermuteOp c) {
          std::vector<int64_t> sources(c.getSources().begin(), c.getSources().end());
          return perGroup(op, c.getMeshAttr(), c.getAxes(),
                          [&](const std::vector<const Array *> &g) {
                            return ref::collectivePermute(g, sources);
                          });
        })
        .Default([](Operation *) { return std::nullopt; });
  }
};

} // namespace

FailureOr<std::vector<DeviceArrays>>
interpret(func::FuncOp fn, const std::vector<DeviceArrays> &args, int64_t numDevices) {
  if (fn.isExternal())
    return fn.emitError("cannot run a function without a body");
  Block &entry = fn.getBody().front();
  if (args.size() != entry.getNumArguments())
    return fn.emitError() << "expects " << entry.getNumArguments() << " arguments, got "
                          << args.size();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !toDType(type.getElementType()))
      return fn.emitError() << "argument #" << i << " has unsupported type " << arg.getType();
    if ((int64_t)args[i].size() != numDevices)
      return fn.emitError() << "argument #" << i << " has values for " << args[i].size()
                            << " devices, expected " << numDevices;
    for (const Array &a : args[i])
      if (a.dtype() != *toDType(type.getElementType()) ||
          a.shape() != Shape(type.getShape().begin(), type.getShape().end()))
        return fn.emitError() << "argument #" << i << " must be " << type << ", got "
                              << a.typeString();
  }
  if (!llvm::hasSingleElement(fn.getBody()))
    return fn.emitError("the reference interpreter runs single-block functions only");
  return Interpreter(numDevices).run(entry, args);
}

FailureOr<std::vector<Array>> interpret(func::FuncOp fn, const std::vector<Array> &args) {
  std::vector<DeviceArrays> lanes;
  for (const Array &a : args)
    lanes.push_back(DeviceArrays{a});
  FailureOr<std::vector<DeviceArrays>> results = interpret(fn, lanes, 1);
  if (failed(results))
    return failure();
  std::vector<Array> out;
  for (DeviceArrays &l : *results)
    out.push_back(std::move(l[0]));
  return out;
}

/// The runtime sharding of argument or result `i`: its shardc.sharding, or
/// replicated.
static NamedSharding signatureSharding(func::FuncOp fn, MeshOp mesh, bool result, unsigned i,
                                       int64_t rank) {
  auto s = result ? fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName)
                  : fn.getArgAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName);
  if (s)
    return toNamedSharding(s, mesh);
  NamedSharding replicated{toRuntimeMesh(mesh), PartitionSpec(rank)};
  return replicated;
}

FailureOr<std::vector<Array>> interpretPartitioned(func::FuncOp fn,
                                                   const std::vector<Array> &globalArgs) {
  auto meshRef = fn->getAttrOfType<FlatSymbolRefAttr>(ShardcDialect::kPartitionedAttrName);
  MeshOp mesh = meshRef ? lookupMesh(fn, meshRef) : MeshOp();
  if (!mesh)
    return fn.emitError("is not a partitioned function (no '")
           << ShardcDialect::kPartitionedAttrName << "')";
  int64_t n = mesh.getNumDevices();
  if (globalArgs.size() != fn.getNumArguments())
    return fn.emitError() << "expects " << fn.getNumArguments() << " arguments, got "
                          << globalArgs.size();
  std::vector<DeviceArrays> lanes;
  for (auto [i, global] : llvm::enumerate(globalArgs)) {
    NamedSharding s = signatureSharding(fn, mesh, false, i, global.rank());
    // A padded argument records its global shape.
    auto recorded = fn.getArgAttrOfType<DenseI64ArrayAttr>(i, ShardcDialect::kGlobalShapeAttrName);
    if (recorded && ArrayRef<int64_t>(global.shape()) != recorded.asArrayRef())
      return fn.emitError() << "argument #" << i << " must have the shape "
                            << Array(global.dtype(), Shape(recorded.asArrayRef().begin(),
                                                           recorded.asArrayRef().end()))
                                   .typeString()
                            << ", got " << global.typeString();
    Status valid = s.validate(global.shape(), /*allowPadding=*/recorded != nullptr);
    if (!valid.ok())
      return fn.emitError() << "argument #" << i << ": " << valid.message();
    DeviceArrays shards;
    for (int64_t d = 0; d < n; ++d)
      shards.push_back(s.shard(global, d));
    lanes.push_back(std::move(shards));
  }
  FailureOr<std::vector<DeviceArrays>> results = interpret(fn, lanes, n);
  if (failed(results))
    return failure();
  std::vector<Array> out;
  for (auto [i, shards] : llvm::enumerate(*results)) {
    NamedSharding s = signatureSharding(fn, mesh, true, i, shards[0].rank());
    auto recorded =
        fn.getResultAttrOfType<DenseI64ArrayAttr>(i, ShardcDialect::kGlobalShapeAttrName);
    out.push_back(recorded ? s.assemble(shards, Shape(recorded.asArrayRef().begin(),
                                                      recorded.asArrayRef().end()))
                           : s.assemble(shards));
  }
  return out;
}

} // namespace shardc
