//===- Graph.h - the record a trace builds ----------------------*- C++ -*-===//
//
// While a function is traced, every op on a Tensor appends a Node to the
// innermost open Block of the Graph: the function body, or the body of a
// shard_map being traced. Values are numbered across the whole graph; each
// belongs to the block that defines it. Emit.cpp prints the graph as the
// text of an MLIR module in the generic op syntax.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_FRONTEND_GRAPH_H
#define SHARDC_LIB_FRONTEND_GRAPH_H

#include "shardc/tensor.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace shardc::trace {

struct Value {
  DType dtype;
  Shape shape;
  int block; // the block that defines it
};

struct Node {
  std::string op;            // "shardc.add"
  std::vector<int> operands; // value ids
  std::vector<int> results;  // value ids
  std::string properties;    // generic-syntax properties, without "<{ }>"
  CallSite site;
  int body = -1; // shard_map: the block of its region
  /// The checkpointed group it was recorded in (shardc.checkpoint's
  /// dictionary, without braces; empty: none), and its checkpoint_name.
  std::string checkpoint;
  std::string checkpointName;
};

struct Block {
  std::vector<int> args;
  std::vector<Node> nodes;
  std::vector<int> returned;
};

struct Graph {
  // A deque: references to values (Tensor::shape()) stay valid as ops are
  // recorded.
  std::deque<Value> values;
  std::vector<Block> blocks{1}; // blocks[0]: the function body
  std::vector<int> open{0};     // innermost last
  Mesh mesh;                    // the function's mesh (no axes: one device)
  int checkpointGroups = 0;     // groups numbered so far
  bool inCheckpoint = false;    // inside a checkpointed function's call

  int current() const { return open.back(); }
  int newValue(DType dtype, Shape shape) {
    values.push_back({dtype, std::move(shape), current()});
    return (int)values.size() - 1;
  }
  /// The values mentioned in shard_map inside a shard_map body.
  bool insideShardMap() const { return open.size() > 1; }
};

/// The graph being traced on this thread (null outside a trace), and the
/// handle the trace's Tensors share.
Graph *activeGraph();
std::shared_ptr<Graph> activeGraphHandle();

/// "file.cpp:12: error: <op>: <message>" as a TraceError.
[[noreturn]] void fail(const CallSite &site, const std::string &op, const std::string &message);

/// `s` as an MLIR string literal.
std::string quoted(const std::string &s);
/// Fails unless `axes` are distinct axes of the trace's mesh.
void checkAxes(const Graph &graph, const CallSite &site, const std::string &op,
               const std::vector<std::string> &axes);

/// "f32[4x8]".
std::string typeOf(DType dtype, const Shape &shape);
/// "tensor<4x8xf32>".
std::string mlirType(DType dtype, const Shape &shape);
/// `#shardc.sharding<@mesh, [{"a"}, {}]>` (the mesh symbol is @mesh).
std::string shardingAttr(const PartitionSpec &spec);

/// Prints the traced function as a module; `args` name its arguments.
std::string emitModule(const Graph &graph, const std::vector<ArgSpec> &args,
                       const std::string &name);

} // namespace shardc::trace

#endif // SHARDC_LIB_FRONTEND_GRAPH_H
