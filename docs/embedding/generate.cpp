// Text from a Tiny Transformer checkpoint in a host program: the loop of
// `shardc-gpt generate --mode kv-cache`, through the installed library
// (find_package(shardc), shardc::gpt).
//
//   generate CHECKPOINT PROMPT TOKENS [CACHE_DIR]
#include <shardc/gpt/Checkpoint.h>
#include <shardc/gpt/Generate.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: generate CHECKPOINT PROMPT TOKENS [CACHE_DIR]\n");
    return 2;
  }
  // The checkpoint carries the model's config in its metadata.
  shardc::StatusOr<gpt::SavedModel> saved = gpt::loadSavedModel(argv[1]);
  if (!saved.ok()) {
    std::fprintf(stderr, "%s\n", saved.message().c_str());
    return 1;
  }
  auto client =
      shardc::Client::create("cpu", argc > 4 ? argv[4] : shardc::Client::defaultCacheDir());
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.message().c_str());
    return 1;
  }
  // Two simulated devices, the heads split over "model".
  shardc::Mesh mesh{{"data", "model"}, {1, 2}};
  gpt::Generator generator(*client, saved->config, std::move(saved->state.params), mesh,
                           gpt::Mode::KvCache);
  if (shardc::Status s = generator.initialize(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("%s", argv[2]);
  gpt::Sampling greedy; // temperature 0
  auto result = generator.generate(argv[2], std::atoi(argv[3]), greedy, [](uint8_t b) {
    std::putchar(b);
    std::fflush(stdout);
  });
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.message().c_str());
    return 1;
  }
  shardc::Client::CacheStats cache = client->cacheStats();
  std::printf("\ngenerated %zu bytes; compiles: %lld, cache hits: %lld\n", result->bytes[0].size(),
              (long long)cache.misses, (long long)(cache.memoryHits + cache.diskHits));
  return 0;
}
