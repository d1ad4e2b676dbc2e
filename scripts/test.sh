#!/usr/bin/env bash
# Builds everything and runs the tests, after installing what is missing (scripts/setup.sh). On
# any machine: the simulator tests (plain, and under AddressSanitizer with the typed suites over
# two types each), the consumer-project test and the header rules. Where nvcc is found the CUDA
# targets are built too (so CUDA compile errors fail; without a GPU they are built only for that:
# MGPU_CUDA_COMPILE_ONLY), and where a GPU is present CTest also runs them, each test case in a
# process of its own.
# A GPU machine without Boost.Context builds and tests the CUDA targets alone.
#   BUILD_DIR (default build), JOBS (default nproc), MGPU_SIM_ASAN (default ON),
#   MGPU_WERROR (default OFF; CI sets ON: a warning in the tests or examples fails the build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
mgpu_setup test
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
compile_only=ON
[ "$MGPU_GPU" = 1 ] && compile_only=OFF
cmake -S . -B "$build" "${MGPU_CMAKE_ARGS[@]}" -DMGPU_SIM_ASAN="${MGPU_SIM_ASAN:-ON}" -DMGPU_WERROR="${MGPU_WERROR:-OFF}" \
  -DMGPU_CUDA_COMPILE_ONLY="$compile_only"
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
