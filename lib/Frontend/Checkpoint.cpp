//===- Checkpoint.cpp - checkpointed functions ----------------------------===//
//
// checkpoint() wraps a function so that every op it records carries
// `shardc.checkpoint = {group = N, policy = ...}`; autodiff then recomputes
// the group's values in the backward pass (--shardc-autodiff).
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

namespace shardc {

using trace::Graph;

/// The dictionary shardc.checkpoint holds for `policy` and `group`.
static std::string checkpointAttr(const CheckpointPolicy &policy, int group) {
  std::string s = "group = " + std::to_string(group) + " : i64, policy = ";
  switch (policy.save) {
  case CheckpointPolicy::Save::Nothing:
    return s + "\"nothing\"";
  case CheckpointPolicy::Save::Dots:
    return s + "\"dots\"";
  case CheckpointPolicy::Save::Names:
    s += "\"names\"";
    break;
  case CheckpointPolicy::Save::AllButNames:
    s += "\"all_but_names\"";
    break;
  }
  s += ", names = [";
  for (size_t i = 0; i < policy.names.size(); ++i)
    s += (i ? ", " : "") + trace::quoted(policy.names[i]);
  return s + "]";
}

TracedFn checkpoint(TracedFn fn, CheckpointPolicy policy, CallSite site) {
  if (!fn)
    trace::fail(site, "checkpoint", "needs a function");
  if (policy.save == CheckpointPolicy::Save::Names ||
      policy.save == CheckpointPolicy::Save::AllButNames) {
    if (policy.names.empty())
      trace::fail(site, "checkpoint",
                  "a policy that reads names needs at least one name (CheckpointPolicy::"
                  "nothing() saves none)");
    for (const std::string &name : policy.names)
      if (name.empty())
        trace::fail(site, "checkpoint", "a name of the policy is empty");
  } else if (!policy.names.empty()) {
    trace::fail(site, "checkpoint",
                "names are read by CheckpointPolicy::onlyNames and allButNames policies only");
  }
  return [fn = std::move(fn), policy = std::move(policy),
          site](const std::vector<Tensor> &inputs) -> std::vector<Tensor> {
    Graph *g = trace::activeGraph();
    if (!g)
      trace::fail(site, "checkpoint",
                  "called outside a trace (run it inside Client::jit or traceToModule)");
    if (g->insideShardMap())
      trace::fail(site, "checkpoint",
                  "is not available inside a shard_map body (autodiff recomputes the body "
                  "of a shard_map only as a whole)");
    if (g->inCheckpoint) // the outer call's group holds it
      return fn(inputs);
    std::vector<trace::Node> &nodes = g->blocks[g->current()].nodes;
    size_t begin = nodes.size();
    std::string attr = checkpointAttr(policy, g->checkpointGroups++);
    g->inCheckpoint = true;
    std::vector<Tensor> out;
    try {
      out = fn(inputs);
    } catch (...) {
      g->inCheckpoint = false;
      throw;
    }
    g->inCheckpoint = false;
    for (size_t i = begin; i < nodes.size(); ++i)
      nodes[i].checkpoint = attr;
    return out;
  };
}

Tensor checkpoint_name(const Tensor &x, const std::string &name, CallSite site) {
  Graph *g = trace::activeGraph();
  if (!g || x.graph() != g)
    trace::fail(site, "checkpoint_name",
                "called outside the trace of its operand (run it inside Client::jit or "
                "traceToModule)");
  if (name.empty())
    trace::fail(site, "checkpoint_name", "the name is empty");
  // The op that defines x, if it is not an argument.
  std::vector<trace::Node> &nodes = g->blocks[g->values[x.id()].block].nodes;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    for (int r : it->results)
      if (r == x.id()) {
        if (!it->checkpointName.empty() && it->checkpointName != name)
          trace::fail(site, "checkpoint_name",
                      x.typeString() + " is already named '" + it->checkpointName + "'");
        it->checkpointName = name;
        return x;
      }
  return x;
}

} // namespace shardc
