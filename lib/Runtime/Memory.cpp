//===- Memory.cpp - what fits in this machine's memory --------------------===//

#include "shardc/Runtime/Memory.h"

#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>

namespace shardc {

int64_t physicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0 || pages > INT64_MAX / size)
    return 0;
  return (int64_t)pages * size;
}

std::string describeBytes(int64_t bytes) {
  char gib[64];
  std::snprintf(gib, sizeof gib, " (%.1f GiB)", (double)bytes / (1024.0 * 1024 * 1024));
  return std::to_string(bytes) + " bytes" + gib;
}

Status checkBytesFit(const std::string &what, int64_t bytes) {
  int64_t memory = physicalMemoryBytes();
  if (memory > 0 && bytes > memory)
    return Status::error(what + " needs " + describeBytes(bytes) + ", more than this machine's " +
                         describeBytes(memory) + " of memory");
  // A limit set on the process (ulimit -v, -d) stops it sooner.
  for (auto [resource, name] :
       {std::pair{RLIMIT_AS, "address space"}, std::pair{RLIMIT_DATA, "data segment"}}) {
    struct rlimit limit;
    if (::getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (uint64_t)bytes > (uint64_t)limit.rlim_cur)
      return Status::error(what + " needs " + describeBytes(bytes) + ", more than this process's " +
                           name + " limit of " + describeBytes((int64_t)limit.rlim_cur) +
                           " (ulimit)");
  }
  return Status::success();
}

Status checkArrayFits(const std::string &what, DType dtype, const Shape &shape) {
  for (int64_t d : shape)
    if (d == 0)
      return Status::success();
  int64_t bytes = (int64_t)dtypeSize(dtype);
  for (int64_t d : shape) {
    if (d < 0)
      return Status::error(what + " has a negative dimension");
    if (d > 0 && bytes > INT64_MAX / d) {
      std::string dims;
      for (int64_t e : shape)
        dims += (dims.empty() ? "" : "x") + std::to_string(e);
      return Status::error(what + " has more bytes than a 64-bit size can count (" + dims + " " +
                           dtypeName(dtype) + ")");
    }
    bytes *= d;
  }
  return checkBytesFit(what, bytes);
}

} // namespace shardc
