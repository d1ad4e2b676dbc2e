#!/usr/bin/env bash
# Builds and runs the demo: on the GPU (mgpu_demo_cuda) if nvidia-smi sees one, else on the CPU
# simulator (mgpu_demo_sim). Builds only the demo target.
#   BUILD_DIR (default build), JOBS (default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if nvidia-smi -L >/dev/null 2>&1; then
  target=mgpu_demo_cuda exe=examples/cuda/mgpu_demo_cuda
else
  target=mgpu_demo_sim exe=examples/mgpu_demo_sim
fi
echo "Building $target in $build/ ..." >&2
cmake -S . -B "$build" >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "$target" >/dev/null
exec "$build/$exe"
