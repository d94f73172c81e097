//===- CpuAttention.cpp - scaled dot-product attention in one pass --------===//
//
// Attention of the layout of JAX's dot_product_attention (q [B,T,N,H], k
// and v [B,S,N,H]) as one kernel per (batch, head) item, whose [T,S]
// scores and probabilities live in the thread's cache instead of memory.
// The backward pass recomputes an item's probabilities, as FlashAttention
// does, so nothing of size [B,N,T,S] is ever stored; the sum D of each
// query row that it needs (dO . O) is that of P dP, so the forward's output
// is not read either. Operands may be views with rows further apart than
// N * H: q, k and v of one packed [B,T,3,N,H] tensor.
//
// Within an item every product is "rows times a matrix read by rows": a
// block of four rows of the left operand against 64 columns of the right
// (16 vector accumulators; 32 or 16 columns at the edge) over the shared
// dimension. The left operand is read by rows or by columns (P and dS for
// the key and value gradients);
// a right operand the product would read by columns is packed transposed
// first (K for the scores, V for dP), in 16 x 16 tiles of shuffles, as far
// as some query sees. Up to four queries (a decoding step's) take their
// scores as dot products of rows instead. Causal and length masks shorten
// each row block's range instead of adding -inf: a query row reads keys
// [0, hi) only, and a key row is read by queries [lo, T) only. The next
// item's rows are prefetched while one computes.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace shardc::cpu {

namespace {

// The 16-float vectors below live in always-inline helpers of functions
// cloned per instruction set; no vector crosses a call, so the ABI note GCC
// gives for the default clone does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

typedef float Lanes __attribute__((vector_size(64), aligned(4), may_alias));
typedef int32_t ILanes __attribute__((vector_size(64), aligned(4), may_alias));
constexpr int64_t kLanes = 16;

#define SHARDC_INLINE inline __attribute__((always_inline))

SHARDC_INLINE Lanes load(const float *p) { return *reinterpret_cast<const Lanes *>(p); }
SHARDC_INLINE void store(float *p, Lanes v) { *reinterpret_cast<Lanes *>(p) = v; }
// A broadcast. (x - 0, x * 1 and a shuffle of {x}, which would spare the
// addition, GCC 12 builds lane by lane here, five times slower.)
SHARDC_INLINE Lanes splat(float x) { return Lanes{} + x; }

/// e^x lane by lane, for x <= 0 (a score less its row's maximum): Cephes'
/// range reduction and degree-6 polynomial, within 2 ulp of expf; below
/// -87 it flushes to 0.
SHARDC_INLINE Lanes expNonPositive(Lanes x) {
  x = x < splat(-87.0f) ? splat(-87.0f) : x;
  Lanes n = x * 1.44269504088896341f + 0.5f;
  ILanes ni = __builtin_convertvector(n, ILanes);
  // Truncation rounds toward zero: one less where n was negative and not whole.
  Lanes nf = __builtin_convertvector(ni, Lanes);
  ILanes fix = nf > n;
  ni += fix; // true lanes are -1
  nf = __builtin_convertvector(ni, Lanes);
  Lanes r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  Lanes p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  Lanes y = p * r * r + r + 1.0f;
  ILanes scale = (ni + 127) << 23;
  Lanes two;
  std::memcpy(&two, &scale, sizeof two);
  return y * two;
}

/// kFirstLanes + 16 - n: a mask of the first n lanes (all ones there, 0 in
/// the others).
constexpr int32_t kFirstLanes[2 * kLanes] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                             -1, -1, -1, -1, -1, 0,  0,  0,  0,  0,  0,
                                             0,  0,  0,  0,  0,  0,  0,  0,  0,  0};

SHARDC_INLINE ILanes loadMask(const int32_t *p) { return *reinterpret_cast<const ILanes *>(p); }

