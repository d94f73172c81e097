#!/usr/bin/env bash
# What bf16 products cost in quality: the Tiny Transformer trained on
# ../shared/data/tinyshakespeare.txt at the README's schedule (AdamW, lr 1e-3,
# 30 warm-up steps, cosine to 1e-4, clip 1.0, weight decay 0.01, batch
# 32 x 128, mesh data=2), at f32 and at bf16, against the PyTorch peer with
# the same schedule, clipping and precision (peer_transformer_train.py
# --lr 1e-3 --lr-warmup 30 --lr-final-frac 0.1 --clip-norm 1.0 --precision P).
# Every validation loss is PyTorch's: shardc-gpt's last checkpoint is
# loaded into the peer's module (bench/torch_eval_checkpoint.py) and
# evaluated on the peer's own windows. Then, unless --long-steps 0, a longer
# bf16 run on data=2 (default 2,000 steps), evaluated the same way. With
# --seeds N, the short runs repeat for training seeds 0..N-1 on both sides
# (initialization and batches; the evaluation windows stay), and the
# comparisons are of the means: one seed's luck is about 0.5% here.
# Writes bench/results/precision_quality.md (or --out FILE).
#   bench/precision_quality.sh [BUILD_DIR] [--steps S] [--long-steps L] [--seeds N]
#                              [--out FILE] [--no-peer]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="" steps=300 long=2000 seeds=1 out="$here/results/precision_quality.md" peer=1
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --long-steps) long=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-peer) peer=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "precision_quality.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-${BUILD_DIR:-$here/../build}}
gpt="$build/bin/shardc-gpt"
[ -x "$gpt" ] || { echo "precision_quality.sh: no $gpt (build first)" >&2; exit 1; }
peers=$(realpath -m "${SHARDC_PEERS:-$here/../../shared/bench}")
data=$(realpath -m "${SHARDC_GPT_DATA:-$here/../../shared/data/tinyshakespeare.txt}")
py=/usr/bin/python3
$py -c "import torch" 2>/dev/null || {
  echo "precision_quality.sh: PyTorch is needed for the evaluation (tools/bootstrap.sh bench installs it)" >&2
  exit 1
}
omp=/usr/lib/x86_64-linux-gnu/openblas-openmp
clean=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS
       LD_LIBRARY_PATH="$omp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results.jsonl"

# shardc TAG STEPS PRECISION [SEED]: trains, then PyTorch evaluates the last checkpoint.
shardc() {
  local tag=$1 n=$2 prec=$3 seed=${4:-0}
  echo "== shardc-gpt $tag: $n steps, $prec, seed $seed" >&2
  "${clean[@]}" "$gpt" train --data "$data" --mesh data=2 --steps "$n" --precision "$prec" \
    --seed "$seed" \
    --log-every 100 --checkpoint-dir "$work/$tag" --keep-checkpoints 1 \
    >"$work/$tag.json" 2>"$work/$tag.log" || { tail -20 "$work/$tag.log" >&2; exit 1; }
  local ckpt
  ckpt=$(printf '%s/%s/step-%08d.safetensors' "$work" "$tag" "$n")
  "${clean[@]}" $py "$here/torch_eval_checkpoint.py" "$ckpt" --data "$data" >"$work/$tag.eval.json"
  $py - "$tag" "$n" "$prec" "$work/$tag.json" "$work/$tag.eval.json" "$seed" >>"$results" <<'PY'
import json, sys
tag, n, prec, run, ev, seed = sys.argv[1:]
r, e = json.loads(open(run).read().strip().splitlines()[-1]), json.load(open(ev))
print(json.dumps({"tag": tag, "side": "shardc", "steps": int(n), "precision": prec, "seed": int(seed),
                  "val_loss": e["torch_val_loss"], "own_val_loss": r["val_loss"],
                  "tokens_per_s": r["tokens_per_s"]}))
PY
}

# torch TAG STEPS PRECISION [SEED]: the peer with the same schedule.
torch() {
  local tag=$1 n=$2 prec=$3 seed=${4:-0}
  echo "== PyTorch $tag: $n steps, $prec, seed $seed" >&2
  "${clean[@]}" $py "$peers/peer_transformer_train.py" --data "$data" --threads 2 --batch 32 \
    --seed "$seed" \
    --steps "$n" --warmup-steps 3 --timed-steps 20 --lr 1e-3 --lr-warmup 30 --lr-final-frac 0.1 \
    --clip-norm 1.0 --precision "$prec" --save '' --quiet-wait 0 \
    >"$work/$tag.json" 2>"$work/$tag.log" || { tail -20 "$work/$tag.log" >&2; exit 1; }
  $py - "$tag" "$n" "$prec" "$work/$tag.json" "$seed" >>"$results" <<'PY'
import json, sys
tag, n, prec, run, seed = sys.argv[1:]
r = json.loads(open(run).read().strip().splitlines()[-1])
print(json.dumps({"tag": tag, "side": "torch", "steps": int(n), "precision": prec, "seed": int(seed),
                  "val_loss": r["val_loss"], "tokens_per_s": r["tokens_per_s"]}))
PY
}

