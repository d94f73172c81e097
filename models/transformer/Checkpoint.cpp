//===- Checkpoint.cpp - Tiny Transformer checkpoints as safetensors -------===//

#include "Checkpoint.h"

#include <shardc/Runtime/Safetensors.h>

#include <cstring>

namespace gpt {

using shardc::Array;
using shardc::Status;

namespace {

/// The same row-major data under another shape.
Array withShape(const Array &a, const shardc::Shape &shape) {
  Array out = Array::uninitialized(a.dtype(), shape);
  std::memcpy(out.bytes(), a.bytes(), a.sizeInBytes());
  return out;
}

std::string shapeString(const shardc::Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

} // namespace

Status saveCheckpoint(const std::string &path, const Config &config, const TrainState &state,
                      const std::string &mesh) {
  std::vector<ParamInfo> ps = parameters(config);
  if (state.params.size() != ps.size() || state.m.size() != ps.size() ||
      state.v.size() != ps.size())
    return Status::error("checkpoint " + path + ": the state does not match the model");
  shardc::NamedArrays tensors;
  for (size_t i = 0; i < ps.size(); ++i)
    tensors.emplace_back(ps[i].name, withShape(state.params[i], ps[i].torchShape));
  for (size_t i = 0; i < ps.size(); ++i) {
    tensors.emplace_back("optimizer." + ps[i].name + ".exp_avg",
                         withShape(state.m[i], ps[i].torchShape));
    tensors.emplace_back("optimizer." + ps[i].name + ".exp_avg_sq",
                         withShape(state.v[i], ps[i].torchShape));
  }
  tensors.emplace_back("optimizer.step", state.adamStep);
  std::map<std::string, std::string> meta = state.metadata;
  meta["format"] = "shardc-gpt";
  meta["step"] = std::to_string(state.step);
  meta["config"] = config.toString();
  meta["mesh"] = mesh;
  return shardc::writeSafetensors(path, tensors, meta);
}

namespace {

/// The state in `file` (read from `path`), checked against `config`.
shardc::StatusOr<TrainState> stateFrom(shardc::SafetensorsFile &file, const std::string &path,
                                       const Config &config, bool withOptimizer) {
  auto fail = [&](const std::string &why) {
    return Status::error("checkpoint " + path + ": " + why);
  };
  auto it = file.metadata.find("config");
  if (it != file.metadata.end() && it->second != config.toString())
    return fail("saved for model " + it->second + ", not " + config.toString());
  auto get = [&](const std::string &name, const shardc::Shape &torchShape,
                 const shardc::Shape &shape, Array &out) -> Status {
    const Array *a = file.find(name);
    if (!a)
      return fail("tensor '" + name + "' is missing");
    if (a->dtype() != shardc::DType::F32)
      return fail("tensor '" + name + "' has dtype " + shardc::dtypeName(a->dtype()) +
                  ", expected f32");
    if (a->shape() != torchShape)
      return fail("tensor '" + name + "' has shape " + shapeString(a->shape()) +
                  ", expected " + shapeString(torchShape));
    out = withShape(*a, shape);
    return Status::success();
  };
  TrainState st;
  std::vector<ParamInfo> ps = parameters(config);
  st.params.resize(ps.size());
  for (size_t i = 0; i < ps.size(); ++i)
    if (Status s = get(ps[i].name, ps[i].torchShape, ps[i].shape, st.params[i]); !s.ok())
      return s;
  if (withOptimizer) {
    st.m.resize(ps.size());
    st.v.resize(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) {
      std::string base = "optimizer." + ps[i].name;
      if (Status s = get(base + ".exp_avg", ps[i].torchShape, ps[i].shape, st.m[i]); !s.ok())
        return s;
      if (Status s = get(base + ".exp_avg_sq", ps[i].torchShape, ps[i].shape, st.v[i]);
          !s.ok())
        return s;
    }
    if (Status s = get("optimizer.step", {}, {}, st.adamStep); !s.ok())
      return s;
  }
  it = file.metadata.find("step");
  if (it == file.metadata.end())
    return fail("metadata has no 'step'");
  char *end = nullptr;
  long long step = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end || step < 0)
    return fail("metadata 'step' is '" + it->second + "', not a step count");
  st.step = step;
  st.metadata = file.metadata;
  return st;
}

} // namespace

shardc::StatusOr<TrainState> loadCheckpoint(const std::string &path, const Config &config,
                                            bool withOptimizer) {
  shardc::StatusOr<shardc::SafetensorsFile> file = shardc::readSafetensors(path);
  if (!file.ok())
    return file.status();
  return stateFrom(*file, path, config, withOptimizer);
}

shardc::StatusOr<SavedModel> loadSavedModel(const std::string &path) {
  shardc::StatusOr<shardc::SafetensorsFile> file = shardc::readSafetensors(path);
  if (!file.ok())
    return file.status();
  auto it = file->metadata.find("config");
  if (it == file->metadata.end())
    return Status::error("checkpoint " + path +
                         ": metadata has no 'config' (not written by shardc-gpt)");
  shardc::StatusOr<Config> config = Config::fromString(it->second);
  if (!config.ok())
    return Status::error("checkpoint " + path + ": " + config.message());
  shardc::StatusOr<TrainState> state = stateFrom(*file, path, *config, false);
  if (!state.ok())
    return state.status();
  return SavedModel{*config, std::move(*state)};
}

} // namespace gpt
