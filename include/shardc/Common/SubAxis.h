//===- SubAxis.h - a factor of a mesh axis, by name -------------*- C++ -*-===//
//
// Shardy's sub-axis `"a":(2)2`: axis "a" of size n read as
// [pre][size][n / (pre * size)], major to minor, with only the middle part
// taken. A device's coordinate along it is
// (its coordinate along "a" / (n / (pre * size))) % size, so "a":(1)2 and
// "a":(2)2 together are "a" of size 4. Wherever the axes of a layout or a
// collective are listed, a sub-axis is named "a:(pre)size". Header-only and
// MLIR-free: the runtime and the dialect both read these names.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMMON_SUBAXIS_H
#define SHARDC_COMMON_SUBAXIS_H

#include <cstdint>
#include <optional>
#include <string>

namespace shardc {

struct SubAxis {
  std::string axis; // "a"
  int64_t pre = 1, size = 1;
};

/// "a:(2)2" as a sub-axis; nullopt for a plain axis name (or a malformed
/// one).
inline std::optional<SubAxis> parseSubAxis(const std::string &name) {
  size_t colon = name.rfind(":(");
  if (colon == std::string::npos || colon == 0)
    return std::nullopt;
  size_t close = name.find(')', colon);
  if (close == std::string::npos || close + 1 >= name.size())
    return std::nullopt;
  auto number = [](const std::string &s, int64_t &out) {
    if (s.empty() || s.size() > 12)
      return false;
    out = 0;
    for (char c : s) {
      if (c < '0' || c > '9')
        return false;
      out = out * 10 + (c - '0');
    }
    return out >= 1;
  };
  SubAxis sub;
  sub.axis = name.substr(0, colon);
  if (!number(name.substr(colon + 2, close - colon - 2), sub.pre) ||
      !number(name.substr(close + 1), sub.size))
    return std::nullopt;
  return sub;
}

/// "a:(2)2".
inline std::string subAxisName(const std::string &axis, int64_t pre, int64_t size) {
  return axis + ":(" + std::to_string(pre) + ")" + std::to_string(size);
}

} // namespace shardc

#endif // SHARDC_COMMON_SUBAXIS_H
