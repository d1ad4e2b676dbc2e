#!/usr/bin/env bash
# Here (no GPU needed): builds the CUDA test and benchmark binaries for sm_90 (SASS only: embedded
# PTX would double the test binary) and copies them, stripped, to gpu/ (ignored by git), ready to
# carry to the GPU machine for scripts/gpu_check.sh. The device tool carries at most 64 MiB with
# the working tree (about 30 MiB itself), which the whole test binary passes even compressed: the
# tests come as its two parts (mgpu_tests_cuda_sorts, mgpu_tests_cuda_rest; tests/cuda), and
# gpu_pack/tests_sorts/, gpu_pack/tests_rest/ (with tests/multi_tu's program) and gpu_pack/bench/
# (ignored too) hold them xz-compressed, about 27, 20 and 6 MiB: carry one test pack per device
# call, the bench pack beside either; scripts/gpu_check.sh unpacks whatever of them came along.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-gpu}
source scripts/setup.sh
mgpu_setup test
cmake -S . -B "$build" "${MGPU_CMAKE_ARGS[@]}" -DMGPU_BUILD_SIM=OFF -DMGPU_BUILD_EXAMPLES=OFF -DMGPU_BUILD_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90-real -DMGPU_CUDA_COMPILE_ONLY=OFF
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target mgpu_tests_cuda_sorts mgpu_tests_cuda_rest mgpu_multi_tu_cuda \
  ${MGPU_BENCH_TARGET:-mgpu_bench}
mkdir -p gpu
rm -f gpu/mgpu_tests_cuda  # (the whole binary of older builds: gpu_check.sh would run it too)
cp "$build/tests/cuda/mgpu_tests_cuda_sorts" "$build/tests/cuda/mgpu_tests_cuda_rest" \
  "$build/tests/multi_tu/mgpu_multi_tu_cuda" gpu/
[ -f "$build/bench/mgpu_bench" ] && cp "$build/bench/mgpu_bench" gpu/
strip gpu/*
rm -rf gpu_pack/tests
mkdir -p gpu_pack/tests_sorts gpu_pack/tests_rest gpu_pack/bench
tar cf - -C gpu mgpu_tests_cuda_sorts | xz -T"${JOBS:-$(nproc)}" -9 > gpu_pack/tests_sorts/gpu.tar.xz
tar cf - -C gpu mgpu_tests_cuda_rest mgpu_multi_tu_cuda | xz -T"${JOBS:-$(nproc)}" -9 > gpu_pack/tests_rest/gpu.tar.xz
[ -f gpu/mgpu_bench ] && tar cf - -C gpu mgpu_bench | xz -T"${JOBS:-$(nproc)}" -9 > gpu_pack/bench/gpu.tar.xz
ls -la gpu/ gpu_pack/*/
