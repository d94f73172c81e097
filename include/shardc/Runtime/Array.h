//===- Array.h - host arrays ------------------------------------*- C++ -*-===//
//
// A dense, row-major host array: the unit of data the runtime moves between
// the user, the interpreter and the backends. Owns its bytes; copying copies
// them. Not thread-safe for concurrent mutation.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_ARRAY_H
#define SHARDC_RUNTIME_ARRAY_H

#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <vector>

namespace shardc {

/// Element types. i1 is stored as one byte (0 or 1), f16/bf16 as two.
enum class DType : uint8_t { F32, F64, F16, BF16, I1, I32, I64 };

size_t dtypeSize(DType dtype);
/// MLIR spelling: "f32", "bf16", "i1", ...
const char *dtypeName(DType dtype);
bool isFloat(DType dtype);

using Shape = std::vector<int64_t>;
int64_t numElements(const Shape &shape);
/// Row-major strides in elements.
std::vector<int64_t> stridesOf(const Shape &shape);
/// "4x8", or "scalar" for rank 0.
std::string shapeString(const Shape &shape);

/// f16/bf16 conversions with round-to-nearest-even.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBF16(float value);
float bf16ToFloat(uint16_t bits);
/// `value` rounded to tf32 (f32 with 10 mantissa bits), nearest even.
float roundToTF32(float value);

class Array {
public:
  Array() = default;
  /// A zero-filled array.
  Array(DType dtype, Shape shape);
  /// An array whose elements are to be written by the caller (not cleared).
  static Array uninitialized(DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return (int64_t)shape_.size(); }
  int64_t numElements() const { return shardc::numElements(shape_); }
  size_t sizeInBytes() const { return data_.size(); }
  uint8_t *bytes() { return data_.data(); }
  const uint8_t *bytes() const { return data_.data(); }
  /// "tensor<4x8xf32>", as MLIR writes the type.
  std::string typeString() const;

  /// Element `i` (row-major) as a double; integers convert exactly up to 2^53.
  double getDouble(int64_t i) const;
  /// Stores `v` rounded to the element type. Integer types truncate toward
  /// zero and saturate, NaN becoming 0; i1 stores v != 0 (true for NaN).
  void setDouble(int64_t i, double v);
  int64_t getInt(int64_t i) const;
  void setInt(int64_t i, int64_t v);

  /// Typed views; the dtype must match (checked in debug builds).
  template <typename T> T *data() { return reinterpret_cast<T *>(data_.data()); }
  template <typename T> const T *data() const { return reinterpret_cast<const T *>(data_.data()); }

  /// Builds an array from values given as doubles (or int64 for integers).
  static Array fromDoubles(DType dtype, Shape shape, const std::vector<double> &values);
  static Array fromInts(DType dtype, Shape shape, const std::vector<int64_t> &values);
  std::vector<double> toDoubles() const;
  std::vector<int64_t> toInts() const;

  bool operator==(const Array &other) const {
    return dtype_ == other.dtype_ && shape_ == other.shape_ && data_ == other.data_;
  }

  /// Bytes of freed large buffers kept for reuse (see allocateBytes).
  static size_t cachedBytes();

private:
  /// Storage for elements. Large buffers (1 MiB and up) are recycled: a
  /// freed one is kept, up to a cap (SHARDC_ARRAY_CACHE_MB, default 1024),
  /// for the next request of the same size, so a loop that allocates the
  /// same arrays every step (a training step's results) touches no fresh
  /// pages. The contents of a buffer handed out are undefined.
  static void *allocateBytes(size_t bytes);
  static void freeBytes(void *p, size_t bytes);

  /// Leaves new elements uninitialized; constructors clear them explicitly.
  template <typename T> struct NoInitAllocator : std::allocator<T> {
    template <typename U> struct rebind { using other = NoInitAllocator<U>; };
    NoInitAllocator() = default;
    template <typename U> NoInitAllocator(const NoInitAllocator<U> &) {}
    T *allocate(size_t n) { return static_cast<T *>(Array::allocateBytes(n * sizeof(T))); }
    void deallocate(T *p, size_t n) { Array::freeBytes(p, n * sizeof(T)); }
    template <typename U> void construct(U *) {}
    template <typename U, typename... Args> void construct(U *p, Args &&...args) {
      ::new ((void *)p) U(std::forward<Args>(args)...);
    }
  };

  DType dtype_ = DType::F32;
  Shape shape_;
  std::vector<uint8_t, NoInitAllocator<uint8_t>> data_;
};

/// One value on every device of a mesh: element d is device d's (its shard,
/// or the whole value where it is replicated). The interpreter, the backends
/// and the API pass values between devices in this form.
using DeviceArrays = std::vector<Array>;

} // namespace shardc

#endif // SHARDC_RUNTIME_ARRAY_H
