#!/usr/bin/env bash
# Sets up a Debian 12 machine for shardc, builds it, and runs a job.
#
#   tools/bootstrap.sh demo    install what is missing, build, run the demo (train the
#                              Tiny Transformer briefly on simulated devices)
#   tools/bootstrap.sh test    install what is missing (PyTorch too, an oracle of the
#                              tests), build, run every test (then the
#                              runtime's tests and fuzz regressions under ASan + UBSan)
#   tools/bootstrap.sh build   install what is missing, build
#   tools/bootstrap.sh bench   also install the benchmark peers (PyTorch) and the
#                              product libraries bench/gemm_bench.sh compares (BLIS,
#                              libxsmm), build,
#                              and run bench/run.sh
#
# Environment: BUILD_DIR (default: build), JOBS (default: nproc).
# Idempotent; quiet when everything is already installed and built.
set -euo pipefail

mode=${1:-demo}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}

packages=(g++ cmake ninja-build python3 python3-numpy ccache lld libgtest-dev libopenblas-dev
          libopenblas0-openmp libdnnl-dev libopenmpi-dev openmpi-bin
          llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools)

# PyTorch: the oracle of some tests (generation against the peers' reference
# module), and the benchmarks' peers. clang-format: the test of the code's
# format (tools/check-format.sh).
[ "$mode" = test ] && packages+=(python3-torch clang-format)
[ "$mode" = bench ] && packages+=(python3-torch python3-threadpoolctl libblis-openmp-dev libxsmm-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# ccache hits across checkouts in different folders.
export CCACHE_BASEDIR=$root
# A package just installed (the bench mode's BLIS and libxsmm) is found
# only by configuring again.
if [ ! -f "$build/build.ninja" ] || ((${#missing[@]})); then
  echo "== configuring in $build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
echo "== building"
cmake --build "$build" -j "$jobs"

case "$mode" in
  build) ;;
  test)
    echo "== testing"
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    # The runtime (file readers, plan validation, kernels, collectives) and
    # its fuzz targets and regression inputs again, under AddressSanitizer
    # and UndefinedBehaviorSanitizer: a build of its own, without the
    # compiler, so it stays a few minutes.
    san="$build-sanitize"
    echo "== testing the runtime under AddressSanitizer + UBSan in $san"
    if [ ! -f "$san/build.ninja" ]; then
      cmake -G Ninja -S "$root" -B "$san" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSHARDC_ENABLE_COMPILER=OFF -DSHARDC_ENABLE_CUDA=OFF -DSHARDC_ENABLE_MPI=OFF \
        -DSHARDC_SANITIZE=ON >/dev/null
    fi
    cmake --build "$san" -j "$jobs"
    ctest --test-dir "$san" --output-on-failure -j "$jobs"
    ;;
  demo)
    exec "$root/models/transformer/demo.sh" "$build"
    ;;
  bench)
    mkdir -p "$root/bench/results"
    exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 \
      "$root/bench/cpu_bench.py" --build "$build" --out "$root/bench/results/cpu.md"
    ;;
  *)
    echo "usage: $0 demo|test|build|bench" >&2
    exit 2
    ;;
esac
