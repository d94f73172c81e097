#!/usr/bin/env bash
# Weak scaling of data-parallel MLP training (784-1024-1024-10, Adam, 1024
# examples per device): 1 device on 1 core against 2 devices on 2 cores, as
# the reference tutorial's 1 -> 2 GPUs, for shardc (shardc-mlp: auto and
# shard_map modes, and auto with the optimizer state split over the devices;
# with MPI, also 2 processes of 1 device and 1 core each under mpirun)
# and for PyTorch (../shared/bench/peer_mlp_train.py: eager
# on 1 thread, and DDP with 2 processes x 1 thread). The sides alternate,
# `rounds` times; the table has medians. Builds first; prints the table and
# writes it to bench/results/weak-scaling.md.
#   bench/weak_scaling.sh [steps] [rounds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
steps=${1:-30}
rounds=${2:-3}
"$here/../tools/bootstrap.sh" build >/dev/null
mlp="${BUILD_DIR:-$here/../build}/bin/shardc-mlp"
peers="${SHARDC_PEERS:-$here/../../shared/bench}"
py=/usr/bin/python3
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@" 2>/dev/null | tail -1; }
field() { $py -c "import json,sys; print(json.loads(sys.argv[1])$2)" "$1"; }

declare -A samples
add() { samples[$1]="${samples[$1]:-} $2"; }
have_mpi=0
if command -v mpirun >/dev/null && [ -x "${BUILD_DIR:-$here/../build}/bin/shardc-allreduce-bench" ]; then
  have_mpi=1
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
have_torch=0
if [ -f "$peers/peer_mlp_train.py" ] && $py -c "import torch" 2>/dev/null; then
  have_torch=1
fi
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  for mode in auto shard_map; do
    add "shardc-$mode-1" "$(field "$(run taskset -c 0 "$mlp" --devices 1 --steps "$steps" --mode $mode)" "['examples_per_s']")"
    add "shardc-$mode-2" "$(field "$(run "$mlp" --devices 2 --steps "$steps" --mode $mode)" "['examples_per_s']")"
  done
  if [ $have_mpi = 1 ]; then # each process bound to a core of its own
    add "shardc-mpi-1" "$(field "$(run taskset -c 0 "$mlp" --devices 1 --steps "$steps")" "['examples_per_s']")"
    add "shardc-mpi-2" "$(field "$(run mpirun -np 2 --bind-to core "$mlp" --devices 2 --steps "$steps")" "['examples_per_s']")"
  fi
  zero="--shard-optimizer-state on"
  add "shardc-zero-1" "$(field "$(run taskset -c 0 "$mlp" --devices 1 --steps "$steps" $zero)" "['examples_per_s']")"
  add "shardc-zero-2" "$(field "$(run "$mlp" --devices 2 --steps "$steps" $zero)" "['examples_per_s']")"
  if [ $have_torch = 1 ]; then
    one=$(run $py "$peers/peer_mlp_train.py" --threads 1 --variants eager --batch 1024 \
          --steps "$steps" --quiet-wait 10)
    two=$(run $py "$peers/peer_mlp_train.py" --threads 2 --variants ddp --batch 2048 \
          --steps "$steps" --quiet-wait 10)
    add torch-1 "$(field "$one" "['runs'][0]['examples_per_s']")"
    add torch-2 "$(field "$two" "['runs'][0]['examples_per_s']")"
  fi
done

median() { $py -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.0f}')" $1; }
row() { # name key: medians, and the median of each round's own ratio (the
         # two runs of a round are minutes apart at most: the noise of this
         # shared machine cancels better there)
  local e1 e2 ratios
  e1=$(median "${samples[$2-1]}"); e2=$(median "${samples[$2-2]}")
  ratios=$($py -c "import statistics,sys; a=list(map(float,sys.argv[1].split())); b=list(map(float,sys.argv[2].split())); print(f'{statistics.median(y / x for x, y in zip(a, b)):.2f}')" "${samples[$2-1]}" "${samples[$2-2]}")
  echo "| $1 | $e1 | $e2 | $($py -c "print(f'{$e2 / $e1:.2f}')")x | ${ratios}x |"
}
mkdir -p "$here/results"
{
  echo "| examples/s (medians of $rounds rounds, $steps steps each) | 1 device, 1 core | 2 devices, 2 cores | weak scaling | median of per-round ratios |"
  echo "| --- | --- | --- | --- | --- |"
  row "shardc, auto (partitioner's all-reduce)" shardc-auto
  row "shardc, shard_map + pmean" shardc-shard_map
  row "shardc, auto, Adam state split over devices (ZeRO-1)" shardc-zero
  if [ $have_mpi = 1 ]; then
    row "shardc, auto, 2 processes x 1 core (mpirun, all-reduce over MPI)" shardc-mpi
  fi
  if [ $have_torch = 1 ]; then
    row "PyTorch eager 1 thread / DDP 2 x 1 thread" torch
  fi
  echo
  echo "Per-device batch 1024, 784-1024-1024-10 MLP, Adam; $(date +%F); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)."
  echo "Raw samples: $(for k in "${!samples[@]}"; do echo -n "$k:${samples[$k]}; "; done)"
} | tee "$here/results/weak-scaling.md"
