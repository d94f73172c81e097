//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format: "\x93NUMPY", major and minor version bytes, the header length
// (2 bytes in 1.0, 4 bytes in 2.0/3.0, little-endian), then a Python dict
// literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded
// with spaces and a newline, then the raw data.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Npy.h"

#include "shardc/Runtime/File.h"

#include <cctype>
#include <cstdint>
#include <cstring>

namespace shardc {

namespace {
struct DescrInfo {
  const char *descr;
  DType dtype;
};
// bf16 has no NumPy descr; it is read from and written as f32.
const DescrInfo kDescrs[] = {
    {"<f4", DType::F32}, {"<f8", DType::F64}, {"<f2", DType::F16},
    {"<i4", DType::I32}, {"<i8", DType::I64}, {"|b1", DType::I1},
};

/// Finds `'key':` in the header dict and returns the position after the colon.
size_t findKey(const std::string &header, const std::string &key) {
  size_t pos = header.find("'" + key + "'");
  if (pos == std::string::npos)
    return pos;
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return pos;
  ++pos;
  while (pos < header.size() && std::isspace((unsigned char)header[pos]))
    ++pos;
  return pos;
}
} // namespace

StatusOr<Array> parseNpy(const std::string &bytes, const std::string &name) {
  auto fail = [&](const std::string &why) { return Status::error(name + ": " + why); };
  if (bytes.size() < 6 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return fail("not a NumPy .npy file (bad magic)");
  if (bytes.size() < 10)
    return fail("truncated .npy header");
  int major = (unsigned char)bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = (unsigned char)bytes[8] | ((size_t)(unsigned char)bytes[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= (size_t)(unsigned char)bytes[8 + i] << (8 * i);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + std::to_string(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated .npy header");
  std::string header = bytes.substr(headerStart, headerLen);

  // descr
  size_t pos = findKey(header, "descr");
  if (pos == std::string::npos || pos >= header.size() ||
      (header[pos] != '\'' && header[pos] != '"'))
    return fail("the .npy header has no 'descr'");
  size_t end = header.find(header[pos], pos + 1);
  if (end == std::string::npos)
    return fail("malformed 'descr' in the .npy header");
  std::string descr = header.substr(pos + 1, end - pos - 1);
  if (descr == "<b1")
    descr = "|b1";
  const DescrInfo *info = nullptr;
  for (const DescrInfo &d : kDescrs)
    if (descr == d.descr)
      info = &d;
  if (!info) {
    if (!descr.empty() && descr[0] == '>')
      return fail("big-endian data ('" + descr + "') is not supported");
    return fail("unsupported dtype '" + descr + "' (supported: <f4, <f8, <f2, <i4, <i8, |b1)");
  }

  // fortran_order
  pos = findKey(header, "fortran_order");
  if (pos == std::string::npos)
    return fail("the .npy header has no 'fortran_order'");
  if (header.compare(pos, 4, "True") == 0)
    return fail("Fortran-order arrays are not supported (use C order)");

  // shape
  pos = findKey(header, "shape");
  if (pos == std::string::npos || header[pos] != '(')
    return fail("the .npy header has no 'shape'");
  end = header.find(')', pos);
  if (end == std::string::npos)
    return fail("malformed 'shape' in the .npy header");
  Shape shape;
  std::string dims = header.substr(pos + 1, end - pos - 1);
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && (std::isspace((unsigned char)dims[i]) || dims[i] == ','))
      ++i;
    if (i >= dims.size())
      break;
    if (!std::isdigit((unsigned char)dims[i]))
      return fail("malformed 'shape' in the .npy header");
    int64_t d = 0;
    while (i < dims.size() && std::isdigit((unsigned char)dims[i])) {
      d = d * 10 + (dims[i] - '0');
      if (d > (int64_t(1) << 40))
        return fail("dimension too large in the .npy header");
      ++i;
    }
    shape.push_back(d);
  }

  // Check the size before allocating: a corrupt shape must fail here, not
  // overflow the element count or allocate terabytes.
  size_t dataStart = headerStart + headerLen;
  size_t have = bytes.size() - dataStart;
  size_t want = dtypeSize(info->dtype);
  bool overflow = false;
  for (int64_t d : shape) {
    if (d == 0) {
      want = 0;
      overflow = false;
      break;
    }
    if (want > SIZE_MAX / (size_t)d)
      overflow = true;
    else
      want *= (size_t)d;
  }
  if (overflow || have != want)
    return fail("data size " + std::to_string(have) + " bytes does not match the header (" +
                std::string(descr) + ", shape " + shapeString(shape) + ": " +
                (overflow ? std::string("too many") : std::to_string(want)) + " bytes)");
  Array array(info->dtype, shape);
  if (array.sizeInBytes())
    std::memcpy(array.bytes(), bytes.data() + dataStart, array.sizeInBytes());
  if (info->dtype == DType::I1)
    for (size_t k = 0; k < array.sizeInBytes(); ++k)
      array.bytes()[k] = array.bytes()[k] != 0;
  return array;
}

StatusOr<Array> readNpy(const std::string &path) {
  StatusOr<std::string> bytes = readFile(path);
  if (!bytes.ok())
    return bytes.status();
  return parseNpy(*bytes, path);
}

std::string serializeNpy(const Array &input) {
  const Array *array = &input;
  Array widened;
  if (input.dtype() == DType::BF16) {
    widened = Array(DType::F32, input.shape());
    for (int64_t i = 0; i < input.numElements(); ++i)
      widened.setDouble(i, input.getDouble(i));
    array = &widened;
  }
  const char *descr = nullptr;
  for (const DescrInfo &d : kDescrs)
    if (d.dtype == array->dtype())
      descr = d.descr;
  std::string shape = "(";
  for (int64_t d : array->shape())
    shape += std::to_string(d) + ", ";
  if (array->rank() > 1)
    shape.erase(shape.size() - 2);
  else if (array->rank() == 1)
    shape.erase(shape.size() - 1);
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, ending with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += (char)1;
  out += (char)0;
  out += (char)(header.size() & 0xff);
  out += (char)(header.size() >> 8);
  out += header;
  out.append((const char *)array->bytes(), array->sizeInBytes());
  return out;
}

Status writeNpy(const std::string &path, const Array &array) {
  return writeFileAtomically(path, serializeNpy(array));
}

} // namespace shardc
