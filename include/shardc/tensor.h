//===- tensor.h - tracing C++ functions into the shardc dialect -*- C++ -*-===//
//
// The frontend: a C++ function over `Tensor`s is traced, once per input
// signature, into a `func.func` of the shardc dialect, which Client::jit
// (shardc.h) compiles and caches. A Tensor is a symbolic value of the trace:
// it has a dtype and a shape, and every operation on it records one op.
//
//   std::vector<Tensor> mlp(const std::vector<Tensor> &in) {
//     Tensor x = in[0], w = in[1], b = in[2];
//     return {relu(matmul(x, w) + b)};
//   }
//
// Shape and dtype errors are found while tracing and reported as a
// TraceError whose message starts with the user's call site
// ("model.cpp:12: error: add: shapes f32[4x8] and f32[4x9] differ");
// Client::jit turns it into an error Status. The call site is also the
// op's location in the traced program, so compiler diagnostics name it too.
//
// Binary operators accept a Tensor and a number on either side; numbers
// become splats of the other operand's dtype. Negative dimension indices
// count from the end, as in NumPy.
//
// No MLIR header is reachable from here.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TENSOR_H
#define SHARDC_TENSOR_H

#include "shardc/Common/MatmulPrecision.h"
#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Sharding.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardc {

namespace trace {
struct Graph;
} // namespace trace

/// Where a traced op was written: filled in at the call site by default
/// arguments, so users never pass one.
struct CallSite {
  const char *file;
  int line;
  CallSite(const char *file = __builtin_FILE(), int line = __builtin_LINE())
      : file(file), line(line) {}
};

/// A shape or dtype error found while tracing; what() names the call site.
class TraceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A symbolic value of the function being traced.
class Tensor {
public:
  Tensor();
  DType dtype() const;
  const Shape &shape() const;
  int64_t rank() const { return (int64_t)shape().size(); }
  /// Size of dimension `dim` (negative: from the end).
  int64_t dim(int64_t dim) const;
  /// "f32[4x8]".
  std::string typeString() const;

  /// Internal: the value `id` of `graph`.
  Tensor(std::shared_ptr<trace::Graph> graph, int id) : graph_(std::move(graph)), id_(id) {}
  trace::Graph *graph() const { return graph_.get(); }
  int id() const { return id_; }

private:
  std::shared_ptr<trace::Graph> graph_;
  int id_ = -1;
};

/// An operand of a binary operator: a Tensor or a number, remembering where
/// the operator was written.
struct Operand {
  Operand(const Tensor &t, CallSite site = {}) : tensor(t), site(site) {}
  Operand(double v, CallSite site = {}) : isScalar(true), scalar(v), site(site) {}
  Operand(float v, CallSite site = {}) : isScalar(true), scalar(v), site(site) {}
  Operand(int v, CallSite site = {}) : isScalar(true), scalar(v), site(site) {}
  Tensor tensor;
  bool isScalar = false;
  double scalar = 0;
  CallSite site;
};

// ---- Elementwise ------------------------------------------------------------
Tensor operator+(const Tensor &a, Operand b);
Tensor operator-(const Tensor &a, Operand b);
Tensor operator*(const Tensor &a, Operand b);
Tensor operator/(const Tensor &a, Operand b);
Tensor operator+(double a, Operand b);
Tensor operator-(double a, Operand b);
Tensor operator*(double a, Operand b);
Tensor operator/(double a, Operand b);
Tensor operator-(Operand a);
Tensor add(Operand a, Operand b, CallSite site = {});
Tensor sub(Operand a, Operand b, CallSite site = {});
Tensor mul(Operand a, Operand b, CallSite site = {});
Tensor div(Operand a, Operand b, CallSite site = {});
Tensor maximum(Operand a, Operand b, CallSite site = {});
Tensor minimum(Operand a, Operand b, CallSite site = {});
Tensor pow(Operand a, Operand b, CallSite site = {});

