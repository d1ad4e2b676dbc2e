#!/usr/bin/env bash
# On the GPU machine, sourced by the gpu_*.sh scripts: unpacks into gpu/ whatever packs of
# scripts/gpu_build.sh came along (gpu_pack/tests, gpu_pack/bench, or any other gpu_pack/*/).
for pack in gpu_pack/*/gpu.tar.xz; do
  [ -f "$pack" ] && mkdir -p gpu && python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('gpu')" "$pack"
done
