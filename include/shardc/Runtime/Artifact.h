//===- Artifact.h - the .shardc file format ---------------------*- C++ -*-===//
//
// A compiled plan on disk, loadable without the compiler:
//
//   "SHARDC\0\n"            8-byte magic
//   u32 format version      kArtifactVersion
//   u64 payload size
//   u64 FNV-1a 64 of the payload
//   payload                 the plan, little-endian, length-prefixed fields
//
// Loading checks every one of these; a wrong, truncated or corrupted file is
// an error that says which, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_ARTIFACT_H
#define SHARDC_RUNTIME_ARTIFACT_H

#include "shardc/Runtime/Plan.h"
#include "shardc/Runtime/Status.h"

#include <string>

namespace shardc {

/// Version 4 records the options a plan was compiled with
/// (Plan::compileOptions); a version-3 file reads with none recorded.
constexpr uint32_t kArtifactVersion = 4;
constexpr uint32_t kOldestArtifactVersion = 3;

std::string serializePlan(const Plan &plan);
/// `name` is used in messages (usually the file's path).
StatusOr<Plan> deserializePlan(const std::string &bytes, const std::string &name);

/// Atomic write / checked read of a .shardc file.
Status writeArtifact(const std::string &path, const Plan &plan);
StatusOr<Plan> readArtifact(const std::string &path);

/// True when `bytes` starts like an artifact (to tell .shardc from .mlir).
bool looksLikeArtifact(const std::string &bytes);

/// Rewrites the header's payload size and checksum to match the payload as
/// it is, for tools that edit artifacts (the fuzzer reaches the payload's
/// reader this way). False when `bytes` has no artifact header.
bool sealArtifact(std::string &bytes);

} // namespace shardc

#endif // SHARDC_RUNTIME_ARTIFACT_H
