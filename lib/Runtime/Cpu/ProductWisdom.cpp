//===- ProductWisdom.cpp - the library measured fastest per product -------===//

#include "ProductWisdom.h"

#include "shardc/Runtime/CompileCache.h"
#include "shardc/Runtime/Environment.h"
#include "shardc/Runtime/File.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>
#include <vector>

#ifdef SHARDC_HAVE_CBLAS
#include <cblas.h>
#endif
#ifdef SHARDC_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace shardc::cpu {

namespace {

constexpr char kHeader[] = "# shardc product wisdom 1";
/// A file past this is not one this code wrote.
constexpr size_t kMaxFileBytes = size_t(16) << 20;
constexpr int64_t kMaxDimension = int64_t(1) << 40;

const char *libraryWord(GemmLibrary l) { return l == GemmLibrary::OneDnn ? "onednn" : "openblas"; }

std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

bool parseInt(const std::string &s, int64_t lo, int64_t hi, int64_t &out) {
  if (s.empty() || s.size() > 16)
    return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi)
    return false;
  out = v;
  return true;
}

/// A product that took longer than this was not timed by this code.
constexpr double kMaxMs = 1e9;

bool parseMs(const std::string &s, double &out) {
  if (s.empty() || s.size() > 32)
    return false;
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno || end != s.c_str() + s.size() || !(v >= 0 && v <= kMaxMs))
    return false;
  out = v;
  return true;
}

/// One layout's line: "f32 m=... use=... onednn_ms=... openblas_ms=...".
Status parseLayout(const std::vector<std::string> &w, ProductLayout &layout,
                   ProductMeasurement &m) {
  if (w[0] != "f32")
    return Status::error("unknown precision '" + w[0] + "' (this file lists f32 products)");
  static const char *const kKeys[] = {"m", "n",   "k",       "items", "a",         "lda",
                                      "b", "ldb", "threads", "use",   "onednn_ms", "openblas_ms"};
  std::map<std::string, std::string> fields;
  for (size_t i = 1; i < w.size(); ++i) {
    size_t eq = w[i].find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::error("'" + w[i] + "' is not key=value");
    std::string key = w[i].substr(0, eq);
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys))
      return Status::error("unknown key '" + key + "'");
    if (!fields.emplace(key, w[i].substr(eq + 1)).second)
      return Status::error("key '" + key + "' given twice");
  }
  for (const char *key : kKeys)
    if (!fields.count(key))
      return Status::error(std::string("missing ") + key + "=");
  int64_t threads = 0;
  auto dim = [&](const char *key, int64_t &out) {
    return parseInt(fields[key], 1, kMaxDimension, out)
               ? Status::success()
               : Status::error(std::string(key) + "=" + fields[key] +
                               " is not a whole number from 1 to 2^40");
  };
  for (auto [key, out] : {std::pair<const char *, int64_t *>{"m", &layout.M},
                          {"n", &layout.N},
                          {"k", &layout.K},
                          {"items", &layout.items},
                          {"lda", &layout.lda},
                          {"ldb", &layout.ldb}})
    if (Status s = dim(key, *out); !s.ok())
      return s;
  if (!parseInt(fields["threads"], 1, 4096, threads))
    return Status::error("threads=" + fields["threads"] + " is not a whole number from 1 to 4096");
  layout.threads = (int)threads;
  for (auto [key, out] :
       {std::pair<const char *, bool *>{"a", &layout.transA}, {"b", &layout.transB}}) {
    const std::string &v = fields[key];
    if (v != "n" && v != "t")
      return Status::error(std::string(key) + "=" + v + ": n (as stored) or t (transposed)");
    *out = v == "t";
  }
  const std::string &use = fields["use"];
  if (use != "onednn" && use != "openblas")
    return Status::error("use=" + use + ": onednn or openblas");
  m.use = use == "onednn" ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas;
  for (auto [key, out] : {std::pair<const char *, double *>{"onednn_ms", &m.oneDnnMs},
                          {"openblas_ms", &m.openBlasMs}})
    if (!parseMs(fields[key], *out))
      return Status::error(std::string(key) + "=" + fields[key] +
                           " is not a number of milliseconds from 0 to 1e9");
  return Status::success();
}

