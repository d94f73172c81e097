//===- MatmulPrecision.h - how f32 products are computed --------*- C++ -*-===//
//
// Header-only and MLIR-free: the dialect's `precision` attribute, the
// compile options and the runtime's products share these names and
// numbers.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_COMMON_MATMULPRECISION_H
#define SHARDC_COMMON_MATMULPRECISION_H

#include <cstdint>
#include <string>

namespace shardc {

/// How a dot_general's products are computed: the operands as they are
/// (F32), or rounded to bf16 or tf32 (10 mantissa bits) first, accumulating
/// in f32 either way. Encoded as the step's optional last attribute.
enum class MatmulPrecision : int64_t { F32 = 0, BF16 = 1, TF32 = 2 };

/// "f32", "bf16", "tf32"; and back (false for anything else).
inline const char *matmulPrecisionName(MatmulPrecision p) {
  switch (p) {
  case MatmulPrecision::F32:
    return "f32";
  case MatmulPrecision::BF16:
    return "bf16";
  case MatmulPrecision::TF32:
    return "tf32";
  }
  return "?";
}
/// The precision `name` names, or `otherwise`.
inline MatmulPrecision matmulPrecisionOr(const std::string &name, MatmulPrecision otherwise);
inline bool parseMatmulPrecision(const std::string &name, MatmulPrecision &p) {
  for (MatmulPrecision q : {MatmulPrecision::F32, MatmulPrecision::BF16, MatmulPrecision::TF32})
    if (name == matmulPrecisionName(q)) {
      p = q;
      return true;
    }
  return false;
}

inline MatmulPrecision matmulPrecisionOr(const std::string &name, MatmulPrecision otherwise) {
  MatmulPrecision p = otherwise;
  parseMatmulPrecision(name, p);
  return p;
}

} // namespace shardc

#endif // SHARDC_COMMON_MATMULPRECISION_H
