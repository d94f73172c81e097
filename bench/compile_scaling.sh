#!/usr/bin/env bash
# Compile time against device count: the training step of GPT-2 small
# (d_model 768, 12 heads, d_ff 3072, 12 blocks, context 1024, batch 512) as
# shardc-gpt traces it, partitioned (shardc-opt --shardc-train-step
# --shardc-propagate --shardc-partition) and compiled to a plan (shardc
# compile), on meshes of 8, 64 and 512 devices (data=N/4,model=4), with
# tensor parallelism alone, with FSDP and with sequence parallelism.
# Medians of `rounds`; prints the table and writes it to
# bench/results/compile-scaling.md.
#   bench/compile_scaling.sh [rounds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
"$here/../tools/bootstrap.sh" build >/dev/null
bin="${BUILD_DIR:-$here/../build}/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model="--d-model 768 --heads 12 --d-ff 3072 --layers 12 --context 1024 --batch 512"
step='--shardc-train-step=function=loss optimizer=adamw weight-decay=0.01 clip-norm=1'
seconds() { # command... -> wall seconds
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {printf "%.2f", v[int((NR+1)/2)]}'; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
out="$here/results/compile-scaling.md"
{
  echo "# Compile time against device count"
  echo
  echo "GPT-2 small's training step (AdamW, clipping), $cpu, $(nproc) cores; medians of $rounds."
  echo "partition: shardc-opt --shardc-train-step --shardc-propagate --shardc-partition;"
  echo "compile: shardc compile of the step to a plan (lowering, fusion, buffers)."
  echo
  echo "| layout | devices | mesh | partition s | compile s | partition / 8 devices' |"
  echo "|---|---|---|---|---|---|"
} > "$out.tmp"
for layout in "tp:" "fsdp:--fsdp on" "sp:--sequence-parallel"; do
  name=${layout%%:*}
  flags=${layout#*:}
  base=""
  for n in 8 64 512; do
    mesh="data=$((n / 4)),model=4"
    "$bin/shardc-gpt" train --mesh "$mesh" $model $flags --emit-mlir "$work/loss.mlir"
    "$bin/shardc-opt" "$work/loss.mlir" "$step" -o "$work/step.mlir"
    p=(); c=()
    for ((r = 0; r < rounds; r++)); do
      p+=("$(seconds "$bin/shardc-opt" "$work/loss.mlir" "$step" --shardc-propagate --shardc-partition -o "$work/part.mlir")")
      c+=("$(seconds "$bin/shardc" compile "$work/step.mlir" --entry loss_train_step -o "$work/step.shardc")")
    done
    pm=$(median "${p[@]}"); cm=$(median "${c[@]}")
    [ -z "$base" ] && base=$pm
    ratio=$(awk -v a="$pm" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
    echo "| $name | $n | $mesh | $pm | $cm | ${ratio}x |" >> "$out.tmp"
  done
done
mv "$out.tmp" "$out"
cat "$out"
