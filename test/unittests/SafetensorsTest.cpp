//===- SafetensorsTest.cpp - safetensors checkpoint files -----------------===//
//
// Round trips through the safetensors format (bit-exact, every dtype, scalars
// and empty tensors, metadata), files laid out byte for byte as the Hugging
// Face writer lays them out, one error per kind of corrupt file, hostile
// input that must fail cleanly, and the atomicity of writes when a save is
// interrupted midway.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Array.h"
#include "shardc/Runtime/File.h"
#include "shardc/Runtime/Safetensors.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace shardc {
namespace {

namespace fs = std::filesystem;

::testing::AssertionResult contains(const std::string &text, const std::string &part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

/// The bytes of a string literal, embedded NULs included.
template <size_t N> std::string bytesOf(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string le64(uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = (char)(n >> (8 * i));
  return out;
}

/// A file with the given header JSON, space-padded to a multiple of 8 as
/// Hugging Face pads it, and data.
std::string makeFile(std::string json, const std::string &data) {
  json.append((8 - json.size() % 8) % 8, ' ');
  return le64(json.size()) + json + data;
}

/// A single-tensor header entry.
std::string entry(const std::string &name, const std::string &dtype, const std::string &shape,
                  uint64_t begin, uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
         ",\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
}

Array f32Bits(const Shape &shape, const std::vector<uint32_t> &bits) {
  Array a(DType::F32, shape);
  EXPECT_EQ((size_t)a.numElements(), bits.size());
  std::memcpy(a.bytes(), bits.data(), a.sizeInBytes());
  return a;
}

/// Bit-exact comparison, so NaN payloads and the sign of zero count.
void expectSameTensors(const NamedArrays &actual, const NamedArrays &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("tensor " + expected[i].first);
    EXPECT_EQ(actual[i].first, expected[i].first);
    EXPECT_EQ(dtypeName(actual[i].second.dtype()),
              std::string(dtypeName(expected[i].second.dtype())));
    EXPECT_EQ(actual[i].second.shape(), expected[i].second.shape());
    EXPECT_TRUE(actual[i].second == expected[i].second) << "contents differ";
  }
}

using shardc::test::TempDir;

/// Disarms the write-failure hook even when a test fails early.
struct HookGuard {
  ~HookGuard() { setSafetensorsWriteFailureForTesting(-1); }
};

/// Distinct, exactly representable values of both signs (0/1 for i1).
Array sampleArray(DType dtype, const Shape &shape, int seed = 0) {
  Array a(dtype, shape);
  for (int64_t i = 0; i < a.numElements(); ++i) {
    int64_t k = i + seed;
    if (dtype == DType::I1)
      a.setInt(i, (k * 7 + 1) % 3 == 0);
    else if (isFloat(dtype))
      a.setDouble(i, (k % 2 ? -1.0 : 1.0) * (0.25 * k + 0.5));
    else
      a.setInt(i, (k % 2 ? -1 : 1) * (k * 1000 + 3));
  }
  return a;
}

/// A checkpoint of every dtype, with a scalar and empty tensors.
NamedArrays sampleCheckpoint(int seed = 0) {
  return {
      {"embed.weight", sampleArray(DType::F32, {4, 3}, seed)},
      {"layer.0.bias", sampleArray(DType::F64, {5}, seed)},
      {"half", sampleArray(DType::F16, {2, 3}, seed)},
      {"brain", sampleArray(DType::BF16, {3}, seed)},
      {"step", sampleArray(DType::I64, {}, seed)},
      {"ids", sampleArray(DType::I32, {2, 2}, seed)},
      {"mask", sampleArray(DType::I1, {7}, seed)},
      {"empty", Array(DType::F32, {0})},
      {"empty.2d", Array(DType::I64, {3, 0})},
  };
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(Safetensors, RoundTripIsBitExact) {
  // -0, infinities, a quiet NaN with a payload, a signalling NaN, a negative
  // NaN, a denormal: stored as given, never converted.
  Array special = f32Bits({8}, {0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc12345u, 0x7fa00001u,
                                0xffc00000u, 0x00000001u, 0x3f800000u});
  NamedArrays tensors = {
      {"special", special},
      {"ints", Array::fromInts(DType::I32, {2, 2}, {INT32_MIN, INT32_MAX, 0, -1})},
      {"scalar", Array::fromDoubles(DType::F32, {}, {-0.0})},
      {"scalar.i32", Array::fromInts(DType::I32, {}, {42})},
      {"empty", Array(DType::F32, {0})},
      {"empty.3d", Array(DType::I32, {2, 0, 5})},
      {"after.empty", Array::fromInts(DType::I64, {2}, {INT64_MIN, INT64_MAX})},
  };
  StatusOr<std::string> bytes = serializeSafetensors(tensors);
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  StatusOr<SafetensorsFile> back = parseSafetensors(*bytes, "roundtrip.safetensors");
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameTensors(back->tensors, tensors);
  EXPECT_TRUE(back->metadata.empty());
  uint32_t nan;
  std::memcpy(&nan, back->find("special")->bytes() + 3 * 4, 4);
  EXPECT_EQ(nan, 0x7fc12345u);
  EXPECT_TRUE(std::signbit(back->find("scalar")->getDouble(0)));
}

TEST(Safetensors, RoundTripEveryDTypeThroughAFile) {
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("model.safetensors");
  NamedArrays tensors = sampleCheckpoint();
  Status written = writeSafetensors(path, tensors, {{"format", "pt"}});
  ASSERT_TRUE(written.ok()) << written.message();
  StatusOr<SafetensorsFile> back = readSafetensors(path);
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameTensors(back->tensors, tensors);
  EXPECT_EQ(back->metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
  // The file is exactly what serializeSafetensors gives.
  StatusOr<std::string> onDisk = readFile(path);
  ASSERT_TRUE(onDisk.ok()) << onDisk.message();
  EXPECT_TRUE(*onDisk == *serializeSafetensors(tensors, {{"format", "pt"}}));
  // Only the file itself is left, readable by others.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(Safetensors, NoTensorsAtAll) {
  StatusOr<std::string> bytes = serializeSafetensors({});
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  EXPECT_TRUE(*bytes == le64(8) + "{}      ");
  StatusOr<SafetensorsFile> back = parseSafetensors(*bytes, "none.safetensors");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_TRUE(back->tensors.empty());
}

TEST(Safetensors, MetadataAndNamesNeedingEscapesRoundTrip) {
  std::map<std::string, std::string> metadata = {
      {"format", "pt"},
      {"quote\"and\\backslash", "line\nbreak\ttab\r\x01\x1f/slash"},
      {"unicode", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"},
      {"", "empty key"},
      {"empty value", ""},
  };
  NamedArrays tensors = {
      {"w\"eird\\name\n", sampleArray(DType::F32, {2})},
      {"\xce\xb8.weight", sampleArray(DType::I32, {1})},
  };
  StatusOr<std::string> bytes = serializeSafetensors(tensors, metadata);
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  // Control characters are escaped; the JSON holds no raw ones.
  std::string header = bytes->substr(8, bytes->size() - 8 - 12);
  for (char c : header)
    EXPECT_GE((unsigned char)c, 0x20) << "raw control character in the header";
  EXPECT_TRUE(contains(header, "\"quote\\\"and\\\\backslash\""));
  EXPECT_TRUE(contains(header, "line\\nbreak\\ttab\\r\\u0001\\u001f/slash"));
  StatusOr<SafetensorsFile> back = parseSafetensors(*bytes, "meta.safetensors");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->metadata, metadata);
  expectSameTensors(back->tensors, tensors);
}

TEST(Safetensors, FindByName) {
  StatusOr<SafetensorsFile> file =
      parseSafetensors(*serializeSafetensors(sampleCheckpoint()), "find.safetensors");
  ASSERT_TRUE(file.ok()) << file.message();
  const Array *ids = file->find("ids");
  ASSERT_NE(ids, nullptr);
  EXPECT_TRUE(*ids == sampleArray(DType::I32, {2, 2}));
  EXPECT_EQ(file->find("no.such.tensor"), nullptr);
}

TEST(Safetensors, HeaderIsPaddedToAMultipleOf8) {
  // Name lengths 1..16 cover every remainder of the JSON length mod 8.
  for (int len = 1; len <= 16; ++len) {
    SCOPED_TRACE("name length " + std::to_string(len));
    Array a = sampleArray(DType::F64, {3});
    StatusOr<std::string> bytes = serializeSafetensors({{std::string(len, 'n'), a}});
    ASSERT_TRUE(bytes.ok()) << bytes.message();
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
      n |= (uint64_t)(unsigned char)(*bytes)[i] << (8 * i);
    EXPECT_EQ(n % 8, 0u);
    EXPECT_EQ(bytes->size(), 8 + n + a.sizeInBytes());
    // The JSON ends with '}' and only spaces pad it (fewer than 8).
    std::string header = bytes->substr(8, n);
    size_t close = header.rfind('}');
    EXPECT_LT(header.size() - 1 - close, 8u);
    EXPECT_EQ(header.find_first_not_of(' ', close + 1), std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// The Hugging Face layout, built by hand
//===----------------------------------------------------------------------===//

TEST(SafetensorsCompat, SingleTensorMatchesTheHuggingFaceBytes) {
  // save_file({"attn0": torch.arange(6.).reshape(1, 1, 2, 3)}): a 65-byte
  // header padded with 7 spaces to 72 ('H'), then six little-endian f32.
  std::string expected = bytesOf("H\0\0\0\0\0\0\0") +
                         "{\"attn0\":{\"dtype\":\"F32\",\"shape\":[1,1,2,3],"
                         "\"data_offsets\":[0,24]}}       " +
                         bytesOf("\000\000\000\000"
                                 "\000\000\200\077"
                                 "\000\000\000\100"
                                 "\000\000\100\100"
                                 "\000\000\200\100"
                                 "\000\000\240\100");
  ASSERT_EQ(expected.size(), 8u + 72 + 24);
  Array attn = Array::fromDoubles(DType::F32, {1, 1, 2, 3}, {0, 1, 2, 3, 4, 5});

  StatusOr<std::string> ours = serializeSafetensors({{"attn0", attn}});
  ASSERT_TRUE(ours.ok()) << ours.message();
  EXPECT_TRUE(*ours == expected) << "serialized header: " << ours->substr(8, 72);

  StatusOr<SafetensorsFile> read = parseSafetensors(expected, "hf.safetensors");
  ASSERT_TRUE(read.ok()) << read.message();
  expectSameTensors(read->tensors, {{"attn0", attn}});
}

TEST(SafetensorsCompat, CheckpointWithMetadataMatchesTheHuggingFaceBytes) {
  // save_file({"weight": f32 2x2, "step": i64 scalar, "mask": bool 3},
  //           metadata={"format": "pt"}): Hugging Face orders the tensors by
  // descending dtype alignment (I64, F32, BOOL), metadata first; 207 bytes
  // of JSON and one space make 208 (0xd0).
  std::string expected = bytesOf("\320\0\0\0\0\0\0\0") +
                         "{\"__metadata__\":{\"format\":\"pt\"},"
                         "\"step\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]},"
                         "\"weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[8,24]},"
                         "\"mask\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[24,27]}} " +
                         bytesOf("\350\003\000\000\000\000\000\000" // 1000
                                 "\000\000\200\077"
                                 "\000\000\000\300"
                                 "\000\000\000\077"
                                 "\000\000\100\100" // 1 -2 .5 3
                                 "\001\000\001");
  ASSERT_EQ(expected.size(), 8u + 208 + 27);
  NamedArrays tensors = {
      {"step", Array::fromInts(DType::I64, {}, {1000})},
      {"weight", Array::fromDoubles(DType::F32, {2, 2}, {1.0, -2.0, 0.5, 3.0})},
      {"mask", Array::fromInts(DType::I1, {3}, {1, 0, 1})},
  };

  StatusOr<std::string> ours = serializeSafetensors(tensors, {{"format", "pt"}});
  ASSERT_TRUE(ours.ok()) << ours.message();
  EXPECT_TRUE(*ours == expected) << "serialized header: " << ours->substr(8, 208);

  StatusOr<SafetensorsFile> read = parseSafetensors(expected, "hf.safetensors");
  ASSERT_TRUE(read.ok()) << read.message();
  expectSameTensors(read->tensors, tensors);
  EXPECT_EQ(read->metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
}

TEST(SafetensorsCompat, HeaderOrderSpacingEscapesAndExtraKeysDoNotMatter) {
  // Another writer: pretty-printed, keys in another order, the tensors listed
  // out of data order, an escaped name, an unknown key, a null metadata.
  std::string json = "{\n  \"b\\u00e9ta\" : { \"shape\" : [ 2 ], \"data_offsets\" : [ 8 , 16 ],\n"
                     "    \"dtype\" : \"I32\", \"x-extra\": {\"nested\": [1.5e3, true, null]} },\n"
                     "  \"__metadata__\" : null,\n"
                     "  \"alpha\" : {\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[0,8]}\n}\n";
  std::string data = bytesOf("\000\000\000\000\000\000\370\077" // 1.5
                             "\007\000\000\000"
                             "\371\377\377\377"); // 7 -7
  StatusOr<SafetensorsFile> read = parseSafetensors(makeFile(json, data), "other.safetensors");
  ASSERT_TRUE(read.ok()) << read.message();
  // In data order.
  expectSameTensors(read->tensors, {{"alpha", Array::fromDoubles(DType::F64, {}, {1.5})},
                                    {"b\xc3\xa9ta", Array::fromInts(DType::I32, {2}, {7, -7})}});
  EXPECT_TRUE(read->metadata.empty());
  // A surrogate pair decodes to one 4-byte UTF-8 character.
  read = parseSafetensors(makeFile("{\"\\ud83d\\ude00\":{\"dtype\":\"BOOL\",\"shape\":[],"
                                   "\"data_offsets\":[0,1]}}",
                                   bytesOf("\001")),
                          "emoji.safetensors");
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_NE(read->find("\xf0\x9f\x98\x80"), nullptr);
}

//===----------------------------------------------------------------------===//
// Corrupt files
//===----------------------------------------------------------------------===//

/// Parses `bytes`, expects failure, and returns the message.
std::string parseError(const std::string &bytes) {
  StatusOr<SafetensorsFile> f = parseSafetensors(bytes, "bad.safetensors");
  EXPECT_FALSE(f.ok());
  if (f.ok())
    return "";
  // Every message names the file.
  EXPECT_EQ(f.message().rfind("bad.safetensors: ", 0), 0u) << f.message();
  return f.message();
}

/// A file of one header entry (the object's members, without braces).
std::string parseEntryError(const std::string &members, const std::string &data) {
  return parseError(makeFile("{" + members + "}", data));
}

TEST(SafetensorsErrors, MissingFile) {
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("missing.safetensors");
  StatusOr<SafetensorsFile> f = readSafetensors(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.message(), "cannot open '" + path + "': No such file or directory");
}

TEST(SafetensorsErrors, ReadingADirectory) {
  TempDir dir("shardc-safetensors");
  ASSERT_TRUE(fs::create_directory(dir.file("sub")));
  StatusOr<SafetensorsFile> f = readSafetensors(dir.file("sub"));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.message(), "cannot read '" + dir.file("sub") + "': Is a directory");
}

TEST(SafetensorsErrors, ShorterThanTheHeaderLength) {
  EXPECT_TRUE(
      contains(parseError(""), "the file is 0 bytes, shorter than the 8-byte header length"));
  EXPECT_TRUE(
      contains(parseError(std::string("\x10\0\0", 3)), "the file is 3 bytes, shorter than"));
  EXPECT_TRUE(contains(parseError(std::string(7, '\0')), "7 bytes"));
  // Through a real file, the path names it.
  TempDir dir("shardc-safetensors");
  ASSERT_TRUE(writeFileAtomically(dir.file("short"), "abc").ok());
  StatusOr<SafetensorsFile> f = readSafetensors(dir.file("short"));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.message(),
            dir.file("short") + ": the file is 3 bytes, shorter than the 8-byte header length");
}

TEST(SafetensorsErrors, HeaderLengthPastTheEndOfTheFile) {
  EXPECT_TRUE(contains(parseError(le64(100) + "{}"),
                       "header length 100 runs past the end of the file (10 bytes)"));
  // One byte short.
  std::string file = makeFile("{}", "");
  EXPECT_TRUE(contains(parseError(file.substr(0, file.size() - 1)),
                       "header length 8 runs past the end of the file (15 bytes)"));
  EXPECT_TRUE(contains(parseError(le64(UINT64_MAX) + "{}"), "header length"));
}

TEST(SafetensorsErrors, AbsurdHeaderLength) {
  EXPECT_TRUE(contains(parseError(le64(100000001) + "{}"),
                       "header length 100000001 is larger than the 100000000-byte limit"));
  // A text file misread as safetensors.
  EXPECT_TRUE(contains(parseError("hello, world: not a checkpoint"),
                       "is larger than the 100000000-byte limit"));
}

TEST(SafetensorsErrors, HeaderNotValidJson) {
  auto jsonError = [](const std::string &json) { return parseError(le64(json.size()) + json); };
  const char *bad[] = {
      "",                         // nothing
      "{",                        // unterminated
      "{\"a\":}",                 // missing value
      "{\"a\":{},}",              // trailing comma
      "{'a':{}}",                 // single quotes
      "{\"a\" {}}",               // missing colon
      "{\"a\":{\"shape\":[01]}}", // leading zero
      "{\"a\":{\"shape\":[1.]}}", // bad fraction
      "{\"a\":{\"shape\":[-]}}",  // bare minus
      "{\"a\":{\"x\":tru}}",      // bad literal
      "{\"\\q\":{}}",             // bad escape
      "{\"\\u12G4\":{}}",         // bad \u escape
      "{\"\\ud800\":{}}",         // unpaired high surrogate
      "{\"\\udc00\":{}}",         // unpaired low surrogate
      "{\"\\ud800\\u0041\":{}}",  // high surrogate with a non-surrogate
      "{\"a\tb\":{}}",            // raw control character
      "{\"\xff\":{}}",            // invalid UTF-8
      "{\"\xc0\xaf\":{}}",        // overlong UTF-8
      "{\"\xed\xa0\x80\":{}}",    // UTF-8-encoded surrogate
      "{\"\xe6\x97\":{}}",        // truncated UTF-8
      "{} {}",                    // text after the object
  };
  for (const char *json : bad) {
    SCOPED_TRACE(json);
    EXPECT_TRUE(contains(jsonError(json), "the header is not valid JSON: "));
  }
  // NUL padding instead of spaces.
  EXPECT_TRUE(
      contains(jsonError(std::string("{}\0\0", 4)), "text after the top-level value at byte 2"));
  EXPECT_TRUE(contains(jsonError("{\"a\" {}}"), "expected ':' at byte 5"));
  EXPECT_TRUE(contains(jsonError("{\"\\ud800\":{}}"), "unpaired surrogate"));
  EXPECT_TRUE(contains(jsonError("{\"\xff\":{}}"), "invalid UTF-8"));
}

TEST(SafetensorsErrors, DeepNestingIsRejectedNotAStackOverflow) {
  for (size_t depth : {65, 100000}) {
    std::string json = "{\"a\":{\"x\":" + std::string(depth, '[') + std::string(depth, ']') + "}}";
    EXPECT_TRUE(contains(parseError(makeFile(json, "")), "nesting deeper than 64"));
  }
  // Just inside the limit is fine (an unknown key, skipped).
  std::string json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4],\"x\":" +
                     std::string(62, '[') + std::string(62, ']') + "}}";
  StatusOr<SafetensorsFile> f = parseSafetensors(makeFile(json, std::string(4, '\0')), "ok");
  EXPECT_TRUE(f.ok()) << f.message();
}

TEST(SafetensorsErrors, HeaderNotAnObject) {
  for (const char *json : {"[]", "\"a\"", "3", "null", "[{\"a\":{}}]"})
    EXPECT_TRUE(contains(parseError(makeFile(json, "")), "the header is not a JSON object"))
        << json;
}

TEST(SafetensorsErrors, EntryNotAnObject) {
  EXPECT_EQ(parseEntryError("\"w\":[0,4]", ""),
            "bad.safetensors: tensor 'w': the entry is not a JSON object");
  EXPECT_TRUE(contains(parseEntryError("\"w\":\"F32\"", ""), "tensor 'w': the entry"));
}

TEST(SafetensorsErrors, EntryMissingAKey) {
  std::string data(16, '\0');
  EXPECT_EQ(parseEntryError("\"w\":{\"shape\":[4],\"data_offsets\":[0,16]}", data),
            "bad.safetensors: tensor 'w': missing \"dtype\"");
  EXPECT_EQ(parseEntryError("\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,16]}", data),
            "bad.safetensors: tensor 'w': missing \"shape\"");
  EXPECT_EQ(parseEntryError("\"w\":{\"dtype\":\"F32\",\"shape\":[4]}", data),
            "bad.safetensors: tensor 'w': missing \"data_offsets\"");
  EXPECT_EQ(parseEntryError("\"w\":{}", data), "bad.safetensors: tensor 'w': missing \"dtype\"");
}

TEST(SafetensorsErrors, DuplicateKeyInAnEntry) {
  EXPECT_EQ(parseEntryError("\"w\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],"
                            "\"data_offsets\":[0,4]}",
                            std::string(4, '\0')),
            "bad.safetensors: tensor 'w': duplicate \"dtype\"");
}

TEST(SafetensorsErrors, UnsupportedDType) {
  std::string message = parseEntryError(entry("tok", "U8", "[4]", 0, 4), std::string(4, '\0'));
  EXPECT_EQ(message, "bad.safetensors: tensor 'tok': unsupported dtype 'U8' (supported: F32, "
                     "F64, F16, BF16, I32, I64, BOOL)");
  EXPECT_TRUE(contains(parseEntryError(entry("q", "F8_E4M3", "[1]", 0, 1), "x"),
                       "tensor 'q': unsupported dtype 'F8_E4M3'"));
  EXPECT_TRUE(
      contains(parseEntryError(entry("w", "f32", "[1]", 0, 4), "xxxx"), "unsupported dtype 'f32'"));
  EXPECT_EQ(parseEntryError("\"w\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}", "xxxx"),
            "bad.safetensors: tensor 'w': \"dtype\" is not a string");
}

TEST(SafetensorsErrors, BadShape) {
  std::string data(16, '\0');
  EXPECT_EQ(parseEntryError(entry("w", "F32", "[2,-2]", 0, 16), data),
            "bad.safetensors: tensor 'w': dimension 1 of \"shape\" is negative");
  EXPECT_EQ(parseEntryError(entry("w", "F32", "[2.5]", 0, 16), data),
            "bad.safetensors: tensor 'w': dimension 0 of \"shape\" is not an integer");
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F32", "[4e0]", 0, 16), data),
                       "dimension 0 of \"shape\" is not an integer"));
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F32", "[\"4\"]", 0, 16), data),
                       "dimension 0 of \"shape\" is not an integer"));
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F32", "[true]", 0, 16), data),
                       "dimension 0 of \"shape\" is not an integer"));
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F32", "[[4]]", 0, 16), data),
                       "dimension 0 of \"shape\" is not an integer"));
  EXPECT_EQ(parseEntryError(entry("w", "F32", "4", 0, 16), data),
            "bad.safetensors: tensor 'w': \"shape\" is not an array");
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F32", "[9223372036854775808]", 0, 16), data),
                       "dimension 0 of \"shape\" is too large"));
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F32", "[99999999999999999999999]", 0, 16), data),
                       "dimension 0 of \"shape\" is too large"));
  // The element count overflows before the zero, as Hugging Face checks.
  EXPECT_EQ(parseEntryError(entry("w", "F32", "[4294967296,4294967296,0]", 0, 0), ""),
            "bad.safetensors: tensor 'w': shape 4294967296x4294967296x0 is too large");
  // The byte count overflows.
  EXPECT_TRUE(contains(parseEntryError(entry("w", "F64", "[4611686018427387904]", 0, 0), ""),
                       "tensor 'w': shape 4611686018427387904 is too large"));
}

