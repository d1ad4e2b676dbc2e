#!/usr/bin/env bash
# On the GPU machine: the CUDA tests, a reduced compute-sanitizer pass (memcheck, racecheck,
# synccheck) and the benchmark, with logs and CSV in $OUT. Expects the binaries in gpu/
# (built elsewhere: scripts/gpu_build.sh), or packed in the carried gpu_pack/tests_sorts or
# gpu_pack/tests_rest and/or gpu_pack/bench (unpacked here). Usage: scripts/gpu_check.sh [bench
# args...]. MGPU_CHECK_STAGES picks the stages (default: all of "tests memcheck racecheck
# synccheck bench"); SANITIZER_FILTER narrows the sanitizers' tests (a gtest filter); racecheck
# alone takes several minutes, so a 10-minute device call may need two invocations.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/mgpu_out}
mkdir -p "$out"
source scripts/gpu_unpack.sh
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"

stages=" ${MGPU_CHECK_STAGES:-tests memcheck racecheck synccheck bench} "
wants() { [[ "$stages" == *" $1 "* ]]; }

# The test binaries here: the whole mgpu_tests_cuda or either or both of its parts
# (scripts/gpu_build.sh), or those named in TEST_BINS.
read -r -a test_bins <<< "${TEST_BINS:-$(ls gpu/mgpu_tests_cuda gpu/mgpu_tests_cuda_* 2> /dev/null | tr '\n' ' ')}"
echo "test binaries: ${test_bins[*]}"

# Each test case in a process of its own, as CTest runs them: a whole-binary run once hid a crash
# that happened whenever one test ran alone. tests.log holds every case's output and time.
if wants tests; then
  passed=0 failed=()
  : > "$out/tests.log"
  : > "$out/test_list.txt"
  for bin in "${test_bins[@]}"; do
    while read -r test; do
      echo "$bin $test" >> "$out/test_list.txt"
      start=$(date +%s.%N)
      "$bin" --gtest_filter="$test" >> "$out/tests.log" 2>&1
      rc=$?
      printf '== %s rc=%d %ss\n' "$test" "$rc" "$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")" >> "$out/tests.log"
      if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed+=("$test (rc=$rc)"); fi
    done < <("$bin" --gtest_list_tests | awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }')
  done
  # The two-source program (tests/multi_tu), each order in a process of its own.
  for order in first-first second-first; do
    if [ -x gpu/mgpu_multi_tu_cuda ]; then
      if ./gpu/mgpu_multi_tu_cuda "$order" >> "$out/tests.log" 2>&1; then passed=$((passed + 1))
      else failed+=("multi_tu $order (rc=$?)"); fi
    fi
  done
  echo "tests, each case in its own process: ${passed} passed, ${#failed[@]} failed"
  printf '  FAILED %s\n' "${failed[@]}" | grep -v '^  FAILED $'
fi

# Reduced run: quick sizes, no >2^31 tests. racecheck also skips Bulk.UncheckedMisuse*, which
# feeds deliberately invalid indices: its output is unspecified by contract (only staying in
# bounds is tested), and the colliding shared-memory writes that misuse causes are real races.
# It skips RadixSortTyped.* too (about five of racecheck's minutes): their sorts run CCCL's
# kernels (checked by CCCL) or, up to radix_merge_limit keys, mergesort's, which MergeSort*
# racechecks; RadixSort.* still racechecks our LSD kernels and both sides of the merge limits.
for tool in memcheck racecheck synccheck; do
  wants "$tool" || continue
  skip='*2To31*'
  [ "$tool" = racecheck ] && skip="$skip:*UncheckedMisuse*:RadixSortTyped*"
  for bin in "${test_bins[@]}"; do
    log="$out/sanitizer_${tool}_$(basename "$bin").log"
    MGPU_TEST_QUICK=1 compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$bin" --gtest_filter="${SANITIZER_FILTER:-*}:-$skip" > "$log" 2>&1
    echo "$tool $(basename "$bin") rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
  done
done

if wants bench && [ -x gpu/mgpu_bench ]; then
  ./gpu/mgpu_bench --csv "$out/bench.csv" "$@" > "$out/bench.log" 2>&1
  echo "bench rc=$?"
  tail -40 "$out/bench.log"
fi
