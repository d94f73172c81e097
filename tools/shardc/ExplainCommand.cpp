//===- ExplainCommand.cpp - shardc explain --------------------------------===//
//
// Shows what the compiler decided for a sharded function and why: the
// sharding of every value with the annotation it came from and the ops it
// travelled through, then every collective partitioning inserted with the op
// that required it, the dimension and axes involved, and the bytes each
// device sends. `--show NAME` draws one array's layout on the devices.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Pipeline/Pipeline.h"

#include "shardc/Conversion/RuntimeTypes.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/MatmulPrecision.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/PlanCost.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;

namespace shardc::driver {

namespace {
const char kExplainUsage[] =
    "usage: shardc explain FILE.mlir [--entry NAME] [--show NAME] [--summary]\n";
const char kExplainOwnHelp[] =
    "\n"
    "  --entry NAME   function to explain (default: main, or the only public one)\n"
    "  --summary      only what one call sends per device: by mesh axes, by kind of\n"
    "                 collective, and the three largest collectives with their causes\n"
    "  --show NAME    draw the layout of one array on the devices: an argument\n"
    "                 (its shardc.name or argN), resultN, or an SSA name (%3)\n";

std::string explainHelp() {
  return kExplainUsage + compileOptionsUsage(30) + kExplainOwnHelp +
         compileOptionsHelp("compile options (as shardc compile: the products are shown "
                            "with their precision, the summary with the plan's all_reduce "
                            "buckets; shardc.pad_uneven on an argument pads that argument "
                            "alone):");
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// `[{"data"}, {}]` for a sharding.
std::string specStr(ShardingAttr s) {
  std::string out = "[";
  for (int64_t d = 0; d < s.getRank(); ++d) {
    out += d ? ", {" : "{";
    auto axes = s.getDimAxes(d);
    for (size_t k = 0; k < axes.size(); ++k)
      out += (k ? ", " : "") + axisSyntax(axes[k]);
    out += "}";
  }
  return out + "]";
}

/// "17:9" for a file location.
std::string lineCol(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return lineCol(name.getChildLoc());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return std::to_string(file.getLine()) + ":" + std::to_string(file.getColumn());
  return formatLocation(loc);
}

int64_t bytesOf(Type t) {
  auto tensor = cast<RankedTensorType>(t);
  return tensor.getNumElements() * std::max<int64_t>(1, (tensor.getElementTypeBitWidth() + 7) / 8);
}

/// Bytes one device sends for a collective over a group of n devices
/// (collectiveBytesSent, the model shardc-gpt plan prices too); a permute
/// that leaves every block where it is sends nothing.
int64_t bytesSent(Operation *op, int64_t n) {
  int64_t in = bytesOf(op->getOperand(0).getType());
  OpCode code = isa<AllReduceOp>(op)       ? OpCode::AllReduce
                : isa<AllGatherOp>(op)     ? OpCode::AllGather
                : isa<ReduceScatterOp>(op) ? OpCode::ReduceScatter
                : isa<AllToAllOp>(op)      ? OpCode::AllToAll
                                           : OpCode::AllSlice;
  if (auto permute = dyn_cast<CollectivePermuteOp>(op)) {
    for (auto [r, s] : llvm::enumerate(permute.getSources()))
      if (s != (int64_t)r)
        return in;
    return 0;
  }
  return collectiveBytesSent(code, in, n);
}

std::string argName(func::FuncOp fn, unsigned i) {
  if (auto name = fn.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName))
    return name.getValue().str();
  return "arg" + std::to_string(i);
}

/// "products: 4 at bf16 (bf16 operands, f32 sums), 1 at f32"
void describeProducts(func::FuncOp fn, llvm::raw_ostream &os) {
  std::map<std::string, int64_t> count;
  fn.walk([&](DotGeneralOp op) { ++count[matmulPrecisionName(op.getProductPrecision())]; });
  if (count.empty())
    return;
  os << "products:";
  const char *sep = " ";
  for (const char *name : {"bf16", "tf32", "f32"})
    if (int64_t n = count[name]) {
      os << sep << n << " at " << name;
      if (std::string(name) == "bf16")
        os << " (bf16 operands, f32 sums)";
      else if (std::string(name) == "tf32")
        os << " (operands rounded to 10 mantissa bits, f32 sums)";
      sep = ", ";
    }
  os << "\n";
}

/// The "Shardings:" section: every value's sharding, the padding of those
/// split unevenly, and where each split dimension came from. Keeps each
/// array's type and sharding by the names --show accepts.
class ShardingsReport {
public:
  ShardingsReport(func::FuncOp fn, MeshOp mesh, const ShardingProvenance &provenance,
                  llvm::raw_ostream &os)
      : fn(fn), mesh(mesh), provenance(provenance), os(os), asmState(fn) {}