TEST(SafetensorsErrors, OffsetsNotMatchingTheShape) {
  EXPECT_EQ(parseEntryError(entry("w", "F32", "[2,2]", 0, 12), std::string(12, '\0')),
            "bad.safetensors: tensor 'w': data_offsets [0, 12] hold 12 bytes, but F32 of shape "
            "2x2 needs 16");
  EXPECT_TRUE(contains(parseEntryError(entry("s", "I64", "[]", 0, 4), std::string(4, '\0')),
                       "tensor 's': data_offsets [0, 4] hold 4 bytes, but I64 of shape scalar "
                       "needs 8"));
  EXPECT_EQ(parseEntryError(entry("w", "F32", "[1]", 8, 4), std::string(8, '\0')),
            "bad.safetensors: tensor 'w': data_offsets [8, 4] end before they begin");
}

TEST(SafetensorsErrors, MalformedOffsets) {
  auto withOffsets = [](const std::string &offsets) {
    return parseEntryError("\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":" + offsets +
                               "}",
                           std::string(4, '\0'));
  };
  EXPECT_EQ(withOffsets("[0]"),
            "bad.safetensors: tensor 'w': \"data_offsets\" has 1 elements, not 2");
  EXPECT_EQ(withOffsets("[]"),
            "bad.safetensors: tensor 'w': \"data_offsets\" has 0 elements, not 2");
  EXPECT_EQ(withOffsets("[0,4,8]"),
            "bad.safetensors: tensor 'w': \"data_offsets\" has more than 2 elements");
  EXPECT_EQ(withOffsets("[-4,0]"),
            "bad.safetensors: tensor 'w': begin of \"data_offsets\" is negative");
  EXPECT_EQ(withOffsets("[0,4.0]"),
            "bad.safetensors: tensor 'w': end of \"data_offsets\" is not an integer");
  EXPECT_EQ(withOffsets("[0,18446744073709551616]"),
            "bad.safetensors: tensor 'w': end of \"data_offsets\" is too large");
  EXPECT_EQ(withOffsets("{\"begin\":0}"),
            "bad.safetensors: tensor 'w': \"data_offsets\" is not an array [begin, end]");
}

