#!/usr/bin/env bash
# Here (no GPU needed): builds the CUDA test and benchmark binaries for sm_90 and copies them to
# gpu/ (ignored by git), ready to carry to the GPU machine for scripts/gpu_check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-gpu}
source scripts/setup.sh
mgpu_setup test
cmake -S . -B "$build" "${MGPU_CMAKE_ARGS[@]}" -DMGPU_BUILD_SIM=OFF -DMGPU_BUILD_EXAMPLES=OFF -DMGPU_BUILD_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMGPU_CUDA_COMPILE_ONLY=OFF
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target mgpu_tests_cuda mgpu_multi_tu_cuda ${MGPU_BENCH_TARGET:-mgpu_bench}
mkdir -p gpu
cp "$build/tests/cuda/mgpu_tests_cuda" "$build/tests/multi_tu/mgpu_multi_tu_cuda" gpu/
[ -f "$build/bench/mgpu_bench" ] && cp "$build/bench/mgpu_bench" gpu/
ls -la gpu/
