#!/usr/bin/env bash
# Tiny Transformer text generation (build/bin/shardc-gpt generate) against
# PyTorch's decoding of the same kind (../shared/bench/peer_generate.py:
# greedy, batch 1, prompt "ROMEO:", 200 new bytes, 2 threads; and
# bench/peer_generate_batch.py for a batch), same model config, in one run,
# each side after an untimed generation of the same 200 bytes (shardc-gpt's
# configurations also run once before the rounds, filling its disk caches):
#   a. padded: the window is always 128 bytes, one executable for every step,
#      against PyTorch's padded decoding;
#   b. kv-cache: a prefill (of the shortest window from 8 that holds the
#      prompt), then one decode step per byte over
#      donated key/value caches, against PyTorch's kv-cache decoding (its
#      `kvcache` row); batch 1 (after a warm-up generation, and as the first
#      generation of a process) and batch 8 against PyTorch at batch 8;
#      and at --precision bf16 (weights kept at bf16) against PyTorch's
#      kv-cache decoding under CPU autocast to bf16, and against its f32 row;
#   c. where the kv-cache decode step's time goes: the bytes of weights it
#      reads per byte against its time.
# The sides alternate, `rounds` times; the table has medians. Both sides load
# Debian's OpenMP OpenBLAS with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset.
# The checkpoint is --checkpoint PATH, else one training step of shardc-gpt
# (speed does not depend on the weights; the peers then use their seeded
# init). Prints the table and writes it to bench/results/generate.md (or
# --out FILE).
#   bench/generate_bench.sh [BUILD_DIR] [--rounds R] [--checkpoint PATH] [--out FILE] [--no-build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="" rounds=3 out="$here/results/generate.md" do_build=1 ckpt=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --checkpoint) ckpt=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "generate_bench.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-${BUILD_DIR:-$here/../build}}
if [ $do_build = 1 ]; then
  BUILD_DIR=$build "$here/../tools/bootstrap.sh" build >/dev/null
fi
gpt="$build/bin/shardc-gpt"
[ -x "$gpt" ] || { echo "generate_bench.sh: no $gpt (build first)" >&2; exit 1; }
peers=$(realpath -m "${SHARDC_PEERS:-$here/../../shared/bench}")
py=/usr/bin/python3
omp=/usr/lib/x86_64-linux-gnu/openblas-openmp
ldpath="$omp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d "$omp" ] || { echo "warning: $omp missing: the system BLAS" >&2; ldpath="${LD_LIBRARY_PATH:-}"; }
have_torch=0
if [ -f "$peers/peer_generate.py" ] && $py -c "import torch" 2>/dev/null; then
  have_torch=1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SHARDC_CACHE_DIR="$work/cache"
if [ -z "$ckpt" ]; then
  env LD_LIBRARY_PATH="$ldpath" "$gpt" train --steps 1 --eval-batches 1 \
    --checkpoint-dir "$work/ckpt" >/dev/null 2>&1
  ckpt="$work/ckpt/step-00000001.safetensors"
fi
samples="$work/samples.jsonl"
: >"$samples"

# run TAG CMD...: keeps the JSON line CMD's stdout ends with.
run() {
  local tag=$1; shift
  sleep 1
  local line
  line=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS \
           -u OPENBLAS_NUM_THREADS "$@" 2>"$work/$tag.log" | tail -n 1) || {
    echo "generate_bench.sh: $tag failed: $*" >&2; tail -20 "$work/$tag.log" >&2; exit 1; }
  echo "{\"tag\": \"$tag\", \"result\": $line}" >>"$samples"
  echo "  $tag: $(echo "$line" | head -c 160)" >&2
}
gen() { # TAG ARGS...
  local tag=$1; shift
  run "$tag" env LD_LIBRARY_PATH="$ldpath" "$gpt" generate --checkpoint "$ckpt" \
    --prompt "ROMEO:" --tokens 200 "$@"
}

# Each shardc-gpt configuration once, untimed, before the rounds: the fused
# kernels its programs reach the JIT's threshold for (some only during a
# run's second generation: a block's programs count once per layer), its
# plans and the product wisdom go to the disk cache, as after any earlier
# run, so round 1 times what the others do.
for args in "--mode padded" "--mode kv-cache" "--mode kv-cache --batch 8" \
  "--mode kv-cache --precision bf16" "--mode kv-cache --batch 8 --precision bf16"; do
  # shellcheck disable=SC2086 # the flags split on purpose
  env LD_LIBRARY_PATH="$ldpath" "$gpt" generate --checkpoint "$ckpt" --prompt "ROMEO:" \
    --tokens 200 --warmup 200 $args >/dev/null 2>&1 ||
    { echo "generate_bench.sh: shardc-gpt generate $args failed" >&2; exit 1; }
