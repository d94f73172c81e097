//===- Artifact.cpp - the .shardc file format -----------------------------===//

#include "shardc/Runtime/Artifact.h"

#include "shardc/Runtime/File.h"

#include "PlanFields.h"

#include <cstring>

namespace shardc {

namespace {
const char kMagic[8] = {'S', 'H', 'A', 'R', 'D', 'C', '\0', '\n'};

uint64_t fnv1a(const char *data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= (unsigned char)data[i];
    h *= 1099511628211ull;
  }
  return h;
}

class Writer {
public:
  std::string out;
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out += (char)((v >> (8 * i)) & 0xff);
  }
  void i64(int64_t v) { u64((uint64_t)v); }
  void str(const std::string &s) {
    u64(s.size());
    out += s;
  }
  void ints(const std::vector<int64_t> &v) {
    u64(v.size());
    for (int64_t x : v)
      i64(x);
  }
  void ids(const std::vector<int32_t> &v) {
    u64(v.size());
    for (int32_t x : v)
      i64(x);
  }
  void strs(const std::vector<std::string> &v) {
    u64(v.size());
    for (const std::string &s : v)
      str(s);
  }
  void array(const Array &a) {
    u64((uint64_t)a.dtype());
    ints(a.shape());
    out.append((const char *)a.bytes(), a.sizeInBytes());
  }
  void mesh(const Mesh &m) {
    strs(m.axisNames);
    ints(m.axisSizes);
  }
  void sharding(const NamedSharding &s) {
    u64(s.spec.size());
    for (const auto &dim : s.spec)
      strs(dim);
  }

  // As a visitor of visitPlanFields: every field, hashed or not.
  void text(const std::string &s, bool) { str(s); }
  void textSince(uint32_t, const std::string &s, bool) { str(s); }
  void texts(const std::vector<std::string> &v, bool) { strs(v); }
  void ints(const std::vector<int64_t> &v, bool) { ints(v); }
  void ids(const std::vector<int32_t> &v, bool) { ids(v); }
  void i64(int64_t v, bool) { i64(v); }
  void i32(int32_t v, bool) { i64(v); }
  void dtype(DType d, bool) { u64((uint64_t)d); }
  void shape(const Shape &s, bool) { ints(s); }
  void shapes(const std::vector<Shape> &v, bool) {
    u64(v.size());
    for (const Shape &s : v)
      ints(s);
  }
  void mesh(const Mesh &m, bool) { mesh(m); }
  void shardings(const std::vector<NamedSharding> &v, const Mesh &, bool) {
    u64(v.size());
    for (const NamedSharding &s : v)
      sharding(s);
  }
  void flags(const std::vector<bool> &v, bool) {
    u64(v.size());
    for (bool b : v)
      u64(b);
  }
  template <class T, class F> void list(const std::vector<T> &v, size_t, bool, F each) {
    u64(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      each(v[i], i);
  }
  void opcode(OpCode op, size_t, bool) { u64((uint64_t)op); }
  void constant(const Array &a, bool isConstant, bool) {
    u64(isConstant);
    if (isConstant)
      array(a);
  }
};

/// Reads what Writer wrote; every read is bounds-checked, and the first
/// failure sticks.
class Reader {
public:
  Reader(const std::string &data, size_t pos, uint32_t version = kArtifactVersion)
      : data(data), pos(pos), version(version) {}
  bool failed = false;

