#!/usr/bin/env bash
# The CPU backend's all-reduce between processes (its ring over MPI
# point-to-point, in the shared-memory ring's order) against MPI_Allreduce
# alone, the physical limit of this machine's transport: 2 processes, one
# core each, f32 sums of 4 KiB to 64 MiB. Prints the table and writes it to
# bench/results/allreduce.md.
#   bench/allreduce.sh [reps]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-20}
bench="${BUILD_DIR:-$here/../build}/bin/shardc-allreduce-bench"
[ -x "$bench" ] || { echo "error: $bench is not built (it needs MPI in the build)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lines=$(mpirun -np 2 --bind-to core "$bench" --reps "$reps")
mkdir -p "$here/results"
{
  echo "| message | shardc ring (us) | MPI_Allreduce (us) | shardc bus GB/s | MPI bus GB/s | shardc / MPI bandwidth |"
  echo "| --- | --- | --- | --- | --- | --- |"
  echo "$lines" | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    b = r["bytes"]
    size = f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"
    print("| %s | %.1f | %.1f | %.2f | %.2f | %.2fx |" % (size, r["shardc_us"], r["mpi_us"],
          r["shardc_bus_gbps"], r["mpi_bus_gbps"], r["mpi_us"] / r["shardc_us"]))
'
  echo
  echo "2 processes x 1 core, medians of $reps calls, bus bandwidth 2(n-1)/n x bytes / time; $(date +%F); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)."
} | tee "$here/results/allreduce.md"