/// a where mask's lanes are all ones, b where they are 0, bit by bit (a
/// NaN or infinity in the lanes not taken cannot leak).
SHARDC_INLINE Lanes bitSelect(ILanes mask, Lanes a, Lanes b) {
  ILanes ai, bi;
  std::memcpy(&ai, &a, sizeof ai);
  std::memcpy(&bi, &b, sizeof bi);
  ILanes r = (ai & mask) | (bi & ~mask);
  Lanes out;
  std::memcpy(&out, &r, sizeof out);
  return out;
}

/// x with lanes i and i ^ b swapped: a step of a tree over the lanes.
template <int b> SHARDC_INLINE Lanes swapped(Lanes x) {
  constexpr ILanes order = {0 ^ b, 1 ^ b, 2 ^ b,  3 ^ b,  4 ^ b,  5 ^ b,  6 ^ b,  7 ^ b,
                            8 ^ b, 9 ^ b, 10 ^ b, 11 ^ b, 12 ^ b, 13 ^ b, 14 ^ b, 15 ^ b};
  return __builtin_shuffle(x, order);
}

/// The largest of x's lanes and their sum: trees of four steps, where a
/// lane after lane would wait on fifteen in a row.
SHARDC_INLINE float largestLane(Lanes x) {
  auto step = [&](Lanes y) { x = y > x ? y : x; };
  step(swapped<8>(x));
  step(swapped<4>(x));
  step(swapped<2>(x));
  step(swapped<1>(x));
  return x[0];
}
SHARDC_INLINE float sumOfLanes(Lanes x) {
  x += swapped<8>(x);
  x += swapped<4>(x);
  x += swapped<2>(x);
  x += swapped<1>(x);
  return x[0];
}

