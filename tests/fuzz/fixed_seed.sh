#!/usr/bin/env bash
# The fixed-seed run of one libFuzzer target (.ci/fuzz; the CI gate itself is the corpus replay of
# the test build, tests/fuzz/replay.cmake): it replays every committed corpus input, then makes
# RUNS mutated executions from seed 1 (no clock decides anything, so the same binary
# and corpus always run the same inputs). New inputs go to a scratch directory, never into the
# committed corpus. Exits 0 and prints "fuzz_NAME: executions=E crashes=0 sanitizer_reports=0
# corpus=C" when nothing was found; otherwise prints the report and keeps the input in OUT_DIR.
# Usage: fixed_seed.sh FUZZER CORPUS_DIR OUT_DIR RUNS [libFuzzer flags, e.g. -dict=F -max_len=N]
set -uo pipefail
fuzzer=$1 corpus=$2 out=$3 runs=$4
shift 4
name=$(basename "$fuzzer")
rm -rf "$out"
mkdir -p "$out/scratch"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$fuzzer" -seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$out/" "$@" "$out/scratch" "$corpus" >"$out/log" 2>&1
rc=$?
execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/log" | grep -o '[0-9]*$' | tail -1)
crashes=$(find "$out" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
  -o -name 'oom-*' \) | wc -l)
if [ "$rc" != 0 ] && [ "$crashes" = 0 ]; then crashes=1; fi
reports=$(grep -cE 'ERROR: (Address|Leak|Memory)Sanitizer|runtime error:' "$out/log")
seeds=$(find "$corpus" -type f | wc -l)
echo "$name: executions=${execs:-0} crashes=$crashes sanitizer_reports=$reports corpus=$seeds" |
  tee "$out/summary"
if [ "$rc" != 0 ] || [ "$crashes" != 0 ] || [ "$reports" != 0 ]; then
  echo "== $name found something (inputs kept in $out/; replay: $fuzzer $out/crash-*):"
  grep -vE '^(#[0-9]+|INFO:|MERGE|\s*$)' "$out/log" | tail -40
  exit 1
fi
