// A host program embedding shardc: a data-parallel matmul on 4 simulated
// devices, through the installed library (see docs/embedding.md).
//   example [CACHE_DIR]
#include <shardc/shardc.h>

#include <cstdio>
#include <fstream>

// The program: y = x @ w with the batch of x split over "data".
static const char *kProgram = R"mlir(
shardc.mesh @mesh_4 = <["data"=4]>
func.func @main(%x: tensor<8x3xf32> {shardc.name = "x",
                  shardc.sharding = #shardc.sharding<@mesh_4, [{"data"}, {}]>},
                %w: tensor<3x2xf32> {shardc.name = "w"}) -> tensor<8x2xf32> {
  %y = shardc.dot_general %x, %w contracting_dims = [1] x [0]
      : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}
)mlir";

int main(int argc, char **argv) {
  std::ofstream("example.mlir") << kProgram;

  shardc::StatusOr<shardc::Client> client = shardc::Client::create("cpu", argc > 1 ? argv[1] : "");
  if (!client.ok()) {
    std::fprintf(stderr, "error: %s\n", client.message().c_str());
    return 1;
  }
  auto exe = client->compile("example.mlir");
  if (!exe.ok()) {
    std::fprintf(stderr, "error: %s\n", exe.message().c_str());
    return 1;
  }
  std::printf("compiled @%s for %lld devices\n", (*exe)->entry().c_str(),
              (long long)(*exe)->numDevices());

  // Host arrays: x = [[0,1,2],[3,4,5],...], w = ones.
  std::vector<double> xs(24), ws(6, 1.0);
  for (int i = 0; i < 24; ++i)
    xs[i] = i;
  shardc::Array x = shardc::Array::fromDoubles(shardc::DType::F32, {8, 3}, xs);
  shardc::Array w = shardc::Array::fromDoubles(shardc::DType::F32, {3, 2}, ws);

  // device_put by NamedSharding, like jax.device_put.
  shardc::Mesh mesh{{"data"}, {4}};
  auto xd = client->device_put(x, shardc::NamedSharding{mesh, {{"data"}, {}}});
  auto wd = client->device_put(w, shardc::NamedSharding{mesh, {{}, {}}});
  if (!xd.ok() || !wd.ok()) {
    std::fprintf(stderr, "error: device_put failed\n");
    return 1;
  }
  std::printf("x on the devices:\n%s", xd->visualize().c_str());

  auto out = (*exe)->call({*xd, *wd});
  if (!out.ok()) {
    std::fprintf(stderr, "error: %s\n", out.message().c_str());
    return 1;
  }
  shardc::Array y = (*out)[0].fetch();
  std::printf("y row 7: %g %g (expected 66 66)\n", y.getDouble(14), y.getDouble(15));

  // Compiling the same program again is a cache hit.
  auto again = client->compile("example.mlir");
  shardc::Client::CacheStats s = client->cacheStats();
  std::printf("cache: %lld memory hits, %lld misses\n", (long long)s.memoryHits,
              (long long)s.misses);
  return again.ok() && y.getDouble(14) == 66 ? 0 : 1;
}
