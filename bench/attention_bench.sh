#!/usr/bin/env bash
# The CPU backend's attention kernels (build/bin/shardc-attention-bench:
# shardc.qkv_attention's forward and gradient on the Tiny Transformer's
# training shape, shardc.attention on a decoding step's) beside PyTorch
# eager's attention of the same shapes and threads (the products, the mask
# and the softmax, as ../shared/bench/tiny_transformer.py and
# peer_generate.py compute it), in interleaved rounds. Writes
# bench/results/attention.md (or --out FILE).
#   bench/attention_bench.sh [BUILD_DIR] [--threads N] [--rounds R] [--out FILE] [--no-build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="" threads=2 rounds=3 out="$here/results/attention.md" do_build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "attention_bench.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-${BUILD_DIR:-$here/../build}}
if [ $do_build = 1 ]; then
  BUILD_DIR=$build "$here/../tools/bootstrap.sh" build >/dev/null
fi
bench="$build/bin/shardc-attention-bench"
[ -x "$bench" ] || { echo "attention_bench.sh: no $bench (build first)" >&2; exit 1; }
omp=/usr/lib/x86_64-linux-gnu/openblas-openmp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clean=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS
       LD_LIBRARY_PATH="$omp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
have_torch=1
/usr/bin/python3 -c "import torch" 2>/dev/null || have_torch=0

for round in $(seq "$rounds"); do
  echo "round $round/$rounds" >&2
  "${clean[@]}" "$bench" --threads "$threads" >>"$work/shardc.jsonl"
  [ $have_torch = 1 ] || continue
  "${clean[@]}" /usr/bin/python3 - "$threads" >>"$work/torch.jsonl" <<'PY'
import json, math, sys, time
import torch
threads = int(sys.argv[1])
torch.set_num_threads(threads)

def median_ms(run, seconds=1.0):
    run()
    times, start = [], time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]

torch.manual_seed(0)
B, T, N, H = 32, 128, 4, 64
qkv = torch.randn(B, T, 3, N, H, requires_grad=True)
dout = torch.randn(B, N, T, H)
causal = torch.ones(T, T, dtype=torch.bool).tril()
scale = 1.0 / math.sqrt(H)

def forward():
    q, k, v = (z.transpose(1, 2) for z in qkv.unbind(2))            # [B,N,T,H]
    scores = (q @ k.transpose(-2, -1)) * scale
    return scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v

# Each repetition times its forward pass, then the backward pass of that
# forward's graph.
fwd_ms, bwd_ms, start = [], [], time.perf_counter()
forward().backward(dout)
qkv.grad = None
while len(fwd_ms) < 5 or time.perf_counter() - start < 2.0:
    t0 = time.perf_counter()
    y = forward()
    t1 = time.perf_counter()
    y.backward(dout)
    t2 = time.perf_counter()
    qkv.grad = None
    fwd_ms.append((t1 - t0) * 1e3)
    bwd_ms.append((t2 - t1) * 1e3)
print(json.dumps({"case": "train", "fwd_ms": sorted(fwd_ms)[len(fwd_ms) // 2],
                  "bwd_ms": sorted(bwd_ms)[len(bwd_ms) // 2], "torch": torch.__version__}))

S, filled = 128, 96
with torch.inference_mode():
    q = torch.randn(1, N, 1, H)
    cache_k, cache_v = torch.randn(1, N, S, H), torch.randn(1, N, S, H)
    def decode():
        keys, values = cache_k[:, :, :filled], cache_v[:, :, :filled]
        return ((q @ keys.transpose(-2, -1)) * scale).softmax(-1) @ values
    print(json.dumps({"case": "decode", "fwd_ms": median_ms(decode)}))
PY
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cpu="$cpu (CPU family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1))"
core=$("$here/openblas_core.sh")
/usr/bin/python3 - "$work/shardc.jsonl" "$work/torch.jsonl" "$out" "$threads" "$cpu" "$core" \
  "$rounds" <<'PY'
import json, os, statistics, sys, datetime
ours_path, theirs_path, out, threads, cpu, core, rounds = sys.argv[1:8]
def load(path):
    rows = {}
    if os.path.exists(path):
        for line in open(path):
            r = json.loads(line)
            rows.setdefault(r["case"], []).append(r)
    return rows
ours, theirs = load(ours_path), load(theirs_path)
def med(rows, case, key):
    values = [r[key] for r in rows.get(case, []) if key in r]
    return statistics.median(values) if values else None
torch_version = next((r["torch"] for r in theirs.get("train", []) if "torch" in r), None)
lines = ["# Attention on the CPU: shardc's one-pass kernels against PyTorch eager", "",
         f"{cpu}, {threads} threads; OpenBLAS's kernel for this CPU: {core} (PyTorch's "
         f"products); torch {torch_version or 'not installed'}; {datetime.date.today()}. "
         f"Medians of {rounds} interleaved rounds, each the median of the repetitions of one "
         "second.", "",
         "| case | pass | shardc ms | PyTorch eager ms | PyTorch / shardc |",
         "| --- | --- | --- | --- | --- |"]
cases = [("train", "fwd_ms", "training: causal self-attention of qkv [32,128,3,4,64]", "forward"),
         ("train", "bwd_ms", "", "backward (the gradient of qkv)"),
         ("decode", "fwd_ms", "decoding: 1 query per head over a cache of 128 positions, 96 filled",
          "forward")]
for case, key, name, what in cases:
    a, b = med(ours, case, key), med(theirs, case, key)
    ratio = f"{b / a:.2f}x" if a and b else "-"
    fmt = (lambda v: f"{v:.4f}" if v is not None and v < 0.1 else
           (f"{v:.3f}" if v is not None else "-"))
    lines.append(f"| {name} | {what} | {fmt(a)} | {fmt(b)} | {ratio} |")
lines += ["",
          "shardc: `cpu::attentionForward` / `attentionBackward` (lib/Runtime/Cpu/CpuAttention.cpp) "
          "on one (batch, head) item at a time, the [T,T] scores in cache, a causal item's "
          "half only; the gradient recomputes the probabilities. PyTorch: the products, the "
          "causal mask and the softmax as separate ops (torch 1.13 has no fused attention), the "
          "gradient by autograd; the decoding step slices its cache to the filled positions, "
          "as peer_generate.py does.",
          "",
          f"Command: bench/attention_bench.sh --threads {threads} --rounds {rounds}"]
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
