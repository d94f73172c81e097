#!/usr/bin/env bash
# Compiles the GPU conformance programs (test/gpu/programs/*.mlir) and the
# MLP training step into .shardc artifacts, with inputs and the reference
# interpreter's results as .npy, under test/gpu/artifacts/. The GPU machine
# has no MLIR: it runs these (CudaBackendTests, bench/gpu_check.sh).
#
#   test/gpu/make_artifacts.sh [BUILD_DIR]     (default: build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=$ROOT/test/gpu/artifacts
BENCH=$ROOT/test/gpu/bench
SHARDC=$BUILD/bin/shardc
# Debian's python3 has numpy (a virtualenv first on PATH may not).
PY=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
export SHARDC_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$SHARDC_CACHE_DIR"' EXIT

rm -rf "$OUT" "$BENCH"
mkdir -p "$OUT" "$BENCH"
for prog in "$ROOT"/test/gpu/programs/*.mlir; do
  name=$(basename "$prog" .mlir)
  dir=$OUT/$name
  mkdir -p "$dir"
  "$SHARDC" compile "$prog" -o "$dir/plan.shardc" > /dev/null
  # Inputs from the signature: floats in [-2, 2], integers in [0, 3] (valid
  # row indices and class labels), booleans; seeded by the program's name.
  "$PY" - "$prog" "$dir" <<'PY'
import re, sys, zlib
import numpy as np
prog, out = sys.argv[1], sys.argv[2]
text = open(prog).read()
sig = text[text.index("func.func @main("):]
sig = sig[:sig.index("->")]
rng = np.random.default_rng(zlib.crc32(prog.split("/")[-1].encode()))
types = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}
for i, (dims, ty) in enumerate(re.findall(r"tensor<((?:\d+x)*)(\w+)>", sig)):
    shape = [int(d) for d in dims.split("x") if d]
    if ty in ("f32", "f64"):
        a = rng.uniform(-2, 2, shape).astype(types[ty])
    elif ty == "i1":
        a = rng.integers(0, 2, shape).astype(np.bool_)
    else:
        a = rng.integers(0, 4, shape).astype(types[ty])
    np.save(f"{out}/arg{i}.npy", a)
PY
  args=()
  for f in "$dir"/arg*.npy; do
    i=$(basename "$f" .npy); i=${i#arg}
    args+=(--input "arg$i=$f")
  done
  "$SHARDC" run "$prog" --backend reference "${args[@]}" --output-dir "$dir/ref" > /dev/null
  for f in "$dir"/ref/main.result*.npy; do
    r=$(basename "$f" .npy); mv "$f" "$dir/result${r#main.result}.npy"
  done
  rmdir "$dir/ref"
  echo "$name: $(ls "$dir" | wc -l) files"
done

# The MLP training step (784-1024-1024-10, Adam), 1024 examples per device,
# for 1, 2, 4 and 8 GPUs (data parallel): timed by bench/gpu_check.sh, no
# reference results.
for n in 1 2 4 8; do
  "$BUILD/bin/shardc-mlp" --devices $n --batch-per-device 1024 --emit-mlir "$BENCH/mlp_loss_$n.mlir"
  "$BUILD/bin/shardc-opt" "$BENCH/mlp_loss_$n.mlir" \
    --shardc-train-step="function=loss optimizer=adam wrt=2,3,4,5,6,7" \
    -o "$BENCH/mlp_train_$n.mlir"
  "$SHARDC" compile "$BENCH/mlp_train_$n.mlir" --entry loss_train_step \
    -o "$BENCH/mlp_train_$n.shardc" > /dev/null
  "$SHARDC" compile "$BENCH/mlp_train_$n.mlir" --entry loss_train_step --precision tf32 \
    -o "$BENCH/mlp_train_${n}_tf32.shardc" > /dev/null
  rm "$BENCH/mlp_loss_$n.mlir" "$BENCH/mlp_train_$n.mlir"
  # Splat constants are stored whole (8 MB): compressed, they are 10 kB.
  gzip -9 -n -f "$BENCH/mlp_train_$n.shardc" "$BENCH/mlp_train_${n}_tf32.shardc"
done
du -sh "$OUT" "$BENCH"
