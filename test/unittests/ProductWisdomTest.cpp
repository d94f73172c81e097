//===- ProductWisdomTest.cpp - the library measured fastest per product ---===//
//
// The product wisdom's file (written, read back, and every malformed line
// named), its choice (another library replaces the rule's only by the
// margin), its store (a layout measured once, by one process for all that
// share the file; a malformed file measured again and rewritten), and the
// products it steers: the rule's product is one library's, bit for bit, and
// repeats.
//
//===----------------------------------------------------------------------===//

#include "Cpu/ProductWisdom.h"

#include "TempDir.h"

#include "shardc/Runtime/File.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

using namespace shardc;
using namespace shardc::cpu;

namespace {

ProductLayout layout(int64_t M, int64_t N, int64_t K, int64_t items = 1) {
  ProductLayout l;
  l.M = M, l.N = N, l.K = K, l.items = items;
  l.lda = K, l.ldb = N, l.threads = 2;
  return l;
}

ProductMeasurement times(double oneDnnMs, double openBlasMs) {
  ProductMeasurement m;
  m.oneDnnMs = oneDnnMs;
  m.openBlasMs = openBlasMs;
  return m;
}

const char kMachine[] = "a CPU | family 1 model 2 | openblas Haswell | onednn 2.6.3";

TEST(ProductWisdom, ParsesWhatItWrites) {
  ProductWisdom w;
  w.machine = kMachine;
  ProductLayout a = layout(128, 64, 128, 128), b = layout(256, 1024, 4096);
  b.transA = true;
  b.lda = 256;
  w.layouts[a] = times(0.672, 1.052);
  w.layouts[a].use = GemmLibrary::OneDnn;
  w.layouts[b] = times(7.1, 6.9);
  w.layouts[b].use = GemmLibrary::OpenBlas;
  std::string text = w.serialize();
  EXPECT_EQ(text.rfind("# shardc product wisdom 1\nmachine a CPU | family 1", 0), 0u) << text;
  StatusOr<ProductWisdom> back = ProductWisdom::parse(text, "w.txt");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->machine, kMachine);
  ASSERT_EQ(back->layouts.size(), 2u);
  EXPECT_EQ(back->layouts.at(a).use, GemmLibrary::OneDnn);
  EXPECT_EQ(back->layouts.at(b).use, GemmLibrary::OpenBlas);
  EXPECT_DOUBLE_EQ(back->layouts.at(b).oneDnnMs, 7.1);
  EXPECT_EQ(back->serialize(), text);
}

TEST(ProductWisdom, NamesTheLineOfWhatIsWrong) {
  const std::string head = "# shardc product wisdom 1\nmachine m\n";
  const std::string ok = "f32 m=2 n=3 k=4 items=1 a=n lda=4 b=t ldb=4 threads=1 use=onednn "
                         "onednn_ms=1 openblas_ms=2";
  auto with = [&](const std::string &from, const std::string &to) {
    std::string line = ok;
    line.replace(line.find(from), from.size(), to);
    return head + line + "\n";
  };
  struct Bad {
    std::string text, error;
  } cases[] = {
      {"", "w.txt: no machine line"},
      {ok + "\n", "w.txt:1: a product before the machine line"},
      {head + "machine again\n", "w.txt:3: a second machine line"},
      {"machine   \n", "w.txt:1: the machine line names no machine"},
      {with("f32", "bf16"), "w.txt:3: unknown precision 'bf16'"},
      {with("m=2", "m=0"), "w.txt:3: m=0 is not a whole number from 1 to 2^40"},
      {with("k=4", "k=-4"), "k=-4 is not a whole number"},
      {with("k=4", "k=99999999999999999999"), "k=99999999999999999999 is not a whole number"},
      {with("threads=1", "threads=5000"), "threads=5000 is not a whole number from 1 to 4096"},
      {with("a=n", "a=x"), "a=x: n (as stored) or t (transposed)"},
      {with("use=onednn", "use=blis"), "use=blis: onednn or openblas"},
      {with("onednn_ms=1", "onednn_ms=nan"), "onednn_ms=nan is not a number of milliseconds"},
      {with("openblas_ms=2", "openblas_ms=-2"), "openblas_ms=-2 is not a number of milliseconds"},
      // Longer than any product: %.4f would write more than the parser reads.
      {with("onednn_ms=1", "onednn_ms=1e27"), "onednn_ms=1e27 is not a number of milliseconds"},
      {"# shardc product wisdom 2\nmachine m\n", "w.txt:1: format version 2; this shardc reads "
                                                 "version 1"},
      {with("openblas_ms=2", "openblas_ms=2 colour=red"), "unknown key 'colour'"},
      {with("openblas_ms=2", "openblas_ms=2 m=3"), "key 'm' given twice"},
      {with("openblas_ms=2", "openblas_ms=2 stray"), "'stray' is not key=value"},
      {with(" use=onednn", ""), "missing use="},
      {head + ok + "\n" + ok + "\n", "w.txt:4: this product layout is listed twice"},
      {head + std::string("f32 m=2\0", 8) + "\n", "w.txt:3: a NUL byte"},
  };
  for (const Bad &c : cases) {
    StatusOr<ProductWisdom> w = ProductWisdom::parse(c.text, "w.txt");
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_NE(w.message().find(c.error), std::string::npos) << w.message();
  }
  StatusOr<ProductWisdom> good = ProductWisdom::parse(head + "\n  \n# a note\n" + ok, "w.txt");
  ASSERT_TRUE(good.ok()) << good.message();
  EXPECT_EQ(good->machine, "m");
}

