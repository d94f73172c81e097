//===- NpyTest.cpp - .npy files and whole-file I/O ------------------------===//
//
// Round trips of every dtype and rank through the .npy format, files written
// by NumPy itself (embedded below), the errors for malformed or unsupported
// files, and the atomicity of writes.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/File.h"
#include "shardc/Runtime/Npy.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace shardc {
namespace {

namespace fs = std::filesystem;

//===----------------------------------------------------------------------===//
// Files written by NumPy 1.24 (bytes as Python wrote them).
//===----------------------------------------------------------------------===//

// np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 1)
const char kNumpyF32_2x3[] =
    "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': False, 'shape'"
    ": (2, 3), }                                                          \012"
    "\000\000\200\277\000\000\000\277\000\000\000\000\000\000\000?\000\000\200"
    "?\000\000\300?";
// np.save(f, np.array(3.25))
const char kNumpyF64Scalar[] =
    "\223NUMPY\001\000v\000{'descr': '<f8', 'fortran_order': False, 'shape'"
    ": (), }                                                              \012"
    "\000\000\000\000\000\000\012@";
// np.save(f, np.array([1.0, -2.5, 65504.0], dtype=np.float16))
const char kNumpyF16[] = "\223NUMPY\001\000v\000{'descr': '<f2', 'fortran_order': False, 'shape'"
                         ": (3,), }                                                            \012"
                         "\000<\000\301\377{";
// np.save(f, np.array([[1, -2], [2**31 - 1, -2**31]], dtype=np.int32))
const char kNumpyI32[] = "\223NUMPY\001\000v\000{'descr': '<i4', 'fortran_order': False, 'shape'"
                         ": (2, 2), }                                                          \012"
                         "\001\000\000\000\376\377\377\377\377\377\377\177\000\000\000\200";
// np.save(f, np.array([-1, 2**40, 7], dtype=np.int64))
const char kNumpyI64[] = "\223NUMPY\001\000v\000{'descr': '<i8', 'fortran_order': False, 'shape'"
                         ": (3,), }                                                            \012"
                         "\377\377\377\377\377\377\377\377\000\000\000\000\000\001\000\000\007\000"
                         "\000\000\000\000\000\000";
// np.save(f, np.array([[True, False, True]]))
const char kNumpyBool[] =
    "\223NUMPY\001\000v\000{'descr': '|b1', 'fortran_order': False, 'shape'"
    ": (1, 3), }                                                          \012"
    "\001\000\001";
// np.save(f, np.zeros((0, 3), dtype=np.float32))
const char kNumpyEmpty[] =
    "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': False, 'shape'"
    ": (0, 3), }                                                          \012";
// np.save(f, np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
const char kNumpyFortran[] =
    "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': True, 'shape':"
    " (2, 3), }                                                           \012"
    "\000\000\000\000\000\000@@\000\000\200?\000\000\200@\000\000\000@\000\000"
    "\240@";
// np.save(f, np.array([1.0, 2.0], dtype='>f4'))
const char kNumpyBigEndian[] =
    "\223NUMPY\001\000v\000{'descr': '>f4', 'fortran_order': False, 'shape'"
    ": (2,), }                                                            \012"
    "?\200\000\000@\000\000\000";
// np.save(f, np.array([1, 2], dtype='<u2'))
const char kNumpyU2[] = "\223NUMPY\001\000v\000{'descr': '<u2', 'fortran_order': False, 'shape'"
                        ": (2,), }                                                            \012"
                        "\001\000\002\000";
// np.lib.format.write_array(f, np.arange(4, dtype=np.int32).reshape(2, 2) - 1,
//                              version=(2, 0))
const char kNumpyV2I32[] =
    "\223NUMPY\002\000t\000\000\000{'descr': '<i4', 'fortran_order': False,"
    " 'shape': (2, 2), }                                                   "
    "     \012\377\377\377\377\000\000\000\000\001\000\000\000\002\000\000\000";

/// The bytes of a string literal, embedded NULs included.
template <size_t N> std::string bytesOf(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

::testing::AssertionResult contains(const std::string &text, const std::string &part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

/// A .npy file with the given header dict (padded and terminated here) and
/// data; `major` selects the 2-byte (1) or 4-byte (2, 3) header length.
std::string makeNpy(const std::string &dict, const std::string &data, int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += (char)major;
  out += (char)0;
  size_t len = header.size();
  out += (char)(len & 0xff);
  out += (char)((len >> 8) & 0xff);
  if (major != 1) {
    out += (char)((len >> 16) & 0xff);
    out += (char)((len >> 24) & 0xff);
  }
  return out + header + data;
}

/// Bit-exact comparison, so NaN payloads and the sign of zero count.
void expectSameArray(const Array &actual, const Array &expected) {
  EXPECT_EQ(dtypeName(actual.dtype()), std::string(dtypeName(expected.dtype())));
  EXPECT_EQ(actual.shape(), expected.shape());
  EXPECT_TRUE(actual == expected) << "contents differ: " << actual.typeString();
}

using shardc::test::TempDir;

/// An array of `dtype` and `shape` with distinct, exactly representable
/// values of both signs (0/1 for i1).
Array sampleArray(DType dtype, const Shape &shape) {
  Array a(dtype, shape);
  for (int64_t i = 0; i < a.numElements(); ++i) {
    if (dtype == DType::I1)
      a.setInt(i, (i * 7 + 1) % 3 == 0);
    else if (isFloat(dtype))
      a.setDouble(i, (i % 2 ? -1.0 : 1.0) * (0.25 * i + 0.5));
    else
      a.setInt(i, (i % 2 ? -1 : 1) * (i * 1000 + 3));
  }
  return a;
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

class NpyRoundTrip : public ::testing::TestWithParam<std::tuple<DType, Shape>> {};

TEST_P(NpyRoundTrip, SerializeThenParseGivesTheSameArray) {
  auto [dtype, shape] = GetParam();
  Array a = sampleArray(dtype, shape);
  std::string bytes = serializeNpy(a);
  // The data starts on a 64-byte boundary, after a newline-terminated header.
  size_t dataStart = bytes.size() - a.sizeInBytes();
  EXPECT_EQ(dataStart % 64, 0u);
  EXPECT_EQ(bytes[dataStart - 1], '\n');
  StatusOr<Array> back = parseNpy(bytes, "roundtrip.npy");
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameArray(*back, a);
}

std::string roundTripName(const ::testing::TestParamInfo<std::tuple<DType, Shape>> &info) {
  const Shape &shape = std::get<1>(info.param);
  std::string s = shape.empty() ? "scalar" : "shape";
  for (int64_t d : shape)
    s += "_" + std::to_string(d);
  return std::string(dtypeName(std::get<0>(info.param))) + "_" + s;
}

INSTANTIATE_TEST_SUITE_P(AllDTypesAndRanks, NpyRoundTrip,
                         ::testing::Combine(::testing::Values(DType::F32, DType::F64, DType::F16,
                                                              DType::I32, DType::I64, DType::I1),
                                            ::testing::Values(Shape{}, Shape{5}, Shape{2, 3, 4},
                                                              Shape{3, 0, 2}, Shape{0})),
                         roundTripName);

TEST(Npy, RoundTripKeepsSpecialFloatValuesBitExact) {
  double inf = std::numeric_limits<double>::infinity();
  double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dtype : {DType::F32, DType::F64, DType::F16}) {
    SCOPED_TRACE(dtypeName(dtype));
    Array a = Array::fromDoubles(dtype, {6}, {-0.0, inf, -inf, nan, 1e-7, -65504.0});
    StatusOr<Array> back = parseNpy(serializeNpy(a), "special.npy");
    ASSERT_TRUE(back.ok()) << back.message();
    expectSameArray(*back, a);
    EXPECT_TRUE(std::signbit(back->getDouble(0)));
    EXPECT_TRUE(std::isnan(back->getDouble(3)));
  }
}

TEST(Npy, RoundTripKeepsIntegerExtremes) {
  Array i32 = Array::fromInts(DType::I32, {3}, {INT32_MIN, INT32_MAX, 0});
  Array i64 = Array::fromInts(DType::I64, {3}, {INT64_MIN, INT64_MAX, (int64_t(1) << 53) + 1});
  for (const Array &a : {i32, i64}) {
    StatusOr<Array> back = parseNpy(serializeNpy(a), "ints.npy");
    ASSERT_TRUE(back.ok()) << back.message();
    expectSameArray(*back, a);
  }
}

TEST(Npy, BF16IsWrittenAsF32) {
  Array a = Array::fromDoubles(DType::BF16, {2, 2}, {1.0, -2.5, 1.0078125, 3.0e38});
  std::string bytes = serializeNpy(a);
  EXPECT_TRUE(contains(bytes, "'descr': '<f4'"));
  StatusOr<Array> back = parseNpy(bytes, "bf16.npy");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->dtype(), DType::F32);
  EXPECT_EQ(back->shape(), (Shape{2, 2}));
  // Every bf16 value is exactly an f32 value.
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(back->getDouble(i), a.getDouble(i)) << "element " << i;
  EXPECT_EQ(back->getDouble(2), 1.0078125);
}

TEST(Npy, HeaderTextMatchesNumpy) {
  auto headerOf = [](const Array &a) {
    std::string bytes = serializeNpy(a);
    return bytes.substr(10, bytes.find('}') - 9);
  };
  EXPECT_EQ(headerOf(Array(DType::F32, {})),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(headerOf(Array(DType::I64, {7})),
            "{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }");
  EXPECT_EQ(headerOf(Array(DType::I1, {2, 0, 3})),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 0, 3), }");
  EXPECT_EQ(headerOf(Array(DType::F16, {1})),
            "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_EQ(headerOf(Array(DType::I32, {1, 1})),
            "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }");
}

//===----------------------------------------------------------------------===//
// Files written by NumPy
//===----------------------------------------------------------------------===//

TEST(NpyFromNumpy, SerializedBytesEqualNumpyBytes) {
  EXPECT_EQ(serializeNpy(Array::fromDoubles(DType::F32, {2, 3}, {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5})),
            bytesOf(kNumpyF32_2x3));
  EXPECT_EQ(serializeNpy(Array::fromDoubles(DType::F64, {}, {3.25})), bytesOf(kNumpyF64Scalar));
  EXPECT_EQ(serializeNpy(Array::fromDoubles(DType::F16, {3}, {1.0, -2.5, 65504.0})),
            bytesOf(kNumpyF16));
  EXPECT_EQ(serializeNpy(Array::fromInts(DType::I32, {2, 2}, {1, -2, INT32_MAX, INT32_MIN})),
            bytesOf(kNumpyI32));
  EXPECT_EQ(serializeNpy(Array::fromInts(DType::I64, {3}, {-1, int64_t(1) << 40, 7})),
            bytesOf(kNumpyI64));
  EXPECT_EQ(serializeNpy(Array::fromInts(DType::I1, {1, 3}, {1, 0, 1})), bytesOf(kNumpyBool));
  EXPECT_EQ(serializeNpy(Array(DType::F32, {0, 3})), bytesOf(kNumpyEmpty));
}

TEST(NpyFromNumpy, ParsesF32) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyF32_2x3), "f32.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::F32);
  EXPECT_EQ(a->shape(), (Shape{2, 3}));
  EXPECT_EQ(a->toDoubles(), (std::vector<double>{-1.0, -0.5, 0.0, 0.5, 1.0, 1.5}));
}

