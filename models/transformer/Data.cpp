//===- Data.cpp - Tiny Shakespeare as bytes, split and windowed -----------===//

#include "Data.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sys/stat.h>

namespace gpt {

shardc::StatusOr<Dataset> loadDataset(const std::string &path, int64_t context) {
  if (path.empty())
    return shardc::Status::error("no data: pass --data PATH (Tiny Shakespeare is at "
                                 "../shared/data/tinyshakespeare.txt in the repository's "
                                 "parent)");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return shardc::Status::error("data file " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return shardc::Status::error("data file " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return shardc::Status::error("data file " + path + ": cannot be opened");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.empty())
    return shardc::Status::error("data file " + path + " is empty");
  Dataset d;
  d.path = path;
  size_t nTrain = (size_t)((double)bytes.size() * 0.9);
  d.train.assign(bytes.begin(), bytes.begin() + nTrain);
  d.val.assign(bytes.begin() + nTrain, bytes.end());
  // A window needs context + 1 bytes, and the sampler wants at least two
  // distinct starts.
  int64_t need = context + 2;
  if ((int64_t)d.val.size() < need)
    return shardc::Status::error(
        "data file " + path + " is too short: " + std::to_string(bytes.size()) +
        " bytes give a validation "
        "split of " +
        std::to_string(d.val.size()) + " bytes, and a window needs " + std::to_string(need));
  return d;
}

std::string defaultDataPath() {
  // The shared copy beside the repository when present, else the
  // repository's own (the same bytes).
  for (const char *rel :
       {"/../shared/data/tinyshakespeare.txt", "/models/transformer/data/tinyshakespeare.txt"}) {
    std::string p = std::string(SHARDC_SOURCE_DIR) + rel;
    struct stat st;
    if (::stat(p.c_str(), &st) == 0)
      return p;
  }
  return "";
}

Batch sampleBatch(const std::vector<uint8_t> &bytes, int64_t batch, int64_t context, uint64_t seed,
                  uint64_t index) {
  // mt19937_64 is specified bit for bit by the standard (distributions are
  // not), so the batches are the same with every standard library.
  std::seed_seq seq{(uint32_t)seed, (uint32_t)(seed >> 32), (uint32_t)index,
                    (uint32_t)(index >> 32)};
  std::mt19937_64 rng(seq);
  uint64_t starts = bytes.size() - (uint64_t)context - 1;
  Batch b{shardc::Array::uninitialized(shardc::DType::I32, {batch, context}),
          shardc::Array::uninitialized(shardc::DType::I32, {batch, context})};
  int32_t *x = b.tokens.data<int32_t>(), *y = b.targets.data<int32_t>();
  for (int64_t r = 0; r < batch; ++r) {
    uint64_t s = rng() % starts;
    for (int64_t t = 0; t < context; ++t) {
      x[r * context + t] = bytes[s + t];
      y[r * context + t] = bytes[s + t + 1];
    }
  }
  return b;
}

} // namespace gpt
