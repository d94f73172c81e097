//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the NumPy array format (versions 1.0-3.0): little-endian
// f32, f64, f16, i32, i64 and bool, C order. Anything else is a clear error,
// as is a file whose size does not match its header.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_NPY_H
#define SHARDC_RUNTIME_NPY_H

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Status.h"

#include <string>

namespace shardc {

/// Parses a whole .npy file held in memory. `name` is used in messages.
StatusOr<Array> parseNpy(const std::string &bytes, const std::string &name);
/// Reads a .npy file.
StatusOr<Array> readNpy(const std::string &path);
/// Serializes an array (bf16 is written as f32, which NumPy lacks).
std::string serializeNpy(const Array &array);
/// Writes atomically: a temporary file in the same directory, then a rename,
/// so a failure never leaves a partial file at `path`.
Status writeNpy(const std::string &path, const Array &array);

} // namespace shardc

#endif // SHARDC_RUNTIME_NPY_H
