//===- ArrayTest.cpp - host arrays and their buffer cache -----------------===//
//
// Large buffers are recycled: the next array of the same size gets the
// freed buffer (no fresh pages), yet a zero-filled array is still zeros and
// small arrays never enter the cache. Every buffer starts on a cache line.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Array.h"

#include <gtest/gtest.h>

using namespace shardc;

namespace {

TEST(ArrayBufferCache, ReusesAFreedLargeBufferOfTheSameSize) {
  const Shape shape{(3 << 18) + 1}; // just over 3 MiB of f32: no other test uses it
  const void *first;
  {
    Array a = Array::uninitialized(DType::F32, shape);
    first = a.bytes();
  }
  size_t cached = Array::cachedBytes();
  const size_t bytes = ((3 << 18) + 1) * 4;
  EXPECT_GE(cached, bytes);
  Array b = Array::uninitialized(DType::F32, shape);
  EXPECT_EQ((const void *)b.bytes(), first);
  EXPECT_EQ(Array::cachedBytes(), cached - bytes);
}

TEST(ArrayBufferCache, ZeroFilledArraysAreZerosOnARecycledBuffer) {
  const Shape shape{1 << 19}; // 2 MiB
  {
    Array a = Array::uninitialized(DType::F32, shape);
    for (int64_t i = 0; i < a.numElements(); ++i)
      a.data<float>()[i] = 7.0f;
  }
  Array zeros(DType::F32, shape);
  for (int64_t i = 0; i < zeros.numElements(); ++i)
    ASSERT_EQ(zeros.data<float>()[i], 0.0f) << i;
}

TEST(ArrayBufferCache, SmallArraysAreNotCached) {
  size_t before = Array::cachedBytes();
  { Array small(DType::F32, {1024}); }
  EXPECT_EQ(Array::cachedBytes(), before);
}

TEST(ArrayBufferCache, EveryBufferStartsOnACacheLine) {
  auto onALine = [](const Array &a) { return reinterpret_cast<uintptr_t>(a.bytes()) % 64 == 0; };
  std::vector<Array> kept;
  for (int64_t n : {1, 3, 17, 1000, 4099, 1 << 19, (1 << 19) + 3})
    for (DType t : {DType::F32, DType::BF16, DType::I1}) {
      kept.emplace_back(t, Shape{n});
      EXPECT_TRUE(onALine(kept.back())) << dtypeName(t) << " x " << n;
    }
  kept.clear(); // the large ones go to the cache and come back
  for (int i = 0; i < 3; ++i) {
    Array recycled = Array::uninitialized(DType::F32, {1 << 19});
    EXPECT_TRUE(onALine(recycled));
    Array copy = recycled;
    EXPECT_TRUE(onALine(copy));
  }
}

TEST(ArrayBufferCache, CopiesAndMovesKeepTheirContents) {
  Array a = Array::fromDoubles(DType::F32, {1 << 19}, std::vector<double>(1 << 19, 2.5));
  Array copy = a;
  Array moved = std::move(a);
  EXPECT_EQ(copy, moved);
  EXPECT_EQ(copy.getDouble((1 << 19) - 1), 2.5);
}

} // namespace