TEST(SafetensorsErrors, OverlappingTensors) {
  std::string message = parseError(
      makeFile("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("b", "F32", "[4]", 8, 24) + "}",
               std::string(24, '\0')));
  EXPECT_EQ(message, "bad.safetensors: tensors 'a' (data_offsets [0, 16]) and 'b' "
                     "(data_offsets [8, 24]) overlap");
  // The same range twice.
  EXPECT_TRUE(contains(parseError(makeFile("{" + entry("a", "F32", "[2]", 0, 8) + "," +
                                               entry("b", "I32", "[2]", 0, 8) + "}",
                                           std::string(8, '\0'))),
                       "overlap"));
  // A zero-size tensor inside another.
  EXPECT_TRUE(contains(parseError(makeFile("{" + entry("a", "F32", "[4]", 0, 16) + "," +
                                               entry("z", "F32", "[0]", 4, 4) + "}",
                                           std::string(16, '\0'))),
                       "'z' (data_offsets [4, 4]) overlap"));
}

TEST(SafetensorsErrors, GapsBetweenTensors) {
  EXPECT_EQ(parseError(makeFile("{" + entry("a", "F32", "[2]", 0, 8) + "," +
                                    entry("b", "F32", "[2]", 16, 24) + "}",
                                std::string(24, '\0'))),
            "bad.safetensors: tensor 'b': data_offsets [16, 24] leave a gap of 8 bytes after "
            "byte 8 (tensors must be contiguous)");
  // The first tensor must start at 0.
  EXPECT_TRUE(contains(
      parseError(makeFile("{" + entry("a", "F32", "[2]", 4, 12) + "}", std::string(12, '\0'))),
      "tensor 'a': data_offsets [4, 12] leave a gap of 4 bytes after byte 0"));
}

