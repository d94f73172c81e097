//===- Trace.cpp - running a function on symbolic Tensors -----------------===//
//
// traceToModule makes a Graph the thread's active one, calls the user's
// function on one Tensor per argument, and prints what it recorded.
// shard_map opens a nested block for its body; the collectives may only be
// recorded inside one.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

namespace shardc {
namespace trace {

namespace {
thread_local std::shared_ptr<Graph> active;
} // namespace

/// Makes `graph` the active one for the scope, restoring the previous one
/// (traces do not nest, but an exception must not leave one active).
struct ActiveScope {
  std::shared_ptr<Graph> previous;
  explicit ActiveScope(std::shared_ptr<Graph> graph) : previous(std::move(active)) {
    active = std::move(graph);
  }
  ~ActiveScope() { active = std::move(previous); }
};

Graph *activeGraph() { return active.get(); }
std::shared_ptr<Graph> activeGraphHandle() { return active; }

void fail(const CallSite &site, const std::string &op, const std::string &message) {
  throw TraceError(std::string(site.file) + ":" + std::to_string(site.line) + ": error: " + op +
                   ": " + message);
}

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

void checkAxes(const Graph &graph, const CallSite &site, const std::string &op,
               const std::vector<std::string> &axes) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (graph.mesh.axisIndex(axes[i]) < 0)
      fail(site, op, "the mesh has no axis '" + axes[i] + "'");
    for (size_t j = 0; j < i; ++j)
      if (axes[j] == axes[i])
        fail(site, op, "axis '" + axes[i] + "' is listed twice");
  }
}

std::string typeOf(DType dtype, const Shape &shape) {
  return std::string(dtypeName(dtype)) + "[" + shapeString(shape) + "]";
}

std::string mlirType(DType dtype, const Shape &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype) + ">";
}

std::string shardingAttr(const PartitionSpec &spec) {
  std::string s = "#shardc.sharding<@mesh, [";
  for (size_t d = 0; d < spec.size(); ++d) {
    s += d ? ", {" : "{";
    for (size_t a = 0; a < spec[d].size(); ++a)
      s += (a ? ", " : "") + quoted(spec[d][a]);
    s += "}";
  }
  return s + "]>";
}

} // namespace trace

using trace::fail;
using trace::Graph;

//===----------------------------------------------------------------------===//
// shard_map and the collectives
//===----------------------------------------------------------------------===//

