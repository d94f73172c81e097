//===- Safetensors.h - safetensors checkpoint files -------------*- C++ -*-===//
//
// Reads and writes the Hugging Face safetensors format: an 8-byte
// little-endian header length N, N bytes of JSON mapping each tensor name to
// {"dtype", "shape", "data_offsets"} (plus an optional "__metadata__" object
// of strings), padded with spaces to a multiple of 8, then the raw
// little-endian tensor data, contiguous. dtypes: F32, F64, F16, BF16, I32,
// I64 and BOOL (shardc's i1); others are a clear error.
//
// Reading checks the whole header against the file before allocating, so a
// corrupt or hostile file gives one error naming the file, the problem and
// the tensor, never a crash. Writing is atomic and durable: a temporary file
// beside `path`, fsync, rename, fsync of the directory; on failure the old
// file stays as it was. The functions are thread-safe apart from the test
// hook.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_SAFETENSORS_H
#define SHARDC_RUNTIME_SAFETENSORS_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shardc {

/// Named tensors in data order, as a checkpoint holds them.
using NamedArrays = std::vector<std::pair<std::string, Array>>;

/// The contents of a safetensors file. Owns its arrays.
struct SafetensorsFile {
  /// In the order of their data in the file, which is the order they were
  /// written in by writeSafetensors.
  NamedArrays tensors;
  /// The "__metadata__" object; empty when the file has none.
  std::map<std::string, std::string> metadata;

  /// The tensor called `name`, or null (a linear search).
  const Array *find(const std::string &name) const;
};

/// Parses a whole safetensors file held in memory. `name` is used in messages.
StatusOr<SafetensorsFile> parseSafetensors(const std::string &bytes, const std::string &name);
/// Reads a safetensors file, the tensor data straight into the arrays.
StatusOr<SafetensorsFile> readSafetensors(const std::string &path);

/// The file's bytes: tensors in the order given, no gaps, the header padded
/// to a multiple of 8. Fails on duplicate or reserved ("__metadata__") names
/// and on names or metadata that are not valid UTF-8.
StatusOr<std::string> serializeSafetensors(const NamedArrays &tensors,
                                           const std::map<std::string, std::string> &metadata = {});
/// Writes atomically (see the file comment); the same checks as
/// serializeSafetensors.
Status writeSafetensors(const std::string &path, const NamedArrays &tensors,
                        const std::map<std::string, std::string> &metadata = {});

/// A sharded checkpoint's index, Hugging Face's `model.safetensors.index.json`:
///   {"metadata": {"total_size": 123, ...}, "weight_map": {"w": "f-00001-of-00002.safetensors"}}
/// Each tensor lives in one of the shard files, which lie beside the index.
struct SafetensorsIndex {
  /// String values, plus `total_size` (bytes of tensor data), a JSON number.
  std::map<std::string, std::string> metadata;
  int64_t totalSize = 0;
  /// Tensor name -> file name (no directory), in the index's order.
  std::vector<std::pair<std::string, std::string>> weightMap;
};

StatusOr<std::string> serializeSafetensorsIndex(const SafetensorsIndex &index);
/// Parses an index; `name` is used in messages. File names must be plain
/// names (no directories, no "..": an index only names files beside it),
/// and tensor names unique.
StatusOr<SafetensorsIndex> parseSafetensorsIndex(const std::string &text, const std::string &name);
/// Writes an index atomically.
Status writeSafetensorsIndex(const std::string &path, const SafetensorsIndex &index);
/// Reads an index and every shard file it names as one checkpoint: the
/// tensors in the weight map's order, each from its file (an error when one
/// is missing there); the metadata of the index's "metadata" object (strings).
StatusOr<SafetensorsFile> readShardedSafetensors(const std::string &indexPath);
/// Whether `path` names an index rather than a safetensors file (it ends
/// in ".index.json").
bool isSafetensorsIndexPath(const std::string &path);

/// For tests only: makes the next writeSafetensors call fail once it has
/// written `failAfterBytes` bytes of the temporary file (before the rename,
/// if the file is no larger), as a full disk or a crash would. -1 disarms
/// it. Not thread-safe with concurrent writes.
void setSafetensorsWriteFailureForTesting(int64_t failAfterBytes);

} // namespace shardc

#endif // SHARDC_RUNTIME_SAFETENSORS_H