TEST(NpyFromNumpy, ParsesF64Scalar) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyF64Scalar), "f64.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::F64);
  EXPECT_EQ(a->rank(), 0);
  EXPECT_EQ(a->numElements(), 1);
  EXPECT_EQ(a->getDouble(0), 3.25);
}

TEST(NpyFromNumpy, ParsesF16) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyF16), "f16.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::F16);
  EXPECT_EQ(a->shape(), (Shape{3}));
  EXPECT_EQ(a->toDoubles(), (std::vector<double>{1.0, -2.5, 65504.0}));
}

TEST(NpyFromNumpy, ParsesI32AndI64) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyI32), "i32.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::I32);
  EXPECT_EQ(a->shape(), (Shape{2, 2}));
  EXPECT_EQ(a->toInts(), (std::vector<int64_t>{1, -2, INT32_MAX, INT32_MIN}));

  StatusOr<Array> b = parseNpy(bytesOf(kNumpyI64), "i64.npy");
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->dtype(), DType::I64);
  EXPECT_EQ(b->shape(), (Shape{3}));
  EXPECT_EQ(b->toInts(), (std::vector<int64_t>{-1, int64_t(1) << 40, 7}));
}

TEST(NpyFromNumpy, ParsesBool) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyBool), "bool.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::I1);
  EXPECT_EQ(a->shape(), (Shape{1, 3}));
  EXPECT_EQ(a->toInts(), (std::vector<int64_t>{1, 0, 1}));
}

