//===- CpuBackend.cpp - N simulated devices, one thread each --------------===//
//
// Each device thread (kept between calls: DeviceThreads.h) owns an arena
// of plan.arenaBytes where every intermediate value lives at its planned
// offset, and walks the plan's steps in order; collectives synchronize the
// threads. One device's error aborts the others' barriers, so a failing run
// returns instead of hanging.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DeviceThreads.h"
#include "RegionTeam.h"

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/Environment.h"
#include "shardc/Runtime/FusedKernel.h"
#include "shardc/Runtime/Memory.h"
#include "shardc/Runtime/ProcessGroup.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#ifdef __linux__
#include <sched.h>
#endif

namespace shardc {

namespace {

/// The cores this process may run on (its affinity mask: taskset, cgroups),
/// else the machine's.
int64_t usableCores() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Whether a plan runs in one OpenMP region (RegionTeam.h): a plan of one
/// device whose products all split their work the team's way, with at least
/// one matrix-vector product large enough to be worth two threads (a decode
/// step: one row of activations against each weight matrix).
bool runsInOneRegion(const Plan &plan) {
  if (plan.numDevices() != 1)
    return false;
  bool vectorProducts = false;
  for (const PlanStep &step : plan.steps) {
    if (step.op != OpCode::DotGeneral)
      continue;
    const PlanValue &lhs = plan.values[step.inputs[0]], &rhs = plan.values[step.inputs[1]];
    DotGeneralDims d = DotGeneralDims::decode(step.attrs, lhs.shape, rhs.shape);
    if (!cpu::productSuitsOneRegion(d.B, d.M, d.N, d.K))
      return false;
    vectorProducts |= d.B == 1 && (d.M == 1 || d.N == 1) && d.M * d.N * d.K * 4 >= (1 << 18);
  }
  return vectorProducts;
}

class CpuBackend : public Backend {
public:
  CpuBackend(StatusOr<std::shared_ptr<ProcessGroup>> processes, CpuBackendOptions options)
      : processGroup(std::move(processes)), options(options) {}
  const char *name() const override { return "cpu"; }
  ProcessGroup *processes() const override {
    return processGroup.ok() && *processGroup && (*processGroup)->size() > 1 ? processGroup->get()
                                                                             : nullptr;
  }

  using Backend::execute;
  StatusOr<std::vector<DeviceArrays>> execute(const Plan &plan,
                                              const std::vector<std::vector<const Array *>> &args,
                                              std::vector<DeviceArrays> *donated) override {
    // One plan at a time: the device threads, arenas and BLAS threads are
    // this backend's; callers on other threads wait their turn.
    std::lock_guard<std::mutex> lock(mutex);
    int64_t n = plan.numDevices();
    if (!processGroup.ok())
      return processGroup.status();
    ProcessGroup *world = processes(); // null: every device is simulated here
    StatusOr<DeviceRange> mine = checkCall(plan, args, world);
    if (!mine.ok())
      return mine.status();
    Call call{plan,
              args,
              {},
              std::vector<DeviceArrays>(plan.results.size(), DeviceArrays(n)),
              std::vector<Status>(n, Status::success()),
              nullptr,
              {},
              {}};
    for (int64_t d = mine->first; d < mine->first + mine->count; ++d)
      call.local.push_back(d);

    // The cores are shared among the device threads.
    int64_t cores = usableCores(), threads = (int64_t)call.local.size();
    cpu::setBlasThreads((int)std::max<int64_t>(1, cores / threads),
                        /*concurrentCallers=*/threads > 1);
    call.written = writtenArrays(plan, args, donated, call.local);
    cpu::DeviceGroup group(threads, n, /*spin=*/threads <= cores);
    group.processes = world;
    group.localDevices = mine->count;
    growArenas(plan, call.local);
    // Fused kernels are chosen once for every device (see fusedKernelsFor).
    call.kernels = &fusedKernels(plan, call.unkeptKernels);
    if (threads == 1 && oneRegion(plan)) {
      cpu::runInOneRegion(cpu::sharedThreadPoolSize(),
                          [&] { runDevice(call, group, call.local[0]); });
    } else if (threads == 1) {
      runDevice(call, group, call.local[0]);
    } else {
      // Each device on a core of its own where there are enough.
      std::vector<int64_t> coreOf;
      for (int64_t d : call.local)
        coreOf.push_back(threads <= cores ? d - mine->first : -1);
      deviceThreads.run(coreOf, cpu::enterDeviceThread,
                        [&](int64_t i) { runDevice(call, group, call.local[(size_t)i]); });
    }
    for (const Status &s : call.status)
      if (!s.ok()) {
        if (world) { // the others would wait for this process forever
          std::fprintf(stderr, "error: %s (process %d)\n", s.message().c_str(), world->rank());
          world->abort(1);
        }
        return s;
      }
    // Under several processes the other devices' results stay where they
    // are (empty here): fetching a global array gathers what it needs.
    if (options.profile)
      printProfile();
    return std::move(call.results);
  }

private:
  /// One call of execute: what its device threads share.
  struct Call {
    const Plan &plan;
    const std::vector<std::vector<const Array *>> &args;
    /// Per argument: the arrays values written over it live in (empty
    /// where none is).
    std::vector<DeviceArrays> written;
    std::vector<DeviceArrays> results;
    std::vector<Status> status; // per device
    /// The fused steps' kernels: kept by the backend, or unkeptKernels.
    const std::vector<FusedKernelFn> *kernels = nullptr;
    std::vector<FusedKernelFn> unkeptKernels;
    std::vector<int64_t> local; // the devices this process runs
  };

