//===- GspmdSharding.cpp - GSPMD sharding strings as shardc's -------------===//

#include "shardc/Conversion/GspmdSharding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <cctype>
#include <numeric>

using namespace mlir;

namespace shardc {

namespace {

/// A cursor over the text.
struct Lexer {
  StringRef s;
  size_t at = 0;
  void space() {
    while (at < s.size() && std::isspace((unsigned char)s[at]))
      ++at;
  }
  bool eat(StringRef word) {
    space();
    if (!s.substr(at).starts_with(word))
      return false;
    at += word.size();
    return true;
  }
  bool integer(int64_t &v) {
    space();
    size_t start = at;
    while (at < s.size() && std::isdigit((unsigned char)s[at]))
      ++at;
    if (at == start || at - start > 9)
      return false;
    v = std::stoll(s.substr(start, at - start).str());
    return true;
  }
  /// `[a,b,c]` (possibly empty) or `(a,b)`.
  bool sequence(StringRef open, StringRef close, std::vector<int64_t> &out) {
    if (!eat(open))
      return false;
    if (eat(close))
      return true;
    do {
      int64_t v;
      if (!integer(v))
        return false;
      out.push_back(v);
    } while (eat(","));
    return eat(close);
  }
  bool list(std::vector<int64_t> &out) { return sequence("[", "]", out); }
  bool tuple(std::vector<int64_t> &out) { return sequence("(", ")", out); }
};

std::vector<int64_t> primeFactors(int64_t n) {
  std::vector<int64_t> f;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  if (n > 1)
    f.push_back(n);
  return f;
}

int64_t product(const std::vector<int64_t> &v) {
  return std::accumulate(v.begin(), v.end(), int64_t(1), std::multiplies<int64_t>());
}

/// The devices of an array of shape `dims`, walked row-major, when its
/// dimensions are those of `shape` taken in the order `perm`, each counting
/// with its row-major stride in `shape`.
std::vector<int64_t> transposedIota(const std::vector<int64_t> &shape,
                                    const std::vector<int64_t> &perm) {
  size_t k = shape.size();
  std::vector<int64_t> stride(k, 1);
  for (size_t i = k; i-- > 1;)
    stride[i - 1] = stride[i] * shape[i];
  int64_t n = product(shape);
  std::vector<int64_t> out(n), coord(k, 0);
  for (int64_t idx = 0; idx < n; ++idx) {
    int64_t d = 0;
    for (size_t j = 0; j < k; ++j)
      d += coord[j] * stride[perm[j]];
    out[idx] = d;
    for (size_t j = k; j-- > 0;) { // next index, row-major over the permuted shape
      if (++coord[j] < shape[perm[j]])
        break;
      coord[j] = 0;
    }
  }
  return out;
}

} // namespace

GspmdMeshes::GspmdMeshes(ModuleOp module, int64_t devices) : module(module), devices(devices) {
  meshName = "gspmd";
  for (int k = 1; SymbolTable::lookupSymbolIn(module, meshName); ++k)
    meshName = "gspmd_" + std::to_string(k);
  if (devices > 1)
    primes = primeFactors(devices);
}

bool GspmdMeshes::fix(int64_t count, std::string &error) {
  if (devices <= 0) {
    devices = count;
    primes = primeFactors(count);
  }
  if (count != devices) {
    error =
        "it tiles " + std::to_string(count) + " devices, the module has " + std::to_string(devices);
    return false;
  }
  return true;
}

FailureOr<ShardingAttr> GspmdMeshes::shardingFor(StringRef text, int64_t rank, std::string &error) {
  MLIRContext *ctx = module.getContext();
  Lexer lx{text};
  auto bad = [&](const std::string &why) -> FailureOr<ShardingAttr> {
    error = why;
    return failure();
  };
  if (!lx.eat("{"))
    return bad("expected '{'");
  if (lx.eat("{"))
    return bad("tuple shardings are not supported");
  FlatSymbolRefAttr mesh = FlatSymbolRefAttr::get(ctx, meshName);
  auto closed = [&](std::vector<std::vector<int64_t>> axesPerDim) {
    SmallVector<DimShardingAttr> dims;
    for (const std::vector<int64_t> &axes : axesPerDim) {
      SmallVector<StringAttr> names;
      for (int64_t a : axes)
        names.push_back(StringAttr::get(ctx, "g" + std::to_string(a)));
      dims.push_back(DimShardingAttr::get(ctx, names, false));
    }
    used = true;
    return ShardingAttr::get(ctx, mesh, dims);
  };
  if (lx.eat("replicated")) {
    if (devices <= 1)
      return ShardingAttr();
    return closed(std::vector<std::vector<int64_t>>(rank));
  }
  if (lx.eat("maximal"))
    return ShardingAttr(); // on one device: computed everywhere, same values
  if (lx.eat("manual"))
    return bad("manual shardings are only supported inside shard_map regions");
  std::vector<int64_t> tiles;
  if (!lx.eat("devices=") || !lx.list(tiles) || tiles.empty())
    return bad("expected 'replicated', 'maximal' or 'devices=[...]'");
  int64_t count = product(tiles);
  if (count <= 0 || count > (1 << 20))
    return bad("bad tile counts");
  // The device list: `<=[R]` or `<=[R]T(P)`, or explicit numbers.
  std::vector<int64_t> list;
  std::vector<int64_t> reshape, perm;
  if (lx.eat("<=")) {
    if (!lx.list(reshape) || product(reshape) != count)
      return bad("the iota device list does not have the tiles' device count");
    if (lx.eat("T") && !lx.tuple(perm))
      return bad("bad transpose T(...)");
    if (perm.empty())
      for (size_t i = 0; i < reshape.size(); ++i)
        perm.push_back((int64_t)i);
    std::vector<int64_t> sorted(perm);
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != (int64_t)i || sorted.size() != reshape.size())
        return bad("the transpose is not a permutation of the device list's dimensions");
    list = transposedIota(reshape, perm);
  } else {
    do {
      int64_t d;
      if (!lx.integer(d))
        return bad("expected a device list");
      list.push_back(d);
    } while (lx.eat(","));
    if ((int64_t)list.size() != count)
      return bad("the device list has " + std::to_string(list.size()) + " devices, the tiles " +
                 std::to_string(count));
  }
  size_t replicatedTail = 0;
  if (lx.eat("last_tile_dim_replicate")) {
    replicatedTail = 1;
  } else if (lx.eat("last_tile_dims=")) {
    if (!lx.eat("{"))
      return bad("expected last_tile_dims={...}");
    do {
      if (lx.eat("manual"))
        return bad("manual shardings are only supported inside shard_map regions");
      if (!lx.eat("replicated"))
        return bad("expected 'replicated' in last_tile_dims");
      ++replicatedTail;
    } while (lx.eat(","));
    if (!lx.eat("}"))
      return bad("expected '}' after last_tile_dims");
  }
  if (tiles.size() != (size_t)rank + replicatedTail)
    return bad("it tiles " + std::to_string(tiles.size() - replicatedTail) +
               " dimensions of a rank-" + std::to_string(rank) + " value");
  if (!fix(count, error))
    return failure();
  if (count == 1)
    return ShardingAttr();