/// C[m, 0:nHi) = alpha * sum over k in [kLo, kHi) of A(m,k) B(k, :), for
/// rows [m0, m1), where A(m,k) = a[m * ars + k * acs] (a matrix read by
/// rows, acs = 1, or by columns, ars = 1) and B(k,n) = b[k * ldb + n].
SHARDC_INLINE void rowsTimes(int64_t m0, int64_t m1, int64_t kLo, int64_t kHi, int64_t nHi,
                             const float *a, int64_t ars, int64_t acs, const float *b, int64_t ldb,
                             float *c, int64_t ldc, float alpha) {
  int64_t m = m0;
  for (; m + 4 <= m1; m += 4) {
    const float *a0 = a + m * ars, *a1 = a0 + ars, *a2 = a1 + ars, *a3 = a2 + ars;
    float *c0 = c + m * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
    float *cr[4] = {c0, c1, c2, c3};
    int64_t n = 0;
    for (; n + 4 * kLanes <= nHi; n += 4 * kLanes) { // 64 columns: 16 accumulators
      Lanes x[4][4] = {};
      for (int64_t k = kLo; k < kHi; ++k) {
        const float *bk = b + k * ldb + n;
        Lanes b0 = load(bk), b1 = load(bk + kLanes), b2 = load(bk + 2 * kLanes),
              b3 = load(bk + 3 * kLanes);
        int64_t ak = k * acs;
        Lanes sr[4] = {splat(a0[ak]), splat(a1[ak]), splat(a2[ak]), splat(a3[ak])};
        for (int r = 0; r < 4; ++r) {
          x[r][0] += sr[r] * b0, x[r][1] += sr[r] * b1;
          x[r][2] += sr[r] * b2, x[r][3] += sr[r] * b3;
        }
      }
      for (int r = 0; r < 4; ++r)
        for (int j = 0; j < 4; ++j)
          store(cr[r] + n + j * kLanes, x[r][j] * alpha);
    }
    for (; n + 2 * kLanes <= nHi; n += 2 * kLanes) {
      Lanes x00{}, x01{}, x10{}, x11{}, x20{}, x21{}, x30{}, x31{};
      for (int64_t k = kLo; k < kHi; ++k) {
        const float *bk = b + k * ldb + n;
        Lanes b0 = load(bk), b1 = load(bk + kLanes);
        int64_t ak = k * acs;
        Lanes s0 = splat(a0[ak]), s1 = splat(a1[ak]), s2 = splat(a2[ak]), s3 = splat(a3[ak]);
        x00 += s0 * b0, x01 += s0 * b1;
        x10 += s1 * b0, x11 += s1 * b1;
        x20 += s2 * b0, x21 += s2 * b1;
        x30 += s3 * b0, x31 += s3 * b1;
      }
      store(c0 + n, x00 * alpha), store(c0 + n + kLanes, x01 * alpha);
      store(c1 + n, x10 * alpha), store(c1 + n + kLanes, x11 * alpha);
      store(c2 + n, x20 * alpha), store(c2 + n + kLanes, x21 * alpha);
      store(c3 + n, x30 * alpha), store(c3 + n + kLanes, x31 * alpha);
    }
    for (; n + kLanes <= nHi; n += kLanes) {
      Lanes x0{}, x1{}, x2{}, x3{};
      for (int64_t k = kLo; k < kHi; ++k) {
        Lanes bk = load(b + k * ldb + n);
        int64_t ak = k * acs;
        x0 += splat(a0[ak]) * bk, x1 += splat(a1[ak]) * bk;
        x2 += splat(a2[ak]) * bk, x3 += splat(a3[ak]) * bk;
      }
      store(c0 + n, x0 * alpha), store(c1 + n, x1 * alpha);
      store(c2 + n, x2 * alpha), store(c3 + n, x3 * alpha);
    }
    for (; n < nHi; ++n) {
      float x0 = 0, x1 = 0, x2 = 0, x3 = 0;
      for (int64_t k = kLo; k < kHi; ++k) {
        float bk = b[k * ldb + n];
        int64_t ak = k * acs;
        x0 += a0[ak] * bk, x1 += a1[ak] * bk, x2 += a2[ak] * bk, x3 += a3[ak] * bk;
      }
      c0[n] = x0 * alpha, c1[n] = x1 * alpha, c2[n] = x2 * alpha, c3[n] = x3 * alpha;
    }
  }
  // Rows past the last block of four (a decoding step's one query): 64
  // columns at a time too, so that four sums are in flight rather than one
  // (each element is summed in the same order as in a block).
  for (; m < m1; ++m) {
    const float *am = a + m * ars;
    float *cm = c + m * ldc;
    int64_t n = 0;
    for (; n + 4 * kLanes <= nHi; n += 4 * kLanes) {
      Lanes x0{}, x1{}, x2{}, x3{};
      for (int64_t k = kLo; k < kHi; ++k) {
        const float *bk = b + k * ldb + n;
        Lanes s = splat(am[k * acs]);
        x0 += s * load(bk), x1 += s * load(bk + kLanes);
        x2 += s * load(bk + 2 * kLanes), x3 += s * load(bk + 3 * kLanes);
      }
      store(cm + n, x0 * alpha), store(cm + n + kLanes, x1 * alpha);
      store(cm + n + 2 * kLanes, x2 * alpha), store(cm + n + 3 * kLanes, x3 * alpha);
    }
    for (; n + kLanes <= nHi; n += kLanes) {
      Lanes x{};
      for (int64_t k = kLo; k < kHi; ++k)
        x += splat(am[k * acs]) * load(b + k * ldb + n);
      store(cm + n, x * alpha);
    }
    for (; n < nHi; ++n) {
      float x = 0;
      for (int64_t k = kLo; k < kHi; ++k)
        x += am[k * acs] * b[k * ldb + n];
      cm[n] = x * alpha;
    }
  }
}