  void print() {
    os << "Shardings:\n";
    Block &body = fn.getBody().front();
    for (BlockArgument arg : body.getArguments()) {
      auto s =
          fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), ShardcDialect::kShardingAttrName);
      std::string name = argName(fn, arg.getArgNumber());
      describe(arg, valueName(arg) + " (argument '" + name + "')", s);
      byName[name] = byName["arg" + std::to_string(arg.getArgNumber())] =
          byName[valueName(arg)] = {arg.getType(), s};
    }
    for (Operation &op : body.without_terminator()) {
      auto list = op.getAttrOfType<ArrayAttr>(ShardcDialect::kShardingsAttrName);
      if (!list)
        continue;
      for (auto [i, v] : llvm::enumerate(op.getResults())) {
        auto s = cast<ShardingAttr>(list[i]);
        describe(v,
                 valueName(v) + " = " + op.getName().getStringRef().str() + "@" +
                     lineCol(op.getLoc()),
                 s);
        byName[valueName(v)] = {v.getType(), s};
      }
    }
    for (unsigned i = 0; i < fn.getNumResults(); ++i)
      byName["result" + std::to_string(i)] = {
          fn.getResultTypes()[i],
          fn.getResultAttrOfType<ShardingAttr>(i, ShardcDialect::kShardingAttrName)};
  }

  /// Arrays by argument name, argN, resultN and SSA name.
  std::map<std::string, std::pair<Type, ShardingAttr>> byName;
  /// Values split unevenly, and the padding they hold per device (on
  /// average over the mesh).
  int64_t paddedValues = 0, paddingBytes = 0;

private:
  std::string valueName(Value v) {
    std::string s;
    llvm::raw_string_ostream vs(s);
    v.printAsOperand(vs, asmState);
    return s;
  }

  void describePadding(Value v, ShardingAttr s) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!s || !type || type.getRank() != s.getRank())
      return;
    int64_t padded = 1, real = type.getNumElements(), blocks = 1;
    std::string dims;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t n = getGroupSize(mesh, s.getDimAxes(d)), size = type.getDimSize(d);
      int64_t local = (size + n - 1) / n;
      padded *= local * n;
      blocks *= n;
      if (size % n != 0)
        dims += (dims.empty() ? "" : ", ") + std::string("dim ") + std::to_string(d) + " " +
                std::to_string(size) + " -> " + std::to_string(local * n) + " (" +
                std::to_string(local) + " per device)";
    }
    if (dims.empty())
      return;
    int64_t elementBytes = std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
    // Each block is held by numDevices / blocks devices.
    int64_t bytes =
        (padded - real) * elementBytes * (mesh.getNumDevices() / blocks) / mesh.getNumDevices();
    ++paddedValues;
    paddingBytes += bytes;
    os << "      padded: " << dims << ", " << bytes << " bytes of padding per device on average\n";
  }

  void describe(Value v, const std::string &label, ShardingAttr s) {
    os << "  " << label << " : " << str(v.getType()) << "  " << specStr(s) << "\n";
    describePadding(v, s);
    auto it = provenance.find(v);
    if (it == provenance.end())
      return;
    for (auto [d, origin] : llvm::enumerate(it->second)) {
      if (origin.source.empty() || s.getDimAxes(d).empty())
        continue;
      os << "      dim " << d << " over [";
      auto axes = s.getDimAxes(d);
      for (size_t k = 0; k < axes.size(); ++k)
        os << (k ? ", " : "") << axisSyntax(axes[k]);
      os << "]: from " << origin.source;
      if (!origin.path.empty()) {
        // Long paths keep their two first and three last steps.
        os << " via ";
        size_t n = origin.path.size();
        for (size_t k = 0; k < n; ++k) {
          if (n > 6 && k == 2) {
            os << " -> (" << n - 5 << " more)";
            k = n - 4;
            continue;
          }
          Operation *op = origin.path[k];
          os << (k ? " -> " : "") << op->getName().getStringRef().drop_front(7) << "@"
             << lineCol(op->getLoc());
        }
      }
      os << "\n";
    }
  }

  func::FuncOp fn;
  MeshOp mesh;
  const ShardingProvenance &provenance;
  llvm::raw_ostream &os;
  AsmState asmState;
};

