#!/usr/bin/env bash
# Prints the kernel OpenBLAS picks for this CPU (openblas_get_corename) in
# the build under LIBDIR (default: Debian's OpenMP build), as a user's
# process gets it: with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset.
# Prints "unknown" where the library or python3 is missing.
#   bench/openblas_core.sh [LIBDIR]
dir=${1:-/usr/lib/x86_64-linux-gnu/openblas-openmp}
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 - "$dir/libopenblas.so.0" \
  2>/dev/null <<'PY' || echo unknown
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.openblas_get_corename.restype = ctypes.c_char_p
print(lib.openblas_get_corename().decode())
PY