/// One stage of a 16 x 16 transpose held in 16 vectors: rows i and i + b
/// (for i with bit b clear) swap bit b of their row index with bit b of
/// the lane index. After the stages of b = 1, 2, 4 and 8, row i holds
/// column i.
template <int b> SHARDC_INLINE void transposeStage(Lanes (&r)[kLanes]) {
  constexpr ILanes lo = {
      (0 & b) ? 16 + 0 - b : 0,    (1 & b) ? 16 + 1 - b : 1,    (2 & b) ? 16 + 2 - b : 2,
      (3 & b) ? 16 + 3 - b : 3,    (4 & b) ? 16 + 4 - b : 4,    (5 & b) ? 16 + 5 - b : 5,
      (6 & b) ? 16 + 6 - b : 6,    (7 & b) ? 16 + 7 - b : 7,    (8 & b) ? 16 + 8 - b : 8,
      (9 & b) ? 16 + 9 - b : 9,    (10 & b) ? 16 + 10 - b : 10, (11 & b) ? 16 + 11 - b : 11,
      (12 & b) ? 16 + 12 - b : 12, (13 & b) ? 16 + 13 - b : 13, (14 & b) ? 16 + 14 - b : 14,
      (15 & b) ? 16 + 15 - b : 15};
  constexpr ILanes hi = {
      (0 & b) ? 16 + 0 : 0 + b,    (1 & b) ? 16 + 1 : 1 + b,    (2 & b) ? 16 + 2 : 2 + b,
      (3 & b) ? 16 + 3 : 3 + b,    (4 & b) ? 16 + 4 : 4 + b,    (5 & b) ? 16 + 5 : 5 + b,
      (6 & b) ? 16 + 6 : 6 + b,    (7 & b) ? 16 + 7 : 7 + b,    (8 & b) ? 16 + 8 : 8 + b,
      (9 & b) ? 16 + 9 : 9 + b,    (10 & b) ? 16 + 10 : 10 + b, (11 & b) ? 16 + 11 : 11 + b,
      (12 & b) ? 16 + 12 : 12 + b, (13 & b) ? 16 + 13 : 13 + b, (14 & b) ? 16 + 14 : 14 + b,
      (15 & b) ? 16 + 15 : 15 + b};
  for (int i = 0; i < kLanes; ++i)
    if (!(i & b)) {
      Lanes x = r[i], y = r[i + b];
      r[i] = __builtin_shuffle(x, y, lo);
      r[i + b] = __builtin_shuffle(x, y, hi);
    }
}

/// Rows [0, rows) of a [rows, cols] matrix copied transposed into `out`
/// [cols, ldo] (x(r, c) = x[r * ld + c] to out[c * ldo + r]): whole 16 x
/// 16 tiles in vectors, the edges element by element.
SHARDC_INLINE void transposeInto(const float *x, int64_t ld, int64_t rows, int64_t cols, float *out,
                                 int64_t ldo) {
  int64_t r16 = rows / kLanes * kLanes, c16 = cols / kLanes * kLanes;
  for (int64_t r0 = 0; r0 < r16; r0 += kLanes)
    for (int64_t c0 = 0; c0 < c16; c0 += kLanes) {
      Lanes t[kLanes];
      for (int i = 0; i < kLanes; ++i)
        t[i] = load(x + (r0 + i) * ld + c0);
      transposeStage<1>(t);
      transposeStage<2>(t);
      transposeStage<4>(t);
      transposeStage<8>(t);
      for (int i = 0; i < kLanes; ++i)
        store(out + (c0 + i) * ldo + r0, t[i]);
    }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r < r16 ? c16 : 0; c < cols; ++c)
      out[c * ldo + r] = x[r * ld + c];
}

/// Asks for rows [0, rows) of a [rows, H] block (rows `ld` floats apart) in
/// cache: the next item's operands, while this one computes.
SHARDC_INLINE void prefetchRows(const float *x, int64_t ld, int64_t rows, int64_t H) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < H; h += 16)
      __builtin_prefetch(x + r * ld + h);
}

/// Zeros at row[hi, hi + 16), within [0, S): past a row's keys, as far as a
/// block of its neighbours reads (the rest of the row is never read).
SHARDC_INLINE void zeroPast(float *row, int64_t hi, int64_t S) {
  if (hi + kLanes <= S)
    store(row + hi, Lanes{});
  else
    for (int64_t s = hi; s < S; ++s)
      row[s] = 0;
}

SHARDC_INLINE float dot(const float *x, const float *y, int64_t n) {
  Lanes acc{};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    acc += load(x + i) * load(y + i);
  float s = sumOfLanes(acc);
  for (; i < n; ++i)
    s += x[i] * y[i];
  return s;
}