TEST(ProductWisdom, AnotherLibraryReplacesTheRulesOnlyByTheMargin) {
  // The rule's library keeps a layout the other beats by less than the margin.
  EXPECT_EQ(chooseMeasured(GemmLibrary::OneDnn, 1.0, 0.9), GemmLibrary::OneDnn);
  EXPECT_EQ(chooseMeasured(GemmLibrary::OneDnn, 1.0, 0.8), GemmLibrary::OpenBlas);
  EXPECT_EQ(chooseMeasured(GemmLibrary::OpenBlas, 1.1, 1.0), GemmLibrary::OpenBlas);
  EXPECT_EQ(chooseMeasured(GemmLibrary::OpenBlas, 0.55, 0.87), GemmLibrary::OneDnn);
  EXPECT_EQ(chooseMeasured(GemmLibrary::OpenBlas, 1.0, 1.0), GemmLibrary::OpenBlas);
}

TEST(ProductWisdom, AStoreMeasuresALayoutOnceAndLaterStoresReadIt) {
  test::TempDir dir;
  std::string file = dir.file("wisdom/products.txt");
  ProductLayout probsV = layout(128, 64, 128, 128);
  int measured = 0;
  auto openBlasSlower = [&] {
    ++measured;
    return times(0.67, 1.05);
  };
  {
    WisdomStore store(file, kMachine);
    EXPECT_EQ(store.choose(probsV, GemmLibrary::OpenBlas, openBlasSlower), GemmLibrary::OneDnn);
    EXPECT_EQ(store.choose(probsV, GemmLibrary::OpenBlas, openBlasSlower), GemmLibrary::OneDnn);
    EXPECT_EQ(measured, 1);
  }
  StatusOr<std::string> text = readFile(file);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_NE(text->find("use=onednn onednn_ms=0.6700 openblas_ms=1.0500"), std::string::npos)
      << *text;
  // A later process reads the choice, measuring nothing.
  WisdomStore later(file, kMachine);
  EXPECT_EQ(later.choose(probsV, GemmLibrary::OpenBlas,
                         [] {
                           ADD_FAILURE() << "measured a layout the file has";
                           return times(1, 1);
                         }),
            GemmLibrary::OneDnn);
  // Another machine's file is another file; in one file, another machine's
  // wisdom is not used.
  WisdomStore other(file, "another CPU");
  EXPECT_EQ(other.choose(probsV, GemmLibrary::OpenBlas, [] { return times(1.0, 1.0); }),
            GemmLibrary::OpenBlas);
}

TEST(ProductWisdom, ThreadsAskingForOneLayoutMeasureItOnce) {
  test::TempDir dir;
  WisdomStore store(dir.file("products.txt"), kMachine);
  ProductLayout l = layout(4096, 1024, 256);
  std::atomic<int> measured{0};
  std::vector<GemmLibrary> got(8, GemmLibrary::Auto);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      got[t] = store.choose(l, GemmLibrary::OneDnn, [&] {
        ++measured;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return times(2.0, 1.0);
      });
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(measured.load(), 1);
  for (GemmLibrary g : got)
    EXPECT_EQ(g, GemmLibrary::OpenBlas);
}

TEST(ProductWisdom, AChoiceAnotherProcessKeptFirstStands) {
  test::TempDir dir;
  std::string file = dir.file("products.txt");
  ProductLayout first = layout(512, 512, 512), contested = layout(4096, 768, 256);
  WisdomStore mine(file, kMachine), theirs(file, kMachine);
  // Loaded, before the other process measures `contested`.
  EXPECT_EQ(mine.choose(first, GemmLibrary::OneDnn, [] { return times(1.0, 1.0); }),
            GemmLibrary::OneDnn);
  EXPECT_EQ(theirs.choose(contested, GemmLibrary::OneDnn, [] { return times(1.0, 2.0); }),
            GemmLibrary::OneDnn);
  // This process measures OpenBLAS faster, but the file's choice is kept, so
  // the processes sharing it run the layout alike; both layouts stay.
  EXPECT_EQ(mine.choose(contested, GemmLibrary::OneDnn, [] { return times(2.0, 1.0); }),
            GemmLibrary::OneDnn);
  StatusOr<std::string> text = readFile(file);
  ASSERT_TRUE(text.ok());
  StatusOr<ProductWisdom> w = ProductWisdom::parse(*text, file);
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(w->layouts.size(), 2u);
  // A layout this process ran keeps its library even where the file says
  // otherwise later (a file rewritten by hand, or reset).
  ProductWisdom edited = *w;
  edited.layouts.at(first).use = GemmLibrary::OpenBlas;
  ASSERT_TRUE(writeFileAtomically(file, edited.serialize()).ok());
  EXPECT_EQ(mine.choose(layout(64, 64, 4096), GemmLibrary::OneDnn, [] { return times(1, 1); }),
            GemmLibrary::OneDnn);
  EXPECT_EQ(mine.choose(first, GemmLibrary::OpenBlas,
                        [] {
                          ADD_FAILURE() << "measured a layout this process ran";
                          return times(1, 1);
                        }),
            GemmLibrary::OneDnn);
}

