//===- Profile.h - the device profiles shardc-gpt plan ships -----*- C++ -*-===//
//
// `--profile h100` or `h200` (models/transformer/profiles/), or the path of
// a JSON profile file (shardc/Runtime/DeviceProfile.h).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_MODELS_TRANSFORMER_PROFILE_H
#define SHARDC_MODELS_TRANSFORMER_PROFILE_H

#include <shardc/Runtime/DeviceProfile.h>

#include <string>

namespace gpt {

/// `nameOrPath`: a profile shipped with shardc ("h100", "h200") or a path
/// to a JSON file.
shardc::StatusOr<shardc::DeviceProfile> loadProfile(const std::string &nameOrPath);

} // namespace gpt

#endif // SHARDC_MODELS_TRANSFORMER_PROFILE_H
