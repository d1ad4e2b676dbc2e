#!/usr/bin/env bash
# Builds everything and runs the tests. On any machine: the simulator tests (plain and under
# AddressSanitizer) and the consumer-project test. Where nvcc is found the CUDA targets are
# built too (so CUDA compile errors fail), and where a GPU is present CTest also runs them.
#   BUILD_DIR (default build), JOBS (default nproc), MGPU_SIM_ASAN (default ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -DMGPU_SIM_ASAN="${MGPU_SIM_ASAN:-ON}"
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
