#!/usr/bin/env bash
# Builds and runs the demo: on the GPU (mgpu_demo_cuda) if nvidia-smi sees one, else on the CPU
# simulator (mgpu_demo_sim). Installs what is missing first (scripts/setup.sh). Builds only the
# demo target; if the configure or the build fails, prints its log.
#   BUILD_DIR (default build), JOBS (default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
mgpu_setup demo
build=${BUILD_DIR:-build}
if [ "$MGPU_GPU" = 1 ]; then
  target=mgpu_demo_cuda exe=examples/cuda/mgpu_demo_cuda
else
  target=mgpu_demo_sim exe=examples/mgpu_demo_sim
fi
mkdir -p "$build"
log="$build/demo-build.log"
echo "Building $target in $build/ (log: $log) ..." >&2
if ! { cmake -S . -B "$build" "${MGPU_CMAKE_ARGS[@]}" &&
       cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "$target"; } >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "mgpu: building $target failed; the whole log is $log" >&2
  exit 1
fi
exec "$build/$exe"