/// Per-thread buffers that only grow.
struct Scratch {
  std::vector<float> kt, vt, p, ds;
  std::vector<int64_t> hi, lo;
};

Scratch &threadScratch() {
  static thread_local Scratch s;
  return s;
}

float *sized(std::vector<float> &v, int64_t n) {
  if ((int64_t)v.size() < n)
    v.resize(n);
  return v.data();
}

/// Batch item b's keys: [0, its length).
int64_t keysOf(const AttentionDims &d, const int32_t *kvLengths, int64_t b) {
  return kvLengths ? std::clamp<int64_t>(kvLengths[b], 0, d.S) : d.S;
}

/// The key range of each query row (hi[t]: keys [0, hi[t]) are seen) and
/// the query range of each key row (lo[s]: queries [lo[s], T) see it, or
/// lo[s] = T where none does) of batch item b.
void ranges(const AttentionDims &d, const int32_t *kvLengths, int64_t b, Scratch &w) {
  int64_t len = keysOf(d, kvLengths, b);
  w.hi.resize(d.T);
  w.lo.resize(d.S);
  for (int64_t t = 0; t < d.T; ++t)
    w.hi[t] = d.causal ? std::min(len, t + 1) : len;
  for (int64_t s = 0; s < d.S; ++s)
    w.lo[s] = s >= len ? d.T : (d.causal ? std::min(s, d.T) : 0);
}

constexpr int64_t kRowBlock = 4;

/// Up to this many queries an item's scores are dot products of rows
/// (scoresByDots) rather than a product with K transposed.
constexpr int64_t kFewQueries = 4;

/// The keys any query of batch item b sees.
int64_t seenBy(const AttentionDims &d, const int32_t *kvLengths, int64_t b) {
  int64_t len = keysOf(d, kvLengths, b);
  return d.causal ? std::min(len, d.T) : len;
}

/// The widest key range of query rows [t0, t1) (ranges grow with t).
int64_t hiOf(const Scratch &w, int64_t t0, int64_t t1) {
  int64_t h = 0;
  for (int64_t t = t0; t < t1; ++t)
    h = std::max(h, w.hi[t]);
  return h;
}

/// The columns of scores to compute for query rows [t0, t1): their keys,
/// rounded up to whole vectors (the rest are not read), at most S.
int64_t columnsOf(const Scratch &w, int64_t t0, int64_t t1, int64_t S) {
  return std::min(S, (hiOf(w, t0, t1) + kLanes - 1) / kLanes * kLanes);
}

/// The first query row reading any of key rows [s0, s1).
int64_t loOf(const Scratch &w, int64_t s0, int64_t s1) {
  int64_t l = std::numeric_limits<int64_t>::max();
  for (int64_t s = s0; s < s1; ++s)
    l = std::min(l, w.lo[s]);
  return l;
}

/// Scores of query row q against keys [0, cols) of k (rows `lk` apart) into
/// row[0, cols) as dot products, 16 keys at a time: their 16 vectors of
/// partial sums transposed, then added, give the 16 scores in one vector.
/// For a few queries (a decoding step's one), where transposing K first
/// would cost more than the products. H is a multiple of 16; row has room
/// for a vector past cols.
SHARDC_INLINE void scoresByDots(const float *q, const float *k, int64_t lk, int64_t cols, int64_t H,
                                float scale, float *row) {
  for (int64_t s0 = 0; s0 < cols; s0 += kLanes) {
    Lanes acc[kLanes];
    int64_t keys = std::min(kLanes, cols - s0);
    for (int j = 0; j < kLanes; ++j)
      acc[j] = Lanes{};
    if (keys == kLanes) { // the 16 sums side by side, each load of q serving 16 keys
      for (int64_t h = 0; h < H; h += kLanes) {
        Lanes qh = load(q + h);
#pragma GCC unroll 16
        for (int j = 0; j < kLanes; ++j)
          acc[j] += qh * load(k + (s0 + j) * lk + h);
      }
    } else {
      for (int64_t j = 0; j < keys; ++j) {
        const float *kj = k + (s0 + j) * lk;
        Lanes a{};
        for (int64_t h = 0; h < H; h += kLanes)
          a += load(q + h) * load(kj + h);
        acc[j] = a;
      }
    }
    transposeStage<1>(acc);
    transposeStage<2>(acc);
    transposeStage<4>(acc);
    transposeStage<8>(acc);
    Lanes sum = acc[0];
    for (int i = 1; i < kLanes; ++i)
      sum += acc[i];
    store(row + s0, sum * scale);
  }
}

