//===- ProcessGroupTest.cpp - ring collectives between processes ----------===//
//
// Run under an MPI launcher (ctest runs it with mpirun -np 2): each process
// holds one member's buffer, reduces it with the others over MPI, and
// compares the result, bit for bit, with what the CPU backend computes for
// the same mesh of simulated devices inside one process (which every
// process runs for itself on all members' buffers). Without a launcher or
// without MPI in the build, the tests say so and skip.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/ProcessGroup.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace shardc;

namespace {

/// Member m's buffer: the same in every process.
Array memberBuffer(DType dtype, int64_t count, int m) {
  std::mt19937 rng(1000 + m);
  std::uniform_real_distribution<double> u(-3, 3);
  Array a(dtype, {count});
  for (int64_t i = 0; i < count; ++i) {
    double v = u(rng);
    if (isFloat(dtype))
      a.setDouble(i, v);
    else
      a.setInt(i, (int64_t)(v * 1000));
  }
  return a;
}

/// One all_reduce over a mesh of n devices on the CPU backend: device d's
/// result.
Array cpuAllReduce(const std::vector<Array> &buffers, Reduction kind, int d) {
  int64_t n = (int64_t)buffers.size(), count = buffers[0].numElements();
  DType dtype = buffers[0].dtype();
  Plan p;
  p.entry = "main";
  p.mesh = Mesh{{"x"}, {n}};
  p.values = {{dtype, {count}, kArgument}, {dtype, {count}, 0}};
  p.args = {0};
  p.results = {1};
  p.argNames = {"a"};
  p.argShardings = {{p.mesh, {{"x"}}}};
  p.resultShardings = {{p.mesh, {{"x"}}}};
  p.argGlobalShapes = {{n * count}};
  p.resultGlobalShapes = {{n * count}};
  p.donated = {false};
  p.arenaBytes = p.unsharedBytes = (int64_t)(count * dtypeSize(dtype) + 63) / 64 * 64;
  p.steps = {{OpCode::AllReduce, {0}, {1}, {(int64_t)kind}, {"x"}, {}, "test:1"}};
  std::vector<std::vector<const Array *>> args(1);
  for (const Array &b : buffers)
    args[0].push_back(&b);
  std::unique_ptr<Backend> cpu = createCpuBackend();
  StatusOr<std::vector<DeviceArrays>> out = cpu->execute(p, args);
  EXPECT_TRUE(out.ok()) << out.message();
  return out.ok() ? (*out)[0][d] : Array();
}

std::shared_ptr<ProcessGroup> world() {
  StatusOr<std::shared_ptr<ProcessGroup>> w = worldProcessGroup();
  EXPECT_TRUE(w.ok()) << w.message();
  return w.ok() ? *w : nullptr;
}

/// The run's process group in `group`, or skips the test where there is
/// none: a build without MPI, or a process not started by a launcher.
#define SHARDC_WORLD_OR_SKIP(group)                                                                \
  if (!mpiBuilt())                                                                                 \
    GTEST_SKIP() << "this build has no MPI (install libopenmpi-dev and reconfigure)";              \
  std::shared_ptr<ProcessGroup> group = world();                                                   \
  if (!group)                                                                                      \
  GTEST_SKIP() << "not started by an MPI launcher (ctest runs this under mpirun)"

TEST(ProcessGroup, RingAllReduceMatchesTheCpuBackendBitForBit) {
  SHARDC_WORLD_OR_SKIP(group);
  int n = group->size(), me = group->rank();
  std::vector<int> members(n);
  for (int m = 0; m < n; ++m)
    members[m] = m;
  for (DType dtype : {DType::F32, DType::F64, DType::I32, DType::I64})
    for (Reduction kind : {Reduction::Sum, Reduction::Max, Reduction::Min, Reduction::Mean})
      // 300,007 elements: chunks of several pieces (256 KiB), not a multiple
      for (int64_t count :
           {int64_t(1), int64_t(7), int64_t(1001), int64_t(1) << 16, int64_t(300007)}) {
        if (!isFloat(dtype) && kind == Reduction::Mean)
          continue;
        SCOPED_TRACE(std::string(dtypeName(dtype)) + " kind " + std::to_string((int)kind) +
                     " count " + std::to_string(count));
        std::vector<Array> buffers;
        for (int m = 0; m < n; ++m)
          buffers.push_back(memberBuffer(dtype, count, m));
        Array want = cpuAllReduce(buffers, kind, me);
        Array got = buffers[me];
        Status s = ringAllReduce(*group, members, kind, dtype, got.bytes(), count);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(want.sizeInBytes(), got.sizeInBytes());
        EXPECT_EQ(std::memcmp(want.bytes(), got.bytes(), got.sizeInBytes()), 0)
            << "rank " << me << ": the ring over MPI differs from the CPU backend's";
      }
}

// With three members or more, the order of a float sum shows in its bits:
// a sum in member order differs from the ring's somewhere, so the test
// above would catch a ring that combined in another order.
TEST(ProcessGroup, TheOrderOfTheSumShowsInItsBits) {
  SHARDC_WORLD_OR_SKIP(group);
  if (group->size() < 3)
    GTEST_SKIP() << "needs 3 processes or more (ctest runs mpirun -np 4 too)";
  int n = group->size();
  int64_t count = int64_t(1) << 16;
  std::vector<Array> buffers;
  for (int m = 0; m < n; ++m)
    buffers.push_back(memberBuffer(DType::F32, count, m));
  Array ring = cpuAllReduce(buffers, Reduction::Sum, group->rank());
  int64_t differ = 0;
  for (int64_t i = 0; i < count; ++i) {
    float inOrder = 0;
    for (int m = 0; m < n; ++m)
      inOrder += (float)buffers[m].getDouble(i);
    differ += inOrder != (float)ring.getDouble(i);
  }
  EXPECT_GT(differ, 0);
}

TEST(ProcessGroup, BroadcastAndBarrier) {
  SHARDC_WORLD_OR_SKIP(group);
  int64_t value = group->rank() == 0 ? 42 : -1;
  ASSERT_TRUE(group->broadcast(&value, sizeof value, 0).ok());
  EXPECT_EQ(value, 42);
  EXPECT_TRUE(group->barrier().ok());
}

TEST(ProcessGroup, AMemberOutsideTheRingIsAnError) {
  SHARDC_WORLD_OR_SKIP(group);
  float x = 1;
  Status s = ringAllReduce(*group, {group->size() + 5}, Reduction::Sum, DType::F32, &x, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a member"), std::string::npos) << s.message();
}

// Each process holds only its devices' shards. A global array split over
// every device needs the others' (gathered); one replicated over the
// processes' blocks is assembled from this process's alone.
TEST(ProcessGroup, FetchingGathersOnlyWhatAProcessLacks) {
  SHARDC_WORLD_OR_SKIP(group);
  int n = group->size();
  Mesh mesh{{"data", "model"}, {n, 2}}; // 2 devices per process
  Array global(DType::F32, {2 * n, 6});
  for (int64_t i = 0; i < global.numElements(); ++i)
    global.setDouble(i, 0.5 * (double)i - 3);
  DeviceRange mine = localDevices(group.get(), mesh.numDevices());
  EXPECT_EQ(mine.first, 2 * group->rank());
  EXPECT_EQ(mine.count, 2);
  struct Case {
    const char *what;
    PartitionSpec spec;
    bool local; // each process holds every block
  };
  for (const Case &c :
       {Case{"rows over data", {{"data"}, {}}, false},
        Case{"columns over model", {{}, {"model"}}, true},
        Case{"both", {{"data"}, {"model"}}, false}, Case{"replicated", {{}, {}}, true}}) {
    SCOPED_TRACE(c.what);
    NamedSharding sharding{mesh, c.spec};
    std::vector<Array> shards(mesh.numDevices());
    for (int64_t d = mine.first; d < mine.first + mine.count; ++d)
      shards[d] = sharding.shard(global, d);
    EXPECT_EQ(eachProcessHoldsEveryBlock(*group, sharding, shards[mine.first].shape()), c.local);
    StatusOr<Array> got = fetchGlobal(group.get(), sharding, shards, global.shape());
    ASSERT_TRUE(got.ok()) << got.message();
    EXPECT_TRUE(*got == global);
  }
}

} // namespace