TEST(SafetensorsErrors, TruncatedData) {
  std::string full = *serializeSafetensors(
      {{"a", sampleArray(DType::F32, {2})}, {"b", sampleArray(DType::I64, {2})}});
  EXPECT_EQ(parseError(full.substr(0, full.size() - 1)),
            "bad.safetensors: tensor 'b': data_offsets [8, 24] run past the end of the data "
            "(23 bytes; truncated file?)");
  // All of the data gone.
  size_t dataStart = full.size() - 24;
  EXPECT_TRUE(contains(parseError(full.substr(0, dataStart)),
                       "tensor 'a': data_offsets [0, 8] run past the end of the data (0 bytes"));
  // Offsets far outside any file.
  EXPECT_TRUE(
      contains(parseError(makeFile(
                   "{" + entry("huge", "I64", "[1099511627776]", 0, 8796093022208) + "}", "")),
               "tensor 'huge': data_offsets [0, 8796093022208] run past the end"));
}

TEST(SafetensorsErrors, TrailingBytes) {
  std::string full = *serializeSafetensors({{"a", sampleArray(DType::F32, {2})}});
  EXPECT_EQ(parseError(full + "xyz"),
            "bad.safetensors: the data is 11 bytes, 3 more than the tensors need (trailing "
            "bytes after the last tensor)");
  EXPECT_TRUE(contains(parseError(makeFile("{}", "junk")), "the data is 4 bytes, 4 more"));
}

