#!/usr/bin/env bash
# The main demo: the Tiny Transformer (byte-level, d_model 256, 4 heads,
# FFN 1024, 4 pre-LN blocks) trained briefly on Tiny Shakespeare over 2
# simulated devices, data parallel; its validation perplexity; a
# safetensors checkpoint; the checkpoint restored onto a tensor-parallel
# mesh (the heads split over "model") for a few more steps; text generated
# from the checkpoint; and the collectives the compiler placed for each
# layout.
#   models/transformer/demo.sh [BUILD_DIR] [STEPS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
steps=${2:-120}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gpt="$build/bin/shardc-gpt"

total=$((steps + 20))
schedule=(--steps "$total" --batch 16 --lr 2e-3 --warmup 20 --eval-batches 8)
echo "== train $steps of $total steps, batch 16 x 128 bytes split over 2 devices (mesh data=2)"
"$gpt" train --mesh data=2 "${schedule[@]}" --stop-after "$steps" --eval-every 60 \
  --log-every 20 --checkpoint-dir "$work/ckpt"
last=$(ls "$work/ckpt"/*.safetensors | tail -1)
echo
echo "== the checkpoint: PyTorch state_dict names, optimizer state, metadata"
/usr/bin/python3 - "$last" <<'PY'
import json, struct, sys
with open(sys.argv[1], "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
meta = header.pop("__metadata__", {})
names = list(header)
print(f"{sys.argv[1].split('/')[-1]}: {len(names)} tensors, metadata {meta}")
for k in names[:4] + ["..."] + names[-3:]:
    print("  ", k, header[k]["dtype"] + str(header[k]["shape"]) if k in header else "")
PY
echo
echo "== resume it on another layout, the heads split over \"model\" (mesh model=2), for the last 20 steps"
"$gpt" train --mesh model=2 "${schedule[@]}" --resume "$last" --log-every 10
echo
echo "== generate 150 bytes from the checkpoint (sampled, temperature 0.8, top-k 40; padded to the context: one compile)"
"$gpt" generate --checkpoint "$last" --prompt "ROMEO:" --tokens 150 --temperature 0.8 --top-k 40 --seed 1
echo
echo "== the collectives of each layout's training step (shardc explain)"
for mesh in data=2 model=2; do
  "$gpt" train --mesh "$mesh" --batch 16 --emit-mlir "$work/loss.mlir"
  "$build/bin/shardc-opt" "$work/loss.mlir" --mlir-print-debuginfo \
    --shardc-train-step="function=loss optimizer=adamw weight-decay=0.01 clip-norm=1" \
    -o "$work/step.mlir"
  echo "-- $mesh:"
  "$build/bin/shardc" explain "$work/step.mlir" --entry loss_train_step > "$work/explain.txt"
  sed -n '/^Collectives/,$p' "$work/explain.txt" | grep -E '^  [a-z]' | sort | uniq -c |
    sort -rn | head -4
  grep '^Total' "$work/explain.txt"
done
