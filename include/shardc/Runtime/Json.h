//===- Json.h - the strict JSON reader and writer of file headers -*- C++ -*-===//
//
// The safetensors header, a sharded checkpoint's index and shardc-gpt's
// device profiles are JSON read from untrusted files. The reader walks the text in place with the
// caller knowing the schema; every error names the byte it is at. UTF-8 is
// checked, and names in messages are quoted and cut short.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_JSON_H
#define SHARDC_RUNTIME_JSON_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace shardc::json {

/// The headers read nest three deep; anything far deeper is hostile.
constexpr int kMaxDepth = 64;

/// Length of the UTF-8 sequence at s[pos], or 0 if it is not valid UTF-8
/// (overlong forms, surrogates and code points past U+10FFFF included).
inline size_t utf8Length(const std::string &s, size_t pos) {
  unsigned char c = s[pos];
  if (c < 0x80)
    return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (pos + len > s.size())
    return 0;
  for (size_t i = 1; i < len; ++i) {
    unsigned char k = s[pos + i];
    if ((k & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (k & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

inline bool isValidUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8Length(s, i);
    if (n == 0)
      return false;
    i += n;
  }
  return true;
}

/// A name for a message: quoted, control bytes escaped, long names cut, so
/// a hostile header cannot flood or garble the message.
inline std::string quote(const std::string &name) {
  constexpr size_t kMax = 80;
  size_t n = std::min(name.size(), kMax);
  while (n < name.size() && n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
    --n; // do not cut a UTF-8 sequence
  std::string out = "'";
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = name[i];
    if (c < 0x20 || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += (char)c;
    }
  }
  return out + (n < name.size() ? "...'" : "'");
}

struct JsonNumber {
  bool integer = true; // no fraction or exponent
  bool negative = false;
  bool overflow = false; // magnitude above 2^64 - 1
  uint64_t magnitude = 0;
};

/// A strict JSON (RFC 8259) reader that walks the text in place: the caller
/// steps through objects and arrays knowing the schema, and skips the rest
/// without building a tree, so a huge header of tiny values costs no memory
/// beyond the values kept.
class JsonReader {
public:
  enum class Kind { Object, Array, String, Number, Literal, End, Invalid };

  explicit JsonReader(const std::string &text) : s(text) {}

  /// The first syntax error, as "... at byte K"; empty when none.
  const std::string &error() const { return err; }

  /// The kind of the next value, after skipping whitespace.
  Kind peek() {
    skipSpace();
    if (pos >= s.size())
      return Kind::End;
    char c = s[pos];
    if (c == '{')
      return Kind::Object;
    if (c == '[')
      return Kind::Array;
    if (c == '"')
      return Kind::String;
    if (c == '-' || (c >= '0' && c <= '9'))
      return Kind::Number;
    if (c == 't' || c == 'f' || c == 'n')
      return Kind::Literal;
    return Kind::Invalid;
  }

  /// Only whitespace may follow the top-level value.
  bool finish() { return peek() == Kind::End || fail("text after the top-level value"); }

  /// Consumes a `null` if one comes next.
  bool readNull() {
    if (peek() != Kind::Literal || s.compare(pos, 4, "null") != 0)
      return false;
    pos += 4;
    return true;
  }

  bool beginObject() { return expect('{', "expected '{'"); }
  bool beginArray() { return expect('[', "expected '['"); }

  /// Reads the next member's key and its ':'; false at the closing '}' or
  /// on an error. `first` is true before the first member.
  bool nextKey(std::string &key, bool &first) {
    if (!nextItem('}', first))
      return false;
    return readString(key) && expect(':', "expected ':'");
  }

  /// Steps to the next element; false at the closing ']' or on an error.
  bool nextElement(bool &first) { return nextItem(']', first); }

  bool readString(std::string &out) {
    out.clear();
    if (!expect('"', "expected a string"))
      return false;
    while (true) {
      if (pos >= s.size())
        return fail("unterminated string");
      unsigned char c = s[pos];
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c < 0x20)
        return fail("control character in a string");
      if (c == '\\') {
        if (!readEscape(out))
          return false;
        continue;
      }
      size_t n = utf8Length(s, pos);
      if (n == 0)
        return fail("invalid UTF-8 in a string");
      out.append(s, pos, n);
      pos += n;
    }
  }

  bool readNumber(JsonNumber &out) {
    out = JsonNumber();
    skipSpace();
    if (pos < s.size() && s[pos] == '-') {
      out.negative = true;
      ++pos;
    }
    if (pos >= s.size() || !isDigit(s[pos]))
      return fail("invalid number");
    if (s[pos] == '0') {
      ++pos; // no leading zeros: "01" stops after the 0 and fails later
    } else {
      while (pos < s.size() && isDigit(s[pos])) {
        uint64_t d = (uint64_t)(s[pos] - '0');
        if (out.magnitude > (UINT64_MAX - d) / 10)
          out.overflow = true;
        else
          out.magnitude = out.magnitude * 10 + d;
        ++pos;
      }
    }
    if (pos < s.size() && s[pos] == '.') {
      out.integer = false;
      ++pos;
      if (!skipDigits())
        return fail("invalid number");
    }
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
      out.integer = false;
      ++pos;
      if (pos < s.size() && (s[pos] == '+' || s[pos] == '-'))
        ++pos;
      if (!skipDigits())
        return fail("invalid number");
    }
    return true;
  }

  /// Reads any value and discards it; `depth` is that of the value.
  bool skipValue(int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    std::string scratch;
    JsonNumber number;
    bool first = true;
    switch (peek()) {
    case Kind::Object:
      beginObject();
      while (nextKey(scratch, first))
        if (!skipValue(depth + 1))
          return false;
      return err.empty();
    case Kind::Array:
      beginArray();
      while (nextElement(first))
        if (!skipValue(depth + 1))
          return false;
      return err.empty();
    case Kind::String:
      return readString(scratch);
    case Kind::Number:
      return readNumber(number);
    case Kind::Literal:
      for (const char *word : {"true", "false", "null"})
        if (s.compare(pos, std::strlen(word), word) == 0) {
          pos += std::strlen(word);
          return true;
        }
      return fail("invalid literal");
    case Kind::End:
      return fail("unexpected end of the header");
    case Kind::Invalid:
      break;
    }
    return fail("unexpected character");
  }

private:
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }

  bool skipDigits() {
    size_t start = pos;
    while (pos < s.size() && isDigit(s[pos]))
      ++pos;
    return pos > start;
  }

  bool fail(const std::string &what) {
    if (err.empty())
      err = what + " at byte " + std::to_string(pos);
    return false;
  }

  bool expect(char c, const char *what) {
    skipSpace();
    if (pos >= s.size() || s[pos] != c)
      return fail(what);
    ++pos;
    return true;
  }

  /// Past the ',' before the next item, or the closing bracket (false).
  bool nextItem(char close, bool &first) {
    if (!err.empty())
      return false;
    skipSpace();
    if (pos < s.size() && s[pos] == close && first) {
      ++pos;
      return false;
    }
    if (!first) {
      if (pos < s.size() && s[pos] == close) {
        ++pos;
        return false;
      }
      if (!expect(',', close == '}' ? "expected ',' or '}'" : "expected ',' or ']'"))
        return false;
    }
    first = false;
    return true;
  }

  bool readHex4(uint32_t &value) {
    if (pos + 4 > s.size())
      return fail("truncated \\u escape");
    value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s[pos++];
      int digit = isDigit(c)               ? c - '0'
                  : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                           : -1;
      if (digit < 0)
        return fail("invalid \\u escape");
      value = value * 16 + (uint32_t)digit;
    }
    return true;
  }

  /// At a backslash: appends the escaped character, as UTF-8.
  bool readEscape(std::string &out) {
    ++pos;
    if (pos >= s.size())
      return fail("unterminated string");
    char c = s[pos++];
    switch (c) {
    case '"':
      out += '"';
      return true;
    case '\\':
      out += '\\';
      return true;
    case '/':
      out += '/';
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      --pos;
      return fail("invalid escape");
    }
    uint32_t cp;
    if (!readHex4(cp))
      return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      return fail("unpaired surrogate in a \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low;
      if (s.compare(pos, 2, "\\u") != 0)
        return fail("unpaired surrogate in a \\u escape");
      pos += 2;
      if (!readHex4(low))
        return false;
      if (low < 0xDC00 || low > 0xDFFF)
        return fail("unpaired surrogate in a \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      out += (char)cp;
    } else if (cp < 0x800) {
      out += (char)(0xC0 | (cp >> 6));
      out += (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += (char)(0xE0 | (cp >> 12));
      out += (char)(0x80 | ((cp >> 6) & 0x3F));
      out += (char)(0x80 | (cp & 0x3F));
    } else {
      out += (char)(0xF0 | (cp >> 18));
      out += (char)(0x80 | ((cp >> 12) & 0x3F));
      out += (char)(0x80 | ((cp >> 6) & 0x3F));
      out += (char)(0x80 | (cp & 0x3F));
    }
    return true;
  }

  const std::string &s;
  size_t pos = 0;
  std::string err;
};

/// Appends `s` as a JSON string literal.
inline void appendJsonString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char hex[8];
        std::snprintf(hex, sizeof(hex), "\\u%04x", c);
        out += hex;
      } else {
        out += (char)c;
      }
    }
  }
  out += '"';
}

} // namespace shardc::json

#endif // SHARDC_RUNTIME_JSON_H
