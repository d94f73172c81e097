//===- GspmdSharding.h - GSPMD sharding strings as shardc's ----*- C++ -*-===//
//
// Older JAX writes shardings as XLA's HloSharding text in `mhlo.sharding`:
//
//   {replicated}                       every device holds all of it
//   {maximal device=0}                 one device holds it
//   {devices=[2,1]<=[2]}               dimension 0 split over 2 devices
//   {devices=[2,2]<=[2,2]T(1,0)}       the device list transposed
//   {devices=[2,1,2]<=[4] last_tile_dim_replicate}
//   {devices=[2,2]0,2,1,3}             an explicit device list
//
// All of a module's shardings are expressed on one mesh, `@gspmd`, whose
// axes "g0", "g1", ... are the prime factors of the device count in
// ascending order (devices numbered row-major over them). A tiled
// dimension takes the consecutive axes whose sizes multiply to its tile
// count, in the order the device list walks them. Device lists that no
// order of those axes produces are an error, as are manual shardings.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_CONVERSION_GSPMDSHARDING_H
#define SHARDC_CONVERSION_GSPMDSHARDING_H

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace shardc {

class GspmdMeshes {
public:
  /// `devices`: the module's `mhlo.num_partitions`, or 0 to take the first
  /// tiled sharding's device count.
  GspmdMeshes(mlir::ModuleOp module, int64_t devices);
  /// The sharding of a value of rank `rank`; a null attribute for shardings
  /// that place the value on one device (or on one-device meshes). On
  /// failure, `error` says why.
  mlir::FailureOr<ShardingAttr> shardingFor(llvm::StringRef text, int64_t rank, std::string &error);
  /// Adds `shardc.mesh @gspmd` to the module if a sharding used it.
  void declareMeshes();

private:
  mlir::ModuleOp module;
  int64_t devices;
  std::vector<int64_t> primes; // the mesh's axis sizes
  std::string meshName;
  bool used = false;
  bool fix(int64_t count, std::string &error);
};

} // namespace shardc

#endif // SHARDC_CONVERSION_GSPMDSHARDING_H