/// One function per elementwise op of one operand (the SHARDC_UNARY rows
/// of shardc/Common/OpCodes.def): neg, abs, exp, log, tanh, sqrt, rsqrt,
/// erf, ... Each records `shardc.<name>`; all but neg and abs need floats.
#define SHARDC_UNARY(Name, name, ...) Tensor name(const Tensor &x, CallSite site = {});
#include "shardc/Common/OpCodes.def"

/// Comparisons give i1 tensors.
Tensor equal(Operand a, Operand b, CallSite site = {});
Tensor not_equal(Operand a, Operand b, CallSite site = {});
Tensor less(Operand a, Operand b, CallSite site = {});
Tensor less_equal(Operand a, Operand b, CallSite site = {});
Tensor greater(Operand a, Operand b, CallSite site = {});
Tensor greater_equal(Operand a, Operand b, CallSite site = {});
/// pred ? a : b elementwise; `pred` is i1.
Tensor where(const Tensor &pred, Operand a, Operand b, CallSite site = {});
Tensor astype(const Tensor &x, DType dtype, CallSite site = {});
/// `x`, treated as a constant by differentiation (like jax.lax.stop_gradient).
Tensor stop_gradient(const Tensor &x, CallSite site = {});

// ---- Creation (in the function being traced) --------------------------------
Tensor full(const Shape &shape, double value, DType dtype = DType::F32, CallSite site = {});
Tensor zeros_like(const Tensor &x, CallSite site = {});
Tensor full_like(const Tensor &x, double value, CallSite site = {});
/// The index along `dim` at every position (integer or float dtype).
Tensor iota(const Shape &shape, int64_t dim, DType dtype = DType::I32, CallSite site = {});
/// A constant array baked into the program.
Tensor constant(const Array &value, CallSite site = {});

// ---- Contractions and reductions --------------------------------------------
struct DotDims {
  std::vector<int64_t> lhsBatching, rhsBatching, lhsContracting, rhsContracting;
};
/// Result dims: batch, then lhs free, then rhs free (like stablehlo).
Tensor dot_general(const Tensor &lhs, const Tensor &rhs, const DotDims &dims, CallSite site = {});
/// The same at a stated precision (the `precision` attribute), like the
/// `precision` argument of jax.lax.dot_general: it stands whatever the
/// executable's default (JitOptions::precision). At bf16 each operand may be
/// f32 or bf16 (a weight kept at bf16 is read as it is) and the result is
/// f32; at f32 and tf32 the operands are f32.
Tensor dot_general(const Tensor &lhs, const Tensor &rhs, const DotDims &dims,
                   MatmulPrecision precision, CallSite site = {});
/// [m,k] x [k,n] -> [m,n]; [..., k] x [k, n] -> [..., n]; and with leading
/// batch dimensions on both, broadcast as in NumPy:
/// [b,h,t,d] x [b,h,d,s] -> [b,h,t,s], [b,h,t,d] x [h,d,s] -> [b,h,t,s].
Tensor matmul(const Tensor &a, const Tensor &b, CallSite site = {});
/// Reductions over `dims` (empty: every dimension); keepdims keeps them as 1.
Tensor sum(const Tensor &x, std::vector<int64_t> dims = {}, bool keepdims = false,
           CallSite site = {});
Tensor max(const Tensor &x, std::vector<int64_t> dims = {}, bool keepdims = false,
           CallSite site = {});
Tensor min(const Tensor &x, std::vector<int64_t> dims = {}, bool keepdims = false,
           CallSite site = {});
/// The index (i32) of the largest element along `dim`, which the result
/// drops: the first of equal ones, NaN above every number (numpy.argmax).
/// Floating-point `x`; `dim` counts from the end when negative.
Tensor argmax(const Tensor &x, int64_t dim, CallSite site = {});
Tensor mean(const Tensor &x, std::vector<int64_t> dims = {}, bool keepdims = false,
            CallSite site = {});

// ---- Data movement -----------------------------------------------------------
/// Operand dimension i becomes result dimension dims[i].
Tensor broadcast_in_dim(const Tensor &x, const Shape &shape, std::vector<int64_t> dims,
                        CallSite site = {});
