//===- Data.h - Tiny Shakespeare as bytes, split and windowed -------------===//
//
// The text's bytes are the tokens. The first 90% train, the last 10%
// validate. A batch is B random windows of T+1 bytes: inputs are the first
// T, targets the last T. Window starts come from a generator seeded by
// (seed, step), so a run resumed at step s draws the batches an
// uninterrupted run would have drawn.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_MODELS_TRANSFORMER_DATA_H
#define SHARDC_MODELS_TRANSFORMER_DATA_H

#include <shardc/Runtime/Array.h>
#include <shardc/Runtime/Status.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpt {

struct Dataset {
  std::string path;
  std::vector<uint8_t> train, val;
};

/// Reads `path` and splits it; a missing or unreadable file, or one whose
/// splits are shorter than `context` + 1 bytes, is an error naming it.
shardc::StatusOr<Dataset> loadDataset(const std::string &path, int64_t context);

/// Where the data is by default: ../shared/data/tinyshakespeare.txt beside
/// the repository when present, else models/transformer/data's copy.
std::string defaultDataPath();

struct Batch {
  shardc::Array tokens;  // i32[B,T]
  shardc::Array targets; // i32[B,T]: the next byte of each token
};

/// Batch `index` of the stream `seed` over `bytes`.
Batch sampleBatch(const std::vector<uint8_t> &bytes, int64_t batch, int64_t context, uint64_t seed,
                  uint64_t index);

} // namespace gpt

#endif // SHARDC_MODELS_TRANSFORMER_DATA_H
