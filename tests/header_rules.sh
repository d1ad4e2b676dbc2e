#!/usr/bin/env bash
# tests/header_rules.sh INCLUDE_DIR: rules every header under include/ keeps, checked on the source
# text with comments and string literals blanked out. Exits 1 naming each line that breaks one.
#  - No extended __host__ __device__ lambda ([=] MGPU_HOST_DEVICE_LAMBDA, [=] __host__ __device__):
#    nvcc type-erases one on the host behind function pointers that are filled in per translation
#    unit, and a program of several CUDA sources crashed on it. Use a named function object.
#    (Device-only MGPU_LAMBDA CTA lambdas are not type-erased and stay.)
#  - Kernels are launched only in platform/ (the simulator cannot run <<< >>>).
#  - No cudaMalloc outside platform/: temporaries come from the context.
set -uo pipefail
cd "${1:?usage: header_rules.sh INCLUDE_DIR}" || exit 2
broken=0
check() {  # check PATTERN PROBLEM [GREP_PATHS...]
  local pattern=$1 problem=$2 hits
  shift 2
  hits=$(grep -rnE --include='*.hpp' --include='*.h' --include='*.cuh' '' "$@" |
         sed -E 's@"([^"\\]|\\.)*"@""@g; s@//.*$@@' | grep -E "^[^:]+:[0-9]+:.*$pattern")
  if [ -n "$hits" ]; then
    printf '%s:\n%s\n' "$problem" "$hits"
    broken=1
  fi
}
check '\][[:space:]]*(MGPU_HOST_DEVICE_LAMBDA|__host__[[:space:]]+__device__|__device__[[:space:]]+__host__)' \
  "extended __host__ __device__ lambdas (use a named function object)" .
outside_platform=$(find . -mindepth 2 -maxdepth 2 -type d ! -path './mgpu/platform')
check '<<<' "kernel launches outside platform/" $outside_platform mgpu/*.hpp
check 'cudaMalloc(Host|Managed|Async)?[[:space:]]*\(' "cudaMalloc outside platform/ (temporaries come from the context)" \
  $outside_platform mgpu/*.hpp
[ "$broken" = 0 ] && echo "header rules: $(find . -name '*.hpp' | wc -l) headers keep them"
exit "$broken"
