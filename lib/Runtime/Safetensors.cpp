//===- Safetensors.cpp - safetensors checkpoint files ---------------------===//
//
// Layout (https://github.com/huggingface/safetensors):
//   u64 N (little-endian) | N bytes of JSON, space-padded | data
// with the JSON, as the Hugging Face writer emits it,
//   {"__metadata__":{"format":"pt"},
//    "w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}
// offsets counting from the first byte of data. A file is valid when the
// tensors tile the data exactly: sorted by offset, each begins where the
// previous ended, the first at 0 and the last at the end of the file.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Safetensors.h"

#include "shardc/Runtime/Json.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

namespace shardc {

// The data is copied to and from Array buffers as is.
#if defined(__BYTE_ORDER__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors I/O assumes a little-endian host");
#endif

namespace {

using namespace json;

//===----------------------------------------------------------------------===//
// dtypes and messages
//===----------------------------------------------------------------------===//

struct DTypeInfo {
  const char *name;
  DType dtype;
};
const DTypeInfo kDTypes[] = {
    {"F32", DType::F32}, {"F64", DType::F64}, {"F16", DType::F16}, {"BF16", DType::BF16},
    {"I32", DType::I32}, {"I64", DType::I64}, {"BOOL", DType::I1},
};
const char kSupportedDTypes[] = "F32, F64, F16, BF16, I32, I64, BOOL";

/// The Hugging Face reader's limit; a larger length is corruption.
constexpr uint64_t kMaxHeaderBytes = 100000000;

const char *safetensorsName(DType dtype) {
  for (const DTypeInfo &d : kDTypes)
    if (d.dtype == dtype)
      return d.name;
  return "?";
}

/// Closes a file descriptor on every return path.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

std::string offsetsString(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

//===----------------------------------------------------------------------===//
// The header
//===----------------------------------------------------------------------===//

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

struct Header {
  std::vector<Entry> entries; // in header order
  std::map<std::string, std::string> metadata;
};

/// Reads the header's schema; `file` names the file in messages. The JSON
/// has already been checked for syntax, so errors here are about meaning.
class HeaderParser {
public:
  HeaderParser(const std::string &json, const std::string &file) : r(json), file(file) {}

  Status parse(Header &out) {
    if (r.peek() != JsonReader::Kind::Object)
      return fail("the header is not a JSON object");
    r.beginObject();
    bool first = true, sawMetadata = false;
    std::string key;
    while (r.nextKey(key, first)) {
      if (key == "__metadata__") {
        if (sawMetadata)
          return fail("duplicate \"__metadata__\"");
        sawMetadata = true;
        if (Status s = parseMetadata(out.metadata); !s.ok())
          return s;
        continue;
      }
      out.entries.push_back(Entry{key, DType::F32, {}, 0, 0});
      if (Status s = parseEntry(out.entries.back()); !s.ok())
        return s;
    }
    if (!r.error().empty())
      return fail("the header is not valid JSON: " + r.error());
    return checkUniqueNames(out.entries);
  }

private:
  Status fail(const std::string &what) { return Status::error(file + ": " + what); }
  Status failTensor(const std::string &name, const std::string &what) {
    return fail("tensor " + quote(name) + ": " + what);
  }

  Status parseMetadata(std::map<std::string, std::string> &metadata) {
    // null means none, as the Hugging Face reader takes it.
    if (r.readNull())
      return Status::success();
    if (r.peek() != JsonReader::Kind::Object)
      return fail("\"__metadata__\" is not a JSON object");
    r.beginObject();
    bool first = true;
    std::string key, value;
    while (r.nextKey(key, first)) {
      if (r.peek() != JsonReader::Kind::String)
        return fail("\"__metadata__\" value of " + quote(key) + " is not a string");
      r.readString(value);
      if (!metadata.emplace(key, value).second)
        return fail("duplicate key " + quote(key) + " in \"__metadata__\"");
    }
    return Status::success();
  }

  /// A non-negative integer that fits in `limit`; else `problem` says why.
  bool readUnsigned(uint64_t limit, uint64_t &value, std::string &problem) {
    JsonNumber n;
    if (r.peek() != JsonReader::Kind::Number || !r.readNumber(n) || !n.integer) {
      problem = "is not an integer";
      return false;
    }
    if (n.negative && n.magnitude != 0) {
      problem = "is negative";
      return false;
    }
    if (n.overflow || n.magnitude > limit) {
      problem = "is too large";
      return false;
    }
    value = n.magnitude;
    return true;
  }

  Status parseEntry(Entry &e) {
    if (r.peek() != JsonReader::Kind::Object)
      return failTensor(e.name, "the entry is not a JSON object");
    r.beginObject();
    bool first = true, haveDType = false, haveShape = false, haveOffsets = false;
    std::string key;
    while (r.nextKey(key, first)) {
      bool *seen = key == "dtype"          ? &haveDType
                   : key == "shape"        ? &haveShape
                   : key == "data_offsets" ? &haveOffsets
                                           : nullptr;
      if (!seen) {
        // Unknown keys are ignored, as the Hugging Face reader does.
        r.skipValue(2);
        continue;
      }
      if (*seen)
        return failTensor(e.name, "duplicate \"" + key + "\"");
      *seen = true;
      Status s = key == "dtype" ? parseDType(e) : key == "shape" ? parseShape(e) : parseOffsets(e);
      if (!s.ok())
        return s;
    }
    if (!r.error().empty())
      return fail("the header is not valid JSON: " + r.error());
    if (!haveDType)
      return failTensor(e.name, "missing \"dtype\"");
    if (!haveShape)
      return failTensor(e.name, "missing \"shape\"");
    if (!haveOffsets)
      return failTensor(e.name, "missing \"data_offsets\"");
    return checkSize(e);
  }

  Status parseDType(Entry &e) {
    if (r.peek() != JsonReader::Kind::String)
      return failTensor(e.name, "\"dtype\" is not a string");
    std::string text;
    r.readString(text);
    for (const DTypeInfo &d : kDTypes)
      if (text == d.name) {
        e.dtype = d.dtype;
        return Status::success();
      }
    return failTensor(e.name, "unsupported dtype " + quote(text) +
                                  " (supported: " + kSupportedDTypes + ")");
  }

  Status parseShape(Entry &e) {
    if (r.peek() != JsonReader::Kind::Array)
      return failTensor(e.name, "\"shape\" is not an array");
    r.beginArray();
    bool first = true;
    std::string problem;
    while (r.nextElement(first)) {
      uint64_t d;
      if (!readUnsigned(INT64_MAX, d, problem))
        return failTensor(e.name, "dimension " + std::to_string(e.shape.size()) + " of \"shape\" " +
                                      problem);
      e.shape.push_back((int64_t)d);
    }
    return Status::success();
  }

  Status parseOffsets(Entry &e) {
    if (r.peek() != JsonReader::Kind::Array)
      return failTensor(e.name, "\"data_offsets\" is not an array [begin, end]");
    r.beginArray();
    bool first = true;
    uint64_t offsets[2];
    size_t count = 0;
    std::string problem;
    while (r.nextElement(first)) {
      if (count == 2)
        return failTensor(e.name, "\"data_offsets\" has more than 2 elements");
      if (!readUnsigned(UINT64_MAX, offsets[count], problem))
        return failTensor(e.name,
                          std::string(count ? "end" : "begin") + " of \"data_offsets\" " + problem);
      ++count;
    }
    if (count != 2)
      return failTensor(e.name,
                        "\"data_offsets\" has " + std::to_string(count) + " elements, not 2");
    e.begin = offsets[0];
    e.end = offsets[1];
    return Status::success();
  }

  /// The offsets must hold exactly the bytes the shape and dtype need.
  Status checkSize(const Entry &e) {
    // Multiply in order and fail on overflow even if a later dimension is 0,
    // as the Hugging Face reader does; the count must fit Array's int64.
    uint64_t elements = 1;
    for (int64_t d : e.shape) {
      if (d != 0 && elements > (uint64_t)INT64_MAX / (uint64_t)d)
        return failTensor(e.name, "shape " + shapeString(e.shape) + " is too large");
      elements *= (uint64_t)d;
    }
    uint64_t size = dtypeSize(e.dtype);
    if (elements > UINT64_MAX / size)
      return failTensor(e.name, "shape " + shapeString(e.shape) + " is too large");
    uint64_t want = elements * size;
    if (e.end < e.begin)
      return failTensor(e.name,
                        "data_offsets " + offsetsString(e.begin, e.end) + " end before they begin");
    if (e.end - e.begin != want)
      return failTensor(e.name, "data_offsets " + offsetsString(e.begin, e.end) + " hold " +
                                    std::to_string(e.end - e.begin) + " bytes, but " +
                                    safetensorsName(e.dtype) + " of shape " + shapeString(e.shape) +
                                    " needs " + std::to_string(want));
    return Status::success();
  }

  Status checkUniqueNames(const std::vector<Entry> &entries) {
    std::vector<const std::string *> names;
    names.reserve(entries.size());
    for (const Entry &e : entries)
      names.push_back(&e.name);
    std::sort(names.begin(), names.end(),
              [](const std::string *a, const std::string *b) { return *a < *b; });
    for (size_t i = 1; i < names.size(); ++i)
      if (*names[i] == *names[i - 1])
        return fail("duplicate tensor name " + quote(*names[i]));
    return Status::success();
  }

  JsonReader r;
  const std::string &file;
};

/// Sorts the entries by offset and checks that they tile `dataSize` bytes.
Status checkLayout(std::vector<Entry> &entries, uint64_t dataSize, const std::string &file) {
  // Stable, so zero-size tensors at the same offset keep the header order.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry &e = entries[i];
    if (e.begin < at)
      return Status::error(file + ": tensors " + quote(entries[i - 1].name) + " (data_offsets " +
                           offsetsString(entries[i - 1].begin, entries[i - 1].end) + ") and " +
                           quote(e.name) + " (data_offsets " + offsetsString(e.begin, e.end) +
                           ") overlap");
    if (e.begin > at)
      return Status::error(file + ": tensor " + quote(e.name) + ": data_offsets " +
                           offsetsString(e.begin, e.end) + " leave a gap of " +
                           std::to_string(e.begin - at) + " bytes after byte " +
                           std::to_string(at) + " (tensors must be contiguous)");
    if (e.end > dataSize)
      return Status::error(file + ": tensor " + quote(e.name) + ": data_offsets " +
                           offsetsString(e.begin, e.end) + " run past the end of the data (" +
                           std::to_string(dataSize) + " bytes; truncated file?)");
    at = e.end;
  }
  if (at != dataSize)
    return Status::error(file + ": the data is " + std::to_string(dataSize) + " bytes, " +
                         std::to_string(dataSize - at) +
                         " more than the tensors need (trailing bytes after the last tensor)");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// The bytes of a file, held in memory or read on demand, so that a file on
/// disk goes straight into the arrays without a copy of the whole of it.
struct ByteSource {
  uint64_t size;
  /// Reads bytes [offset, offset + n), which lie within `size`.
  std::function<Status(uint64_t offset, void *dst, size_t n)> read;
};

StatusOr<SafetensorsFile> decode(const ByteSource &src, const std::string &file) {
  auto fail = [&](const std::string &why) { return Status::error(file + ": " + why); };
  if (src.size < 8)
    return fail("the file is " + std::to_string(src.size) +
                " bytes, shorter than the 8-byte header length");
  unsigned char lengthBytes[8];
  if (Status s = src.read(0, lengthBytes, 8); !s.ok())
    return s;
  uint64_t headerLen = 0;
  for (int i = 0; i < 8; ++i)
    headerLen |= (uint64_t)lengthBytes[i] << (8 * i);
  if (headerLen > kMaxHeaderBytes)
    return fail("header length " + std::to_string(headerLen) + " is larger than the " +
                std::to_string(kMaxHeaderBytes) + "-byte limit (not a safetensors file?)");
  if (headerLen > src.size - 8)
    return fail("header length " + std::to_string(headerLen) + " runs past the end of the file (" +
                std::to_string(src.size) + " bytes)");

  std::string json(headerLen, '\0');
  if (Status s = src.read(8, json.data(), headerLen); !s.ok())
    return s;
  // Syntax first, so that any malformed header reads as "not valid JSON".
  {
    JsonReader syntax(json);
    if (!syntax.skipValue(0) || !syntax.finish())
      return fail("the header is not valid JSON: " + syntax.error());
  }
  Header header;
  if (Status s = HeaderParser(json, file).parse(header); !s.ok())
    return s;
  uint64_t dataStart = 8 + headerLen;
  if (Status s = checkLayout(header.entries, src.size - dataStart, file); !s.ok())
    return s;

  SafetensorsFile out;
  out.metadata = std::move(header.metadata);
  out.tensors.reserve(header.entries.size());
  for (Entry &e : header.entries) {
    Array array = Array::uninitialized(e.dtype, std::move(e.shape));
    if (array.sizeInBytes())
      if (Status s = src.read(dataStart + e.begin, array.bytes(), array.sizeInBytes()); !s.ok())
        return s;
    // Like the .npy reader: any nonzero byte is true.
    if (e.dtype == DType::I1)
      for (size_t k = 0; k < array.sizeInBytes(); ++k)
        array.bytes()[k] = array.bytes()[k] != 0;
    out.tensors.emplace_back(std::move(e.name), std::move(array));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// The 8-byte length and the padded JSON header, in Hugging Face's layout.
StatusOr<std::string> buildHeader(const NamedArrays &tensors,
                                  const std::map<std::string, std::string> &metadata) {
  std::vector<const std::string *> names;
  for (const auto &[name, array] : tensors) {
    if (name == "__metadata__")
      return Status::error("\"__metadata__\" is reserved and cannot name a tensor");
    if (!isValidUtf8(name))
      return Status::error("tensor name " + quote(name) + " is not valid UTF-8");
    names.push_back(&name);
  }
  std::sort(names.begin(), names.end(),
            [](const std::string *a, const std::string *b) { return *a < *b; });
  for (size_t i = 1; i < names.size(); ++i)
    if (*names[i] == *names[i - 1])
      return Status::error("duplicate tensor name " + quote(*names[i]));
  for (const auto &[key, value] : metadata)
    if (!isValidUtf8(key) || !isValidUtf8(value))
      return Status::error("metadata " + quote(key) + " is not valid UTF-8");

  std::string json = "{";
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    for (const auto &[key, value] : metadata) {
      if (json.back() != '{')
        json += ',';
      appendJsonString(json, key);
      json += ':';
      appendJsonString(json, value);
    }
    json += '}';
  }
  uint64_t offset = 0;
  for (const auto &[name, array] : tensors) {
    if (json.size() > 1)
      json += ',';
    appendJsonString(json, name);
    json += ":{\"dtype\":\"";
    json += safetensorsName(array.dtype());
    json += "\",\"shape\":[";
    for (size_t i = 0; i < array.shape().size(); ++i)
      json += (i ? "," : "") + std::to_string(array.shape()[i]);
    json += "],\"data_offsets\":[" + std::to_string(offset) + ",";
    offset += array.sizeInBytes();
    json += std::to_string(offset) + "]}";
  }
  json += '}';
  // Spaces up to a multiple of 8, so the data starts 8-byte aligned.
  json.append((8 - json.size() % 8) % 8, ' ');
  if (json.size() > kMaxHeaderBytes)
    return Status::error("the safetensors header would be " + std::to_string(json.size()) +
                         " bytes, over the " + std::to_string(kMaxHeaderBytes) +
                         "-byte limit readers accept");
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = (char)((uint64_t)json.size() >> (8 * i));
  return out + json;
}

/// The armed test hook: bytes to write before failing; -1 when disarmed.
std::atomic<int64_t> writeFailureBudget{-1};

/// Writes all of [p, p + n), or fails with `why` set. `budget` is the test
/// hook's remaining bytes (-1: none).
bool writeAll(int fd, const void *data, size_t n, int64_t &budget, std::string &why) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    size_t chunk = std::min(n, size_t(1) << 30);
    if (budget >= 0 && (int64_t)chunk > budget)
      chunk = (size_t)budget;
    if (chunk == 0) {
      why = "simulated write failure (test hook)";
      return false;
    }
    ssize_t written = ::write(fd, p, chunk);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      why = written < 0 ? std::strerror(errno) : "no progress writing";
      return false;
    }
    if (budget >= 0)
      budget -= written;
    p += written;
    n -= (size_t)written;
  }
  return true;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

const Array *SafetensorsFile::find(const std::string &name) const {
  for (const auto &[tensorName, array] : tensors)
    if (tensorName == name)
      return &array;
  return nullptr;
}

StatusOr<SafetensorsFile> parseSafetensors(const std::string &bytes, const std::string &name) {
  ByteSource src{bytes.size(), [&](uint64_t offset, void *dst, size_t n) {
                   std::memcpy(dst, bytes.data() + offset, n);
                   return Status::success();
                 }};
  return decode(src, name);
}

StatusOr<SafetensorsFile> readSafetensors(const std::string &path) {
  FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(file.fd, &st) != 0)
    return Status::error("cannot read '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return Status::error("cannot read '" + path + "': " + std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode))
    return Status::error("cannot read '" + path + "': not a regular file");
  ByteSource src{(uint64_t)st.st_size, [&](uint64_t offset, void *dst, size_t n) {
                   char *p = static_cast<char *>(dst);
                   while (n > 0) {
                     ssize_t got = ::pread(file.fd, p, std::min(n, size_t(1) << 30), (off_t)offset);
                     if (got < 0 && errno == EINTR)
                       continue;
                     if (got <= 0)
                       return Status::error(
                           "cannot read '" + path + "': " +
                           (got < 0 ? std::strerror(errno) : "the file shrank while reading"));
                     p += got;
                     offset += (uint64_t)got;
                     n -= (size_t)got;
                   }
                   return Status::success();
                 }};
  return decode(src, path);
}

StatusOr<std::string> serializeSafetensors(const NamedArrays &tensors,
                                           const std::map<std::string, std::string> &metadata) {
  StatusOr<std::string> out = buildHeader(tensors, metadata);
  if (!out.ok())
    return out;
  for (const auto &[name, array] : tensors)
    out->append((const char *)array.bytes(), array.sizeInBytes());
  return out;
}

Status writeSafetensors(const std::string &path, const NamedArrays &tensors,
                        const std::map<std::string, std::string> &metadata) {
  int64_t budget = writeFailureBudget.exchange(-1); // the hook fires once
  StatusOr<std::string> header = buildHeader(tensors, metadata);
  if (!header.ok())
    return Status::error("cannot write '" + path + "': " + header.message());

  std::string tmp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return Status::error("cannot create a file beside '" + path + "': " + std::strerror(errno));
  auto abandon = [&](const std::string &why) {
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    return Status::error("cannot write '" + path + "': " + why);
  };
  // Stream the arrays from their buffers: a checkpoint can be most of memory.
  std::string why;
  if (!writeAll(fd, header->data(), header->size(), budget, why))
    return abandon(why);
  for (const auto &[name, array] : tensors)
    if (!writeAll(fd, array.bytes(), array.sizeInBytes(), budget, why))
      return abandon(why);
  if (budget >= 0)
    return abandon("simulated write failure (test hook)");
  // mkstemp creates 0600 files; give the result the usual permissions.
  ::fchmod(fd, 0644);
  // The data must be on disk before the rename makes it the checkpoint.
  if (::fsync(fd) != 0)
    return abandon(std::strerror(errno));
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0 || ::rename(tmp.c_str(), path.c_str()) != 0)
    return abandon(std::strerror(errno));

  // And the rename itself must survive a crash. Some file systems cannot
  // sync a directory (EINVAL); there is nothing more to do on those.
  std::string dir = directoryOf(path);
  FdCloser dirFd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dirFd.fd < 0 || (::fsync(dirFd.fd) != 0 && errno != EINVAL))
    return Status::error("wrote '" + path + "' but cannot sync its directory '" + dir +
                         "': " + std::strerror(errno));
  return Status::success();
}

void setSafetensorsWriteFailureForTesting(int64_t failAfterBytes) {
  writeFailureBudget.store(failAfterBytes < 0 ? -1 : failAfterBytes);
}

} // namespace shardc
