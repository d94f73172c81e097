#!/usr/bin/env bash
# Checks that every tracked C++ and CUDA file is formatted as .clang-format
# says (LLVM style, 100 columns), naming the files that are not. With
# --fix, formats them in place.
#   tools/check-format.sh [--fix]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fmt=${CLANG_FORMAT:-clang-format}
if ! command -v "$fmt" >/dev/null; then
  echo "check-format: $fmt is not installed (apt-get install clang-format)" >&2
  exit 2
fi
# Formats differ between releases: the check is for Debian 12's
# clang-format 14, which tools/bootstrap.sh installs (exit 77: skipped).
version=$("$fmt" --version | sed -n 's/.*version \([0-9]*\).*/\1/p' | head -1)
if [ "$version" != 14 ] && [ "${1:-}" != --fix ]; then
  echo "check-format: skipped: $fmt is version $version, the check is for version 14" >&2
  exit 77
fi
if git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu')
else
  mapfile -t files < <(find bench docs include lib models test tools \
    \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) | sort)
fi
if [ "${1:-}" = --fix ]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
# The files that differ, checked 16 at a time on every core.
mapfile -t bad < <(printf '%s\0' "${files[@]}" |
  xargs -0 -n 16 -P "$(nproc)" sh -c \
    'for f; do "$0" --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' "$fmt" |
  sort)
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format" \
       "($("$fmt" --version | head -1)); run tools/check-format.sh --fix:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says"
