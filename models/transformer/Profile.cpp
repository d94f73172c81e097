//===- Profile.cpp - the device profiles shardc-gpt plan ships ------------===//

#include "Profile.h"

#include <shardc/Runtime/File.h>

namespace gpt {

using shardc::DeviceProfile;
using shardc::Status;
using shardc::StatusOr;

StatusOr<DeviceProfile> loadProfile(const std::string &nameOrPath) {
  std::string path = nameOrPath;
  if (nameOrPath == "h100" || nameOrPath == "h200")
    path = std::string(SHARDC_SOURCE_DIR) + "/models/transformer/profiles/" + nameOrPath + ".json";
  else if (nameOrPath.find('/') == std::string::npos &&
           nameOrPath.find(".json") == std::string::npos)
    return Status::error("--profile: no profile '" + nameOrPath +
                         "' (shipped: h100, h200; or the path of a JSON file)");
  StatusOr<std::string> text = shardc::readFile(path);
  if (!text.ok())
    return Status::error("--profile: " + text.message());
  return shardc::parseDeviceProfile(*text, path);
}

} // namespace gpt
