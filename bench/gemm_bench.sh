#!/usr/bin/env bash
# The CPU backend's products on the Tiny Transformer's GEMM shapes
# (build/bin/shardc-gemm-bench: forward, data and weight gradients with
# operands read transposed in place, batched attention), per library
# (oneDNN, OpenBLAS, and the backend's rule, "auto") and precision (f32,
# bf16), beside the libraries the backend does not use (BLIS and libxsmm,
# build/bin/shardc-gemm-libs-bench, where tools/bootstrap.sh bench installed
# them), numpy's f32 matmul on the same shapes (Debian's OpenMP OpenBLAS)
# and the FMA peak of ../shared/bench/fma_peak.c, all measured in this run on
# the same threads. Writes bench/results/gemm.md (or --out FILE).
#   bench/gemm_bench.sh [BUILD_DIR] [--threads N] [--out FILE] [--no-build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="" threads=2 out="$here/results/gemm.md" do_build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gemm_bench.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-${BUILD_DIR:-$here/../build}}
if [ $do_build = 1 ]; then
  BUILD_DIR=$build "$here/../tools/bootstrap.sh" build >/dev/null
fi
bench="$build/bin/shardc-gemm-bench"
[ -x "$bench" ] || { echo "gemm_bench.sh: no $bench (build first)" >&2; exit 1; }
peers=$(realpath -m "${SHARDC_PEERS:-$here/../../shared/bench}")
omp=/usr/lib/x86_64-linux-gnu/openblas-openmp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clean=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS
       LD_LIBRARY_PATH="$omp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")

echo "== FMA peak (fma_peak.c, $threads threads)" >&2
peak=""
if [ -f "$peers/fma_peak.c" ] && cc -O2 -mavx512f -pthread "$peers/fma_peak.c" -o "$work/fma_peak" 2>/dev/null; then
  peak=$("$work/fma_peak" "$threads" 2 | sed -n 's/.*fma_gflops=\([0-9.]*\).*/\1/p')
fi
echo "== shardc-gemm-bench" >&2
"${clean[@]}" "$bench" --threads "$threads" >"$work/shardc.jsonl"
if [ -x "$build/bin/shardc-gemm-libs-bench" ]; then
  echo "== shardc-gemm-libs-bench (BLIS, libxsmm)" >&2
  "${clean[@]}" "$build/bin/shardc-gemm-libs-bench" --threads "$threads" >>"$work/shardc.jsonl"
else
  echo "gemm_bench.sh: no shardc-gemm-libs-bench: the BLIS and libxsmm columns need libblis-openmp-dev and libxsmm-dev (tools/bootstrap.sh bench installs them and configures again)" >&2
fi
echo "== FMA peak again" >&2
peak2=""
[ -x "$work/fma_peak" ] && peak2=$("$work/fma_peak" "$threads" 2 | sed -n 's/.*fma_gflops=\([0-9.]*\).*/\1/p')
echo "== numpy" >&2
"${clean[@]}" OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" /usr/bin/python3 - \
  "$work/shardc.jsonl" >"$work/numpy.jsonl" <<'PY' || echo "gemm_bench.sh: numpy failed" >&2
import json, sys, time
import numpy as np
rows = [json.loads(l) for l in open(sys.argv[1]) if '"shape"' in l]
try:  # which kernel OpenBLAS picked for this CPU, as numpy loaded it
    from threadpoolctl import threadpool_info
    core = next((i.get("architecture") for i in threadpool_info()
                 if i.get("internal_api") == "openblas"), None)
    print(json.dumps({"openblas_core": core}))
except ImportError:
    pass
