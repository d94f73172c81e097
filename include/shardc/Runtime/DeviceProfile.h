//===- DeviceProfile.h - a device's speeds and sizes -------------*- C++ -*-===//
//
// What a cost model prices a plan with (PlanCost.h): a device's memory, its
// peak product rates, its memory bandwidth and the links between devices.
// Profiles are JSON files with their public sources stated
// (models/transformer/profiles/h100.json, h200.json): a strict reader, as
// for any file a user hands over.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_DEVICEPROFILE_H
#define SHARDC_RUNTIME_DEVICEPROFILE_H

#include "shardc/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

struct DeviceProfile {
  std::string name;
  std::vector<std::string> sources;
  int64_t memoryBytes = 0;
  double hbmBytesPerS = 0;
  double f32FlopsPerS = 0, tf32FlopsPerS = 0, bf16FlopsPerS = 0;
  int64_t devicesPerNode = 1;
  double intraNodeBytesPerS = 0, interNodeBytesPerS = 0;
  double intraNodeLatencyS = 0, interNodeLatencyS = 0;

  /// The product rate at `precision` ("f32", "tf32" or "bf16").
  double flopsPerS(const std::string &precision) const;
};

/// Parses a profile: a JSON object with "name", "sources" (strings) and the
/// positive integers memory_bytes, hbm_bytes_per_s, f32_flops_per_s,
/// tf32_flops_per_s, bf16_flops_per_s, devices_per_node,
/// intra_node_bytes_per_s, inter_node_bytes_per_s, intra_node_latency_ns
/// and inter_node_latency_ns, each required once. Errors name `what` (the
/// file) and the field, or the byte of a syntax error.
StatusOr<DeviceProfile> parseDeviceProfile(const std::string &text, const std::string &what);

} // namespace shardc

#endif // SHARDC_RUNTIME_DEVICEPROFILE_H
