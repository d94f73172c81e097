#!/usr/bin/env bash
# Weak scaling of data-parallel MLP training (784-1024-1024-10, Adam, 1024
# examples per device): 1 device on 1 core against 2 devices on 2 cores, as
# the reference tutorial's 1 -> 2 GPUs. Builds first; prints a table and
# writes it to bench/results/weak-scaling.md.
#   bench/weak_scaling.sh [steps]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
steps=${1:-30}
"$here/../tools/bootstrap.sh" build >/dev/null
mlp="${BUILD_DIR:-$here/../build}/bin/shardc-mlp"
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@" 2>/dev/null | tail -1; }
one=$(run taskset -c 0 "$mlp" --devices 1 --steps "$steps")
two=$(run "$mlp" --devices 2 --steps "$steps")
field() { /usr/bin/python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
e1=$(field "$one" examples_per_s); e2=$(field "$two" examples_per_s)
ratio=$(/usr/bin/python3 -c "print(f'{$e2 / $e1:.2f}')")
mkdir -p "$here/results"
{
  echo "| devices (1 core each) | ms/step | examples/s |"
  echo "| --- | --- | --- |"
  echo "| 1 | $(field "$one" ms_per_step_median) | $e1 |"
  echo "| 2 | $(field "$two" ms_per_step_median) | $e2 |"
  echo
  echo "Weak scaling 1 -> 2 devices: ${ratio}x ($steps steps, median; $(date +%F))."
} | tee "$here/results/weak-scaling.md"
