#!/usr/bin/env bash
# On the GPU machine: an A/B of mgpu_bench builds. BINS="name=path ..." (two or more builds),
# FILTERS="substring ..." (default: every primitive), MODES="full small" (default: both),
# ROUNDS (default 2). The builds' order rotates each round, so that no build always runs right
# after another (the driver's work after a run frees its memory, or the clocks, may favour
# whoever runs first; bench/results/2026-11-28_h200_single_launch_reduce_scan_ab.txt could not
# tell such an effect from a real cost), with a second of idle before each run. The device hands back at most a few files: everything goes into
# $OUT/ab.tgz. Compare with: python3 bench/ab_compare.py DIR BASE NEW.
set -u
read -r -a bins <<< "${BINS:?BINS=\"base=path new=path\"}"
n=${#bins[@]}
work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$work/device.txt"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for k in $(seq 0 $((n - 1))); do
    entry=${bins[$(((k + r) % n))]}
    name=${entry%%=*} bin=${entry#*=}
    for mode in ${MODES:-full small}; do
      for f in ${FILTERS:-all}; do
        args=()
        [ "$mode" = small ] && args+=(--small)
        [ "$f" != all ] && args+=(--filter "$f")
        sleep 1
        out="$work/${mode}_${name}_${f}_r$r"
        "$bin" "${args[@]}" --csv "$out.csv" > "$out.log" 2>&1
        echo "round $r $name $mode $f rc=$? mismatches=$(grep -c MISMATCH "$out.log")"
      done
    done
  done
done
(cd "$work" && tar czf "$OUT/ab.tgz" .)
