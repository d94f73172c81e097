//===- Checkpoint.cpp - Tiny Transformer checkpoints as safetensors -------===//

#include "Checkpoint.h"

#include <shardc/Runtime/Safetensors.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <unistd.h>

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

namespace {

/// The tensors of a checkpoint and its metadata, in file order.
shardc::StatusOr<shardc::NamedArrays>
checkpointTensors(const std::string &path, const Config &config, const TrainState &state,
                  const std::string &mesh, std::map<std::string, std::string> &meta) {
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
  meta = state.metadata;
  meta["format"] = "shardc-gpt";
  meta["step"] = std::to_string(state.step);
  meta["config"] = config.toString();
  meta["mesh"] = mesh;
  return tensors;
}

/// Whether every process succeeded; each learns every one's outcome.
Status allSucceeded(shardc::ProcessGroup &processes, const Status &mine, const std::string &what) {
  uint8_t ok = mine.ok() ? 1 : 0;
  std::vector<uint8_t> all(processes.size());
  std::vector<shardc::ProcessGroup::Transfer> sends, recvs;
  for (int q = 0; q < processes.size(); ++q)
    if (q != processes.rank()) {
      sends.push_back({q, &ok, 1});
      recvs.push_back({q, &all[q], 1});
    }
  all[processes.rank()] = ok;
  if (Status s = processes.exchange(sends, recvs); !s.ok())
    return s;
  if (!mine.ok())
    return mine;
  for (int q = 0; q < processes.size(); ++q)
    if (!all[q])
      return Status::error(what + ": process " + std::to_string(q) + " failed (see its error)");
  return Status::success();
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

Status saveCheckpoint(const std::string &path, const Config &config, const TrainState &state,
                      const std::string &mesh) {
  std::map<std::string, std::string> meta;
  shardc::StatusOr<shardc::NamedArrays> tensors =
      checkpointTensors(path, config, state, mesh, meta);
  if (!tensors.ok())
    return tensors.status();
  return shardc::writeSafetensors(path, *tensors, meta);
}

shardc::StatusOr<std::string> saveShardedCheckpoint(const std::string &base, const Config &config,
                                                    const TrainState &state,
                                                    const std::string &mesh,
                                                    shardc::ProcessGroup &processes) {
  std::string indexPath = base + ".safetensors.index.json";
  std::map<std::string, std::string> meta;
  shardc::StatusOr<shardc::NamedArrays> tensors =
      checkpointTensors(indexPath, config, state, mesh, meta);
  if (!tensors.ok())
    return tensors.status();
  int count = processes.size();
  auto fileOf = [&](int p) {
    char part[64];
    std::snprintf(part, sizeof part, "-%05d-of-%05d.safetensors", p + 1, count);
    return base + part;
  };
  // Each tensor goes to the process with the fewest bytes so far, in file
  // order: every process computes the same shares.
  std::vector<int64_t> load(count, 0);
  std::vector<int> owner;
  for (const auto &[name, array] : *tensors) {
    int p = (int)(std::min_element(load.begin(), load.end()) - load.begin());
    owner.push_back(p);
    load[p] += (int64_t)array.sizeInBytes();
  }
  shardc::NamedArrays mine;
  shardc::SafetensorsIndex index;
  for (size_t i = 0; i < tensors->size(); ++i) {
    index.weightMap.emplace_back((*tensors)[i].first, baseName(fileOf(owner[i])));
    index.totalSize += (int64_t)(*tensors)[i].second.sizeInBytes();
    if (owner[i] == processes.rank())
      mine.push_back(std::move((*tensors)[i]));
  }
  meta["shard"] = std::to_string(processes.rank() + 1) + " of " + std::to_string(count);
  Status wrote = shardc::writeSafetensors(fileOf(processes.rank()), mine, meta);
  if (Status all = allSucceeded(processes, wrote, "checkpoint " + indexPath); !all.ok())
    return all;
  meta.erase("shard");
  index.metadata = meta;
  Status indexed =
      processes.rank() == 0 ? shardc::writeSafetensorsIndex(indexPath, index) : Status::success();
  if (Status all = allSucceeded(processes, indexed, "checkpoint " + indexPath); !all.ok())
    return all;
  return indexPath;
}

namespace {

/// The step of a checkpoint file's name, and whether it is an index:
/// step-N.safetensors, step-N.safetensors.index.json,
/// step-N-0000k-of-0000P.safetensors (N and the shard numbers all digits).
bool parseCheckpointName(const std::string &name, int64_t &step, bool &isIndex) {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > name.size() || n == 0)
      return false;
    for (size_t i = at; i < at + n; ++i)
      if (name[i] < '0' || name[i] > '9')
        return false;
    return true;
  };
  if (name.rfind("step-", 0) != 0)
    return false;
  size_t end = 5;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9')
    ++end;
  if (end == 5 || end - 5 > 18)
    return false;
  std::string rest = name.substr(end);
  isIndex = rest == ".safetensors.index.json";
  bool shard = rest.size() == std::strlen("-00001-of-00002.safetensors") && rest[0] == '-' &&
               digits(end + 1, 5) && rest.compare(6, 4, "-of-") == 0 && digits(end + 10, 5) &&
               rest.compare(15, std::string::npos, ".safetensors") == 0;
  if (!isIndex && !shard && rest != ".safetensors")
    return false;
  step = std::stoll(name.substr(5, end - 5));
  return true;
}

} // namespace