/// Holds an exclusive lock on `path` (created if missing) while it lives:
/// processes merging into one wisdom file take turns.
class FileLock {
public:
  explicit FileLock(const std::string &path) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    int rc = -1;
    while (fd >= 0 && (rc = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (fd < 0 || rc != 0) {
      error = errno;
      if (fd >= 0)
        ::close(fd);
      fd = -1;
    }
  }
  /// Whether this process holds the lock (else the file system gives none).
  bool held() const { return fd >= 0; }
  /// Why it does not.
  const char *why() const { return std::strerror(error); }
  ~FileLock() {
    if (fd >= 0)
      ::close(fd); // releases the lock
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

private:
  int fd = -1, error = 0;
};

/// The file's wisdom for `machine`: empty where there is no file, and
/// where it is unreadable, malformed or another machine's (said once).
ProductWisdom readWisdom(const std::string &path, const std::string &machine) {
  ProductWisdom empty;
  empty.machine = machine;
  std::ifstream probe(path, std::ios::binary);
  if (!probe)
    return empty;
  probe.seekg(0, std::ios::end);
  if ((size_t)probe.tellg() > kMaxFileBytes) {
    sayOnce("warning",
            path + ": larger than any product wisdom file; measuring again and rewriting it");
    return empty;
  }
  StatusOr<std::string> text = readFile(path);
  if (!text.ok())
    return empty;
  StatusOr<ProductWisdom> w = ProductWisdom::parse(*text, path);
  if (!w.ok()) {
    sayOnce("warning", w.status().message() + "; measuring again and rewriting the file");
    return empty;
  }
  if (w->machine != machine)
    return empty; // another machine's, under a colliding name: rewritten as ours
  return std::move(*w);
}

} // namespace

StatusOr<ProductWisdom> ProductWisdom::parse(const std::string &text, const std::string &source) {
  ProductWisdom w;
  bool haveMachine = false;
  std::istringstream in(text);
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    auto fail = [&](const std::string &what) {
      return Status::error(source + ":" + std::to_string(lineNo) + ": " + what);
    };
    if (line.find('\0') != std::string::npos)
      return fail("a NUL byte: not a text file");
    std::vector<std::string> ws = words(line);
    // The header names the format's version; other comments are notes.
    if (ws.size() == 5 && ws[0] == "#" && ws[1] == "shardc" && ws[2] == "product" &&
        ws[3] == "wisdom" && ws[4] != "1")
      return fail("format version " + ws[4] + "; this shardc reads version 1");
    if (ws.empty() || ws[0][0] == '#')
      continue;
    if (ws[0] == "machine") {
      if (haveMachine)
        return fail("a second machine line");
      size_t at = line.find("machine") + 7;
      size_t begin = line.find_first_not_of(" \t", at), end = line.find_last_not_of(" \t\r");
      if (begin == std::string::npos || begin > end)
        return fail("the machine line names no machine");
      w.machine = line.substr(begin, end - begin + 1);
      haveMachine = true;
      continue;
    }
    if (!haveMachine)
      return fail("a product before the machine line");
    ProductLayout layout;
    ProductMeasurement m;
    if (Status s = parseLayout(ws, layout, m); !s.ok())
      return fail(s.message());
    if (!w.layouts.emplace(layout, m).second)
      return fail("this product layout is listed twice");
  }
  if (!haveMachine)
    return Status::error(source + ": no machine line");
  return w;
}

std::string ProductWisdom::serialize() const {
  std::string out = std::string(kHeader) + "\nmachine " + machine + "\n";
  char line[512];
  for (const auto &[l, m] : layouts) {
    std::snprintf(line, sizeof line,
                  "f32 m=%lld n=%lld k=%lld items=%lld a=%s lda=%lld b=%s ldb=%lld threads=%d "
                  "use=%s onednn_ms=%.4f openblas_ms=%.4f\n",
                  (long long)l.M, (long long)l.N, (long long)l.K, (long long)l.items,
                  l.transA ? "t" : "n", (long long)l.lda, l.transB ? "t" : "n", (long long)l.ldb,
                  l.threads, libraryWord(m.use), m.oneDnnMs, m.openBlasMs);
    out += line;
  }
  return out;
}

