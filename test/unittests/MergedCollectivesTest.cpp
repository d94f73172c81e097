//===- MergedCollectivesTest.cpp - one all_reduce step over several buffers ===//
//
// A merged all_reduce (what lowering makes of a bucket) must give each
// buffer what an all_reduce of it alone gives, whatever the chunks of the
// ring: buffers of odd sizes on 4 devices put chunk boundaries inside and
// across them.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Backend.h"
#include "shardc/Runtime/Plan.h"

#include "Ring.h"

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

using namespace shardc;

namespace {

/// k buffers of `sizes` reduced by `kind` on 4 devices, merged or one step
/// each.
Plan reducePlan(const std::vector<int64_t> &sizes, int64_t kind, bool merged, DType dtype,
                int64_t devices = 4) {
  Plan p;
  p.entry = "main";
  p.mesh = Mesh{{"x"}, {devices}};
  int64_t offset = 0;
  size_t k = sizes.size();
  for (int64_t n : sizes) { // arguments, split over "x"
    p.values.push_back({dtype, {n}, kArgument});
    p.args.push_back((int32_t)p.values.size() - 1);
    p.argNames.push_back("a" + std::to_string(p.args.size()));
    p.argShardings.push_back({p.mesh, {{"x"}}});
    p.argGlobalShapes.push_back({devices * n});
    p.donated.push_back(false);
  }
  for (int64_t n : sizes) {
    p.values.push_back({dtype, {n}, offset});
    offset += (n * (int64_t)dtypeSize(dtype) + 63) / 64 * 64;
    p.results.push_back((int32_t)p.values.size() - 1);
    p.resultShardings.push_back({p.mesh, {{"x"}}});
    p.resultGlobalShapes.push_back({devices * n});
  }
  p.arenaBytes = p.unsharedBytes = offset;
  if (merged) {
    PlanStep s{OpCode::AllReduce, {}, {}, {kind}, {"x"}, {}, "m:1"};
    for (size_t i = 0; i < k; ++i) {
      s.inputs.push_back((int32_t)i);
      s.outputs.push_back((int32_t)(k + i));
    }
    p.steps = {s};
  } else {
    for (size_t i = 0; i < k; ++i)
      p.steps.push_back(
          {OpCode::AllReduce, {(int32_t)i}, {(int32_t)(k + i)}, {kind}, {"x"}, {}, "m:1"});
  }
  return p;
}

} // namespace

TEST(MergedAllReduce, EachBufferGetsItsOwnReduction) {
  std::vector<int64_t> sizes{5, 1, 7, 3};
  std::unique_ptr<Backend> cpu = createCpuBackend();
  for (DType dtype : {DType::F32, DType::I64})
    for (int64_t kind : {0, 1, 2, 3}) {
      if (dtype == DType::I64 && kind == 3)
        continue; // integer mean truncates: not worth a case
      std::vector<Array> args;
      for (size_t i = 0; i < sizes.size(); ++i) {
        Array a(dtype, {4 * sizes[i]});
        for (int64_t j = 0; j < a.numElements(); ++j)
          a.setDouble(j, (double)((j * 7 + i * 3) % 11) - 5);
        args.push_back(a);
      }
      Plan merged = reducePlan(sizes, kind, true, dtype);
      ASSERT_TRUE(validatePlan(merged).ok()) << validatePlan(merged).message();
      StatusOr<std::vector<Array>> a = runPlan(*cpu, merged, args);
      StatusOr<std::vector<Array>> b = runPlan(*cpu, reducePlan(sizes, kind, false, dtype), args);
      ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.message() : a.message());
      for (size_t i = 0; i < sizes.size(); ++i) {
        // Against the definition too: shard d of the result is the
        // reduction of every device's shard.
        for (int64_t j = 0; j < sizes[i]; ++j) {
          double want = kind == 1 ? -1e300 : kind == 2 ? 1e300 : 0;
          for (int64_t d = 0; d < 4; ++d) {
            double v = args[i].getDouble(d * sizes[i] + j);
            want = kind == 1 ? std::max(want, v) : kind == 2 ? std::min(want, v) : want + v;
          }
          if (kind == 3)
            want /= 4;
          EXPECT_DOUBLE_EQ((*a)[i].getDouble(j), want) << "buffer " << i << " kind " << kind;
        }
        EXPECT_EQ((*a)[i], (*b)[i]) << "buffer " << i << " kind " << kind;
      }
    }
}

// Where a process holds several members of a group, the all_reduce between
// processes does not run the ring: it folds the members' operands in the
// ring's order (ring::reduceInRingOrder). That must give the shared-memory
// ring's bits, for every group size, and the order must show in the bits
// (else this comparison could not fail).
TEST(RingOrder, TheFoldGivesTheRingsBits) {
  std::unique_ptr<Backend> cpu = createCpuBackend(nullptr);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (int64_t n : {2, 3, 4, 5, 8})
    for (int64_t count : {1, 7, 1001}) {
      SCOPED_TRACE("members " + std::to_string(n) + ", count " + std::to_string(count));
      Array global(DType::F32, {n * count});
      for (int64_t i = 0; i < global.numElements(); ++i)
        global.data<float>()[i] = std::ldexp(mantissa(rng), exponent(rng));
      StatusOr<std::vector<Array>> ring =
          runPlan(*cpu, reducePlan({count}, 0, false, DType::F32, n), {global});
      ASSERT_TRUE(ring.ok()) << ring.message();
      std::vector<const float *> members;
      for (int64_t m = 0; m < n; ++m)
        members.push_back(global.data<float>() + m * count);
      std::vector<float> folded(count), inOrder(count, 0.0f);
      ring::reduceInRingOrder<float>(Reduction::Sum, members, folded.data(), count);
      int64_t orderShows = 0;
      for (int64_t i = 0; i < count; ++i) {
        for (int64_t m = 0; m < n; ++m)
          inOrder[i] += members[m][i];
        for (int64_t d = 0; d < n; ++d) // every device's shard is the sum
          ASSERT_EQ(std::memcmp(&folded[i], (*ring)[0].data<float>() + d * count + i, 4), 0)
              << "element " << i << " of device " << d;
        orderShows += inOrder[i] != folded[i];
      }
      if (n >= 3 && count == 1001)
        EXPECT_GT(orderShows, 0);
    }
}
