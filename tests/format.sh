#!/usr/bin/env bash
# tests/format.sh SOURCE_DIR: every C++ and CUDA source of the repository follows .clang-format.
# Formatting differs between clang-format releases, so the check runs with the release CI has
# (14, Debian 12's) and is skipped (exit 77) with any other. Fix with: clang-format -i FILE.
set -uo pipefail
cd "${1:?usage: format.sh SOURCE_DIR}" || exit 2
pinned=14
version=$(clang-format --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ "$version" != "$pinned" ]; then
  echo "format: skipped (needs clang-format $pinned, found ${version:-none})"
  exit 77
fi
files=$(git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh' '*.h' 2>/dev/null || find include tests examples bench -name '*.[hc]pp' -o -name '*.cu')
clang-format --dry-run -Werror $files && echo "format: $(echo "$files" | wc -w) files follow .clang-format"