  uint64_t u64() {
    if (pos + 8 > data.size()) {
      failed = true;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= (uint64_t)(unsigned char)data[pos + i] << (8 * i);
    pos += 8;
    return v;
  }
  int64_t i64() { return (int64_t)u64(); }
  /// A count, bounded by what the data left could hold.
  size_t count(size_t minBytesEach = 1) {
    uint64_t n = u64();
    if (failed || n > (data.size() - pos) / std::max<size_t>(1, minBytesEach)) {
      failed = true;
      return 0;
    }
    return (size_t)n;
  }
  std::string str() {
    size_t n = count();
    std::string s = failed ? "" : data.substr(pos, n);
    pos += n;
    return s;
  }
  std::vector<int64_t> ints() {
    size_t n = count(8);
    std::vector<int64_t> v;
    for (size_t i = 0; i < n && !failed; ++i)
      v.push_back(i64());
    return v;
  }
  std::vector<int32_t> ids() {
    std::vector<int32_t> v;
    for (int64_t x : ints())
      v.push_back((int32_t)x);
    return v;
  }
  std::vector<std::string> strs() {
    size_t n = count(8);
    std::vector<std::string> v;
    for (size_t i = 0; i < n && !failed; ++i)
      v.push_back(str());
    return v;
  }
  DType dtype() {
    uint64_t d = u64();
    if (d > (uint64_t)DType::I64)
      failed = true;
    return failed ? DType::F32 : (DType)d;
  }
  Shape shape() {
    Shape s = ints();
    for (int64_t d : s)
      if (d < 0 || d > (int64_t(1) << 40))
        failed = true;
    return failed ? Shape() : s;
  }
  Array array() {
    DType d = dtype();
    Shape s = shape();
    if (failed)
      return Array();
    uint64_t n = 1;
    for (int64_t x : s)
      if ((n *= (uint64_t)x) > (data.size() - pos)) {
        failed = true;
        return Array();
      }
    Array a(d, s);
    if (pos + a.sizeInBytes() > data.size()) {
      failed = true;
      return Array();
    }
    if (a.sizeInBytes() > 0) // an empty array has no buffer to copy into
      std::memcpy(a.bytes(), data.data() + pos, a.sizeInBytes());
    pos += a.sizeInBytes();
    return a;
  }
  Mesh mesh() {
    Mesh m;
    m.axisNames = strs();
    m.axisSizes = ints();
    if (m.axisNames.size() != m.axisSizes.size())
      failed = true;
    for (int64_t s : m.axisSizes)
      if (s < 1 || s > (1 << 20))
        failed = true;
    return m;
  }
  NamedSharding sharding(const Mesh &m) {
    NamedSharding s{m, {}};
    size_t n = count(8);
    for (size_t i = 0; i < n && !failed; ++i)
      s.spec.push_back(strs());
    return s;
  }
  bool atEnd() const { return pos == data.size(); }

  /// Why reading stopped, where a message says more than "malformed".
  std::string error;

  // As a visitor of visitPlanFields: each field read in the writer's order.
  void text(std::string &s, bool) { s = str(); }
  void textSince(uint32_t since, std::string &s, bool) {
    if (version >= since)
      s = str();
  }
  void texts(std::vector<std::string> &v, bool) { v = strs(); }
  void ints(std::vector<int64_t> &v, bool) { v = ints(); }
  void ids(std::vector<int32_t> &v, bool) { v = ids(); }
  void i64(int64_t &v, bool) { v = i64(); }
  void i32(int32_t &v, bool) { v = (int32_t)i64(); }
  void dtype(DType &d, bool) { d = dtype(); }
  void shape(Shape &s, bool) { s = shape(); }
  void shapes(std::vector<Shape> &v, bool) {
    size_t n = count(8);
    for (size_t i = 0; i < n && !failed; ++i)
      v.push_back(shape());
  }
  void mesh(Mesh &m, bool) { m = mesh(); }
  void shardings(std::vector<NamedSharding> &v, const Mesh &m, bool) {
    size_t n = count(8);
    for (size_t i = 0; i < n && !failed; ++i)
      v.push_back(sharding(m));
  }
  void flags(std::vector<bool> &v, bool) {
    size_t n = count(8);
    for (size_t i = 0; i < n && !failed; ++i)
      v.push_back(u64() != 0);
  }
  template <class T, class F> void list(std::vector<T> &v, size_t minBytesEach, bool, F each) {
    size_t n = count(minBytesEach);
    for (size_t i = 0; i < n && !failed; ++i)
      each(v.emplace_back(), i);
  }
  void opcode(OpCode &op, size_t index, bool) {
    uint64_t code = u64();
    if (!failed && !isOpCode(code)) {
      error = "invalid plan: step " + std::to_string(index) + ": opcode " + std::to_string(code) +
              " is unknown to this shardc (see OpCodes.def)";
      failed = true;
    }
    op = failed ? OpCode::Constant : (OpCode)code;
  }
  void constant(Array &a, bool, bool) {
    if (u64())
      a = array();
  }

private:
  const std::string &data;
  size_t pos;
  uint32_t version; // of the artifact being read
};
} // namespace

std::string serializePlan(const Plan &plan) {
  Writer w;
  visitPlanFields(plan, w);

  std::string out(kMagic, 8);
  Writer h;
  h.out = std::move(out);
  for (int i = 0; i < 4; ++i)
    h.out += (char)((kArtifactVersion >> (8 * i)) & 0xff);
  h.u64(w.out.size());
  h.u64(fnv1a(w.out.data(), w.out.size()));
  return h.out + w.out;
}

bool looksLikeArtifact(const std::string &bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data(), kMagic, 8) == 0;
}

bool sealArtifact(std::string &bytes) {
  if (!looksLikeArtifact(bytes) || bytes.size() < 28)
    return false;
  uint64_t size = bytes.size() - 28, sum = fnv1a(bytes.data() + 28, size);
  for (int i = 0; i < 8; ++i) {
    bytes[12 + i] = (char)((size >> (8 * i)) & 0xff);
    bytes[20 + i] = (char)((sum >> (8 * i)) & 0xff);
  }
  return true;
}

StatusOr<Plan> deserializePlan(const std::string &bytes, const std::string &name) {
  auto fail = [&](const std::string &why) { return Status::error(name + ": " + why); };
  if (!looksLikeArtifact(bytes))
    return fail("not a shardc artifact (bad magic)");
  if (bytes.size() < 28)
    return fail("truncated artifact header");
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i)
    version |= (uint32_t)(unsigned char)bytes[8 + i] << (8 * i);
  if (version < kOldestArtifactVersion || version > kArtifactVersion)
    return fail("artifact format version " + std::to_string(version) +
                ", but this shardc reads version " + std::to_string(kArtifactVersion) +
                " (recompile it)");
  Reader header(bytes, 12);
  uint64_t size = header.u64(), sum = header.u64();
  if (bytes.size() - 28 != size)
    return fail("truncated or padded artifact: the header says " + std::to_string(size) +
                " payload bytes, the file has " + std::to_string(bytes.size() - 28));
  if (fnv1a(bytes.data() + 28, size) != sum)
    return fail("corrupted artifact (checksum mismatch)");

  Reader r(bytes, 28, version);
  Plan plan;
  visitPlanFields(plan, r);
  if (!r.error.empty())
    return fail(r.error);
  if (r.failed || !r.atEnd())
    return fail("malformed artifact payload");

  // An artifact is untrusted input: everything the backends rely on is
  // checked before anything runs.
  if (Status valid = validatePlan(plan); !valid.ok())
    return fail("invalid plan: " + valid.message());
  plan.id = Plan::newId();
  return plan;
}

Status writeArtifact(const std::string &path, const Plan &plan) {
  return writeFileAtomically(path, serializePlan(plan));
}

StatusOr<Plan> readArtifact(const std::string &path) {
  StatusOr<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.status();
  return deserializePlan(*bytes, path);
}

} // namespace shardc
