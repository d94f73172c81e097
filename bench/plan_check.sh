#!/usr/bin/env bash
# Checks shardc-gpt plan's model against what runs here: on 2 simulated
# devices, each layout it plans for the Tiny Transformer (batch 32 x 128) is
# trained for a few steps, and the layouts ranked by the plan's roofline
# step time and peak memory are set against the measured ones. The device
# profile is measured on this machine first: one core's f32 product rate
# (numpy, one thread), its copy bandwidth as both memory and link
# bandwidth (collectives between simulated devices are copies). Prints the
# table and writes it to bench/results/plan-check.md.
#   bench/plan_check.sh [steps]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
steps=${1:-12}
"$here/../tools/bootstrap.sh" build >/dev/null
bin="${BUILD_DIR:-$here/../build}/bin"
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $py - "$work/cpu.json" <<'PY'
import json, sys, time, platform
import numpy as np
a = np.random.rand(1024, 1024).astype(np.float32)
b = np.random.rand(1024, 1024).astype(np.float32)
a @ b
t = time.perf_counter(); n = 0
while time.perf_counter() - t < 1.0:
    a @ b; n += 1
flops = 2 * 1024 ** 3 * n / (time.perf_counter() - t)
x = np.random.rand(1 << 24).astype(np.float32); y = np.empty_like(x)
np.copyto(y, x)
t = time.perf_counter(); n = 0
while time.perf_counter() - t < 1.0:
    np.copyto(y, x); n += 1
copy = 2 * x.nbytes * n / (time.perf_counter() - t)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
json.dump({"name": "this machine, one core per simulated device (%s)" % cpu,
           "sources": ["measured by bench/plan_check.sh: numpy sgemm 1024^3 on one thread, "
                       "numpy copy of 64 MiB (bytes read and written)"],
           "memory_bytes": 1 << 40, "hbm_bytes_per_s": int(copy),
           "f32_flops_per_s": int(flops), "tf32_flops_per_s": int(flops),
           "bf16_flops_per_s": int(flops), "devices_per_node": 2,
           "intra_node_bytes_per_s": int(copy), "inter_node_bytes_per_s": int(copy),
           "intra_node_latency_ns": 20000, "inter_node_latency_ns": 20000},
          open(sys.argv[1], "w"), indent=1)
print("profile: %.1f GFLOP/s, %.1f GB/s" % (flops / 1e9, copy / 1e9))
PY

"$bin/shardc-gpt" plan --mesh data=1,model=2 --batch 32 --precision f32 \
  --profile "$work/cpu.json" 2>/dev/null > "$work/plan.txt"

# name|train flags, for the layouts the plan prints on 2 devices (FSDP x TP
# over data=1 is TP).
layouts=(
  "DP (data=2)|--mesh data=2"
  "DP (data=2) +remat|--mesh data=2 --remat block"
  "FSDP (data=2)|--mesh data=2 --fsdp on"
  "FSDP (data=2) +remat|--mesh data=2 --fsdp on --remat block"
  "TP (data=1,model=2)|--mesh model=2"
  "TP (data=1,model=2) +SP|--mesh model=2 --sequence-parallel"
  "TP (data=1,model=2) +remat|--mesh model=2 --remat block"
  "TP (data=1,model=2) +remat +SP|--mesh model=2 --remat block --sequence-parallel"
)
: > "$work/measured.txt"
for entry in "${layouts[@]}"; do
  name=${entry%%|*}
  flags=${entry#*|}
  json=$(env -u OPENBLAS_CORETYPE "$bin/shardc-gpt" train $flags --steps "$steps" --warmup 2 \
           --eval-batches 1 2>/dev/null | tail -1)
  echo "$name|$json" >> "$work/measured.txt"
done

$py - "$work/plan.txt" "$work/measured.txt" "$here/results/plan-check.md" <<'PY'
import json, sys
UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
def size(t):
    t = t.strip()
    if t == "0": return 0.0
    v, u = t.split(); return float(v) * UNITS[u]
def ms(t):
    v, u = t.strip().split(); return float(v) * (1e3 if u == "s" else 1.0)
plan = {}
header = [l for l in open(sys.argv[1]) if l.startswith("profile:")][0].strip()
for line in open(sys.argv[1]):
    c = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(c) > 10 and c[0] not in ("layout", "---"):
        plan[c[0]] = (ms(c[14]), size(c[5]))
rows = []
for line in open(sys.argv[2]):
    name, js = line.rstrip("\n").split("|", 1)
    d = json.loads(js)
    rows.append((name, plan[name][0], d["ms_per_step_median"], plan[name][1],
                 d["peak_bytes_per_device"]))
def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0] * len(values)
    for k, i in enumerate(order): r[i] = k + 1
    return r
def spearman(a, b):
    ra, rb = ranks(a), ranks(b); n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))
pt, mt = [r[1] for r in rows], [r[2] for r in rows]
pm, mm = [r[3] for r in rows], [r[4] for r in rows]
out = ["# shardc-gpt plan against measured runs on 2 simulated devices", "",
       "Tiny Transformer, batch 32 x 128, f32. " + header, "",
       "| layout | planned step ms | measured ms | planned peak MB | measured peak MB | rank by time (plan, run) | rank by peak (plan, run) |",
       "|---|---|---|---|---|---|---|"]
rpt, rmt, rpm, rmm = ranks(pt), ranks(mt), ranks(pm), ranks(mm)
for i, r in enumerate(rows):
    out.append("| %s | %.1f | %.1f | %.1f | %.1f | %d, %d | %d, %d |" % (
        r[0], r[1], r[2], r[3] / 1e6, r[4] / 1e6, rpt[i], rmt[i], rpm[i], rmm[i]))
out += ["", "Spearman rank correlation, step time: %.2f; peak memory: %.2f." % (
    spearman(pt, mt), spearman(pm, mm))]
open(sys.argv[3], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