GemmLibrary chooseMeasured(GemmLibrary rule, double oneDnnMs, double openBlasMs) {
  if (rule == GemmLibrary::OneDnn)
    return openBlasMs * kWisdomMargin < oneDnnMs ? GemmLibrary::OpenBlas : GemmLibrary::OneDnn;
  return oneDnnMs * kWisdomMargin < openBlasMs ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas;
}

WisdomStore::WisdomStore(std::string file, std::string machine)
    : file(std::move(file)), machine(std::move(machine)) {
  wisdom.machine = this->machine;
}

void WisdomStore::load() {
  loaded = true;
  if (!file.empty())
    wisdom = readWisdom(file, machine);
}

GemmLibrary WisdomStore::choose(const ProductLayout &layout, GemmLibrary rule,
                                const std::function<ProductMeasurement()> &measure) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded)
    load();
  if (auto it = wisdom.layouts.find(layout); it != wisdom.layouts.end())
    return it->second.use;
  ProductMeasurement m = measure();
  m.use = chooseMeasured(rule, m.oneDnnMs, m.openBlasMs);
  if (file.empty()) {
    wisdom.layouts.emplace(layout, m);
    return m.use;
  }
  // Another process may have measured this layout, or others, meanwhile:
  // its choice stands, so processes sharing the file run a layout alike.
  size_t slash = file.rfind('/');
  if (slash != std::string::npos)
    (void)makeDirectories(file.substr(0, slash));
  FileLock fileLock(file + ".lock");
  if (!fileLock.held()) {
    // Unlocked, another process could write another choice for this
    // layout between the read and the write: kept in this process only.
    sayOnce("warning", "product wisdom not kept: no lock on " + file + ".lock: " + fileLock.why());
    wisdom.layouts.emplace(layout, m);
    return m.use;
  }
  ProductWisdom onDisk = readWisdom(file, machine);
  // What this process ran already stays as it ran.
  for (const auto &[l, measured] : onDisk.layouts)
    wisdom.layouts.emplace(l, measured);
  auto [it, added] = wisdom.layouts.emplace(layout, m);
  if (added || onDisk.layouts.size() != wisdom.layouts.size())
    if (Status s = writeFileAtomically(file, wisdom.serialize()); !s.ok())
      sayOnce("warning", "product wisdom not kept: " + s.message());
  return it->second.use;
}

std::string machineSignature() {
  std::string name = "unknown CPU", family = "?", model = "?";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0)
      continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name")
      name = value;
    else if (key == "cpu family")
      family = value;
    else if (key == "model")
      model = value;
    else if (key.empty() || key == "processor") {
      if (name != "unknown CPU" && family != "?" && model != "?")
        break;
    }
  }
  std::string s = name + " | family " + family + " model " + model;
#ifdef SHARDC_HAVE_CBLAS
  const char *core = openblas_get_corename();
  s += std::string(" | openblas ") + (core ? core : "?");
#endif
#ifdef SHARDC_HAVE_DNNL
  const dnnl_version_t *v = dnnl_version();
  s += " | onednn " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
       std::to_string(v->patch);
#endif
  // One line, whatever /proc/cpuinfo said.
  for (char &c : s)
    if (c == '\n' || c == '\r' || c == '\0')
      c = ' ';
  return s;
}

WisdomStore *productWisdom() {
  static WisdomStore *store = []() -> WisdomStore * {
    if (envIs(Env::ProductWisdom, "0"))
      return nullptr;
    std::string machine = machineSignature();
    std::string dir = CompileCache::defaultDir(), file;
    if (!dir.empty()) {
      // Named by the machine (and the artifact format, which keyFor
      // adds), so another machine's file is another file.
      file = dir + "/wisdom/products-" + CompileCache::keyFor("product wisdom", {machine}) + ".txt";
    }
    return new WisdomStore(file, machine);
  }();
  return store;
}

} // namespace shardc::cpu
