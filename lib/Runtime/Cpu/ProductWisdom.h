//===- ProductWisdom.h - the library measured fastest per product -*- C++ -*-===//
//
// Which library runs a product on the f32 path (f32; tf32 and bf16 without
// bf16 kernels) is measured on the machine that runs it, once per product
// layout, and kept (FFTW's "wisdom" is the model): the first call of a
// layout times oneDNN and OpenBLAS on its own operands,
// and the faster one runs it from then on, in this process and, through a
// file in the compile cache's directory, in later ones. The fixed rule
// (CpuGemm.cpp) is the starting guess; another library replaces it only
// when it measured at least kWisdomMargin faster, so timing noise does not
// flip a layout between runs.
//
// The file is text, one layout per line, under a line naming the machine
// (CPU, OpenBLAS's kernel, oneDNN's version); its name has a hash of that
// line, so another machine (or another OpenBLAS kernel) has another file:
//
//   # shardc product wisdom 1
//   machine AMD EPYC | family 26 model 2 | openblas Cooperlake | onednn 2.6.3
//   f32 m=128 n=64 k=128 items=128 a=n lda=128 b=n ldb=256 threads=2 use=onednn ...
//
// where "..." is "onednn_ms=0.9314 openblas_ms=1.5203" on the same line.
// Without a compile cache directory, or where its file cannot be locked or
// written, the choices last as long as the process.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_CPU_PRODUCTWISDOM_H
#define SHARDC_RUNTIME_CPU_PRODUCTWISDOM_H

#include "CpuKernels.h"

#include "shardc/Runtime/Status.h"

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace shardc::cpu {

/// One product layout as the rule and the measurement see it.
struct ProductLayout {
  int64_t M = 0, N = 0, K = 0, items = 1;
  bool transA = false, transB = false;
  int64_t lda = 0, ldb = 0;
  int threads = 1;
  auto tie() const { return std::tie(M, N, K, items, transA, transB, lda, ldb, threads); }
  bool operator<(const ProductLayout &o) const { return tie() < o.tie(); }
  bool operator==(const ProductLayout &o) const { return tie() == o.tie(); }
};

/// What was measured for a layout, and the library it chose.
struct ProductMeasurement {
  GemmLibrary use = GemmLibrary::OneDnn;
  double oneDnnMs = 0, openBlasMs = 0;
};

/// How much faster than the rule's library another must measure to replace it.
inline constexpr double kWisdomMargin = 1.2;

/// A wisdom file's contents.
struct ProductWisdom {
  std::string machine;
  std::map<ProductLayout, ProductMeasurement> layouts;

  /// Parses a file's text; an error names `source`, the line and what is wrong.
  static StatusOr<ProductWisdom> parse(const std::string &text, const std::string &source);
  std::string serialize() const;
};

/// The library that measured faster, `rule` where the other is not
/// kWisdomMargin faster.
GemmLibrary chooseMeasured(GemmLibrary rule, double oneDnnMs, double openBlasMs);

/// The process's wisdom, loaded from `file` at the first lookup (an empty
/// path keeps it in memory only) and written back, merged with what other
/// processes wrote there meanwhile, after each new measurement.
class WisdomStore {
public:
  explicit WisdomStore(std::string file, std::string machine);
  /// The library for `layout`: the kept one, else `measure` times both
  /// (returning the measurement) and its choice is kept. Thread-safe: while
  /// one thread measures a layout (the first call of each), every other
  /// lookup waits.
  GemmLibrary choose(const ProductLayout &layout, GemmLibrary rule,
                     const std::function<ProductMeasurement()> &measure);
  const std::string &path() const { return file; }

private:
  void load();
  std::mutex mutex;
  std::string file, machine;
  bool loaded = false;
  ProductWisdom wisdom;
};

/// The backend's store: <compile cache>/wisdom/products-<hash of the
/// machine>.txt; nullptr where SHARDC_PRODUCT_WISDOM is 0 (the fixed rule).
WisdomStore *productWisdom();

/// This machine's description for the file's `machine` line.
std::string machineSignature();

} // namespace shardc::cpu

#endif // SHARDC_RUNTIME_CPU_PRODUCTWISDOM_H
