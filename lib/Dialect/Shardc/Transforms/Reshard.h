//===- Reshard.h - moving a local value between layouts ---------*- C++ -*-===//
//
// A Layout is the axes of each dimension of a value (its sharding without the
// mesh). Reshard emits the collectives that take a per-device value from one
// layout to another: all_slice first where a dimension can be split at once
// (what moves after is smaller), collective_permute where dimensions change
// axes but not their number of blocks, all_to_all to move an axis between
// dimensions, all_gather to make dimensions whole, all_slice to split them.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_RESHARD_H
#define SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_RESHARD_H

#include "shardc/Common/CollectiveCost.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <string>
#include <vector>

namespace shardc {

using Layout = llvm::SmallVector<llvm::SmallVector<llvm::StringRef, 2>, 4>;

/// The layout of `sharding`, with adjacent sub-axes of one axis merged (see
/// mergeSubAxes): equal layouts list equal names.
Layout layoutOf(ShardingAttr sharding, MeshOp mesh);

/// Mesh order of axes and sub-axes: by axis, then major factors first.
bool meshOrder(MeshOp mesh, llvm::StringRef x, llvm::StringRef y);
Layout replicatedLayout(int64_t rank);
/// `[{"data"}, {}]`
std::string layoutStr(const Layout &layout);

/// Local type of a `global` tensor under `layout`.
mlir::RankedTensorType localType(mlir::RankedTensorType global, const Layout &layout, MeshOp mesh);

using Axes = llvm::SmallVector<llvm::StringRef, 2>;

/// One collective of a reshard: `axes` move from layout `from` to `to`.
struct ReshardStep {
  enum Kind { Slice, Permute, AllToAll, Gather } kind;
  Axes axes;
  int64_t dim;     // the dimension split (Slice), gathered, or that all_to_all splits
  int64_t fromDim; // all_to_all: the dimension it concatenates
  Layout from, to;
  llvm::SmallVector<int64_t> sources; // Permute
  /// A dimension the axes do not divide (padded to the next multiple): the
  /// Gather makes it whole and slices the padding off after; the Slice pads
  /// the whole dimension with zeros before.
  bool padded = false;
};

/// Bytes one device sends for a step of `kind` over a group of `n` devices
/// whose input is `in` bytes per device (collectiveBytesSent).
int64_t stepBytes(ReshardStep::Kind kind, int64_t in, int64_t n);

/// The cheapest steps by bytes per device (then by collectives) from `from`
/// to `to`, both over `atoms` (axes or factors of axes, none split by
/// another), none of whose layouts pads: each step slices a dimension by a
/// free atom, gathers a dimension's minor atoms, moves them to another with
/// an all_to_all, or permutes (towards the target where block counts agree,
/// swapping atoms of one size, reordering a dimension). Empty if every plan sends at least `bound`
/// bytes or the search expands `maxExpanded` layouts first. With `wholeSizes`, `global` is an
/// extension of a value of those sizes, and a step prices a dimension it leaves whole at its whole
/// size (see ReshardPlan). (ReshardSearch.cpp)
std::vector<ReshardStep> searchReshard(MeshOp mesh, mlir::RankedTensorType global,
                                       const Layout &from, const Layout &to,
                                       llvm::ArrayRef<llvm::StringRef> atoms, int64_t bound,
                                       int maxExpanded, llvm::ArrayRef<int64_t> wholeSizes = {});

/// Whether `layout` pads dimension `d` of `global` (its axes do not divide
/// it: every device holds the rounded-up size, the last ones padding).
bool padsDim(MeshOp mesh, mlir::RankedTensorType global, const Layout &layout, int64_t d);
/// Whether `layout` pads some dimension of `global`.
bool pads(MeshOp mesh, mlir::RankedTensorType global, const Layout &layout);

/// The collectives of a reshard of a value of global type `global`:
/// `before`, over `global`, then `steps`, over `over`: `global` with some
/// dimensions extended (where `from` or `to` pads them) so that every
/// layout of `steps` splits it evenly. A step sees an extended dimension at
/// its extended size only where it splits it on either side (typeOf): the
/// dimension is extended with zeros where a step starts to split it and
/// sliced back where one makes it whole.
struct ReshardPlan {
  mlir::RankedTensorType global, over;
  std::vector<ReshardStep> before, steps;
  /// The global type `step` (one of `steps`) moves.
  mlir::RankedTensorType typeOf(MeshOp mesh, const ReshardStep &step) const;
  /// Bytes one device sends for all of them.
  int64_t bytes(MeshOp mesh) const;
};

/// The cheapest plan found from `from` to `to`. A padded dimension is
/// moved like the others, over its padded size; only where both layouts
/// split it into blocks of different padded sizes is it made whole first.
ReshardPlan planReshard(MeshOp mesh, mlir::RankedTensorType global, const Layout &from,
                        const Layout &to);

/// Prices reshards for one partitioning run. The same reshards are priced
/// many times over (every candidate layout of every op, every block of a
/// model): each is planned once and its cost kept, by what determines it
/// (the mesh's axes, the global type and the two layouts). One per run, so
/// no state outlives a compile or is shared between threads. Its link
/// ranks the costs of the choices partitioning makes (LinkModel).
class ReshardPlanner {
public:
  explicit ReshardPlanner(LinkModel link = {}) : link_(link) {}

  /// The bytes one device sends for the reshard (collectiveBytesSent) and
  /// its number of collectives (all_slice is local and not counted).
  CommCost cost(MeshOp mesh, mlir::RankedTensorType global, const Layout &from, const Layout &to);
  /// Whether `a` costs less than `b` over the link.
  bool cheaper(const CommCost &a, const CommCost &b) const { return link_.cheaper(a, b); }
  const LinkModel &link() const { return link_; }

private:
  LinkModel link_;
  std::map<std::string, CommCost> known;
};

/// Bytes of one device's block of `global` under `layout`.
int64_t localBytes(MeshOp mesh, mlir::RankedTensorType global, const Layout &layout);

/// Emits collectives taking `value` (local, in layout `from`, of global type
/// `global`) to layout `to`. Every op gets a location naming `cause`.
mlir::Value reshard(mlir::OpBuilder &b, mlir::Location at, const std::string &cause, MeshOp mesh,
                    mlir::Value value, mlir::RankedTensorType global, const Layout &from,
                    const Layout &to);

/// The first `size` elements of `value` along `dim` (local).
mlir::Value sliceDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, int64_t dim,
                     int64_t size);
/// `value` extended with zeros along `dim` to `size` (local).
mlir::Value padWithZeros(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, int64_t dim,
                         int64_t size);

/// The location of an inserted collective: its cause, then where it was
/// needed.
mlir::Location causeLoc(mlir::Location at, const std::string &cause);

} // namespace shardc

#endif // SHARDC_LIB_DIALECT_SHARDC_TRANSFORMS_RESHARD_H