TEST(SafetensorsErrors, DuplicateNames) {
  EXPECT_EQ(parseError(makeFile("{" + entry("w", "F32", "[1]", 0, 4) + "," +
                                    entry("v", "F32", "[1]", 4, 8) + "," +
                                    entry("w", "F32", "[1]", 8, 12) + "}",
                                std::string(12, '\0'))),
            "bad.safetensors: duplicate tensor name 'w'");
  // The same name spelled two ways is still the same name.
  EXPECT_TRUE(contains(parseError(makeFile("{" + entry("A", "F32", "[1]", 0, 4) + "," +
                                               entry("\\u0041", "F32", "[1]", 4, 8) + "}",
                                           std::string(8, '\0'))),
                       "duplicate tensor name 'A'"));
}

TEST(SafetensorsErrors, BadMetadata) {
  std::string tensor = entry("w", "F32", "[1]", 0, 4);
  std::string data(4, '\0');
  EXPECT_EQ(parseEntryError("\"__metadata__\":{\"format\":\"pt\",\"epoch\":3}," + tensor, data),
            "bad.safetensors: \"__metadata__\" value of 'epoch' is not a string");
  EXPECT_TRUE(contains(parseEntryError("\"__metadata__\":{\"k\":null}," + tensor, data),
                       "value of 'k' is not a string"));
  EXPECT_TRUE(contains(parseEntryError("\"__metadata__\":{\"k\":{\"a\":\"b\"}}," + tensor, data),
                       "value of 'k' is not a string"));
  EXPECT_EQ(parseEntryError("\"__metadata__\":[\"pt\"]," + tensor, data),
            "bad.safetensors: \"__metadata__\" is not a JSON object");
  EXPECT_EQ(parseEntryError("\"__metadata__\":{\"k\":\"a\",\"k\":\"b\"}," + tensor, data),
            "bad.safetensors: duplicate key 'k' in \"__metadata__\"");
  EXPECT_EQ(parseEntryError("\"__metadata__\":{},\"__metadata__\":{}," + tensor, data),
            "bad.safetensors: duplicate \"__metadata__\"");
}