  /// The devices this process runs, once the call is known to be sound:
  /// the processes share the mesh equally and run the same program, the
  /// arguments fit the plan, and this process's arenas and results fit in
  /// memory (checked before any of it is allocated).
  StatusOr<DeviceRange> checkCall(const Plan &plan,
                                  const std::vector<std::vector<const Array *>> &args,
                                  ProcessGroup *world) {
    int64_t n = plan.numDevices();
    // A mesh over several processes: each runs an equal, contiguous block
    // of its devices, and the others' shards come from them.
    if (world && n % world->size() != 0)
      return Status::error("the mesh of @" + plan.entry + " has " + std::to_string(n) +
                           " device(s), which " + std::to_string(world->size()) +
                           " processes cannot share equally (each runs a block of the same "
                           "size): run it with a number of processes that divides " +
                           std::to_string(n));
    DeviceRange mine = localDevices(world, n);
    std::vector<int64_t> local;
    for (int64_t d = mine.first; d < mine.first + mine.count; ++d)
      local.push_back(d);
    if (world)
      if (Status same = checkSameProgram(*world, plan); !same.ok())
        return same;
    if (Status valid = checkShardArguments(plan, args, local); !valid.ok())
      return valid;
    // A plan (by its id) that fitted once fits again.
    KnownPlan *known = knownPlan(plan);
    if (known && known->fits)
      return mine;
    int64_t perDevice = plan.arenaBytes;
    for (int32_t r : plan.results)
      perDevice += (int64_t)plan.values[r].bytes();
    if (Status fits = checkBytesFit("a call of @" + plan.entry + " on " +
                                        std::to_string(local.size()) + " device(s)",
                                    perDevice * (int64_t)local.size());
        !fits.ok())
      return fits;
    if (known)
      known->fits = true;
    return mine;
  }

  /// The arrays that values written over an argument live in: the shards
  /// the caller gave up, else copies of the argument.
  static std::vector<DeviceArrays>
  writtenArrays(const Plan &plan, const std::vector<std::vector<const Array *>> &args,
                std::vector<DeviceArrays> *donated, const std::vector<int64_t> &local) {
    int64_t n = plan.numDevices();
    std::vector<DeviceArrays> written(plan.args.size());
    for (const PlanValue &v : plan.values) {
      if (v.offset != kInArgument || !written[v.inArgument].empty())
        continue;
      int32_t a = v.inArgument;
      if (donated && (*donated)[a].size() == (size_t)n) {
        written[a] = std::move((*donated)[a]);
        continue;
      }
      for (int64_t d = 0; d < n; ++d)
        written[a].push_back(std::find(local.begin(), local.end(), d) != local.end() ? *args[a][d]
                                                                                     : Array());
    }
    return written;
  }

