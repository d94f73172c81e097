#!/usr/bin/env bash
# The CPU benchmarks of shardc against its peers, in one run; see cpu_bench.py.
#   bench/run.sh [cpu_bench.py options]
# Installs what is missing (PyTorch from Debian) and builds first. Results on
# stdout and in bench/results/cpu.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
  exec "$here/../tools/bootstrap.sh" bench
fi
"$here/../tools/bootstrap.sh" build >/dev/null
mkdir -p "$here/results"
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 "$here/cpu_bench.py" \
  --build "${BUILD_DIR:-$here/../build}" --out "$here/results/cpu.md" "$@"