TEST(SafetensorsErrors, HostileNamesAreQuotedAndCut) {
  std::string name(1000, 'x');
  std::string message =
      parseEntryError(entry(name + "\\n", "U8", "[1]", 0, 1), std::string(1, '\0'));
  EXPECT_TRUE(contains(message, "tensor '" + std::string(80, 'x') + "...': unsupported"));
  EXPECT_LT(message.size(), 250u);
  message = parseEntryError(entry("a\\u0007b", "U8", "[1]", 0, 1), std::string(1, '\0'));
  EXPECT_TRUE(contains(message, "tensor 'a\\x07b': unsupported")) << message;
}

TEST(SafetensorsErrors, NonzeroBoolBytesReadAsTrue) {
  StatusOr<SafetensorsFile> f = parseSafetensors(
      makeFile("{" + entry("m", "BOOL", "[3]", 0, 3) + "}", bytesOf("\000\007\377")), "b.st");
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->find("m")->toInts(), (std::vector<int64_t>{0, 1, 1}));
}

TEST(SafetensorsErrors, DamagedFilesFailCleanly) {
  // Every truncation and many single-byte changes of a valid file: each
  // either fails with a message or (for a change inside the data) parses.
  std::string full = *serializeSafetensors(sampleCheckpoint(), {{"format", "pt"}});
  for (size_t n = 0; n < full.size(); ++n)
    EXPECT_FALSE(parseSafetensors(full.substr(0, n), "cut").ok()) << "cut at " << n;
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (size_t)(state >> 33);
  };
  for (int i = 0; i < 3000; ++i) {
    std::string damaged = full;
    int changes = 1 + (int)(next() % 3);
    for (int k = 0; k < changes; ++k)
      damaged[next() % damaged.size()] = (char)(next() % 256);
    StatusOr<SafetensorsFile> f = parseSafetensors(damaged, "damaged");
    if (!f.ok()) {
      EXPECT_EQ(f.message().rfind("damaged: ", 0), 0u) << f.message();
    }
  }
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