done

for round in $(seq "$rounds"); do
  echo "round $round/$rounds" >&2
  gen padded --mode padded --warmup 200
  gen kv1 --mode kv-cache --warmup 200
  gen kv1-first --mode kv-cache
  gen kv8 --mode kv-cache --batch 8 --warmup 200
  gen kv1-bf16 --mode kv-cache --precision bf16 --warmup 200
  gen kv8-bf16 --mode kv-cache --batch 8 --precision bf16 --warmup 200
  if [ $have_torch = 1 ]; then
    run torch $py "$peers/peer_generate.py" --new-tokens 200 --repeats 1 --quiet-wait 5 \
      --warmup-tokens 200 --ckpt none
    run torch8 env SHARDC_PEERS="$peers" $py "$here/peer_generate_batch.py" --batch 8 \
      --new-tokens 200 --warmup-tokens 200
    run torch1-bf16 env SHARDC_PEERS="$peers" $py "$here/peer_generate_batch.py" --batch 1 \
      --new-tokens 200 --warmup-tokens 200 --precision bf16
    run torch8-bf16 env SHARDC_PEERS="$peers" $py "$here/peer_generate_batch.py" --batch 8 \
      --new-tokens 200 --warmup-tokens 200 --precision bf16
  fi
done

mkdir -p "$(dirname "$out")"
export ROUNDS=$rounds HAVE_TORCH=$have_torch CKPT="$ckpt"
export OPENBLAS_CORE="$("$here/openblas_core.sh")"
$py - "$samples" <<'PY' | tee "$out"
import collections, json, os, statistics, subprocess, sys, time
S = collections.defaultdict(list)
for line in open(sys.argv[1]):
    s = json.loads(line)
    S[s["tag"]].append(s["result"])
E = os.environ
torch_ok = E["HAVE_TORCH"] == "1"
def rounds(tag, *keys):
    """Each round's value of `keys`, in round order."""
    out = []
    for r in S[tag]:
        for k in keys:
            r = r[k]
        out.append(r)
    return out
def med(tag, *keys):
    return statistics.median(rounds(tag, *keys))
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
info = dict((k.strip(), v.strip()) for k, _, v in (l.partition(":") for l in lscpu.splitlines()))
flags = info.get("Flags", "").split()
p = print
p("# Tiny Transformer generation: shardc-gpt against PyTorch\n")
p(f"{info.get('Model name', '?')}, {info.get('CPU(s)', '?')} cores, avx512f "
  f"{'yes' if 'avx512f' in flags else 'no'}, AMX {'yes' if 'amx_tile' in flags else 'no'}; "
  f"{time.strftime('%Y-%m-%d')}. Greedy, prompt \"ROMEO:\", 200 new bytes, context 128 "
  f"(both slide past it), 2 threads, OpenMP OpenBLAS on both sides (its kernel for this "
  f"CPU: {E['OPENBLAS_CORE']}). Medians of "
  f"{E['ROUNDS']} interleaved rounds. shardc-gpt times a generation after an untimed one of "
  f"the same length in the same process (--warmup 200: the compile-cache lookup happens "
  f"there), each configuration having run once before the rounds (its plans, fused kernels "
  f"and product wisdom on disk, as after any earlier run), PyTorch after an untimed "
  f"generation of the same "
  f"200 bytes too (--warmup-tokens 200); the row "
  f"\"first generation\" has no warm-up: a new process whose plans and fused kernels come "
  f"from the disk cache (only its first step and first decode step are left out).\n")
p("| decoding | shardc-gpt tokens/s | ms per byte | plans compiled in round 1 "
  "| PyTorch, same decoding | PyTorch tokens/s | shardc / PyTorch | per round: lowest-highest "
  "(median) |")
p("| --- | --- | --- | --- | --- | --- | --- | --- |")
def row(name, tag, peer_name, peer, peer_rounds=None):
    """`peer`: the peer's median; `peer_rounds`: its values round by round
    (a list of them per round: the faster counts), for the ratios of the
    runs side by side."""
    r = S[tag][0]
    t = med(tag, "tokens_per_s")
    vs = f"{t / peer:.1f}x" if peer else "-"
    per = "-"
    if peer and peer_rounds:
        ratios = sorted(o / max(q) for o, q in zip(rounds(tag, "tokens_per_s"), peer_rounds))
        per = f"{ratios[0]:.1f}-{ratios[-1]:.1f}x ({statistics.median(ratios):.2f}x)"
    p(f"| {name} | {t:,.0f} | {med(tag, 'ms_per_token_median'):.3f} | {r['compiles']} | "
      f"{peer_name if peer else '-'} | {f'{peer:,.0f}' if peer else '-'} | {vs} | {per} |")
