//===- allreduce_bench.cpp - the all-reduce between processes, against MPI --===//
//
// Under mpirun: for message sizes from 4 KiB to 64 MiB of f32, times the
// CPU backend's all-reduce between processes (shardc::ringAllReduce, the
// ring that keeps the shared-memory ring's order) against MPI_Allreduce on
// the same buffer, alternating, and prints one JSON line per size from
// process 0: median microseconds and the bus bandwidth 2(n-1)/n * bytes /
// time (the figure NCCL's tests report: what each link carries).
//
//   mpirun -np 2 shardc-allreduce-bench [--max-mib M] [--reps R]
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/ProcessGroup.h"

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int64_t maxMiB = 64;
  int reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--max-mib")
      maxMiB = std::atoll(argv[i + 1]);
    else if (a == "--reps")
      reps = std::atoi(argv[i + 1]);
  }
  shardc::StatusOr<std::shared_ptr<shardc::ProcessGroup>> world = shardc::worldProcessGroup();
  if (!world.ok() || !*world) {
    std::fprintf(stderr, "shardc-allreduce-bench: error: %s\n",
                 world.ok() ? "run it under mpirun (2 or more processes)"
                            : world.message().c_str());
    return 2;
  }
  shardc::ProcessGroup &group = **world;
  int n = group.size();
  std::vector<int> members(n);
  for (int r = 0; r < n; ++r)
    members[r] = r;
  for (int64_t bytes = 4096; bytes <= maxMiB << 20; bytes *= 4) {
    int64_t count = bytes / 4;
    std::vector<float> ours(count, 1.0f), theirs(count, 1.0f);
    std::vector<double> ourUs, mpiUs;
    for (int rep = -2; rep < reps; ++rep) { // two warm-up rounds
      group.barrier();
      auto t0 = std::chrono::steady_clock::now();
      shardc::Status s = shardc::ringAllReduce(group, members, shardc::Reduction::Sum,
                                               shardc::DType::F32, ours.data(), count);
      auto t1 = std::chrono::steady_clock::now();
      if (!s.ok()) {
        std::fprintf(stderr, "shardc-allreduce-bench: error: %s\n", s.message().c_str());
        group.abort(1);
      }
      group.barrier();
      auto t2 = std::chrono::steady_clock::now();
      MPI_Allreduce(MPI_IN_PLACE, theirs.data(), (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      auto t3 = std::chrono::steady_clock::now();
      if (rep >= 0) {
        ourUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        mpiUs.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count());
      }
    }
    double a = median(ourUs), b = median(mpiUs);
    double bus = 2.0 * (n - 1) / n * (double)bytes / 1e3; // bytes/us -> MB/s * 1e-3
    if (group.rank() == 0)
      std::printf("{\"processes\": %d, \"bytes\": %lld, \"shardc_us\": %.1f, \"mpi_us\": %.1f, "
                  "\"shardc_bus_gbps\": %.2f, \"mpi_bus_gbps\": %.2f}\n",
                  n, (long long)bytes, a, b, bus / a, bus / b);
  }
  return 0;
}