seen = set()
for r in rows:
    if r["shape"] in seen:
        continue
    seen.add(r["shape"])
    rng = np.random.default_rng(0)
    b, M, N, K = r["batch"], r["M"], r["N"], r["K"]
    a = rng.standard_normal((b, K, M) if r["trans_a"] else (b, M, K), dtype=np.float32)
    w = rng.standard_normal((b, N, K) if r["trans_b"] else (b, K, N), dtype=np.float32)
    a = a.transpose(0, 2, 1) if r["trans_a"] else a
    w = w.transpose(0, 2, 1) if r["trans_b"] else w
    if b == 1:
        a, w = a[0], w[0]
    for _ in range(3):
        np.matmul(a, w)
    times, start = [], time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < 0.3:
        t0 = time.perf_counter()
        np.matmul(a, w)
        times.append(time.perf_counter() - t0)
    med = sorted(times)[len(times) // 2]
    print(json.dumps({"shape": r["shape"], "gflops": 2.0 * b * M * N * K / med * 1e-9}))
PY

mkdir -p "$(dirname "$out")"
PEAK="$peak" PEAK2="$peak2" THREADS="$threads" /usr/bin/python3 - "$work/shardc.jsonl" \
  "$work/numpy.jsonl" <<'PY' | tee "$out"
import json, os, subprocess, sys, time
rows = [json.loads(l) for l in open(sys.argv[1])]
bf16_hw = next((r["bf16_instructions"] for r in rows if "bf16_instructions" in r), None)
kernels = next((r for r in rows if "blis_kernels" in r), None)
rows = [r for r in rows if "shape" in r]
numpy, core = {}, None
try:
    lines = [json.loads(l) for l in open(sys.argv[2])]
    numpy = {r["shape"]: r["gflops"] for r in lines if "shape" in r}
    core = next((r["openblas_core"] for r in lines if "openblas_core" in r), None)
except Exception:
    pass
E = os.environ
peaks = [float(p) for p in (E["PEAK"], E["PEAK2"]) if p]
peak = max(peaks) if peaks else None
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
info = dict((k.strip(), v.strip()) for k, _, v in (l.partition(":") for l in lscpu.splitlines()))
flags = info.get("Flags", "").split()
g = {(r["shape"], r["precision"], r["library"]): r["gflops"] for r in rows}
shapes = list(dict.fromkeys(r["shape"] for r in rows))
dims = {r["shape"]: r for r in rows}
def cell(key):
    v = g.get(key)
    if v is None:
        return "-"
    return f"{v:.0f}" + (f" ({100 * v / peak:.0f}%)" if peak else "")
out = []
p = out.append
p("# GEMM shapes of the Tiny Transformer: the CPU backend's products\n")
p(f"{info.get('Model name', '?')}, {E['THREADS']} threads, avx512f "
  f"{'yes' if 'avx512f' in flags else 'no'}, avx512_bf16 {'yes' if 'avx512_bf16' in flags else 'no'}, "
  f"AMX {'yes' if 'amx_bf16' in flags else 'no'}; bf16 products on bf16 instructions: "
  f"{'yes' if bf16_hw else 'no (emulated)'}; OpenBLAS's kernel for this CPU (threadpoolctl, "
  f"OPENBLAS_CORETYPE unset): {core or 'unknown (python3-threadpoolctl missing)'}; "
  f"{time.strftime('%Y-%m-%d')}.")
if kernels:
    p(f"Kernels BLIS picked for this CPU: {kernels['blis_kernels']}; libxsmm's JIT target: "
      f"{kernels['libxsmm_kernels']} (BLIS_ARCH_TYPE and LIBXSMM_TARGET unset).")
if peak:
    p(f"FMA peak (../shared/bench/fma_peak.c, {E['THREADS']} threads, before and after): "
      f"{' and '.join(f'{x:.0f}' for x in peaks)} GFLOP/s; percentages are of {peak:.0f}, "
      "the f32 FMA ceiling (bf16 dot-product instructions do twice the flops per cycle).")
p("GFLOP/s, medians of at least 5 calls and 0.3 s per cell; \"auto\" is the path a model's "
  "products take: the backend's per-shape rule, or where both oneDNN and OpenBLAS could run an "
  "f32 product, the one its product wisdom measured faster on this machine.\n")
libs = any(r["library"] in ("blis", "libxsmm") for r in rows)
head = ["shape", "B x M x N x K", "f32 auto", "f32 oneDNN", "f32 OpenBLAS"]
head += ["f32 BLIS", "f32 libxsmm"] if libs else []
head += ["numpy f32", "bf16 auto", "bf16 / f32 auto"]
p("| " + " | ".join(head) + " |")
p("|" + " --- |" * len(head))
for s in shapes:
    d = dims[s]
    shape = f"{d['batch']} x {d['M']} x {d['N']} x {d['K']}" + (" (A^T)" if d["trans_a"] else "") + (" (B^T)" if d["trans_b"] else "")
    f32a, bf = g.get((s, "f32", "auto")), g.get((s, "bf16", "auto"))
    cells = [s, shape] + [cell((s, "f32", l)) for l in ("auto", "onednn", "openblas")]
    cells += [cell((s, "f32", l)) for l in ("blis", "libxsmm")] if libs else []
    cells += [f"{numpy[s]:.0f}" if s in numpy else "-", cell((s, "bf16", "auto")),
              f"{bf / f32a:.2f}x" if f32a and bf else "-"]
    p("| " + " | ".join(cells) + " |")
if libs:
    p("\nBLIS through its native API (strides read a transposed operand in place; a batch runs "
      "one single-threaded product per item over the cores). libxsmm's JIT kernels: one per "
      "item of a batch, 64 x 64 tiles of C over blocks of 64 along K for the large products "
      "(as its users tile them); \"-\": its JIT has no kernel for the layout (a row-major B "
      "read transposed). f32 only: Debian's BLIS has no bf16 product, and libxsmm's bf16 "
      "kernels want B in its VNNI layout.")
p("\nCommand: bench/gemm_bench.sh (shardc-gemm-bench and shardc-gemm-libs-bench --threads N; numpy with "
  "OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=N on Debian's OpenMP OpenBLAS).")
print("\n".join(out))
PY