/// NumPy broadcasting to `shape` (trailing dimensions aligned).
Tensor broadcast_to(const Tensor &x, const Shape &shape, CallSite site = {});
/// One dimension may be -1 (inferred).
Tensor reshape(const Tensor &x, Shape shape, CallSite site = {});
Tensor transpose(const Tensor &x, std::vector<int64_t> permutation, CallSite site = {});
/// Elements start[i] <= j < limit[i] (every strides[i]-th) of each dimension;
/// negative bounds count from the end, as in NumPy.
Tensor slice(const Tensor &x, std::vector<int64_t> start, std::vector<int64_t> limit,
             std::vector<int64_t> strides = {}, CallSite site = {});
Tensor concatenate(const std::vector<Tensor> &xs, int64_t dim, CallSite site = {});
/// The box of shape `sizes` whose corner is at the run-time `start` (one
/// i32 or i64 scalar per dimension), each start clamped so that the box
/// fits, like jax.lax.dynamic_slice.
Tensor dynamic_slice(const Tensor &x, const std::vector<Tensor> &start, Shape sizes,
                     CallSite site = {});
/// `x` with the box of `update`'s shape at the run-time `start` replaced by
/// `update` (starts clamped), like jax.lax.dynamic_update_slice.
Tensor dynamic_update_slice(const Tensor &x, const Tensor &update, const std::vector<Tensor> &start,
                            CallSite site = {});
/// Rows of `table` ([V, ...]) at integer `indices` ([...]): [..., ...].
Tensor take(const Tensor &table, const Tensor &indices, CallSite site = {});
/// `table` with `updates` added at the rows `indices` (the adjoint of take).
Tensor scatter_add(const Tensor &table, const Tensor &indices, const Tensor &updates,
                   CallSite site = {});
/// Scaled dot-product self-attention of packed queries, keys and values
/// (shardc.qkv_attention): qkv [B, T, 3, N, H] of f32 or f64, along dimension 2 the
/// queries, keys and values of N heads of width H; per batch item and head
/// softmax(scale q k^T) v over every key, or with `causal` over the keys at
/// and before each query's position: [B, T, N, H]. Backends need not store
/// the [B, N, T, T] scores; its gradient is one op too.
Tensor qkv_attention(const Tensor &qkv, bool causal, double scale, CallSite site = {});
/// Scaled dot-product attention (shardc.attention), JAX's
/// dot_product_attention: q [B, T, N, H], k and v [B, S, N, H], of f32 or
/// f64; per batch item and head softmax(scale q k^T) v over the keys each
/// query sees: those below kvLengths[b] (where given: [B] i32, JAX's
/// key_value_seq_lengths) and, with `causal`, at or before its position.
/// [B, T, N, H]; a query that sees no key gets zeros. Its gradient with
/// respect to q, k and v is one op (shardc.attention_grad); for
/// self-attention, qkv_attention reads q, k and v where one product wrote
/// them.
Tensor dot_product_attention(const Tensor &q, const Tensor &k, const Tensor &v, double scale,
                             bool causal = false, const Tensor &kvLengths = Tensor(),
                             CallSite site = {});
/// Asks the partitioner to lay `x` out by `spec` over the function's mesh.
Tensor with_sharding_constraint(const Tensor &x, const PartitionSpec &spec, CallSite site = {});

// ---- Neural-network composites (built from the ops above) --------------------
Tensor relu(const Tensor &x, CallSite site = {});
/// approximate: the tanh form (JAX's default); otherwise the erf form
/// (PyTorch's default).
Tensor gelu(const Tensor &x, bool approximate = false, CallSite site = {});
Tensor softmax(const Tensor &x, int64_t axis = -1, CallSite site = {});
Tensor log_softmax(const Tensor &x, int64_t axis = -1, CallSite site = {});
/// Normalizes over the last dimension, then scales by gamma and shifts by
/// beta (both of the last dimension's size).
Tensor layer_norm(const Tensor &x, const Tensor &gamma, const Tensor &beta, double epsilon = 1e-5,
                  CallSite site = {});
/// Mean over the batch of -log softmax(logits)[label]: logits [..., C],
/// integer labels [...].
Tensor softmax_cross_entropy(const Tensor &logits, const Tensor &labels, CallSite site = {});

