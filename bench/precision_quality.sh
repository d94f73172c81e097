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
# bf16 run on data=2 (default 2,000 steps), evaluated the same way.
# Writes bench/results/precision_quality.md (or --out FILE).
#   bench/precision_quality.sh [BUILD_DIR] [--steps S] [--long-steps L] [--out FILE] [--no-peer]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="" steps=300 long=2000 out="$here/results/precision_quality.md" peer=1
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --long-steps) long=$2; shift 2 ;;
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

# shardc TAG STEPS PRECISION: trains, then PyTorch evaluates the last checkpoint.
shardc() {
  local tag=$1 n=$2 prec=$3
  echo "== shardc-gpt $tag: $n steps, $prec" >&2
  "${clean[@]}" "$gpt" train --data "$data" --mesh data=2 --steps "$n" --precision "$prec" \
    --log-every 100 --checkpoint-dir "$work/$tag" --keep-checkpoints 1 \
    >"$work/$tag.json" 2>"$work/$tag.log" || { tail -20 "$work/$tag.log" >&2; exit 1; }
  local ckpt
  ckpt=$(printf '%s/%s/step-%08d.safetensors' "$work" "$tag" "$n")
  "${clean[@]}" $py "$here/torch_eval_checkpoint.py" "$ckpt" --data "$data" >"$work/$tag.eval.json"
  $py - "$tag" "$n" "$prec" "$work/$tag.json" "$work/$tag.eval.json" >>"$results" <<'PY'
import json, sys
tag, n, prec, run, ev = sys.argv[1:]
r, e = json.loads(open(run).read().strip().splitlines()[-1]), json.load(open(ev))
print(json.dumps({"tag": tag, "side": "shardc", "steps": int(n), "precision": prec,
                  "val_loss": e["torch_val_loss"], "own_val_loss": r["val_loss"],
                  "tokens_per_s": r["tokens_per_s"]}))
PY
}

# torch TAG STEPS PRECISION: the peer with the same schedule.
torch() {
  local tag=$1 n=$2 prec=$3
  echo "== PyTorch $tag: $n steps, $prec" >&2
  "${clean[@]}" $py "$peers/peer_transformer_train.py" --data "$data" --threads 2 --batch 32 \
    --steps "$n" --warmup-steps 3 --timed-steps 20 --lr 1e-3 --lr-warmup 30 --lr-final-frac 0.1 \
    --clip-norm 1.0 --precision "$prec" --save '' --quiet-wait 0 \
    >"$work/$tag.json" 2>"$work/$tag.log" || { tail -20 "$work/$tag.log" >&2; exit 1; }
  $py - "$tag" "$n" "$prec" "$work/$tag.json" >>"$results" <<'PY'
import json, sys
tag, n, prec, run = sys.argv[1:]
r = json.loads(open(run).read().strip().splitlines()[-1])
print(json.dumps({"tag": tag, "side": "torch", "steps": int(n), "precision": prec,
                  "val_loss": r["val_loss"], "tokens_per_s": r["tokens_per_s"]}))
PY
}

shardc shardc-f32 "$steps" f32
shardc shardc-bf16 "$steps" bf16
if [ $peer = 1 ]; then
  torch torch-f32 "$steps" f32
  torch torch-bf16 "$steps" bf16
fi
[ "$long" -gt 0 ] && shardc shardc-bf16-long "$long" bf16

mkdir -p "$(dirname "$out")"
$py - "$results" "$steps" "$long" <<'PY' | tee "$out"
import json, subprocess, sys, time
rows = {r["tag"]: r for r in map(json.loads, open(sys.argv[1]))}
steps, long = int(sys.argv[2]), int(sys.argv[3])
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
cpu = next((l.split(":", 1)[1].strip() for l in lscpu.splitlines() if l.startswith("Model name")), "?")
out = []
p = out.append
p("# bf16 products: training quality\n")
p(f"{cpu}, 2 cores; {time.strftime('%Y-%m-%d')}. Tiny Transformer on Tiny Shakespeare, batch 32 x 128, "
  "AdamW lr 1e-3, 30 warm-up steps, cosine to 1e-4, clip 1.0, weight decay 0.01; shardc-gpt on "
  "mesh data=2. Validation loss by PyTorch on the peer's windows (for shardc-gpt: its last "
  "checkpoint loaded into the peer's module by bench/torch_eval_checkpoint.py).\n")
p(f"| run | steps | val loss (PyTorch's evaluation) | shardc-gpt's own val loss |")
p("| --- | --- | --- | --- |")
names = {"shardc-f32": "shardc-gpt f32", "shardc-bf16": "shardc-gpt --precision bf16",
         "torch-f32": "PyTorch eager f32", "torch-bf16": "PyTorch autocast bf16",
         "shardc-bf16-long": "shardc-gpt --precision bf16"}
for tag in ("shardc-f32", "shardc-bf16", "torch-f32", "torch-bf16", "shardc-bf16-long"):
    r = rows.get(tag)
    if r:
        own = r.get("own_val_loss")
        p(f"| {names[tag]} | {r['steps']} | {r['val_loss']:.4f} | "
          f"{'-' if own is None else f'{own:.4f}'} |")
f, b = rows["shardc-f32"]["val_loss"], rows["shardc-bf16"]["val_loss"]
p(f"\nbf16 against f32 after {steps} steps: {100 * (b - f) / f:+.2f}% (goal: within 1%).")
if "torch-bf16" in rows:
    t = rows["torch-bf16"]["val_loss"]
    p(f"shardc-gpt bf16 against PyTorch bf16: {b:.4f} vs {t:.4f} ({'no worse' if b <= t else 'worse'}).")
if "shardc-bf16-long" in rows:
    l = rows["shardc-bf16-long"]["val_loss"]
    p(f"After {long} bf16 steps on data=2: {l:.4f} (goal: at most 1.53).")
p("\nCommand: bench/precision_quality.sh")
print("\n".join(out))
PY