/// The probabilities P [T,S] of an item from its q (rows `ldq` apart) and
/// either kt (K transposed, packed) or, where kt is null, K's rows (`lk`
/// apart; see scoresByDots), and, where `lse` is given, each row's
/// log-sum-exp of its scaled scores. Entries outside a row's key range are 0.
SHARDC_INLINE void probabilities(const AttentionDims &d, Scratch &w, const float *q, int64_t ldq,
                                 const float *kt, const float *k, int64_t lk, float *p,
                                 float *lse) {
  int64_t T = d.T, S = d.S, H = d.H;
  float scale = (float)d.scale;
  if (kt) {
    for (int64_t t0 = 0; t0 < T; t0 += kRowBlock) {
      int64_t t1 = std::min(T, t0 + kRowBlock);
      rowsTimes(t0, t1, 0, H, columnsOf(w, t0, t1, S), q, ldq, 1, kt, S, p, S, scale);
    }
  } else {
    for (int64_t t = 0; t < T; ++t)
      scoresByDots(q + t * ldq, k, lk, w.hi[t], H, scale, p + t * S);
  }
  for (int64_t t = 0; t < T; ++t) {
    float *row = p + t * S;
    int64_t hi = w.hi[t];
    if (hi == 0) {
      std::fill(row, row + S, 0.0f);
      if (lse)
        lse[t] = -std::numeric_limits<float>::infinity();
      continue;
    }
    // Whole vectors up to hi, then the vector holding the rest of the row
    // (the buffer has a vector's room past its last row), its lanes past
    // the rest replaced bit by bit from a table: a comparison's mask GCC 12
    // builds here lane by lane, a branch each, which had cost a row more
    // than its exps. Whatever those lanes held (another row's scores, a
    // key past the lengths), they count as -inf, their exps as 0.
    int64_t full = hi / kLanes * kLanes, rest = hi - full;
    ILanes restMask = loadMask(kFirstLanes + kLanes - rest);
    Lanes top = splat(-std::numeric_limits<float>::infinity());
    for (int64_t s = 0; s < full; s += kLanes) {
      Lanes x = load(row + s);
      top = x > top ? x : top;
    }
    Lanes last = bitSelect(restMask, load(row + full), top);
    top = last > top ? last : top;
    float shift = largestLane(top);
    Lanes sum{};
    for (int64_t s = 0; s < full; s += kLanes) {
      Lanes e = expNonPositive(load(row + s) - shift);
      store(row + s, e);
      sum += e;
    }
    if (rest) {
      Lanes e = bitSelect(restMask, expNonPositive(last - shift), Lanes{});
      if (full + kLanes <= S) { // the zeros past hi as zeroPast writes them
        store(row + full, e);
      } else {
        float lanes[kLanes];
        store(lanes, e);
        std::memcpy(row + full, lanes, rest * sizeof(float));
      }
      sum += e;
    }
    float total = sumOfLanes(sum);
    zeroPast(row, hi, S);
    float inv = 1.0f / total;
    for (int64_t s = 0; s < full; s += kLanes)
      store(row + s, load(row + s) * inv);
    for (int64_t s = full; s < hi; ++s)
      row[s] *= inv;
    if (lse)
      lse[t] = shift + std::log(total);
  }
}