TEST(NpyFromNumpy, ParsesZeroSizeArray) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyEmpty), "empty.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::F32);
  EXPECT_EQ(a->shape(), (Shape{0, 3}));
  EXPECT_EQ(a->sizeInBytes(), 0u);
}

TEST(NpyFromNumpy, ParsesVersion2) {
  StatusOr<Array> a = parseNpy(bytesOf(kNumpyV2I32), "v2.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::I32);
  EXPECT_EQ(a->shape(), (Shape{2, 2}));
  EXPECT_EQ(a->toInts(), (std::vector<int64_t>{-1, 0, 1, 2}));
}

TEST(NpyFromNumpy, ParsesVersion3) {
  // 3.0 differs from 2.0 only in allowing UTF-8 in the header.
  std::string bytes = bytesOf(kNumpyV2I32);
  bytes[6] = 3;
  StatusOr<Array> a = parseNpy(bytes, "v3.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->toInts(), (std::vector<int64_t>{-1, 0, 1, 2}));
}

TEST(NpyFromNumpy, AcceptsBoolSpelledLittleEndian) {
  StatusOr<Array> a = parseNpy(makeNpy("{'descr': '<b1', 'fortran_order': False, 'shape': (2,), }",
                                       std::string("\x00\x01", 2)),
                               "b1.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::I1);
  EXPECT_EQ(a->toInts(), (std::vector<int64_t>{0, 1}));
}

TEST(NpyFromNumpy, NormalizesNonzeroBoolBytesToOne) {
  StatusOr<Array> a = parseNpy(makeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                                       std::string("\x00\x07\xff", 3)),
                               "b1.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->bytes()[0], 0);
  EXPECT_EQ(a->bytes()[1], 1);
  EXPECT_EQ(a->bytes()[2], 1);
}

TEST(NpyFromNumpy, KeyOrderAndSpacingDoNotMatter) {
  StatusOr<Array> a =
      parseNpy(makeNpy("{'shape':(2,),'fortran_order':False,'descr':'<i4'}", std::string(8, '\0')),
               "order.npy");
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->dtype(), DType::I32);
  EXPECT_EQ(a->shape(), (Shape{2}));
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Parses `bytes`, expects failure, and returns the message.
std::string parseError(const std::string &bytes) {
  StatusOr<Array> a = parseNpy(bytes, "bad.npy");
  EXPECT_FALSE(a.ok());
  if (a.ok())
    return "";
  // Every message names the file.
  EXPECT_EQ(a.message().rfind("bad.npy: ", 0), 0u) << a.message();
  return a.message();
}

TEST(NpyErrors, BadMagic) {
  std::string bytes = bytesOf(kNumpyF32_2x3);
  bytes[1] = 'X';
  EXPECT_TRUE(contains(parseError(bytes), "not a NumPy .npy file (bad magic)"));
  EXPECT_TRUE(contains(parseError(""), "bad magic"));
  EXPECT_TRUE(contains(parseError("PK\x03\x04 a zip file, not an npy"), "bad magic"));
  EXPECT_TRUE(contains(parseError("\x93NUM"), "bad magic"));
}

TEST(NpyErrors, TruncatedHeader) {
  std::string full = bytesOf(kNumpyF32_2x3);
  // Cut inside the header dict, and before the header length is complete.
  EXPECT_TRUE(contains(parseError(full.substr(0, 40)), "truncated .npy header"));
  EXPECT_TRUE(contains(parseError(full.substr(0, 9)), "truncated .npy header"));
  EXPECT_TRUE(contains(parseError(full.substr(0, 6)), "truncated .npy header"));
  std::string v2 = bytesOf(kNumpyV2I32);
  EXPECT_TRUE(contains(parseError(v2.substr(0, 11)), "truncated .npy header"));
  EXPECT_TRUE(contains(parseError(v2.substr(0, 60)), "truncated .npy header"));
}

TEST(NpyErrors, UnsupportedVersion) {
  std::string bytes = bytesOf(kNumpyF32_2x3);
  bytes[6] = 4;
  EXPECT_TRUE(contains(parseError(bytes), "unsupported .npy version 4"));
}

TEST(NpyErrors, DataTruncated) {
  std::string bytes = bytesOf(kNumpyF32_2x3);
  bytes.pop_back();
  std::string message = parseError(bytes);
  EXPECT_TRUE(contains(message, "data size 23 bytes does not match the header"));
  EXPECT_TRUE(contains(message, "<f4, shape 2x3: 24 bytes"));
  // No data at all.
  EXPECT_TRUE(contains(parseError(bytes.substr(0, 128)), "data size 0 bytes"));
}

TEST(NpyErrors, DataTooLong) {
  std::string bytes = bytesOf(kNumpyF32_2x3) + "x";
  std::string message = parseError(bytes);
  EXPECT_TRUE(contains(message, "data size 25 bytes does not match the header"));
  EXPECT_TRUE(contains(message, "24 bytes"));
  // Data after a zero-size array.
  EXPECT_TRUE(contains(parseError(bytesOf(kNumpyEmpty) + "abcd"), "data size 4 bytes"));
}

TEST(NpyErrors, HugeShapeFailsWithoutAllocating) {
  // 2^40 f64 elements: 8 TiB; and a shape whose element count overflows.
  std::string message = parseError(
      makeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", ""));
  EXPECT_TRUE(contains(message, "does not match the header"));
  message = parseError(makeNpy(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 16777216), }", ""));
  EXPECT_TRUE(contains(message, "does not match the header"));
  EXPECT_TRUE(contains(parseError(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                                          "(99999999999999999999,), }",
                                          "")),
                       "dimension too large"));
}

TEST(NpyErrors, FortranOrder) {
  EXPECT_TRUE(
      contains(parseError(bytesOf(kNumpyFortran)), "Fortran-order arrays are not supported"));
}

TEST(NpyErrors, BigEndian) {
  std::string message = parseError(bytesOf(kNumpyBigEndian));
  EXPECT_TRUE(contains(message, "big-endian"));
  EXPECT_TRUE(contains(message, "'>f4'"));
}

TEST(NpyErrors, UnsupportedDType) {
  std::string message = parseError(bytesOf(kNumpyU2));
  EXPECT_TRUE(contains(message, "unsupported dtype '<u2'"));
  EXPECT_TRUE(contains(message, "supported: <f4, <f8, <f2, <i4, <i8, |b1"));
  EXPECT_TRUE(
      contains(parseError(makeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                                  std::string(8, '\0'))),
               "unsupported dtype '<c8'"));
}

TEST(NpyErrors, MissingKeys) {
  EXPECT_TRUE(contains(
      parseError(makeNpy("{'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'))),
      "the .npy header has no 'descr'"));
  EXPECT_TRUE(
      contains(parseError(makeNpy("{'descr': '<f4', 'shape': (1,), }", std::string(4, '\0'))),
               "the .npy header has no 'fortran_order'"));
  EXPECT_TRUE(contains(
      parseError(makeNpy("{'descr': '<f4', 'fortran_order': False, }", std::string(4, '\0'))),
      "the .npy header has no 'shape'"));
}

TEST(NpyErrors, MalformedValues) {
  EXPECT_TRUE(contains(parseError(makeNpy("{'descr': '<f4", "")), "malformed 'descr'"));
  EXPECT_TRUE(
      contains(parseError(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }",
                                  std::string(8, '\0'))),
               "malformed 'shape'"));
  EXPECT_TRUE(
      contains(parseError(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", "")),
               "malformed 'shape'"));
  EXPECT_TRUE(
      contains(parseError(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': [2], }",
                                  std::string(8, '\0'))),
               "no 'shape'"));
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

TEST(NpyFiles, WriteThenRead) {
  TempDir dir("shardc-npy");
  Array a = sampleArray(DType::F64, {3, 1, 2});
  std::string path = dir.file("a.npy");
  Status written = writeNpy(path, a);
  ASSERT_TRUE(written.ok()) << written.message();
  StatusOr<Array> back = readNpy(path);
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameArray(*back, a);
  // Only the file itself is left: no temporary beside it.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.npy"});
  // Readable by others, like a file NumPy writes.
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(NpyFiles, ReadErrorsNameThePath) {
  TempDir dir("shardc-npy");
  std::string path = dir.file("missing.npy");
  StatusOr<Array> a = readNpy(path);
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(contains(a.message(), "'" + path + "'"));
  EXPECT_TRUE(contains(a.message(), "No such file or directory"));

  ASSERT_TRUE(writeFileAtomically(dir.file("text.npy"), "hello").ok());
  a = readNpy(dir.file("text.npy"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.message(), dir.file("text.npy") + ": not a NumPy .npy file (bad magic)");
}

TEST(NpyFiles, WriteIntoMissingDirectoryFailsAndLeavesNothing) {
  TempDir dir("shardc-npy");
  std::string path = dir.file("no/such/dir/a.npy");
  Status s = writeNpy(path, sampleArray(DType::F32, {4}));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "'" + path + "'"));
  EXPECT_TRUE(contains(s.message(), "No such file or directory"));
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(dir.file("no")));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(NpyFiles, WriteReplacesAnExistingFileWhole) {
  TempDir dir("shardc-npy");
  std::string path = dir.file("a.npy");
  Array big = sampleArray(DType::I64, {64, 8});
  Array small = sampleArray(DType::I1, {3});
  ASSERT_TRUE(writeNpy(path, big).ok());
  ASSERT_TRUE(writeNpy(path, small).ok());
  // The new file is exactly the new contents: no tail of the old one.
  EXPECT_EQ(fs::file_size(path), serializeNpy(small).size());
  StatusOr<Array> back = readNpy(path);
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameArray(*back, small);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.npy"});
}

TEST(NpyFiles, WriteOverADirectoryFailsAndKeepsIt) {
  TempDir dir("shardc-npy");
  std::string path = dir.file("sub");
  ASSERT_TRUE(fs::create_directory(path));
  ASSERT_TRUE(writeFileAtomically(path + "/keep", "x").ok());
  Status s = writeNpy(path, sampleArray(DType::F32, {2}));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "cannot write '" + path + "'"));
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_TRUE(fs::exists(path + "/keep"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
}

TEST(File, ReadMissingFile) {
  TempDir dir("shardc-npy");
  std::string path = dir.file("missing.txt");
  StatusOr<std::string> s = readFile(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot open '" + path + "': No such file or directory");
}

TEST(File, ReadDirectoryIsAnError) {
  TempDir dir("shardc-npy");
  StatusOr<std::string> s = readFile(dir.path());
  ASSERT_FALSE(s.ok()) << "read " << s->size() << " bytes from a directory";
  EXPECT_TRUE(contains(s.message(), "'" + dir.path() + "'"));
  EXPECT_TRUE(contains(s.message(), "Is a directory"));
}

TEST(File, ReadUnreadableFile) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root can read any file";
  TempDir dir("shardc-npy");
  std::string path = dir.file("secret");
  ASSERT_TRUE(writeFileAtomically(path, "x").ok());
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  StatusOr<std::string> s = readFile(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot open '" + path + "': Permission denied");
}

TEST(File, EmptyAndBinaryFilesRoundTrip) {
  TempDir dir("shardc-npy");
  ASSERT_TRUE(writeFileAtomically(dir.file("empty"), "").ok());
  StatusOr<std::string> empty = readFile(dir.file("empty"));
  ASSERT_TRUE(empty.ok()) << empty.message();
  EXPECT_EQ(*empty, "");

  std::string binary;
  for (int i = 0; i < 200000; ++i) // larger than any single read
    binary += (char)(i * 31 % 256);
  ASSERT_TRUE(writeFileAtomically(dir.file("binary"), binary).ok());
  StatusOr<std::string> back = readFile(dir.file("binary"));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->size(), binary.size());
  EXPECT_TRUE(*back == binary);
}

} // namespace
} // namespace shardc
