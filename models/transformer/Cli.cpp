//===- Cli.cpp - shardc-gpt's command-line helpers ------------------------===//

#include "Cli.h"

#include <shardc/Runtime/ProcessGroup.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gpt::cli {

namespace {

const char *kUsage =
    "usage: shardc-gpt train [--data PATH] [--devices N] [--mesh data=D,model=M] [--steps S]\n"
    "                        [--batch B] [--lr LR] [--warmup W] [--seed S] [--eval-every K]\n"
    "                        [--eval-batches E] [--checkpoint-dir DIR] [--resume PATH]\n"
    "                        [--keep-checkpoints N]\n"
    "                        [--stop-after N] [--log-every K] [--clip-norm C]\n"
    "                        [--weight-decay WD] [--precision f32|bf16|tf32]\n"
    "                        [--fsdp on|off] [--remat none|block|dots]\n"
    "                        [--sequence-parallel [on|off]] [--attention fused|composed]\n"
    "                        [--emit-mlir PATH]\n"
    "                        [--d-model D] [--heads H] [--d-ff F] [--layers L] [--context T]\n"
    "       shardc-gpt generate --checkpoint PATH --prompt TEXT --tokens N [--temperature T]\n"
    "                        [--top-k K] [--seed S] [--mode padded|kv-cache] [--batch B]\n"
    "                        [--devices N] [--mesh data=D,model=M] [--warmup N]\n"
    "                        [--precision f32|bf16|tf32] [--emit-mlir PATH]\n"
    "       shardc-gpt plan [--mesh data=D,model=M] [--batch B] [--profile h100|h200|FILE]\n"
    "                        [--precision f32|bf16|tf32]\n"
    "                        [--d-model D] [--heads H] [--d-ff F] [--layers L] [--context T]\n";

/// "data=2,model=2" (either part may be left out: size 1).
void parseMesh(const std::string &text, int64_t &data, int64_t &model) {
  data = model = 1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = part.find('=');
    if (eq == std::string::npos)
      usage("--mesh wants axis=size pairs such as data=2,model=2, got '" + text + "'");
    std::string axis = part.substr(0, eq);
    int64_t size = toInt("--mesh " + axis, part.substr(eq + 1), 1);
    if (axis == "data")
      data = size;
    else if (axis == "model")
      model = size;
    else
      usage("--mesh: unknown axis '" + axis + "' (the axes are data and model)");
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
}

} // namespace

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr, "shardc-gpt: error: %s\n%s", why.c_str(), kUsage);
  shardc::exitRun(2);
}

[[noreturn]] void help() {
  std::fputs(kUsage, stdout);
  std::exit(0);
}

[[noreturn]] void die(const std::string &why) {
  std::fprintf(stderr, "shardc-gpt: error: %s\n", why.c_str());
  shardc::exitRun(1);
}

int64_t toInt(const std::string &opt, const std::string &v, int64_t min) {
  char *end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || x < min)
    usage(opt + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return x;
}

std::string toPrecision(const std::string &opt, const std::string &v) {
  if (v != "f32" && v != "bf16" && v != "tf32")
    usage(opt + ": unknown precision '" + v + "' (choices: f32, bf16, tf32)");
  return v;
}

Remat toRemat(const std::string &opt, const std::string &v) {
  if (v == "none")
    return Remat::None;
  if (v == "block")
    return Remat::Block;
  if (v == "dots")
    return Remat::Dots;
  usage(opt + ": unknown rematerialization '" + v + "' (choices: none, block, dots)");
}

const char *rematName(Remat r) {
  return r == Remat::Block ? "block" : r == Remat::Dots ? "dots" : "none";
}

Attention toAttention(const std::string &opt, const std::string &v) {
  if (v == "fused")
    return Attention::Fused;
  if (v == "composed")
    return Attention::Composed;
  usage(opt + ": unknown attention '" + v + "' (choices: fused, composed)");
}

const char *attentionName(Attention a) { return a == Attention::Fused ? "fused" : "composed"; }

bool toOnOff(const std::string &opt, const std::string &v) {
  if (v != "on" && v != "off")
    usage(opt + " is on or off, got '" + v + "'");
  return v == "on";
}

double toDouble(const std::string &opt, const std::string &v) {
  char *end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x) || x < 0)
    usage(opt + " needs a non-negative number, got '" + v + "'");
  return x;
}

std::vector<std::pair<std::string, std::string>> optionPairs(int argc, char **argv) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h")
      help();
    // A switch alone means on.
    if (a == "--sequence-parallel" && (i + 1 >= argc || (std::string(argv[i + 1]) != "on" &&
                                                         std::string(argv[i + 1]) != "off"))) {
      out.emplace_back(a, "on");
      continue;
    }
    if (i + 1 >= argc)
      usage("option " + a + " needs a value");
    out.emplace_back(a, argv[++i]);
  }
  return out;
}

void resolveMesh(const std::string &meshText, int64_t devices, int64_t &data, int64_t &model) {
  data = model = 1;
  if (!meshText.empty())
    parseMesh(meshText, data, model);
  else if (devices)
    data = devices;
  if (devices && devices != data * model)
    usage("--devices " + std::to_string(devices) + " does not match --mesh " + meshText);
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace gpt::cli