std::vector<Tensor> shard_map(const LocalFn &fn, const std::vector<Tensor> &inputs,
                              const std::vector<PartitionSpec> &inSpecs,
                              const std::vector<PartitionSpec> &outSpecs, CallSite site) {
  Graph *g = trace::activeGraph();
  if (!g)
    fail(site, "shard_map", "called outside a trace");
  if (g->insideShardMap())
    fail(site, "shard_map", "cannot be nested");
  if (g->mesh.axisNames.empty())
    fail(site, "shard_map", "needs a mesh: shard the arguments or give jit a mesh");
  if (inputs.size() != inSpecs.size())
    fail(site, "shard_map",
         std::to_string(inputs.size()) + " inputs but " + std::to_string(inSpecs.size()) +
             " in_specs");
  std::vector<Shape> local;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].graph() || inputs[i].graph() != g ||
        g->values[inputs[i].id()].block != g->current())
      fail(site, "shard_map", "input " + std::to_string(i) + " is not a value of this trace");
    NamedSharding sharding{g->mesh, inSpecs[i]};
    Status valid = sharding.validate(inputs[i].shape());
    if (!valid.ok())
      fail(site, "shard_map",
           "input " + std::to_string(i) + " (" + inputs[i].typeString() + "): " + valid.message());
    local.push_back(sharding.localShape(inputs[i].shape()));
  }

  // Trace the body in a block of its own.
  int body = (int)g->blocks.size();
  g->blocks.emplace_back();
  g->open.push_back(body);
  std::vector<Tensor> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    int v = g->newValue(inputs[i].dtype(), local[i]);
    g->blocks[body].args.push_back(v);
    args.emplace_back(trace::activeGraphHandle(), v);
  }
  std::vector<Tensor> results;
  try {
    results = fn(args);
  } catch (...) {
    g->open.pop_back();
    throw;
  }
  g->open.pop_back();
  if (results.size() != outSpecs.size())
    fail(site, "shard_map",
         "the body returned " + std::to_string(results.size()) + " values but there are " +
             std::to_string(outSpecs.size()) + " out_specs");
  std::vector<int> returned, resultIds;
  std::vector<Tensor> out;
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor &r = results[i];
    if (r.graph() != g || g->values[r.id()].block != body)
      fail(site, "shard_map",
           "result " + std::to_string(i) + " is not a value of the shard_map body");
    returned.push_back(r.id());
    // The global shape: each sharded dimension grows by its axes' sizes.
    Shape global = r.shape();
    const PartitionSpec &spec = outSpecs[i];
    if (spec.size() != global.size())
      fail(site, "shard_map",
           "out_spec " + std::to_string(i) + " has rank " + std::to_string(spec.size()) +
               " but the result is " + r.typeString());
    for (size_t d = 0; d < spec.size(); ++d)
      for (const std::string &axis : spec[d]) {
        if (g->mesh.axisIndex(axis) < 0)
          fail(site, "shard_map",
               "out_spec " + std::to_string(i) + " names axis '" + axis +
                   "' that the mesh does not have");
        global[d] *= g->mesh.axisSize(axis);
      }
    int v = g->newValue(r.dtype(), global);
    resultIds.push_back(v);
    out.emplace_back(trace::activeGraphHandle(), v);
  }
  g->blocks[body].returned = returned;
  std::vector<int> operands;
  for (const Tensor &t : inputs)
    operands.push_back(t.id());
  auto specs = [](const std::vector<PartitionSpec> &list) {
    std::string s = "[";
    for (size_t i = 0; i < list.size(); ++i)
      s += (i ? ", " : "") + trace::shardingAttr(list[i]);
    return s + "]";
  };
  g->blocks[g->current()].nodes.push_back(
      {"shardc.shard_map", operands, resultIds,
       "in_shardings = " + specs(inSpecs) + ", out_shardings = " + specs(outSpecs), site, body});
  return out;
}

namespace {

Tensor collective(const char *name, const char *op, const Tensor &x,
                  const std::vector<std::string> &axes, std::string properties, Shape shape,
                  const CallSite &site) {
  Graph *g = trace::activeGraph();
  if (!g || !g->insideShardMap())
    fail(site, name, "is only available inside a shard_map body");
  if (x.graph() != g || g->values[x.id()].block != g->current())
    fail(site, name, "operand is not a value of this shard_map body");
  if (axes.empty())
    fail(site, name, "needs at least one mesh axis");
  trace::checkAxes(*g, site, name, axes);
  std::string list = "[";
  for (size_t i = 0; i < axes.size(); ++i)
    list += (i ? ", " : "") + trace::quoted(axes[i]);
  list += "]";
  int v = g->newValue(x.dtype(), std::move(shape));
  g->blocks[g->current()].nodes.push_back(
      {op,
       {x.id()},
       {v},
       "axes = " + list + (properties.empty() ? "" : ", ") + properties + ", mesh = @mesh",
       site,
       -1});
  return Tensor(trace::activeGraphHandle(), v);
}

int64_t checkedDim(const Tensor &x, int64_t dim, const CallSite &site, const char *name) {
  if (dim < -x.rank() || dim >= x.rank())
    fail(site, name, "dimension " + std::to_string(dim) + " out of range for " + x.typeString());
  return dim < 0 ? dim + x.rank() : dim;
}

/// The size of the group over `axes`, after checking them (the shapes of
/// the collectives below depend on it).
int64_t groupSize(const std::vector<std::string> &axes, const CallSite &site, const char *name) {
  Graph *g = trace::activeGraph();
  if (!g || !g->insideShardMap())
    fail(site, name, "is only available inside a shard_map body");
  trace::checkAxes(*g, site, name, axes);
  return g->mesh.groupSize(axes);
}

} // namespace

static Tensor allReduce(const char *name, const char *kind, const Tensor &x,
                        const std::vector<std::string> &axes, const CallSite &site) {
  return collective(name, "shardc.all_reduce", x, axes,
                    std::string("kind = #shardc<reduce_kind ") + kind + ">", x.shape(), site);
}

