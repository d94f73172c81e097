//===- Array.cpp - host arrays --------------------------------------------===//

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/Environment.h"

#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <new>

namespace shardc {

namespace {
/// Freed large buffers by size. Created once and never destroyed: arrays
/// in static objects may be freed after it would have been.
struct BufferCache {
  std::mutex mutex;
  std::multimap<size_t, void *> free;
  size_t bytes = 0, limit = 0;
  BufferCache() {
    limit = (size_t)std::min<int64_t>(envInt(Env::ArrayCacheMb).value_or(1024), int64_t(1) << 40)
            << 20;
  }
};
BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache();
  return *cache;
}
constexpr size_t kCachedFrom = size_t(1) << 20;
/// Every buffer starts on a cache line. The allocator's 16 bytes would make
/// each 64-byte vector load of a row span two lines: a decode step's
/// matrix-vector products, which read the weights from L3, took about a
/// tenth longer.
constexpr std::align_val_t kAlignment{64};
} // namespace

void *Array::allocateBytes(size_t bytes) {
  if (bytes >= kCachedFrom) {
    BufferCache &c = bufferCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free.find(bytes);
    if (it != c.free.end()) {
      void *p = it->second;
      c.free.erase(it);
      c.bytes -= bytes;
      return p;
    }
  }
  return ::operator new(bytes, kAlignment);
}

void Array::freeBytes(void *p, size_t bytes) {
  if (bytes >= kCachedFrom) {
    BufferCache &c = bufferCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.bytes + bytes <= c.limit) {
      c.free.emplace(bytes, p);
      c.bytes += bytes;
      return;
    }
  }
  ::operator delete(p, kAlignment);
}