TEST(SafetensorsWrite, InterruptedSaveKeepsThePreviousCheckpoint) {
  HookGuard guard;
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("ckpt.safetensors");
  NamedArrays v1 = sampleCheckpoint(1);
  ASSERT_TRUE(writeSafetensors(path, v1, {{"step", "100"}}).ok());
  StatusOr<std::string> v1Bytes = readFile(path);
  ASSERT_TRUE(v1Bytes.ok()) << v1Bytes.message();

  NamedArrays v2 = sampleCheckpoint(2);
  v2.push_back({"extra", sampleArray(DType::F64, {64})});
  std::string v2Bytes = *serializeSafetensors(v2, {{"step", "200"}});
  size_t headerEnd = v2Bytes.size();
  for (const auto &t : v2)
    headerEnd -= t.second.sizeInBytes();
  // In the length, in the JSON, at its end, in the data, and with every byte
  // written but the rename not yet done.
  for (int64_t failAfter :
       {(int64_t)0, (int64_t)1, (int64_t)7, (int64_t)8, (int64_t)9, (int64_t)headerEnd - 1,
        (int64_t)headerEnd, (int64_t)headerEnd + 1, (int64_t)v2Bytes.size() / 2,
        (int64_t)v2Bytes.size() - 1, (int64_t)v2Bytes.size(), (int64_t)v2Bytes.size() + 100}) {
    SCOPED_TRACE("failing after " + std::to_string(failAfter) + " bytes");
    setSafetensorsWriteFailureForTesting(failAfter);
    Status s = writeSafetensors(path, v2, {{"step", "200"}});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message(), "cannot write '" + path + "': simulated write failure (test hook)");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});
    StatusOr<std::string> now = readFile(path);
    ASSERT_TRUE(now.ok()) << now.message();
    EXPECT_TRUE(*now == *v1Bytes) << "the previous checkpoint changed";
    StatusOr<SafetensorsFile> loaded = readSafetensors(path);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    expectSameTensors(loaded->tensors, v1);
    EXPECT_EQ(loaded->metadata.at("step"), "100");
  }
  // The hook fires once: the next save goes through.
  ASSERT_TRUE(writeSafetensors(path, v2, {{"step", "200"}}).ok());
  StatusOr<SafetensorsFile> loaded = readSafetensors(path);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  expectSameTensors(loaded->tensors, v2);
  EXPECT_TRUE(*readFile(path) == v2Bytes);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});
}

TEST(SafetensorsWrite, InterruptedFirstSaveLeavesNothing) {
  HookGuard guard;
  TempDir dir("shardc-safetensors");
  setSafetensorsWriteFailureForTesting(20);
  Status s = writeSafetensors(dir.file("ckpt.safetensors"), sampleCheckpoint());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "simulated write failure"));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(SafetensorsWrite, ReplacesAnExistingFileWhole) {
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("ckpt.safetensors");
  ASSERT_TRUE(writeSafetensors(path, {{"big", sampleArray(DType::I64, {64, 8})}}).ok());
  NamedArrays small = {{"small", sampleArray(DType::I1, {3})}};
  ASSERT_TRUE(writeSafetensors(path, small).ok());
  EXPECT_EQ(fs::file_size(path), serializeSafetensors(small)->size());
  StatusOr<SafetensorsFile> back = readSafetensors(path);
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameTensors(back->tensors, small);
}

