#!/bin/sh
# mpirun_isolated.sh DIR MPIEXEC ARGS...: runs MPIEXEC ARGS with TMPDIR set to
# DIR (made if missing). Open MPI makes its session directory under TMPDIR,
# and two launches making the same one at once can fail ("mkdir ...
# ompi.<host>.<uid>: File exists"); each test gets a directory of its own.
dir=$1
shift
mkdir -p "$dir"
TMPDIR=$dir exec "$@"