/// One collective of the per-device program, as explain lists it.
struct Collective {
  std::string line, why, kind, axes;
  int64_t sent = 0;
};

/// The collectives of partitioned `fn`, in program order.
std::vector<Collective> collectivesOf(func::FuncOp fn, MeshOp mesh) {
  std::vector<Collective> collectives;
  fn.walk([&](Operation *op) {
    if (!isCollectiveOp(op))
      return;
    auto axes = op->getAttrOfType<ArrayAttr>("axes");
    SmallVector<StringRef> names;
    for (Attribute a : axes)
      names.push_back(cast<StringAttr>(a).getValue());
    int64_t n = getGroupSize(mesh, names);
    Collective c;
    c.sent = bytesSent(op, n);
    llvm::raw_string_ostream line(c.line), axesOs(c.axes);
    c.kind = op->getName().getStringRef().drop_front(7).str();
    line << c.kind;
    if (auto kind = op->getAttrOfType<ReduceKindAttr>("kind"))
      line << " " << stringifyReduceKind(kind.getValue());
    axesOs << "[";
    for (size_t k = 0; k < names.size(); ++k)
      axesOs << (k ? ", " : "") << axisSyntax(names[k]);
    axesOs << "]";
    line << " over " << c.axes << " (groups of " << n << ")";
    if (auto dim = op->getAttrOfType<IntegerAttr>("dim"))
      line << " on dim " << dim.getInt();
    if (auto split = op->getAttrOfType<IntegerAttr>("split_dim"))
      line << " from dim " << op->getAttrOfType<IntegerAttr>("concat_dim").getInt() << " to dim "
           << split.getInt();
    if (auto permute = dyn_cast<CollectivePermuteOp>(op)) {
      line << " sources [";
      for (auto [k, s] : llvm::enumerate(permute.getSources()))
        line << (k ? ", " : "") << s;
      line << "]";
    }
    line << ": " << str(op->getOperand(0).getType()) << " -> " << str(op->getResult(0).getType());
    if (auto why = dyn_cast<NameLoc>(op->getLoc()))
      c.why = why.getName().getValue().str();
    if (isa<AllSliceOp>(op))
      c.kind += " (local)";
    collectives.push_back(std::move(c));
  });
  return collectives;
}

int64_t totalSent(const std::vector<Collective> &collectives) {
  int64_t total = 0;
  for (const Collective &c : collectives)
    total += c.sent;
  return total;
}

