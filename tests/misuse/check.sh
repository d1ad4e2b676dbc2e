#!/usr/bin/env bash
# tests/misuse/check.sh COMPILER [FLAGS...]: compiles each case of this folder (syntax only) and
# checks that it fails with the message its first line expects (control.cpp must compile): misuse
# of the API is rejected at the call, with a message that names the fix.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
broken=0
for source in "$here"/*.cpp; do
  expect=$(sed -n '1s@^// expect: @@p' "$source")
  output=$("$@" "$source" 2>&1)
  rc=$?
  name=$(basename "$source")
  if [ "$expect" = "nothing (compiles)" ]; then
    if [ $rc -ne 0 ]; then echo "$name: should compile, but:"; echo "$output" | head -20; broken=1; fi
  elif [ $rc -eq 0 ]; then
    echo "$name: compiled, but should fail with: $expect"; broken=1
  elif ! grep -qF -- "$expect" <<<"$output"; then
    echo "$name: failed without the message '$expect':"; echo "$output" | head -20; broken=1
  else
    echo "$name: rejected: $(grep -F -m1 -- "$expect" <<<"$output" | sed 's/^.*error: //' | cut -c1-160)"
  fi
done
exit $broken
