//===- File.h - whole-file reads and atomic writes --------------*- C++ -*-===//

#ifndef SHARDC_RUNTIME_FILE_H
#define SHARDC_RUNTIME_FILE_H

#include "shardc/Runtime/Status.h"

#include <string>

namespace shardc {

/// mkdir -p: `path` and its missing parents.
Status makeDirectories(const std::string &path);

/// Reads a whole file.
StatusOr<std::string> readFile(const std::string &path);
/// Writes `contents` to a temporary file beside `path` and renames it over
/// `path`: readers see the old file or the complete new one, never a part.
Status writeFileAtomically(const std::string &path, const std::string &contents);

} // namespace shardc

#endif // SHARDC_RUNTIME_FILE_H
