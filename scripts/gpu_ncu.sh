#!/usr/bin/env bash
# On the GPU machine: a compact ncu table of the kernels of mgpu_bench rows, mgpu's and the
# baseline's side by side, for the "why" of a missed target. Usage:
#   scripts/gpu_ncu.sh FILTER [FILTER ...]        (mgpu_bench --quick --filter FILTER, each in turn)
# ncu profiles the second call of every distinct kernel of mgpu (cta_kernel), CCCL (CUB_3..., and
# cuda_cub for Thrust) and cuSPARSE, a warm-up call, not the benchmark's clock spin.
# Each profiled kernel runs alone with the caches flushed (ncu's default), clocks unlocked.
# Writes $OUT/ncu_<filter>.csv and prints, per kernel: duration, DRAM and SM throughput (% of
# peak), issue slots busy, achieved occupancy, registers, grid x block and warp instructions.
# The benchmark comes from gpu/ or the carried gpu_pack/bench (scripts/gpu_build.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/mgpu_out}
mkdir -p "$out"
source scripts/gpu_unpack.sh
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
metrics+=,launch__grid_size,launch__block_size,smsp__inst_executed.sum
for filter in "$@"; do
  csv="$out/ncu_${filter}.csv"
  ncu --clock-control none --metrics "$metrics" --kernel-name-base demangled --kernel-id "::regex:cta_kernel|CUB_3|cuda_cub|cusparse:2" --csv --print-units base \
    ./gpu/mgpu_bench --quick --filter "$filter" > "$csv" 2> "$out/ncu_${filter}.err"
  echo "== $filter (rc=$?)"
  python3 - "$csv" <<'EOF'
import csv, re, sys
from collections import OrderedDict
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, data = rows[0], rows[1:]
col = {name: i for i, name in enumerate(head)}
kernels = OrderedDict()
for r in data:
    key = (r[col["ID"]], r[col["Kernel Name"]])
    kernels.setdefault(key, {})[r[col["Metric Name"]]] = r[col["Metric Value"]]
def short(name):
    # mgpu's kernels are cta_kernel<NT, ..., the enclosing function's lambda>: name that function.
    name = re.sub(r"^void mgpu::platform::cta_kernel(_min)?<(\(int\)\d+, )+void ", "", name)
    name = re.sub(r"CUB_\d+_SM_\d+::", "", name.replace("void ", "", 1))
    return name.split("<")[0].split("(")[0][:70]
print("%-4s %-70s %9s %5s %5s %5s %5s %4s %12s %10s" % ("id", "kernel", "us", "dram", "sm", "issue", "occ", "regs", "grid x blk", "warp inst"))
for (kid, name), m in kernels.items():
    g = lambda k: float(m.get(k, "nan").replace(",", ""))
    print("%-4s %-70s %9.1f %5.1f %5.1f %5.1f %5.1f %4d %12s %10d" % (
        kid, short(name), g("gpu__time_duration.sum") / 1000.0,
        g("dram__throughput.avg.pct_of_peak_sustained_elapsed"), g("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        g("smsp__issue_active.avg.pct_of_peak_sustained_active"), g("sm__warps_active.avg.pct_of_peak_sustained_active"),
        g("launch__registers_per_thread"), "%dx%d" % (g("launch__grid_size"), g("launch__block_size")),
        g("smsp__inst_executed.sum")))
EOF
done