def peer_rounds(*series):
    return list(zip(*series)) if torch_ok else None
padded = med("torch", "padded", "tokens_per_s") if torch_ok else None
kv = med("torch", "kvcache", "tokens_per_s") if torch_ok else None
kv8 = med("torch8", "tokens_per_s") if torch_ok else None
kv_rounds = peer_rounds(rounds("torch", "kvcache", "tokens_per_s")) if torch_ok else None
row("padded, batch 1", "padded", "padded (peer_generate.py)", padded,
    peer_rounds(rounds("torch", "padded", "tokens_per_s")) if torch_ok else None)
row("kv-cache, batch 1", "kv1", "kv-cache (peer_generate.py `kvcache`)", kv, kv_rounds)
row("kv-cache, batch 1, first generation of a process", "kv1-first",
    "kv-cache, after its warm-up", kv, kv_rounds)
row("kv-cache, batch 8 (bytes/s of all 8)", "kv8", "kv-cache, batch 8 (peer_generate_batch.py)",
    kv8, peer_rounds(rounds("torch8", "tokens_per_s")) if torch_ok else None)
kvbf = med("torch1-bf16", "tokens_per_s") if torch_ok else None
row("kv-cache, batch 1, `--precision bf16`", "kv1-bf16",
    "kv-cache under autocast bf16 (peer_generate_batch.py --batch 1 --precision bf16)", kvbf,
    peer_rounds(rounds("torch1-bf16", "tokens_per_s")) if torch_ok else None)
row("kv-cache, batch 1, `--precision bf16`", "kv1-bf16",
    "kv-cache at f32 (peer_generate.py `kvcache`, its faster row)", kv, kv_rounds)
kv8bf = med("torch8-bf16", "tokens_per_s") if torch_ok else None
row("kv-cache, batch 8, `--precision bf16` (bytes/s of all 8)", "kv8-bf16",
    "kv-cache, batch 8, under autocast bf16 (peer_generate_batch.py --batch 8 --precision bf16)",
    kv8bf, peer_rounds(rounds("torch8-bf16", "tokens_per_s")) if torch_ok else None)
if torch_ok and kv8 and kv8bf:
    row("kv-cache, batch 8, `--precision bf16` (bytes/s of all 8)", "kv8-bf16",
        "kv-cache, batch 8, its faster precision", max(kv8, kv8bf),
        peer_rounds(rounds("torch8", "tokens_per_s"), rounds("torch8-bf16", "tokens_per_s")))
if torch_ok:
    p(f"\nPyTorch's naive decoding (the growing sequence, no cache): "
      f"{med('torch', 'naive', 'tokens_per_s'):,.0f} tokens/s.")
# Where the time goes: a decode step reads every weight once (3.32 M f32
# parameters, 13.3 MB) and its caches; at batch 1 that is all it does.
ms = med("kv1", "ms_per_token_median")
weights = 3_323_648 * 4
caches = 2 * 4 * 4 * 128 * 64 * 4 // 2   # half the cache on average: positions up to pos
p(f"\nkv-cache, batch 1: each decode step reads the 13.3 MB of weights "
  f"(3.32 M f32 parameters) and on average half its 1.0 MB of caches in "
  f"{ms:.3f} ms: {(weights + caches) / (ms * 1e-3) / 1e9:.1f} GB/s (this machine's L3: "
  f"{info.get('L3 cache', 'unknown')}). Batch 8 reads them once for 8 bytes. At bf16 the "
  f"product weights (3.21 M of the 3.32 M parameters) are read at 2 bytes: "
  f"{med('kv1-bf16', 'ms_per_token_median'):.3f} ms per step.\n")
p(f"Checkpoint: {os.path.basename(E['CKPT'])}. Commands: `shardc-gpt generate --checkpoint CKPT "
  f"--prompt ROMEO: --tokens 200 --mode padded|kv-cache [--batch 8] [--warmup 200]`, "
  f"`{sys.executable} ../shared/bench/peer_generate.py --new-tokens 200 --repeats 1 "
  f"--warmup-tokens 200 --ckpt none`, `{sys.executable} bench/peer_generate_batch.py --batch 8 "
  f"--new-tokens 200 --warmup-tokens 200`, `{sys.executable} bench/peer_generate_batch.py "
  f"--batch 1|8 --new-tokens 200 --warmup-tokens 200 --precision bf16`; "
  f"`--precision bf16` rows add that flag to shardc-gpt generate.")
PY