size_t Array::cachedBytes() {
  BufferCache &c = bufferCache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 || dtype == DType::BF16;
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> stridesOf(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::string shapeString(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t floatToBF16(float value) {
  uint32_t u = bitsOf(value);
  if (std::isnan(value))
    return (uint16_t)((u >> 16) | 0x40); // keep it a (quiet) NaN
  u += 0x7fff + ((u >> 16) & 1);         // round to nearest even
  return (uint16_t)(u >> 16);
}

float bf16ToFloat(uint16_t bits) { return floatOf((uint32_t)bits << 16); }

float roundToTF32(float value) {
  if (std::isnan(value))
    return value;
  uint32_t u = bitsOf(value);
  u += 0xfff + ((u >> 13) & 1); // round to nearest even at bit 13
  return floatOf(u & ~uint32_t(0x1fff));
}

uint16_t floatToHalf(float value) {
  uint32_t u = bitsOf(value);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t absu = u & 0x7fffffff;
  if (absu >= 0x7f800000) // inf or NaN
    return sign | 0x7c00 | (absu > 0x7f800000 ? 0x200 : 0);
  if (absu >= 0x477ff000) // rounds to >= 65520: overflow to inf
    return sign | 0x7c00;
  if (absu < 0x38800000) { // below the smallest normal half: subnormal or 0
    // Scale so the half subnormal unit (2^-24) becomes 1, then round to even.
    float scaled = floatOf(absu) * 16777216.0f;
    return sign | (uint16_t)std::nearbyint(scaled);
  }
  uint32_t mant = absu & 0x7fffff;
  uint32_t exp = (absu >> 23) - 127 + 15;
  uint32_t half = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return sign | (uint16_t)half;
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  if (exp == 0) // zero or subnormal
    return floatOf(sign) + (sign ? -1.0f : 1.0f) * (float)mant * 5.9604644775390625e-8f;
  if (exp == 31)
    return floatOf(sign | 0x7f800000 | (mant << 13));
  return floatOf(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

Array::Array(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)),
      data_((size_t)shardc::numElements(shape_) * dtypeSize(dtype), 0) {}

Array Array::uninitialized(DType dtype, Shape shape) {
  Array a;
  a.dtype_ = dtype;
  a.shape_ = std::move(shape);
  a.data_.resize((size_t)shardc::numElements(a.shape_) * dtypeSize(dtype));
  return a;
}

std::string Array::typeString() const {
  std::string s = "tensor<";
  for (int64_t d : shape_)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype_) + ">";
}

double Array::getDouble(int64_t i) const {
  const uint8_t *p = data_.data();
  switch (dtype_) {
  case DType::F32:
    return ((const float *)p)[i];
  case DType::F64:
    return ((const double *)p)[i];
  case DType::F16:
    return halfToFloat(((const uint16_t *)p)[i]);
  case DType::BF16:
    return bf16ToFloat(((const uint16_t *)p)[i]);
  case DType::I1:
    return p[i] ? 1.0 : 0.0;
  case DType::I32:
    return ((const int32_t *)p)[i];
  case DType::I64:
    return (double)((const int64_t *)p)[i];
  }
  return 0;
}

/// Truncates toward zero and saturates to [lo, hi]; NaN gives 0.
template <typename T> static T saturate(double v) {
  if (std::isnan(v))
    return 0;
  double lo = (double)std::numeric_limits<T>::min();
  double hi = (double)std::numeric_limits<T>::max();
  if (v <= lo)
    return std::numeric_limits<T>::min();
  if (v >= hi)
    return std::numeric_limits<T>::max();
  return (T)std::trunc(v);
}

/// `v` as a float rounded to odd: an inexact result takes the neighbour whose
/// last bit is 1. Rounding that to nearest-even in a format at least two bits
/// narrower (f16, bf16) gives `v` correctly rounded, where going through a
/// round-to-nearest float could land on a tie and round the wrong way.
static float toFloatRoundToOdd(double v) {
  float f = (float)v;
  if (std::isnan(v) || (double)f == v)
    return f;
  uint32_t u = bitsOf(f);
  if ((u & 1) == 0) // step the magnitude toward v
    u = std::fabs((double)f) > std::fabs(v) ? u - 1 : u + 1;
  return floatOf(u);
}

void Array::setDouble(int64_t i, double v) {
  uint8_t *p = data_.data();
  switch (dtype_) {
  case DType::F32:
    ((float *)p)[i] = (float)v;
    return;
  case DType::F64:
    ((double *)p)[i] = v;
    return;
  case DType::F16:
    ((uint16_t *)p)[i] = floatToHalf(toFloatRoundToOdd(v));
    return;
  case DType::BF16:
    ((uint16_t *)p)[i] = floatToBF16(toFloatRoundToOdd(v));
    return;
  case DType::I1:
    p[i] = v != 0;
    return; // NaN is true, as in NumPy
  case DType::I32:
    ((int32_t *)p)[i] = saturate<int32_t>(v);
    return;
  case DType::I64:
    ((int64_t *)p)[i] = saturate<int64_t>(v);
    return;
  }
}

int64_t Array::getInt(int64_t i) const {
  const uint8_t *p = data_.data();
  switch (dtype_) {
  case DType::I1:
    return p[i] ? 1 : 0;
  case DType::I32:
    return ((const int32_t *)p)[i];
  case DType::I64:
    return ((const int64_t *)p)[i];
  default:
    return saturate<int64_t>(getDouble(i));
  }
}

void Array::setInt(int64_t i, int64_t v) {
  uint8_t *p = data_.data();
  switch (dtype_) {
  case DType::I1:
    p[i] = v != 0;
    return;
  case DType::I32:
    ((int32_t *)p)[i] = (int32_t)v;
    return; // wraps, as in C
  case DType::I64:
    ((int64_t *)p)[i] = v;
    return;
  default:
    setDouble(i, (double)v);
    return;
  }
}

Array Array::fromDoubles(DType dtype, Shape shape, const std::vector<double> &values) {
  Array a(dtype, std::move(shape));
  assert((int64_t)values.size() == a.numElements());
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setDouble(i, values[i]);
  return a;
}

Array Array::fromInts(DType dtype, Shape shape, const std::vector<int64_t> &values) {
  Array a(dtype, std::move(shape));
  assert((int64_t)values.size() == a.numElements());
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setInt(i, values[i]);
  return a;
}

std::vector<double> Array::toDoubles() const {
  std::vector<double> v(numElements());
  for (int64_t i = 0; i < (int64_t)v.size(); ++i)
    v[i] = getDouble(i);
  return v;
}

std::vector<int64_t> Array::toInts() const {
  std::vector<int64_t> v(numElements());
  for (int64_t i = 0; i < (int64_t)v.size(); ++i)
    v[i] = getInt(i);
  return v;
}

} // namespace shardc