  /// Arenas are kept between calls, grown where a plan needs more (and not
  /// cleared: every value is written before it is read).
  void growArenas(const Plan &plan, const std::vector<int64_t> &local) {
    if ((int64_t)arenas.size() < plan.numDevices())
      arenas.resize(plan.numDevices());
    for (int64_t d : local)
      if (arenas[d].size < plan.arenaBytes) {
        arenas[d].data.reset(new uint8_t[plan.arenaBytes]);
        arenas[d].size = plan.arenaBytes;
      }
  }

  /// Device d's buffers: the arena's values at their offsets, the arguments
  /// (or the arrays written over them), and the results a step computes
  /// written straight into the arrays returned (no copy out of the arena;
  /// `direct` marks them).
  cpu::DeviceBuffers buffersOf(Call &call, int64_t d, std::vector<bool> &direct) {
    const Plan &plan = call.plan;
    uint8_t *arena = arenas[d].data.get();
    cpu::DeviceBuffers buffers{d, std::vector<uint8_t *>(plan.values.size(), nullptr),
                               call.kernels};
    for (size_t v = 0; v < plan.values.size(); ++v)
      if (plan.values[v].offset >= 0)
        buffers.ptr[v] = arena + plan.values[v].offset;
    for (size_t i = 0; i < plan.args.size(); ++i)
      buffers.ptr[plan.args[i]] = call.written[i].empty()
                                      ? const_cast<uint8_t *>(call.args[i][d]->bytes())
                                      : call.written[i][d].bytes();
    for (size_t v = 0; v < plan.values.size(); ++v)
      if (plan.values[v].offset == kInArgument)
        buffers.ptr[v] = call.written[plan.values[v].inArgument][d].bytes();
    direct.assign(plan.results.size(), false);
    for (size_t r = 0; r < plan.results.size(); ++r) {
      int32_t id = plan.results[r];
      const PlanValue &v = plan.values[id];
      if (v.offset < 0 || !firstResult(plan, r))
        continue; // an argument, or a result returned twice: copied below
      call.results[r][d] = Array::uninitialized(v.dtype, v.shape);
      buffers.ptr[id] = call.results[r][d].bytes();
      direct[r] = true;
    }
    return buffers;
  }

  /// Whether result r is the first return of its value.
  static bool firstResult(const Plan &plan, size_t r) {
    return std::find(plan.results.begin(), plan.results.begin() + r, plan.results[r]) ==
           plan.results.begin() + r;
  }

  /// Runs the plan's steps on device d, then hands over its results. A
  /// failing step records its error and aborts the others' barriers.
  void runDevice(Call &call, cpu::DeviceGroup &group, int64_t d) {
    const Plan &plan = call.plan;
    int64_t n = plan.numDevices();
    std::vector<bool> direct;
    cpu::DeviceBuffers buffers = buffersOf(call, d, direct);
    bool profile = options.profile;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const PlanStep &step = plan.steps[i];
      auto start =
          profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
      auto account = [&](const char *what) {
        if (profile && d == 0)
          profileMs[step.location + " " + what] +=
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
      };
      if (isCollective(step.op)) {
        if (!cpu::runCollective(plan, step, buffers, group))
          return; // another device failed
        account(opCodeName(step.op));
        continue;
      }
      Status s = Status::success();
      bool withReader = false;
      try {
        // A product and the elementwise step that reads it next run together.
        withReader = i + 1 < plan.steps.size() &&
                     cpu::runProductAndReader(plan, step, plan.steps[i + 1], buffers);
        if (!withReader)
          s = cpu::runKernel(plan, step, buffers);
      } catch (const ProductViewError &e) { // a product refused to read out of bounds
        s = Status::error(e.what());
      }
      if (s.ok() && withReader) {
        account("dot_general+fused");
        ++i;
        continue;
      }
      if (!s.ok()) {
        call.status[d] =
            Status::error(step.location + ": " + s.message() +
                          (n > 1 ? " (on device " + std::to_string(d) + ")" : std::string()));
        group.barrier.abort();
        return;
      }
      account(opCodeName(step.op));
    }
    for (size_t r = 0; r < plan.results.size(); ++r) {
      if (direct[r])
        continue;
      const PlanValue &v = plan.values[plan.results[r]];
      if (v.offset == kInArgument && firstResult(plan, r)) { // computed in place: hand it over
        call.results[r][d] = std::move(call.written[v.inArgument][d]);
        continue;
      }
      Array a = Array::uninitialized(v.dtype, v.shape);
      if (a.sizeInBytes())
        std::memcpy(a.bytes(), buffers.ptr[plan.results[r]], a.sizeInBytes());
      call.results[r][d] = std::move(a);
    }
  }