// Operands and results are read and written where they are, their rows
// apart by the dims' strides; only the operands a product reads by columns
// (K, and V for dP) are packed, transposed.

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void forwardItems(const AttentionDims &d, const float *q, const float *k, const float *v,
                  const int32_t *kvLengths, float *out, float *lse, int64_t begin, int64_t end) {
  int64_t T = d.T, S = d.S, N = d.N, H = d.H;
  int64_t lq = d.qRows(), lk = d.kRows(), lv = d.vRows(), lo = d.outRows();
  Scratch &w = threadScratch();
  float *kt = sized(w.kt, H * S), *p = sized(w.p, T * S + kLanes);
  for (int64_t item = begin; item < end; ++item) {
    int64_t b = item / N, n = item % N;
    ranges(d, kvLengths, b, w);
    // Only the keys some query sees (a decoding step's cache is mostly
    // past its position); a few queries take dot products instead.
    const float *ki = k + b * S * lk + n * H;
    bool dots = T <= kFewQueries && H % kLanes == 0;
    if (!dots)
      transposeInto(ki, lk, w.hi[T - 1], H, kt, S);
    if (item + 1 < end) {
      int64_t nb = (item + 1) / N, nn = (item + 1) % N, next = seenBy(d, kvLengths, nb);
      prefetchRows(k + nb * S * lk + nn * H, lk, next, H);
      prefetchRows(q + nb * T * lq + nn * H, lq, T, H);
      prefetchRows(v + nb * S * lv + nn * H, lv, next, H);
    }
    probabilities(d, w, q + b * T * lq + n * H, lq, dots ? nullptr : kt, ki, lk, p,
                  lse ? lse + item * T : nullptr);
    const float *vi = v + b * S * lv + n * H;
    float *oi = out + b * T * lo + n * H;
    for (int64_t t0 = 0; t0 < T; t0 += kRowBlock) {
      int64_t t1 = std::min(T, t0 + kRowBlock);
      rowsTimes(t0, t1, 0, hiOf(w, t0, t1), H, p, S, 1, vi, lv, oi, lo, 1.0f);
    }
  }
}

#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void backwardItems(const AttentionDims &d, const float *q, const float *k, const float *v,
                   const int32_t *kvLengths, const float *dout, float *dq, float *dk, float *dv,
                   int64_t begin, int64_t end) {
  int64_t T = d.T, S = d.S, N = d.N, H = d.H;
  int64_t lq = d.qRows(), lk = d.kRows(), lv = d.vRows(), lo = d.outRows();
  float scale = (float)d.scale;
  Scratch &w = threadScratch();
  float *kt = sized(w.kt, H * S), *vt = sized(w.vt, H * S);
  float *p = sized(w.p, T * S + kLanes), *ds = sized(w.ds, T * S);
  for (int64_t item = begin; item < end; ++item) {
    int64_t b = item / N, n = item % N;
    int64_t qOff = b * T * lq + n * H, kOff = b * S * lk + n * H, vOff = b * S * lv + n * H;
    const float *qi = q + qOff, *ki = k + kOff, *gi = dout + b * T * lo + n * H;
    float *dqi = dq + b * d.dqBatch() + n * H, *dki = dk + b * d.dkBatch() + n * H,
          *dvi = dv + b * d.dvBatch() + n * H;
    ranges(d, kvLengths, b, w);
    int64_t seen = w.hi[T - 1];
    transposeInto(ki, lk, seen, H, kt, S);
    transposeInto(v + vOff, lv, seen, H, vt, S);
    if (item + 1 < end) {
      int64_t nb = (item + 1) / N, nn = (item + 1) % N;
      prefetchRows(k + nb * S * lk + nn * H, lk, S, H);
      prefetchRows(v + nb * S * lv + nn * H, lv, S, H);
      prefetchRows(q + nb * T * lq + nn * H, lq, T, H);
      prefetchRows(dout + nb * T * lo + nn * H, lo, T, H);
    }
    probabilities(d, w, qi, lq, kt, ki, lk, p, nullptr);
    // dP = dO V^T over each row's keys, then dS = P (dP - D), where D is
    // the row's sum of P dP (which is dO . O).
    for (int64_t t0 = 0; t0 < T; t0 += kRowBlock) {
      int64_t t1 = std::min(T, t0 + kRowBlock);
      rowsTimes(t0, t1, 0, H, columnsOf(w, t0, t1, S), gi, lo, 1, vt, S, ds, S, 1.0f);
    }
    for (int64_t t = 0; t < T; ++t) {
      float *dsRow = ds + t * S;
      const float *pRow = p + t * S;
      int64_t hi = w.hi[t];
      float D = dot(pRow, dsRow, hi);
      for (int64_t s = 0; s < hi; ++s)
        dsRow[s] = pRow[s] * (dsRow[s] - D);
      zeroPast(dsRow, hi, S);
    }
    // dQ = scale dS K; dK = scale dS^T Q and dV = P^T dO, over the queries
    // that read each key.
    for (int64_t t0 = 0; t0 < T; t0 += kRowBlock) {
      int64_t t1 = std::min(T, t0 + kRowBlock);
      rowsTimes(t0, t1, 0, hiOf(w, t0, t1), H, ds, S, 1, ki, lk, dqi, lq, scale);
    }
    for (int64_t s0 = 0; s0 < S; s0 += kRowBlock) {
      int64_t s1 = std::min(S, s0 + kRowBlock), t0 = std::min(T, loOf(w, s0, s1));
      rowsTimes(s0, s1, t0, T, H, ds, 1, S, qi, lq, dki, lk, scale);
      rowsTimes(s0, s1, t0, T, H, p, 1, S, gi, lo, dvi, lv, 1.0f);
    }
  }
}

