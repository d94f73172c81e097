#!/usr/bin/env bash
# The MLP demo: a data-parallel forward pass and loss on 4 simulated devices
# on the CPU backend, checked against NumPy; then the MLP traced from C++
# (shardc-mlp) trained briefly on 2 simulated devices, once with the
# partitioner placing the communication and once written with shard_map and
# pmean: the same losses.
#   models/mlp/demo.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3

echo "== inputs: batch of 32 split over 4 devices (mesh \"data\"=4), weights replicated"
$python "$here/reference.py" make "$work" 0
args=()
for n in x labels w1 b1 w2 b2; do args+=(--input "$n=$work/$n.npy"); done
echo "== shardc run models/mlp/mlp_dp_forward.mlir"
"$build/bin/shardc" run "$here/mlp_dp_forward.mlir" "${args[@]}" --output-dir "$work"
echo "== compare with NumPy"
$python "$here/reference.py" check "$work"
echo "== what the compiler decided (shardc explain)"
"$build/bin/shardc" explain "$here/mlp_dp_forward.mlir" --show x | sed -n '/^Collectives/,$p'
echo
echo "== train the MLP (traced from C++) on 2 simulated devices, auto mode"
"$build/bin/shardc-mlp" --devices 2 --batch-per-device 256 --hidden 256 --steps 100 \
  --log-every 25 --mode auto
echo "== the same step written per device with shard_map + pmean"
"$build/bin/shardc-mlp" --devices 2 --batch-per-device 256 --hidden 256 --steps 100 \
  --log-every 25 --mode shard_map
