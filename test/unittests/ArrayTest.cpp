//===- ArrayTest.cpp - host arrays and their buffer cache -----------------===//
//
// Large buffers are recycled: the next array of the same size gets the
// freed buffer (no fresh pages), yet a zero-filled array is still zeros and
// small arrays never enter the cache.
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

TEST(ArrayBufferCache, CopiesAndMovesKeepTheirContents) {
  Array a = Array::fromDoubles(DType::F32, {1 << 19}, std::vector<double>(1 << 19, 2.5));
  Array copy = a;
  Array moved = std::move(a);
  EXPECT_EQ(copy, moved);
  EXPECT_EQ(copy.getDouble((1 << 19) - 1), 2.5);
}

} // namespace