TEST(ProductWisdom, AMalformedFileIsMeasuredAgainAndRewritten) {
  test::TempDir dir;
  std::string file = dir.file("products.txt");
  {
    std::ofstream out(file);
    out << "# shardc product wisdom 1\nmachine " << kMachine << "\nf32 m=oops\n";
  }
  ProductLayout l = layout(1024, 256, 4096);
  int measured = 0;
  testing::internal::CaptureStderr();
  GemmLibrary use = WisdomStore(file, kMachine).choose(l, GemmLibrary::OneDnn, [&] {
    ++measured;
    return times(3.0, 1.0);
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(use, GemmLibrary::OpenBlas);
  EXPECT_EQ(measured, 1);
  EXPECT_NE(err.find(file + ":3: missing n="), std::string::npos) << err;
  EXPECT_NE(err.find("measuring again and rewriting the file"), std::string::npos) << err;
  StatusOr<std::string> text = readFile(file);
  ASSERT_TRUE(text.ok());
  StatusOr<ProductWisdom> w = ProductWisdom::parse(*text, file);
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(w->layouts.at(l).use, GemmLibrary::OpenBlas);
}

TEST(ProductWisdom, AnUnwritableDirectoryKeepsTheChoiceInThisProcess) {
  test::TempDir dir;
  std::string blocker = dir.file("not-a-directory");
  std::ofstream(blocker) << "x";
  WisdomStore store(blocker + "/products.txt", kMachine);
  ProductLayout l = layout(256, 256, 256);
  int measured = 0;
  auto measure = [&] {
    ++measured;
    return times(1.0, 2.0);
  };
  testing::internal::CaptureStderr();
  EXPECT_EQ(store.choose(l, GemmLibrary::OpenBlas, measure), GemmLibrary::OneDnn);
  EXPECT_EQ(store.choose(l, GemmLibrary::OpenBlas, measure), GemmLibrary::OneDnn);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(measured, 1);
  EXPECT_NE(err.find("product wisdom not kept"), std::string::npos) << err;
}

// The rule's product, measured at its first call, is one library's product
// bit for bit, and the same at every call after.
TEST(ProductWisdom, TheRulesProductIsTheMeasuredLibrarysBitForBit) {
  if (!gemmLibraryAvailable(GemmLibrary::OneDnn) || !gemmLibraryAvailable(GemmLibrary::OpenBlas))
    GTEST_SKIP() << "needs oneDNN and OpenBLAS";
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  // attention's probs v: a batch of small items, and a transposed weight
  for (auto [M, N, K, items, transB] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t, bool>{128, 64, 128, 32, false},
        {128, 256, 192, 1, true}}) {
    std::vector<float> A(items * M * K), B(items * K * N);
    for (float &x : A)
      x = u(rng);
    for (float &x : B)
      x = u(rng);
    MatrixView a, b;
    a.ld = K;
    b.trans = transB;
    b.ld = transB ? K : N;
    a.elements = items * M * K, b.elements = items * K * N;
    if (items > 1) {
      a.batchSizes = b.batchSizes = {items};
      a.batchStrides = {M * K};
      b.batchStrides = {K * N};
    }
    // f32, and the f32 path of rounded operands: tf32, and bf16 where the
    // CPU's bf16 instructions are not used.
    allowBf16Instructions(false);
    for (MatmulPrecision p : {MatmulPrecision::F32, MatmulPrecision::TF32, MatmulPrecision::BF16}) {
      auto product = [&](GemmLibrary l) {
        std::vector<float> C(items * M * N, NAN);
        gemm(M, N, K, A.data(), a, B.data(), b, C.data(), p, l);
        return C;
      };
      std::vector<float> first = product(GemmLibrary::Auto), again = product(GemmLibrary::Auto);
      std::vector<float> dnnl = product(GemmLibrary::OneDnn), blas = product(GemmLibrary::OpenBlas);
      auto same = [](const std::vector<float> &x, const std::vector<float> &y) {
        return std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
      };
      EXPECT_TRUE(same(first, again)) << M << "x" << N << "x" << K << " " << matmulPrecisionName(p);
      EXPECT_TRUE(same(first, dnnl) || same(first, blas))
          << M << "x" << N << "x" << K << " " << matmulPrecisionName(p);
    }
    allowBf16Instructions(true);
  }
}

} // namespace
