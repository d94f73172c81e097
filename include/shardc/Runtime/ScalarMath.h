//===- ScalarMath.h - the functions elementwise formulas use ----*- C++ -*-===//
//
// The vocabulary of the formulas in OpCodes.def, and the formulas
// themselves as one function template per op: scalar::Tanh<T>(x). The same
// text compiles as host C++, as CUDA device code (nvcc) and under NVRTC,
// which has no headers (the CUDA code generator embeds this file). The
// LLVM JIT gives the same names to its vector values (FusedKernelIR.cpp).
//
// A function a new formula needs that is not here is one line of
// SHARDC_SCALAR_CALLS when the C library has it (and glibc's libmvec a
// vector variant: _ZGV*_<float name>), or of SHARDC_SCALAR_INTRINSICS when
// LLVM has an intrinsic for it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_SCALARMATH_H
#define SHARDC_RUNTIME_SCALARMATH_H

#if !defined(__CUDACC_RTC__)
#include <math.h>
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SHARDC_SCALAR __host__ __device__ inline
#else
#define SHARDC_SCALAR inline
#endif

/// X(function, the C library's float name, its double name): functions
/// whose vector form is libmvec's variant of the float name.
#define SHARDC_SCALAR_CALLS(X)                                                                     \
  X(exp, expf, exp)                                                                                \
  X(log, logf, log)                                                                                \
  X(tanh, tanhf, tanh)                                                                             \
  X(erf, erff, erf)                                                                                \
  X(log1p, log1pf, log1p)                                                                          \
  X(expm1, expm1f, expm1)                                                                          \
  X(sin, sinf, sin)                                                                                \
  X(cos, cosf, cos)                                                                                \
  X(tan, tanf, tan)                                                                                \
  X(cbrt, cbrtf, cbrt)
/// X(function, the C library's float name, its double name, the LLVM
/// intrinsic of its vector form).
#define SHARDC_SCALAR_INTRINSICS(X)                                                                \
  X(sqrt, sqrtf, sqrt, sqrt)                                                                       \
  X(abs, fabsf, fabs, fabs)                                                                        \
  X(floor, floorf, floor, floor)                                                                   \
  X(ceil, ceilf, ceil, ceil)                                                                       \
  X(round_even, rintf, rint, rint)                                                                 \
  X(round_afz, roundf, round, round)
/// X(function, float name, double name): two-operand library functions.
#define SHARDC_SCALAR_CALLS2(X) X(pow, powf, pow) X(atan2, atan2f, atan2)

namespace shardc {
namespace scalar {

#define SHARDC_SCALAR_DEFINE(fn, f32, f64, ...)                                                    \
  SHARDC_SCALAR float fn(float x) { return ::f32(x); }                                             \
  SHARDC_SCALAR double fn(double x) { return ::f64(x); }
SHARDC_SCALAR_CALLS(SHARDC_SCALAR_DEFINE)
SHARDC_SCALAR_INTRINSICS(SHARDC_SCALAR_DEFINE)
#undef SHARDC_SCALAR_DEFINE
#define SHARDC_SCALAR_DEFINE2(fn, f32, f64)                                                        \
  SHARDC_SCALAR float fn(float x, float y) { return ::f32(x, y); }                                 \
  SHARDC_SCALAR double fn(double x, double y) { return ::f64(x, y); }
SHARDC_SCALAR_CALLS2(SHARDC_SCALAR_DEFINE2)
#undef SHARDC_SCALAR_DEFINE2
/// fmod has no libmvec form: the JIT emits LLVM's frem for it.
SHARDC_SCALAR float fmod(float x, float y) { return ::fmodf(x, y); }
SHARDC_SCALAR double fmod(double x, double y) { return ::fmod(x, y); }

SHARDC_SCALAR float quietNaN(float) {
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
  return __uint_as_float(0x7fc00000u);
#else
  return __builtin_nanf("");
#endif
}
SHARDC_SCALAR double quietNaN(double) {
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
  return __longlong_as_double(0x7ff8000000000000ll);
#else
  return __builtin_nan("");
#endif
}

/// max and min propagate NaN (a quiet NaN when either operand is one).
template <typename T> SHARDC_SCALAR T maximum(T x, T y) {
  return (x != x || y != y) ? quietNaN(x) : (x > y ? x : y);
}
template <typename T> SHARDC_SCALAR T minimum(T x, T y) {
  return (x != x || y != y) ? quietNaN(x) : (x < y ? x : y);
}

// The formulas of OpCodes.def: scalar::Name<T>(x) and scalar::Name<T>(x, y).
#define SHARDC_UNARY(Name, name, number, types, partial, lo, hi, formula)                          \
  template <typename T> SHARDC_SCALAR T Name(T x) { return formula; }
#define SHARDC_BINARY(Name, name, number, types, partial, lo, hi, formula)                         \
  template <typename T> SHARDC_SCALAR T Name(T x, T y) { return formula; }
#include "shardc/Common/OpCodes.def"

} // namespace scalar
} // namespace shardc

#endif // SHARDC_RUNTIME_SCALARMATH_H
