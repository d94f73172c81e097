//===- SafetensorsIndex.cpp - sharded checkpoints' index files ------------===//
//
// The index of a checkpoint split into several safetensors files, in Hugging
// Face's layout, so that its tools (and transformers' from_pretrained) read
// what shardc writes and the other way round. The index is untrusted input
// like the files: it may name only files beside it.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/File.h"
#include "shardc/Runtime/Safetensors.h"

#include "shardc/Runtime/Json.h"

#include <algorithm>
#include <map>
#include <set>

namespace shardc {

using namespace json;

namespace {

/// A plain file name: an index names only the files beside it.
bool isPlainFileName(const std::string &name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

} // namespace

StatusOr<std::string> serializeSafetensorsIndex(const SafetensorsIndex &index) {
  std::string out = "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(index.totalSize);
  for (const auto &[key, value] : index.metadata) {
    if (key == "total_size")
      continue;
    if (!isValidUtf8(key) || !isValidUtf8(value))
      return Status::error("index metadata " + quote(key) + " is not valid UTF-8");
    out += ",\n    ";
    appendJsonString(out, key);
    out += ": ";
    appendJsonString(out, value);
  }
  out += "\n  },\n  \"weight_map\": {";
  std::set<std::string> seen;
  for (size_t i = 0; i < index.weightMap.size(); ++i) {
    const auto &[tensor, file] = index.weightMap[i];
    if (!seen.insert(tensor).second)
      return Status::error("tensor " + quote(tensor) + " is in the index twice");
    if (!isValidUtf8(tensor) || !isValidUtf8(file))
      return Status::error("index entry " + quote(tensor) + " is not valid UTF-8");
    if (!isPlainFileName(file))
      return Status::error("tensor " + quote(tensor) + " is in " + quote(file) +
                           ", which is not a file beside the index");
    out += i ? ",\n    " : "\n    ";
    appendJsonString(out, tensor);
    out += ": ";
    appendJsonString(out, file);
  }
  return out + "\n  }\n}\n";
}

StatusOr<SafetensorsIndex> parseSafetensorsIndex(const std::string &text, const std::string &name) {
  auto fail = [&](const std::string &what) { return Status::error(name + ": " + what); };
  JsonReader r(text);
  SafetensorsIndex index;
  if (r.peek() != JsonReader::Kind::Object)
    return fail("the index is not a JSON object");
  r.beginObject();
  bool first = true, sawMap = false;
  std::string key;
  while (r.nextKey(key, first)) {
    if (key == "metadata") {
      if (r.readNull())
        continue;
      if (r.peek() != JsonReader::Kind::Object)
        return fail("\"metadata\" is not a JSON object");
      r.beginObject();
      bool firstMeta = true;
      std::string metaKey, value;
      while (r.nextKey(metaKey, firstMeta)) {
        if (metaKey == "total_size" && r.peek() == JsonReader::Kind::Number) {
          JsonNumber n;
          if (!r.readNumber(n))
            break;
          if (!n.integer || n.negative || n.overflow || n.magnitude > (uint64_t)INT64_MAX)
            return fail("\"total_size\" is not a byte count");
          index.totalSize = (int64_t)n.magnitude;
          continue;
        }
        if (r.peek() == JsonReader::Kind::String) {
          r.readString(value);
          index.metadata[metaKey] = value;
        } else if (!r.skipValue(0)) {
          break;
        }
      }
    } else if (key == "weight_map") {
      if (sawMap)
        return fail("duplicate \"weight_map\"");
      sawMap = true;
      if (r.peek() != JsonReader::Kind::Object)
        return fail("\"weight_map\" is not a JSON object");
      r.beginObject();
      bool firstEntry = true;
      std::string tensor, file;
      std::set<std::string> seen;
      while (r.nextKey(tensor, firstEntry)) {
        if (r.peek() != JsonReader::Kind::String)
          return fail("the file of tensor " + quote(tensor) + " is not a string");
        r.readString(file);
        if (!isPlainFileName(file))
          return fail("tensor " + quote(tensor) + " is in " + quote(file) +
                      ", which is not a file beside the index");
        if (!seen.insert(tensor).second)
          return fail("tensor " + quote(tensor) + " is in the weight map twice");
        index.weightMap.emplace_back(tensor, file);
      }
    } else if (!r.skipValue(0)) {
      break;
    }
  }
  if (!r.error().empty() || !r.finish())
    return fail("the index is not valid JSON: " + r.error());
  if (!sawMap)
    return fail("the index has no \"weight_map\"");
  return index;
}

Status writeSafetensorsIndex(const std::string &path, const SafetensorsIndex &index) {
  StatusOr<std::string> text = serializeSafetensorsIndex(index);
  if (!text.ok())
    return Status::error("cannot write '" + path + "': " + text.message());
  return writeFileAtomically(path, *text);
}

bool isSafetensorsIndexPath(const std::string &path) {
  const std::string suffix = ".index.json";
  return path.size() > suffix.size() &&
         path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

StatusOr<SafetensorsFile> readShardedSafetensors(const std::string &indexPath) {
  StatusOr<std::string> text = readFile(indexPath);
  if (!text.ok())
    return text.status();
  StatusOr<SafetensorsIndex> index = parseSafetensorsIndex(*text, indexPath);
  if (!index.ok())
    return index.status();
  size_t slash = indexPath.rfind('/');
  std::string dir = slash == std::string::npos ? "" : indexPath.substr(0, slash + 1);
  std::map<std::string, SafetensorsFile> files;
  SafetensorsFile out;
  for (const auto &[tensor, file] : index->weightMap) {
    auto it = files.find(file);
    if (it == files.end()) {
      StatusOr<SafetensorsFile> shard = readSafetensors(dir + file);
      if (!shard.ok())
        return Status::error(indexPath + ": " + shard.message());
      it = files.emplace(file, std::move(*shard)).first;
    }
    NamedArrays &held = it->second.tensors;
    auto at = std::find_if(held.begin(), held.end(),
                           [&](const auto &named) { return named.first == tensor; });
    if (at == held.end())
      return Status::error(indexPath + ": tensor " + quote(tensor) + " is not in " + quote(file) +
                           ", where the weight map puts it");
    out.tensors.emplace_back(tensor, std::move(at->second)); // each is read once
  }
  out.metadata = index->metadata;
  return out;
}

} // namespace shardc
