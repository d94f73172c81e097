//===- Mutator.cpp - byte-level mutations of fuzz inputs ------------------===//
//
// The mutations of libFuzzer's and AFL's classics: bit flips, byte and
// word overwrites with interesting values (0, -1, sizes near powers of two),
// inserts, deletes, duplicated blocks, truncation, and splices with another
// input of the corpus. Text inputs also get token-level edits (digits and
// punctuation of MLIR, and axes added to a mesh or to a sharding's list),
// so numbers, brackets and axis counts change, not only bytes.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include <algorithm>
#include <cstring>

namespace shardc::fuzz {

namespace {

const int64_t kInteresting[] = {0,     1,       -1,        2,         7,         8,        15,
                                16,    31,      32,        63,        64,        127,      128,
                                255,   256,     1023,      1024,      4095,      4096,     65535,
                                65536, 1 << 20, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};

const char *const kTokens[] = {"0", "1", "-1", "2", "4096", "9223372036854775807", "[", "]", "{",
                               "}", "(", ")", ",", ":", "x", "?", "%", "@", "\"", "<", ">", "=",
                               "tensor<", "f32", "i32", "i1",
                               // An axis more in a sharding's list or a mesh's.
                               ", \"x\"", ", \"y\"", ", \"b\"=2", ", \"c\"=4"};

size_t pick(std::mt19937_64 &rng, size_t n) { return n ? rng() % n : 0; }

} // namespace

int64_t interestingValue(std::mt19937_64 &rng) {
  return kInteresting[pick(rng, sizeof(kInteresting) / sizeof(kInteresting[0]))];
}

std::string mutate(const std::string &input, const std::vector<std::string> &corpus,
                   std::mt19937_64 &rng) {
  std::string s = input;
  int rounds = 1 + (int)pick(rng, 4);
  for (int r = 0; r < rounds; ++r) {
    size_t at = pick(rng, s.size() + 1);
    switch (pick(rng, 10)) {
    case 0: // flip a bit
      if (!s.empty())
        s[pick(rng, s.size())] ^= (char)(1 << pick(rng, 8));
      break;
    case 1: // a random byte
      if (!s.empty())
        s[pick(rng, s.size())] = (char)rng();
      break;
    case 2: { // an interesting value, 1, 2, 4 or 8 bytes little-endian
      int64_t v = interestingValue(rng);
      size_t width = size_t(1) << pick(rng, 4);
      if (s.size() >= width) {
        size_t p = pick(rng, s.size() - width + 1);
        std::memcpy(&s[p], &v, width);
      }
      break;
    }
    case 3: // insert random bytes
      s.insert(at, std::string(1 + pick(rng, 8), (char)rng()));
      break;
    case 4: // delete a block
      if (!s.empty()) {
        size_t p = pick(rng, s.size());
        s.erase(p, 1 + pick(rng, std::min<size_t>(64, s.size() - p)));
      }
      break;
    case 5: // duplicate a block
      if (!s.empty()) {
        size_t p = pick(rng, s.size()), n = 1 + pick(rng, std::min<size_t>(64, s.size() - p));
        s.insert(pick(rng, s.size() + 1), s.substr(p, n));
      }
      break;
    case 6: // truncate
      s.resize(pick(rng, s.size() + 1));
      break;
    case 7: // splice: our head, another input's tail
      if (!corpus.empty()) {
        const std::string &other = corpus[pick(rng, corpus.size())];
        s = s.substr(0, at) + other.substr(pick(rng, other.size() + 1));
      }
      break;
    case 8: // replace a token with another (text inputs)
    case 9: {
      const char *token = kTokens[pick(rng, sizeof(kTokens) / sizeof(kTokens[0]))];
      size_t p = pick(rng, s.size() + 1);
      size_t end = p;
      while (end < s.size() && std::isalnum((unsigned char)s[end]))
        ++end;
      if (end == p && end < s.size())
        ++end; // a punctuation character
      s.replace(p, end - p, token);
      break;
    }
    }
  }
  if (s.size() > (size_t(1) << 20))
    s.resize(size_t(1) << 20); // inputs stay small enough to run fast
  return s;
}

} // namespace shardc::fuzz
