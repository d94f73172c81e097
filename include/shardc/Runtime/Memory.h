//===- Memory.h - what fits in this machine's memory -----------*- C++ -*-===//
//
// Arrays are allocated whole, so one whose size overflows or exceeds the
// machine's memory would end the process (std::bad_alloc, or the kernel's
// out-of-memory killer). These checks turn that into an error naming the
// value, at compile time for what the compiler materializes (constants) or
// lays out (iotas), and at run time before a backend allocates its buffers.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_MEMORY_H
#define SHARDC_RUNTIME_MEMORY_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Status.h"

#include <string>

namespace shardc {

/// This machine's physical memory in bytes (0 when it cannot be told).
int64_t physicalMemoryBytes();

/// "400000000000 bytes (372.5 GiB)".
std::string describeBytes(int64_t bytes);

/// Success, or an error saying that `what` (e.g. "a constant of
/// tensor<...>") cannot be held: its element count or byte size overflows
/// 64 bits, or it is larger than this machine's memory.
Status checkArrayFits(const std::string &what, DType dtype, const Shape &shape);

/// Success, or an error saying that `bytes` of `what` are more than this
/// machine's memory.
Status checkBytesFit(const std::string &what, int64_t bytes);

} // namespace shardc

#endif // SHARDC_RUNTIME_MEMORY_H