for seed in $(seq 0 $((seeds - 1))); do
  shardc shardc-f32-$seed "$steps" f32 "$seed"
  shardc shardc-bf16-$seed "$steps" bf16 "$seed"
  if [ $peer = 1 ]; then
    torch torch-f32-$seed "$steps" f32 "$seed"
    torch torch-bf16-$seed "$steps" bf16 "$seed"
  fi
done
[ "$long" -gt 0 ] && shardc shardc-bf16-long "$long" bf16

mkdir -p "$(dirname "$out")"
$py - "$results" "$steps" "$long" "$seeds" <<'PY' | tee "$out"
import json, subprocess, sys, time
steps, long, seeds = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows, runs = {}, {}
for r in map(json.loads, open(sys.argv[1])):
    if r["tag"] == "shardc-bf16-long":
        rows[r["tag"]] = r
    else:  # one of the short runs: grouped by side and precision, over seeds
        runs.setdefault(r["tag"].rsplit("-", 1)[0], []).append(r)
for tag, rs in runs.items():
    mean = lambda key: sum(r[key] for r in rs if r.get(key) is not None) / len(rs)
    rows[tag] = dict(rs[0], val_loss=mean("val_loss"),
                     own_val_loss=mean("own_val_loss") if rs[0].get("own_val_loss") else None,
                     each=[r["val_loss"] for r in sorted(rs, key=lambda r: r["seed"])])
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
cpu = next((l.split(":", 1)[1].strip() for l in lscpu.splitlines() if l.startswith("Model name")), "?")
out = []
p = out.append
p("# bf16 products: training quality\n")
p(f"{cpu}, 2 cores; {time.strftime('%Y-%m-%d')}. Tiny Transformer on Tiny Shakespeare, batch 32 x 128, "
  "AdamW lr 1e-3, 30 warm-up steps, cosine to 1e-4, clip 1.0, weight decay 0.01; shardc-gpt on "
  "mesh data=2. Validation loss by PyTorch on the peer's windows (for shardc-gpt: its last "
  "checkpoint loaded into the peer's module by bench/torch_eval_checkpoint.py).\n")
seeds_note = f" (mean of seeds 0-{seeds - 1})" if seeds > 1 else ""
p(f"| run | steps | val loss (PyTorch's evaluation){seeds_note} | shardc-gpt's own val loss | each seed |")
p("| --- | --- | --- | --- | --- |")
names = {"shardc-f32": "shardc-gpt f32", "shardc-bf16": "shardc-gpt --precision bf16",
         "torch-f32": "PyTorch eager f32", "torch-bf16": "PyTorch autocast bf16",
         "shardc-bf16-long": "shardc-gpt --precision bf16"}
for tag in ("shardc-f32", "shardc-bf16", "torch-f32", "torch-bf16", "shardc-bf16-long"):
    r = rows.get(tag)
    if r:
        own = r.get("own_val_loss")
        each = ", ".join(f"{v:.4f}" for v in r.get("each", [r["val_loss"]]))
        p(f"| {names[tag]} | {r['steps']} | {r['val_loss']:.4f} | "
          f"{'-' if own is None else f'{own:.4f}'} | {each} |")
f, b = rows["shardc-f32"]["val_loss"], rows["shardc-bf16"]["val_loss"]
what = "means" if seeds > 1 else "runs"
p(f"\nbf16 against f32 after {steps} steps ({what}): {100 * (b - f) / f:+.2f}% (goal: within 1%).")
if "torch-bf16" in rows:
    t = rows["torch-bf16"]["val_loss"]
    p(f"shardc-gpt bf16 against PyTorch bf16 ({what}): {b:.4f} vs {t:.4f} "
      f"({'no worse' if b <= t else 'worse'}).")
if "shardc-bf16-long" in rows:
    l = rows["shardc-bf16-long"]["val_loss"]
    p(f"After {long} bf16 steps on data=2: {l:.4f} (goal: at most 1.53).")
p("\nCommand: bench/precision_quality.sh" + (f" --seeds {seeds}" if seeds > 1 else "")
  + (f" --long-steps {long}" if long != 2000 else ""))
print("\n".join(out))
PY
