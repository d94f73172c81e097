// A host program that only runs compiled artifacts: it links
// shardc::shardc_runtime alone (no compiler, no MLIR, LLVM or CUDA library;
// the CUDA backend is loaded at run time when asked for). See
// docs/embedding.md.
//   run_artifact FILE.shardc cpu|cuda [NAME=FILE.npy]... [--out DIR]
// Arguments without a .npy file are filled with 0, 1, 2, ...
#include <shardc/Runtime/Artifact.h>
#include <shardc/Runtime/Backend.h>
#include <shardc/Runtime/CudaBackend.h>
#include <shardc/Runtime/Npy.h>

#include <cstdio>
#include <map>
#include <string>

using namespace shardc;

static int fail(const std::string &what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return fail("usage: run_artifact FILE.shardc cpu|cuda [NAME=FILE.npy]... [--out DIR]");
  StatusOr<Plan> plan = readArtifact(argv[1]);
  if (!plan.ok())
    return fail(plan.message());
  std::string backendName = argv[2], outDir;
  std::map<std::string, std::string> inputs;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      outDir = argv[++i];
      continue;
    }
    size_t eq = a.find('=');
    if (eq == std::string::npos)
      return fail("expected NAME=FILE.npy, got " + a);
    inputs[a.substr(0, eq)] = a.substr(eq + 1);
  }

  std::unique_ptr<Backend> backend;
  if (backendName == "cuda") {
    StatusOr<std::unique_ptr<Backend>> cuda = createCudaBackend();
    if (!cuda.ok())
      return fail("--backend cuda: " + cuda.message());
    backend = std::move(*cuda);
  } else {
    backend = createCpuBackend();
  }

  std::vector<Array> args;
  for (size_t i = 0; i < plan->args.size(); ++i) {
    const std::string &name = plan->argNames[i];
    if (inputs.count(name)) {
      StatusOr<Array> a = readNpy(inputs[name]);
      if (!a.ok())
        return fail(a.message());
      args.push_back(std::move(*a));
      continue;
    }
    Array a(plan->values[plan->args[i]].dtype, plan->argGlobalShapes[i]);
    for (int64_t k = 0; k < a.numElements(); ++k)
      a.setDouble(k, (double)k);
    args.push_back(std::move(a));
  }
  StatusOr<std::vector<Array>> results = runPlan(*backend, *plan, args);
  if (!results.ok())
    return fail(results.message());
  std::printf("ran @%s on %lld %s device(s)\n", plan->entry.c_str(), (long long)plan->numDevices(),
              backend->name());
  for (size_t r = 0; r < results->size(); ++r) {
    const Array &y = (*results)[r];
    std::printf("result %zu: %s", r, y.typeString().c_str());
    for (int64_t k = 0; k < y.numElements() && k < 4; ++k)
      std::printf(" %g", y.getDouble(k));
    std::printf("\n");
    if (!outDir.empty()) {
      Status written = writeNpy(outDir + "/result" + std::to_string(r) + ".npy", y);
      if (!written.ok())
        return fail(written.message());
    }
  }
  return 0;
}