// ---- Explicit sharding: shard_map and collectives ----------------------------
/// A function over per-device values.
using LocalFn = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
/// Runs `fn` on every device of the function's mesh on the blocks of
/// `inputs` chosen by `inSpecs`; its results, laid out by `outSpecs`, form
/// the global results (like jax.shard_map). Inside, the collectives below
/// communicate over mesh axes.
std::vector<Tensor> shard_map(const LocalFn &fn, const std::vector<Tensor> &inputs,
                              const std::vector<PartitionSpec> &inSpecs,
                              const std::vector<PartitionSpec> &outSpecs, CallSite site = {});
Tensor psum(const Tensor &x, const std::vector<std::string> &axes, CallSite site = {});
Tensor pmean(const Tensor &x, const std::vector<std::string> &axes, CallSite site = {});
Tensor pmax(const Tensor &x, const std::vector<std::string> &axes, CallSite site = {});
Tensor all_gather(const Tensor &x, const std::vector<std::string> &axes, int64_t dim,
                  CallSite site = {});
Tensor psum_scatter(const Tensor &x, const std::vector<std::string> &axes, int64_t dim,
                    CallSite site = {});
Tensor all_to_all(const Tensor &x, const std::vector<std::string> &axes, int64_t splitDim,
                  int64_t concatDim, CallSite site = {});

// ---- Tracing -----------------------------------------------------------------
/// A function to trace: global values in, global values out.
using TracedFn = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

// ---- Rematerialization ---------------------------------------------------------
/// What a checkpointed function keeps from its forward pass for the
/// backward one, like jax.checkpoint's policies; the rest is recomputed.
struct CheckpointPolicy {
  enum class Save {
    Nothing,     // only its inputs (jax.checkpoint_policies.nothing_saveable)
    Dots,        // also the results of dot_general (dots_saveable)
    Names,       // also the values named by checkpoint_name in `names`
                 // (save_only_these_names)
    AllButNames, // everything but the values named in `names`
                 // (save_anything_except_these_names)
  } save = Save::Nothing;
  std::vector<std::string> names;

  static CheckpointPolicy nothing() { return {}; }
  static CheckpointPolicy dots() { return {Save::Dots, {}}; }
  static CheckpointPolicy onlyNames(std::vector<std::string> names) {
    return {Save::Names, std::move(names)};
  }
  static CheckpointPolicy allButNames(std::vector<std::string> names) {
    return {Save::AllButNames, std::move(names)};
  }
};

/// `fn`, whose values are recomputed in the backward pass instead of held
/// from the forward one, but for what `policy` saves (like jax.checkpoint,
/// also called activation checkpointing): differentiation then holds one
/// call's values at a time, for the price of computing them twice. Without
/// differentiation it is `fn`. Each call of the result is its own group;
/// calls inside a checkpointed call belong to the outer one. Not available
/// inside a shard_map body.
TracedFn checkpoint(TracedFn fn, CheckpointPolicy policy = {}, CallSite site = {});
/// `x`, named for a CheckpointPolicy::onlyNames or allButNames policy (like
/// jax.ad_checkpoint.checkpoint_name); a function argument needs no name,
/// it is always kept.
Tensor checkpoint_name(const Tensor &x, const std::string &name, CallSite site = {});

/// One argument of a trace: its name in the program, type and layout (a
/// sharding with an empty mesh: one device).
struct ArgSpec {
  std::string name;
  DType dtype;
  Shape shape;
  NamedSharding sharding;
  /// The caller gives the argument's buffer up (shardc.donated): a result
  /// may be computed in place over it.
  bool donated = false;
};

/// Traces `fn` on arguments `args` into the text of a module holding the
/// mesh (if any argument or `mesh` has axes) and `func.func @name`. Throws
/// TraceError for errors in `fn`, and for arguments on different meshes.
std::string traceToModule(const TracedFn &fn, const std::vector<ArgSpec> &args,
                          const std::string &name = "main", const Mesh &mesh = {});

} // namespace shardc

#endif // SHARDC_TENSOR_H