/// --summary: what one call sends per device, by mesh axes and by kind,
/// the plan's all_reduce buckets, and the three largest collectives.
void printSummary(func::FuncOp fn, const std::vector<Collective> &collectives,
                  const ShardingsReport &shardings, int64_t bucketBytes, llvm::raw_ostream &os) {
  int64_t total = totalSent(collectives);
  size_t count = collectives.size();
  // Per axis group and per kind: count and bytes, largest first.
  auto table = [&](const char *title, auto key) {
    std::map<std::string, std::pair<int64_t, int64_t>> rows; // key -> (count, bytes)
    for (const Collective &c : collectives) {
      auto &r = rows[key(c)];
      ++r.first;
      r.second += c.sent;
    }
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> sorted(rows.begin(),
                                                                            rows.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](auto &a, auto &b) { return a.second.second > b.second.second; });
    os << "  " << title << ":\n";
    for (auto &[name, r] : sorted)
      os << llvm::format("    %-24s %5lld collective%s %12lld bytes (%5.1f%%)\n", name.c_str(),
                         (long long)r.first, r.first == 1 ? " " : "s", (long long)r.second,
                         total ? 100.0 * r.second / total : 0.0);
  };
  os << "Sent per device per call: " << total << " bytes in " << count << " collective"
     << (count == 1 ? "" : "s") << "\n";
  if (shardings.paddedValues)
    os << "  padding: " << shardings.paddedValues << " value"
       << (shardings.paddedValues == 1 ? "" : "s") << " split unevenly, " << shardings.paddingBytes
       << " bytes per device on average\n";
  // What the executable plan runs: all_reduces merged into buckets.
  if (FailureOr<Plan> plan = lowerToPlan(fn, bucketBytes); succeeded(plan)) {
    int64_t steps = 0;
    std::string buckets;
    for (const PlanStep &st : plan->steps) {
      if (!isCollective(st.op))
        continue;
      ++steps;
      if (st.inputs.size() > 1)
        buckets += (buckets.empty() ? "" : ", ") + std::to_string(st.inputs.size());
    }
    os << "  in the plan: " << steps << " collective step" << (steps == 1 ? "" : "s");
    if (!buckets.empty())
      os << " (all_reduce buckets of " << buckets << "; --allreduce-bucket-bytes " << bucketBytes
         << ")";
    os << "\n";
  }
  if (!count) {
    os << "  none: every device computes on its own shards\n";
    return;
  }
  table("by mesh axes", [](const Collective &c) { return c.axes; });
  table("by kind", [](const Collective &c) { return c.kind; });
  std::vector<const Collective *> largest;
  for (const Collective &c : collectives)
    largest.push_back(&c);
  std::stable_sort(largest.begin(), largest.end(),
                   [](const Collective *a, const Collective *b) { return a->sent > b->sent; });
  os << "  largest:\n";
  for (size_t k = 0; k < std::min<size_t>(3, largest.size()); ++k) {
    os << "    " << k + 1 << ". " << largest[k]->line << "\n       sends " << largest[k]->sent
       << " bytes per device\n";
    if (!largest[k]->why.empty())
      os << "       why: " << largest[k]->why << "\n";
  }
}

/// Every collective with its cause and bytes, then the totals.
void printCollectives(const std::vector<Collective> &collectives, const ShardingsReport &shardings,
                      llvm::raw_ostream &os) {
  int64_t total = totalSent(collectives);
  size_t count = collectives.size();
  os << "\nCollectives (per device):\n";
  for (const Collective &c : collectives) {
    os << "  " << c.line << "\n";
    if (!c.why.empty())
      os << "      why: " << c.why << "\n";
    os << "      sends " << c.sent << " bytes per device"
       << (c.kind.find("(local)") != std::string::npos ? " (a local slice)" : "") << "\n";
  }
  if (!count)
    os << "  none: every device computes on its own shards\n";
  os << "\nTotal: " << count << " collective" << (count == 1 ? "" : "s") << ", " << total
     << " bytes sent per device\n";
  if (shardings.paddedValues)
    os << "Padding: " << shardings.paddedValues << " value"
       << (shardings.paddedValues == 1 ? "" : "s") << " split unevenly, " << shardings.paddingBytes
       << " bytes of padding per device on average (the bytes sent include it)\n";
}

/// --show NAME: one array's layout drawn on the devices.
int showLayout(const std::string &show, const ShardingsReport &shardings, MeshOp mesh,
               llvm::raw_ostream &os) {
  auto it = shardings.byName.find(show);
  if (it == shardings.byName.end()) {
    reportError("no array named '" + show +
                "' (use an argument name, argN, resultN or an SSA name like %0)");
    return kFailed;
  }
  auto [type, s] = it->second;
  auto tensor = cast<RankedTensorType>(type);
  if (tensor.getRank() > 2) {
    reportError("--show draws arrays of rank 0 to 2; '" + show + "' has rank " +
                std::to_string(tensor.getRank()));
    return kFailed;
  }
  NamedSharding named = s ? toNamedSharding(s, mesh)
                          : NamedSharding{toRuntimeMesh(mesh), PartitionSpec(tensor.getRank())};
  os << "\nLayout of " << show << " : " << str(type) << " "
     << (s ? specStr(s) : std::string("replicated")) << "\n";
  os << named.visualize(Shape(tensor.getShape().begin(), tensor.getShape().end()));
  return kOk;
}

