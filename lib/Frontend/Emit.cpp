//===- Emit.cpp - a traced Graph as MLIR text ------------------------------===//
//
// Prints the module a trace describes in the generic op syntax, which is
// the same for every op (so the frontend needs no MLIR). Every op carries
// its user's call site as its location: a compiler diagnostic about a
// traced op names the user's line.
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

namespace shardc::trace {

namespace {

struct Printer {
  const Graph &graph;
  std::string out;

  std::string name(int v) const { return "%v" + std::to_string(v); }
  std::string type(int v) const { return mlirType(graph.values[v].dtype, graph.values[v].shape); }
  std::string types(const std::vector<int> &vs) const {
    std::string s = "(";
    for (size_t i = 0; i < vs.size(); ++i)
      s += (i ? ", " : "") + type(vs[i]);
    return s + ")";
  }
  std::string names(const std::vector<int> &vs) const {
    std::string s;
    for (size_t i = 0; i < vs.size(); ++i)
      s += (i ? ", " : "") + name(vs[i]);
    return s;
  }
  static std::string location(const CallSite &site) {
    return "loc(" + quoted(site.file) + ":" + std::to_string(site.line) + ":1)";
  }

  void block(int b, const std::string &indent, const char *terminator) {
    for (const Node &n : graph.blocks[b].nodes) {
      out += indent;
      if (!n.results.empty())
        out += names(n.results) + " = ";
      out += quoted(n.op) + "(" + names(n.operands) + ")";
      if (!n.properties.empty())
        out += " <{" + n.properties + "}>";
      if (n.body >= 0) {
        const Block &body = graph.blocks[n.body];
        out += " ({\n" + indent + "^bb0(";
        for (size_t i = 0; i < body.args.size(); ++i)
          out += (i ? ", " : "") + name(body.args[i]) + ": " + type(body.args[i]);
        out += "):\n";
        block(n.body, indent + "  ", "shardc.return");
        out += indent + "})";
      }
      if (!n.checkpoint.empty() || !n.checkpointName.empty()) {
        out += " {";
        if (!n.checkpoint.empty())
          out += "shardc.checkpoint = {" + n.checkpoint + "}";
        if (!n.checkpointName.empty())
          out += std::string(n.checkpoint.empty() ? "" : ", ") +
                 "shardc.checkpoint_name = " + quoted(n.checkpointName);
        out += "}";
      }
      std::string results = types(n.results);
      if (n.results.size() == 1)
        results = results.substr(1, results.size() - 2);
      out += " : " + types(n.operands) + " -> " + results + " " + location(n.site) + "\n";
    }
    const std::vector<int> &ret = graph.blocks[b].returned;
    out += indent + quoted(terminator) + "(" + names(ret) + ") : " + types(ret) + " -> ()\n";
  }
};

} // namespace

std::string emitModule(const Graph &graph, const std::vector<ArgSpec> &args,
                       const std::string &name) {
  Printer p{graph, ""};
  const Mesh &mesh = graph.mesh;
  if (!mesh.axisNames.empty()) {
    p.out += "shardc.mesh @mesh = <[";
    for (size_t i = 0; i < mesh.axisNames.size(); ++i)
      p.out +=
          (i ? ", " : "") + quoted(mesh.axisNames[i]) + "=" + std::to_string(mesh.axisSizes[i]);
    p.out += "]>\n";
  }
  const Block &body = graph.blocks[0];
  p.out += "func.func @" + quoted(name) + "(";
  for (size_t i = 0; i < body.args.size(); ++i) {
    p.out += (i ? ", " : "") + p.name(body.args[i]) + ": " + p.type(body.args[i]) +
             " {shardc.name = " + quoted(args[i].name);
    if (!mesh.axisNames.empty()) {
      // Arguments without a layout of their own are replicated.
      PartitionSpec spec = args[i].sharding.mesh.axisNames.empty()
                               ? PartitionSpec(args[i].shape.size())
                               : args[i].sharding.spec;
      p.out += ", shardc.sharding = " + shardingAttr(spec);
    }
    if (args[i].donated)
      p.out += ", shardc.donated";
    p.out += "}";
  }
  p.out += ") -> " + p.types(body.returned) + " {\n";
  p.block(0, "  ", "func.return");
  p.out += "}\n";
  return p.out;
}

} // namespace shardc::trace