Tensor psum(const Tensor &x, const std::vector<std::string> &axes, CallSite site) {
  return allReduce("psum", "sum", x, axes, site);
}
Tensor pmean(const Tensor &x, const std::vector<std::string> &axes, CallSite site) {
  return allReduce("pmean", "mean", x, axes, site);
}
Tensor pmax(const Tensor &x, const std::vector<std::string> &axes, CallSite site) {
  return allReduce("pmax", "max", x, axes, site);
}

Tensor all_gather(const Tensor &x, const std::vector<std::string> &axes, int64_t dim,
                  CallSite site) {
  dim = checkedDim(x, dim, site, "all_gather");
  Shape shape = x.shape();
  shape[dim] *= groupSize(axes, site, "all_gather");
  return collective("all_gather", "shardc.all_gather", x, axes,
                    "dim = " + std::to_string(dim) + " : i64", shape, site);
}

Tensor psum_scatter(const Tensor &x, const std::vector<std::string> &axes, int64_t dim,
                    CallSite site) {
  dim = checkedDim(x, dim, site, "psum_scatter");
  Shape shape = x.shape();
  int64_t n = groupSize(axes, site, "psum_scatter");
  if (shape[dim] % n)
    fail(site, "psum_scatter",
         "dimension " + std::to_string(dim) + " of " + x.typeString() + " does not split " +
             std::to_string(n) + " ways");
  shape[dim] /= n;
  return collective("psum_scatter", "shardc.reduce_scatter", x, axes,
                    "dim = " + std::to_string(dim) + " : i64, kind = #shardc<reduce_kind sum>",
                    shape, site);
}

Tensor all_to_all(const Tensor &x, const std::vector<std::string> &axes, int64_t splitDim,
                  int64_t concatDim, CallSite site) {
  splitDim = checkedDim(x, splitDim, site, "all_to_all");
  concatDim = checkedDim(x, concatDim, site, "all_to_all");
  Shape shape = x.shape();
  int64_t n = groupSize(axes, site, "all_to_all");
  if (shape[splitDim] % n)
    fail(site, "all_to_all",
         "dimension " + std::to_string(splitDim) + " of " + x.typeString() + " does not split " +
             std::to_string(n) + " ways");
  shape[splitDim] /= n;
  shape[concatDim] *= n;
  return collective("all_to_all", "shardc.all_to_all", x, axes,
                    "concat_dim = " + std::to_string(concatDim) +
                        " : i64, split_dim = " + std::to_string(splitDim) + " : i64",
                    shape, site);
}

//===----------------------------------------------------------------------===//
// Tracing
//===----------------------------------------------------------------------===//

std::string traceToModule(const TracedFn &fn, const std::vector<ArgSpec> &args,
                          const std::string &name, const Mesh &mesh) {
  auto graph = std::make_shared<Graph>();
  graph->mesh = mesh;
  auto sameMesh = [](const Mesh &a, const Mesh &b) {
    return a.axisNames == b.axisNames && a.axisSizes == b.axisSizes;
  };
  for (const ArgSpec &a : args) {
    if (a.sharding.mesh.axisNames.empty())
      continue;
    if (graph->mesh.axisNames.empty())
      graph->mesh = a.sharding.mesh;
    else if (!sameMesh(graph->mesh, a.sharding.mesh))
      throw TraceError("argument '" + a.name +
                       "' is laid out on another mesh than the other arguments");
    Status valid = a.sharding.validate(a.shape);
    if (!valid.ok())
      throw TraceError("argument '" + a.name + "': " + valid.message());
  }
  trace::ActiveScope scope(graph);
  std::vector<Tensor> inputs;
  for (const ArgSpec &a : args) {
    int v = graph->newValue(a.dtype, a.shape);
    graph->blocks[0].args.push_back(v);
    inputs.emplace_back(graph, v);
  }
  std::vector<Tensor> results = fn(inputs);
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor &r = results[i];
    if (r.graph() != graph.get() || graph->values[r.id()].block != 0)
      throw TraceError("result " + std::to_string(i) + " of @" + name +
                       " is not a value of its trace");
    graph->blocks[0].returned.push_back(r.id());
  }
  return trace::emitModule(*graph, args, name);
}

} // namespace shardc
