//===- DeviceProfile.cpp - reading device profiles ------------------------===//

#include "shardc/Runtime/DeviceProfile.h"

#include "shardc/Runtime/Json.h"

#include <cstdint>
#include <map>

namespace shardc {

double DeviceProfile::flopsPerS(const std::string &precision) const {
  return precision == "bf16" ? bf16FlopsPerS : precision == "tf32" ? tf32FlopsPerS : f32FlopsPerS;
}

StatusOr<DeviceProfile> parseDeviceProfile(const std::string &text, const std::string &what) {
  json::JsonReader r(text);
  DeviceProfile p;
  // The numeric fields: positive integers, each required.
  std::map<std::string, int64_t> numbers{
      {"memory_bytes", 0},           {"hbm_bytes_per_s", 0},        {"f32_flops_per_s", 0},
      {"tf32_flops_per_s", 0},       {"bf16_flops_per_s", 0},       {"devices_per_node", 0},
      {"intra_node_bytes_per_s", 0}, {"inter_node_bytes_per_s", 0}, {"intra_node_latency_ns", 0},
      {"inter_node_latency_ns", 0}};
  auto fail = [&](const std::string &why) { return Status::error("profile " + what + ": " + why); };
  auto syntax = [&]() { return fail(r.error().empty() ? "malformed JSON" : r.error()); };
  if (r.peek() != json::JsonReader::Kind::Object || !r.beginObject())
    return fail("expected a JSON object");
  bool first = true, named = false;
  std::string key;
  std::map<std::string, bool> seen;
  while (r.nextKey(key, first)) {
    if (seen[key])
      return fail("field '" + key + "' appears twice");
    seen[key] = true;
    if (key == "name") {
      if (!r.readString(p.name))
        return syntax();
      named = !p.name.empty();
    } else if (key == "sources") {
      using Kind = json::JsonReader::Kind;
      if (r.peek() != Kind::Array || !r.beginArray())
        return fail("'sources' must be an array of strings");
      bool firstSource = true;
      while (r.nextElement(firstSource)) {
        std::string s;
        if (r.peek() != Kind::String)
          return fail("'sources' must be an array of strings");
        if (!r.readString(s))
          return syntax();
        p.sources.push_back(s);
      }
      if (!r.error().empty())
        return syntax();
    } else if (auto it = numbers.find(key); it != numbers.end()) {
      json::JsonNumber n;
      if (r.peek() != json::JsonReader::Kind::Number || !r.readNumber(n))
        return fail("field '" + key + "' must be a positive integer");
      if (!n.integer || n.negative || n.overflow || n.magnitude == 0 ||
          n.magnitude > (uint64_t)INT64_MAX)
        return fail("field '" + key + "' must be a positive integer");
      it->second = (int64_t)n.magnitude;
    } else {
      return fail("unknown field '" + key + "'");
    }
  }
  if (!r.error().empty() || !r.finish())
    return syntax();
  if (!named)
    return fail("missing field 'name'");
  if (p.sources.empty())
    return fail("missing field 'sources' (where the figures come from)");
  for (const auto &[k, v] : numbers)
    if (v == 0)
      return fail("missing field '" + k + "'");
  p.memoryBytes = numbers["memory_bytes"];
  p.hbmBytesPerS = (double)numbers["hbm_bytes_per_s"];
  p.f32FlopsPerS = (double)numbers["f32_flops_per_s"];
  p.tf32FlopsPerS = (double)numbers["tf32_flops_per_s"];
  p.bf16FlopsPerS = (double)numbers["bf16_flops_per_s"];
  p.devicesPerNode = numbers["devices_per_node"];
  p.intraNodeBytesPerS = (double)numbers["intra_node_bytes_per_s"];
  p.interNodeBytesPerS = (double)numbers["inter_node_bytes_per_s"];
  p.intraNodeLatencyS = (double)numbers["intra_node_latency_ns"] * 1e-9;
  p.interNodeLatencyS = (double)numbers["inter_node_latency_ns"] * 1e-9;
  return p;
}

} // namespace shardc