TEST(SafetensorsWrite, IntoAMissingDirectoryIsAnError) {
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("no/such/dir/ckpt.safetensors");
  Status s = writeSafetensors(path, sampleCheckpoint());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot create a file beside '" + path + "': No such file or directory");
  EXPECT_FALSE(fs::exists(dir.file("no")));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(SafetensorsWrite, OverADirectoryFailsAndKeepsIt) {
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("sub");
  ASSERT_TRUE(fs::create_directory(path));
  Status s = writeSafetensors(path, sampleCheckpoint());
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "cannot write '" + path + "'"));
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
}

TEST(SafetensorsWrite, NamesThatCannotBeWritten) {
  TempDir dir("shardc-safetensors");
  std::string path = dir.file("ckpt.safetensors");
  Array a = sampleArray(DType::F32, {1});
  Status s = writeSafetensors(path, {{"w", a}, {"v", a}, {"w", a}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "cannot write '" + path + "': duplicate tensor name 'w'");
  s = writeSafetensors(path, {{"__metadata__", a}});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "\"__metadata__\" is reserved"));
  s = writeSafetensors(path, {{"bad\xff", a}});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "tensor name 'bad\xff' is not valid UTF-8"));
  s = writeSafetensors(path, {{"w", a}}, {{"k", "\xc3"}});
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), "metadata 'k' is not valid UTF-8"));
  EXPECT_TRUE(dir.entries().empty());
  EXPECT_FALSE(serializeSafetensors({{"w", a}, {"w", a}}).ok());
}

// A sharded checkpoint as Hugging Face lays it out: shard files and an
// index naming each tensor's file, read back as one checkpoint.
TEST(SafetensorsIndex, ShardsAndTheirIndexReadAsOneCheckpoint) {
  TempDir dir("shardc-safetensors-index");
  NamedArrays tensors = sampleCheckpoint();
  ASSERT_GE(tensors.size(), 2u);
  SafetensorsIndex index;
  index.metadata = {{"step", "4"}};
  NamedArrays first, second;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string file = i % 2 ? "m-00002-of-00002.safetensors" : "m-00001-of-00002.safetensors";
    index.weightMap.emplace_back(tensors[i].first, file);
    index.totalSize += (int64_t)tensors[i].second.sizeInBytes();
    (i % 2 ? second : first).push_back(tensors[i]);
  }
  ASSERT_TRUE(writeSafetensors(dir.file("m-00001-of-00002.safetensors"), first).ok());
  ASSERT_TRUE(writeSafetensors(dir.file("m-00002-of-00002.safetensors"), second).ok());
  std::string path = dir.file("m.safetensors.index.json");
  ASSERT_TRUE(writeSafetensorsIndex(path, index).ok());
  EXPECT_TRUE(isSafetensorsIndexPath(path));
  EXPECT_FALSE(isSafetensorsIndexPath(dir.file("m-00001-of-00002.safetensors")));
  StatusOr<SafetensorsFile> back = readShardedSafetensors(path);
  ASSERT_TRUE(back.ok()) << back.message();
  expectSameTensors(back->tensors, tensors);
  EXPECT_EQ(back->metadata.at("step"), "4");
  // The index is JSON a Python reader takes: total_size is a number.
  StatusOr<std::string> text = readFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"total_size\": " + std::to_string(index.totalSize)), std::string::npos)
      << *text;

  // A shard gone, or a tensor not where the index says: errors naming both.
  index.weightMap[0].second = "m-00002-of-00002.safetensors";
  ASSERT_TRUE(writeSafetensorsIndex(path, index).ok());
  StatusOr<SafetensorsFile> misplaced = readShardedSafetensors(path);
  ASSERT_FALSE(misplaced.ok());
  EXPECT_NE(misplaced.message().find("is not in 'm-00002-of-00002.safetensors'"), std::string::npos)
      << misplaced.message();
  ASSERT_EQ(::unlink(dir.file("m-00002-of-00002.safetensors").c_str()), 0);
  StatusOr<SafetensorsFile> missing = readShardedSafetensors(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("m-00002-of-00002.safetensors"), std::string::npos)
      << missing.message();
}

TEST(SafetensorsIndex, HostileIndexesAreClearErrors) {
  struct Case {
    const char *text, *error;
  };
  for (const Case &c : {
           Case{"[]", "not a JSON object"},
           Case{"{\"metadata\": {}}", "no \"weight_map\""},
           Case{"{\"weight_map\": {\"w\": \"../secret.safetensors\"}}", "not a file beside"},
           Case{"{\"weight_map\": {\"w\": \"/etc/passwd\"}}", "not a file beside"},
           Case{"{\"weight_map\": {\"w\": \"..\"}}", "not a file beside"},
           Case{"{\"weight_map\": {\"w\": 3}}", "is not a string"},
           Case{"{\"weight_map\": {\"w\": \"a\", \"w\": \"b\"}}", "twice"},
           Case{"{\"metadata\": {\"total_size\": -4}, \"weight_map\": {}}", "not a byte count"},
           Case{"{\"weight_map\": {}", "not valid JSON"},
           Case{"{\"weight_map\": {}} x", "not valid JSON"},
       }) {
    StatusOr<SafetensorsIndex> i = parseSafetensorsIndex(c.text, "crafted.index.json");
    ASSERT_FALSE(i.ok()) << c.text;
    EXPECT_NE(i.message().find("crafted.index.json: "), std::string::npos) << i.message();
    EXPECT_NE(i.message().find(c.error), std::string::npos) << c.text << ": " << i.message();
  }
}

} // namespace
} // namespace shardc