  /// The fused kernels of a plan's steps, and what they were chosen for.
  struct KeptKernels {
    uint64_t generation; // of the compiler (fusedKernelCompilerGeneration)
    size_t steps;
    std::vector<std::pair<size_t, std::vector<int64_t>>> fused; // step, encoding
    std::vector<FusedKernelFn> kernels;

    /// A plan with an id (Plan::id names its contents) matches by the id
    /// that keys it; one without, by its fused steps' encodings.
    bool matches(const Plan &plan, uint64_t current) const {
      if (generation != current || plan.steps.size() != steps)
        return false;
      if (plan.id != 0)
        return true;
      size_t k = 0;
      for (size_t s = 0; s < plan.steps.size(); ++s)
        if (plan.steps[s].op == OpCode::Fused &&
            (k >= fused.size() || fused[k].first != s || fused[k++].second != plan.steps[s].attrs))
          return false;
      return k == fused.size();
    }
  };

  /// The fused kernels of `plan`'s steps (cpu::fusedKernelsFor), kept per
  /// plan once the compiler's answers are final: asking again decodes,
  /// validates and looks up every fused step, a tenth of a small step's
  /// time (26 us of a 350 us decode step). A kept answer is keyed by the
  /// plan's id, or for a plan without one by its address and checked
  /// against its fused steps' encodings, so a plan allocated where another
  /// was freed never gets the other's kernels. The answer is returned in
  /// place (valid until the next call), or in `unkept` while the compiler
  /// is still deciding.
  const std::vector<FusedKernelFn> &fusedKernels(const Plan &plan,
                                                 std::vector<FusedKernelFn> &unkept) {
    uint64_t generation = fusedKernelCompilerGeneration();
    std::pair<uint64_t, const Plan *> key{plan.id, plan.id ? nullptr : &plan};
    if (auto it = keptKernels.find(key);
        it != keptKernels.end() && it->second.matches(plan, generation))
      return it->second.kernels;
    unkept = cpu::fusedKernelsFor(plan);
    FusedKernelCompiler *compiler = fusedKernelCompiler();
    if (!compiler)
      return unkept;
    KeptKernels kept{generation, plan.steps.size(), {}, unkept};
    for (size_t s = 0; s < plan.steps.size(); ++s)
      if (plan.steps[s].op == OpCode::Fused) {
        if (!compiler->settled(plan.steps[s].attrs))
          return unkept; // asked again next call
        if (plan.id == 0)
          kept.fused.push_back({s, plan.steps[s].attrs});
      }
    if (keptKernels.size() >= 64) // a bound, not a policy: few plans run in turn
      keptKernels.clear();
    return (keptKernels[key] = std::move(kept)).kernels;
  }

  /// What the backend learns of a plan once and keeps (by Plan::id, which
  /// names its contents): whether it runs in one region (runsInOneRegion),
  /// and whether a call of it fits in memory (the check asks the system for
  /// its limits, three calls a decode step need not make).
  struct KnownPlan {
    std::optional<bool> oneRegion;
    bool fits = false;
  };

