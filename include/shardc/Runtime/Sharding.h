//===- Sharding.h - meshes and partition specs at run time ------*- C++ -*-===//
//
// The runtime's view of a device mesh and of how an array is split over it,
// named after JAX (Mesh, PartitionSpec, NamedSharding). Used to scatter global
// arrays onto devices (device_put), gather them back, and form the device
// groups of collectives. Plain values; no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_SHARDING_H
#define SHARDC_RUNTIME_SHARDING_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Status.h"
#include "shardc/Common/SubAxis.h"

#include <optional>
#include <string>
#include <vector>

namespace shardc {

/// A logical device mesh: named axes with sizes, e.g. {"data"=2, "model"=4}.
/// Device ids are the row-major linearization of mesh coordinates (the first
/// axis is the most significant). Wherever axes are named, a sub-axis
/// ("model:(1)2", see SubAxis) may stand for a factor of one.
struct Mesh {
  std::vector<std::string> axisNames; // e.g. {"data", "model"}
  std::vector<int64_t> axisSizes;     // e.g. {2, 4}

  int64_t numDevices() const;
  /// Index of `axis` (of the axis a sub-axis is a factor of), or -1 if there
  /// is none or the sub-axis does not divide it.
  int axisIndex(const std::string &axis) const;
  /// Size of `axis` or sub-axis (which must exist).
  int64_t axisSize(const std::string &axis) const;
  /// Whether two axes or sub-axes share devices' coordinates: the same axis,
  /// with overlapping factors.
  bool overlap(const std::string &a, const std::string &b) const;
  /// Coordinates of `device`, one per axis.
  std::vector<int64_t> coords(int64_t device) const;
  int64_t deviceAt(const std::vector<int64_t> &coords) const;
  /// Product of the sizes of `axes`.
  int64_t groupSize(const std::vector<std::string> &axes) const;
  /// Position of `device` within the group over `axes` (first axis major).
  int64_t groupRank(const std::vector<std::string> &axes, int64_t device) const;
  /// The devices of the group over `axes` that contains `device`, ordered by
  /// group rank.
  std::vector<int64_t> group(const std::vector<std::string> &axes, int64_t device) const;
};

/// For each array dimension, the mesh axes that split it, major to minor; an
/// empty list means replicated. Like jax.sharding.PartitionSpec.
using PartitionSpec = std::vector<std::vector<std::string>>;

/// An array layout on a mesh, like jax.sharding.NamedSharding.
struct NamedSharding {
  Mesh mesh;
  PartitionSpec spec;

  /// Shape of each device's shard of an array of shape `global`. A dimension
  /// its axes do not divide is padded: every shard has the rounded-up size,
  /// and the last ones end in padding (17 over 8: shards of 3, of which the
  /// sixth holds 2 elements and the last two none).
  Shape localShape(const Shape &global) const;
  /// Whether some dimension of `global` is padded (see localShape).
  bool padded(const Shape &global) const;
  /// Checks rank and axis names for `global`, and that the axes divide each
  /// dimension unless `allowPadding`.
  Status validate(const Shape &global, bool allowPadding = false) const;
  /// The shard of `global` that `device` holds; padding is zeros.
  Array shard(const Array &global, int64_t device) const;
  /// Inverse of shard(): assembles the global array from one shard per device
  /// (for replicated dimensions, the first device holding a block is used),
  /// dropping the padding. Without `global`, the layout must divide: the
  /// global shape is the shards' times the devices along each dimension.
  Array assemble(const std::vector<Array> &shards) const;
  Array assemble(const std::vector<Array> &shards, const Shape &global) const;
  /// The same from the shards of devices [first, first + count) only (the
  /// others may be empty), which must hold every block (holdsEveryBlock).
  Array assemble(const std::vector<Array> &shards, const Shape &global, int64_t first,
                 int64_t count) const;
  /// Whether devices [first, first + count) hold every block of an array
  /// whose shards have shape `local`: with its other dimensions replicated
  /// over the rest of the mesh, they alone can assemble it.
  bool holdsEveryBlock(const Shape &local, int64_t first, int64_t count) const;
  /// A text picture of the layout of an array of shape `global` (rank <= 2):
  /// a grid of blocks, each labelled with the devices that hold it, like
  /// jax.debug.visualize_array_sharding.
  std::string visualize(const Shape &global) const;
};

} // namespace shardc

#endif // SHARDC_RUNTIME_SHARDING_H