shardc::StatusOr<std::vector<std::string>> pruneCheckpoints(const std::string &dir, int64_t newest,
                                                            int64_t keep) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return Status::error("checkpoint directory " + dir + ": " + std::strerror(errno));
  // Step -> its files, the index first.
  std::map<int64_t, std::vector<std::string>> files;
  while (struct dirent *e = ::readdir(d)) {
    int64_t step;
    bool isIndex;
    std::string name = e->d_name;
    if (!parseCheckpointName(name, step, isIndex) || step > newest)
      continue;
    std::vector<std::string> &f = files[step];
    f.insert(isIndex ? f.begin() : f.end(), dir + "/" + name);
  }
  ::closedir(d);
  // The newest step is kept whether or not its files are here; then the
  // latest keep - 1 of the earlier ones.
  files.erase(newest);
  std::vector<std::string> deleted;
  int64_t older = (int64_t)files.size() - std::max<int64_t>(keep - 1, 0);
  for (auto it = files.begin(); older > 0; ++it, --older)
    for (const std::string &path : it->second) {
      if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        return Status::error("cannot delete the old checkpoint " + path + ": " +
                             std::strerror(errno));
      deleted.push_back(path);
    }
  return deleted;
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
      return fail("tensor '" + name + "' has shape " + shapeString(a->shape()) + ", expected " +
                  shapeString(torchShape));
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
      if (Status s = get(base + ".exp_avg_sq", ps[i].torchShape, ps[i].shape, st.v[i]); !s.ok())
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

namespace {
shardc::StatusOr<shardc::SafetensorsFile> readCheckpointFile(const std::string &path) {
  return shardc::isSafetensorsIndexPath(path) ? shardc::readShardedSafetensors(path)
                                              : shardc::readSafetensors(path);
}
} // namespace

shardc::StatusOr<TrainState> loadCheckpoint(const std::string &path, const Config &config,
                                            bool withOptimizer) {
  shardc::StatusOr<shardc::SafetensorsFile> file = readCheckpointFile(path);
  if (!file.ok())
    return file.status();
  return stateFrom(*file, path, config, withOptimizer);
}

shardc::StatusOr<SavedModel> loadSavedModel(const std::string &path) {
  shardc::StatusOr<shardc::SafetensorsFile> file = readCheckpointFile(path);
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