/// The entry function of `module` that explain can take: global (not
/// partitioned) and of tensors only; null after reporting why not.
func::FuncOp explainableEntry(ModuleOp module, const std::string &file, const std::string &entry) {
  std::string error;
  func::FuncOp fn = findEntry(module, entry, error);
  if (!fn) {
    reportError(error);
    return nullptr;
  }
  if (fn->hasAttr(ShardcDialect::kPartitionedAttrName)) {
    reportError("@" + fn.getSymName().str() +
                " is already partitioned; explain the global program instead");
    return nullptr;
  }
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
    if (!isa<RankedTensorType>(type)) {
      reportError(file + ": @" + fn.getSymName().str() + " argument #" + std::to_string(i) +
                  " has type '" + str(type) + "'; shardc explains functions of tensors");
      return nullptr;
    }
  return fn;
}

} // namespace

int explainCommand(const std::vector<std::string> &args) {
  CommandLine cl;
  if (std::optional<int> code =
          parseCommandLine(args, "explain", withCompileFlags({"--entry", "--show"}, false),
                           withCompileFlags({"--summary"}, true), explainHelp(), cl))
    return *code;
  bool summary = cl.has("--summary");
  CompileOptions compile;
  if (!readCompileOptions(cl, compile))
    return kUsage;
  int64_t bucketBytes = compile.allReduceBucketBytes;
  std::string file = cl.file, show = cl.get("--show");
  if (file.empty()) {
    reportError("'shardc explain' needs a FILE.mlir (try --help)");
    return kUsage;
  }

  std::string error;
  std::unique_ptr<LoadedModule> loaded = loadModule(file, error);
  if (!loaded)
    return kFailed; // the diagnostics were printed
  OwningOpRef<ModuleOp> &module = loaded->module;
  func::FuncOp fn = explainableEntry(*module, file, cl.get("--entry"));
  if (!fn)
    return kFailed;
  FailureOr<MeshOp> meshOr = findFunctionMesh(fn);
  if (failed(meshOr))
    return kFailed;
  MeshOp mesh = *meshOr;
  llvm::raw_ostream &os = llvm::outs();
  // The compile's own passes, stage by stage: the shardings are described
  // after propagation, the collectives after partitioning.
  std::string entry = fn.getSymName().str();
  ShardingProvenance provenance;
  if (failed(runCompilePipeline(*module, entry, compile, "",
                                {CompileStage::Propagate, CompileStage::Propagate, &provenance})))
    return kFailed;
  if (!mesh) {
    os << "@" << fn.getSymName() << " uses no mesh: it runs whole on one device.\n";
    describeProducts(fn, os);
    return kOk;
  }

  os << "@" << fn.getSymName() << " on mesh @" << mesh.getSymName() << " <[";
  for (auto [i, name] : llvm::enumerate(mesh.getAxisNames()))
    os << (i ? ", " : "") << "\"" << cast<StringAttr>(name).getValue()
       << "\"=" << mesh.getAxisSizes()[i];
  os << "]> (" << mesh.getNumDevices() << " devices), from " << file << "\n";
  describeProducts(fn, os);
  // --summary leaves out the shardings and the list of collectives.
  llvm::raw_ostream &detail = summary ? llvm::nulls() : llvm::outs();
  detail << "(op@line:column; a dimension not listed is whole on every device)\n\n";
  ShardingsReport shardings(fn, mesh, provenance, detail);
  shardings.print();

  if (failed(runCompilePipeline(*module, entry, compile, "",
                                {CompileStage::Partition, CompileStage::Partition})))
    return kFailed;
  std::vector<Collective> collectives = collectivesOf(fn, mesh);
  if (summary) {
    printSummary(fn, collectives, shardings, bucketBytes, os);
    return kOk;
  }
  printCollectives(collectives, shardings, os);
  return show.empty() ? kOk : showLayout(show, shardings, mesh, os);
}

} // namespace shardc::driver