  // Which order of the mesh's axes walks the devices as the list does.
  size_t k = primes.size();
  std::vector<int64_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  bool found = false;
  if (k > 8)
    found = list == transposedIota(primes, order);
  else
    do {
      found = list == transposedIota(primes, order);
    } while (!found && std::next_permutation(order.begin(), order.end()));
  if (!found)
    return bad("no order of the mesh's axes (sizes " + std::to_string(k) + " prime factors of " +
               std::to_string(count) + ") gives its device list");
  // Consecutive axes, in that order, make each dimension's tiles.
  std::vector<std::vector<int64_t>> axesPerDim(rank);
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = 1;
    while (have < tiles[d] && next < k) {
      have *= primes[order[next]];
      axesPerDim[d].push_back(order[next++]);
    }
    if (have != tiles[d])
      return bad("dimension " + std::to_string(d) + "'s " + std::to_string(tiles[d]) +
                 " tiles do not match whole mesh axes");
  }
  return closed(axesPerDim);
}

void GspmdMeshes::declareMeshes() {
  if (!used)
    return;
  OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  SmallVector<Attribute> names;
  for (size_t i = 0; i < primes.size(); ++i)
    names.push_back(b.getStringAttr("g" + std::to_string(i)));
  MeshOp::create(b, module.getLoc(), b.getStringAttr(meshName), b.getArrayAttr(names),
                 b.getDenseI64ArrayAttr(primes));
}

} // namespace shardc