  /// The record of `plan`, or null for a plan assembled by hand (without
  /// an id), which is looked at every call.
  KnownPlan *knownPlan(const Plan &plan) {
    if (plan.id == 0)
      return nullptr;
    if (knownPlans.size() >= 1024 && !knownPlans.count(plan.id)) // a bound, not a policy
      knownPlans.clear();
    return &knownPlans[plan.id];
  }

  bool oneRegion(const Plan &plan) {
    KnownPlan *known = knownPlan(plan);
    if (!known)
      return runsInOneRegion(plan);
    if (!known->oneRegion)
      known->oneRegion = runsInOneRegion(plan);
    return *known->oneRegion;
  }

  /// Time per step on device 0 (SHARDC_PROFILE), slowest first.
  void printProfile() {
    std::vector<std::pair<double, std::string>> rows;
    for (auto &[what, ms] : profileMs)
      rows.push_back({ms, what});
    std::sort(rows.rbegin(), rows.rend());
    for (auto &[ms, what] : rows)
      std::fprintf(stderr, "%10.3f ms  %s\n", ms, what.c_str());
    profileMs.clear();
  }

  /// The first time a plan runs, its processes compare their plans' hashes,
  /// so that processes started on different programs (or one compiled with
  /// other options) stop with an error instead of exchanging garbage or
  /// waiting forever. Every process gets every hash and reports alike.
  Status checkSameProgram(ProcessGroup &world, const Plan &plan) {
    uint64_t mine = planShapeHash(plan);
    if (agreed.count(mine))
      return Status::success();
    std::vector<uint64_t> all(world.size());
    std::vector<ProcessGroup::Transfer> sends, recvs;
    for (int q = 0; q < world.size(); ++q)
      if (q != world.rank()) {
        sends.push_back({q, &mine, sizeof mine});
        recvs.push_back({q, &all[q], sizeof all[q]});
      }
    all[world.rank()] = mine;
    if (Status s = world.exchange(sends, recvs); !s.ok())
      return s;
    for (int q = 1; q < world.size(); ++q)
      if (all[q] != all[0]) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "process %d runs another program than process 0 (plan hash %016llx, "
                      "not %016llx)",
                      q, (unsigned long long)all[q], (unsigned long long)all[0]);
        return Status::error(std::string(text) + " for @" + plan.entry +
                             ": every process must run the same program, compiled alike");
      }
    agreed.insert(mine);
    return Status::success();
  }

  /// The processes of the run (null: this process is the whole run).
  StatusOr<std::shared_ptr<ProcessGroup>> processGroup;
  struct Arena {
    std::unique_ptr<uint8_t[]> data;
    int64_t size = 0;
  };
  std::mutex mutex;
  CpuBackendOptions options;
  std::set<uint64_t> agreed; // plan hashes every process has been seen to run
  std::vector<Arena> arenas;
  std::map<std::pair<uint64_t, const Plan *>, KeptKernels> keptKernels;
  std::map<uint64_t, KnownPlan> knownPlans;
  std::map<std::string, double> profileMs;
  // Last: its threads stop before the state above that they use goes.
  cpu::DeviceThreads deviceThreads;
};

} // namespace

CpuBackendOptions CpuBackendOptions::fromEnvironment() {
  CpuBackendOptions options;
  options.profile = envValue(Env::Profile) != nullptr;
  return options;
}

std::unique_ptr<Backend> createCpuBackend() {
  return createCpuBackend(CpuBackendOptions::fromEnvironment());
}

std::unique_ptr<Backend> createCpuBackend(const CpuBackendOptions &options) {
  return std::make_unique<CpuBackend>(worldProcessGroup(), options);
}

std::unique_ptr<Backend> createCpuBackend(std::shared_ptr<ProcessGroup> processes) {
  return std::make_unique<CpuBackend>(std::move(processes), CpuBackendOptions::fromEnvironment());
}

} // namespace shardc