/// Bytes an item reads and writes, as parallelRange counts work.
int64_t itemWork(const AttentionDims &d) { return (d.T + d.S) * d.H * 4 + d.T * d.S * d.H; }

/// Sets the rows of each item of an operand laid out by `rows` (floats
/// between positions) and `batch` (between batch items) to zero: a result
/// whose items compute nothing.
void zeroRows(float *x, int64_t B, int64_t positions, int64_t N, int64_t H, int64_t rows,
              int64_t batch) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t r = 0; r < positions; ++r)
      std::fill(x + b * batch + r * rows, x + b * batch + r * rows + N * H, 0.0f);
}

} // namespace

void attentionForward(const AttentionDims &d, const float *q, const float *k, const float *v,
                      const int32_t *kvLengths, float *out, float *lse) {
  int64_t items = d.B * d.N;
  if (items == 0 || d.T == 0)
    return;
  if (d.S == 0 || d.H == 0) { // nothing to attend to, or an empty head
    zeroRows(out, d.B, d.T, d.N, d.H, d.outRows(), d.T * d.outRows());
    if (!lse)
      return;
    Scratch &w = threadScratch();
    for (int64_t b = 0; b < d.B; ++b) { // all scores 0: the log of each row's count of keys
      ranges(d, kvLengths, b, w);
      for (int64_t n = 0; n < d.N; ++n)
        for (int64_t t = 0; t < d.T; ++t)
          lse[(b * d.N + n) * d.T + t] =
              w.hi[t] ? std::log((float)w.hi[t]) : -std::numeric_limits<float>::infinity();
    }
    return;
  }
  auto run = [&](int64_t begin, int64_t end) {
    forwardItems(d, q, k, v, kvLengths, out, lse, begin, end);
  };
  parallelRange(items, run, items * itemWork(d));
}

void attentionBackward(const AttentionDims &d, const float *q, const float *k, const float *v,
                       const int32_t *kvLengths, const float *dout, float *dq, float *dk,
                       float *dv) {
  int64_t items = d.B * d.N;
  if (items == 0 || d.T == 0 || d.S == 0 || d.H == 0) { // every row of each item is written
    zeroRows(dq, d.B, d.T, d.N, d.H, d.qRows(), d.dqBatch());
    zeroRows(dk, d.B, d.S, d.N, d.H, d.kRows(), d.dkBatch());
    zeroRows(dv, d.B, d.S, d.N, d.H, d.vRows(), d.dvBatch());
    return;
  }
  auto run = [&](int64_t begin, int64_t end) {
    backwardItems(d, q, k, v, kvLengths, dout, dq, dk, dv, begin, end);
  };
  parallelRange(items, run, items * 3 * itemWork(d));
}

} // namespace shardc::cpu
