#!/usr/bin/env bash
# Compile time against device count: the training step of GPT-2 small
# (d_model 768, 12 heads, d_ff 3072, 12 blocks, context 1024, batch 512) as
# shardc-gpt traces it, partitioned (shardc-opt --shardc-train-step
# --shardc-propagate --shardc-partition) and compiled to a plan (shardc
# compile), on meshes of 8, 64 and 512 devices (data=N/4,model=4), with
# tensor parallelism alone, with FSDP and with sequence parallelism.
# Then single dot_generals whose operands arrive in other layouts, on meshes
# of four axes (8, 64 and 512 devices), so that every reshard goes through
# sub-axes. Medians of `rounds`; prints the tables and writes them to
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
median() { # [-3] values... -> their median, to 2 (or 3) decimals
  local digits=2
  [ "$1" = -3 ] && { digits=3; shift; }
  printf '%s\n' "$@" | sort -g | awk -v d=$digits '{v[NR]=$1} END {printf "%.*f", d, v[int((NR+1)/2)]}'
}

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

# One dot_general, its operands and result laid out over four axes.
# "gathered": the contracting dimension split on both sides with different
# axes; "moved": every dimension changes its axes, sub-axes included.
dot() { # mesh lhs rhs result -> the program
  cat <<MLIR
shardc.mesh @mesh = <[$1]>
func.func @main(%a: tensor<256x512xf32> {shardc.sharding = #shardc.sharding<@mesh, $2>},
                %b: tensor<512x1024xf32> {shardc.sharding = #shardc.sharding<@mesh, $3>})
    -> (tensor<256x1024xf32> {shardc.sharding = #shardc.sharding<@mesh, $4>}) {
  %c = shardc.dot_general %a, %b contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
  return %c : tensor<256x1024xf32>
}
MLIR
}
{
  echo
  echo "One dot_general (256x512 by 512x1024, f32): shardc-opt --shardc-propagate --shardc-partition."
  echo
  echo "| program | devices | mesh | partition s | / 8 devices' |"
  echo "|---|---|---|---|---|"
} >> "$out.tmp"
for program in gathered moved; do
  base=""
  for mesh in '"x"=2, "y"=2, "z"=2, "t"=1' '"x"=2, "y"=4, "z"=4, "t"=2' '"x"=4, "y"=4, "z"=4, "t"=8'; do
    if [ $program = gathered ]; then
      dot "$mesh" '[{"x", "y"}, {"z"}]' '[{"z"}, {"t"}]' '[{}, {}]' > "$work/dot.mlir"
    else
      dot "$mesh" '[{"x", "y"}, {"z", "t"}]' '[{"t"}, {"x", "z"}]' '[{"t", "z"}, {"y", "x"}]' > "$work/dot.mlir"
    fi
    n=$(echo "$mesh" | tr -dc '0-9=,' | tr ',' '\n' | cut -d= -f2 | awk '{p *= $1} BEGIN {p = 1} END {print p}')
    p=()
    for ((r = 0; r < rounds; r++)); do
      p+=("$(seconds "$bin/shardc-opt" "$work/dot.mlir" --shardc-propagate --shardc-partition -o "$work/dot-part.mlir")")
    done
    pm=$(median -3 "${p[@]}")
    [ -z "$base" ] && base=$pm
    ratio=$(awk -v a="$pm" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
    echo "| $program | $n | $(echo "$mesh" | tr -d '" ') | $pm | ${ratio}x |" >> "$out.tmp"
  done
done
mv "$out.tmp" "$out"
cat "$out"
