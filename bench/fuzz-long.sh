#!/usr/bin/env bash
# The long, random fuzzing run (not a CI gate): every libFuzzer target of tests/fuzz for SECONDS
# each (default 600) from a random seed, built with -O1 in build-fuzz-long, with the same
# dictionaries and size limits as the gate. Findings go into the corpus: every crashing input is
# copied to tests/fuzz/corpus/<target>/finding-<sha1> (so the deterministic gate, .ci/fuzz,
# replays it from then on: fix the code, then commit the input). With PERFSWEEP_FUZZ_MERGE=1 the
# inputs that reached new coverage are merged into the committed corpus too (libFuzzer -merge=1).
# Prints a line per target and "FIGURE fuzz-long: ..."; exits 1 on any finding.
# Usage: bash bench/fuzz-long.sh [seconds-per-target]
# Env: PERFSWEEP_FUZZ_DIR (default build-fuzz-long), PERFSWEEP_FUZZ_JOBS (default nproc),
#      PERFSWEEP_FUZZ_OPT (default "-O1 -g"), PERFSWEEP_FUZZ_TARGETS, PERFSWEEP_FUZZ_MERGE.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
dir=${PERFSWEEP_FUZZ_DIR:-build-fuzz-long}
jobs=${PERFSWEEP_FUZZ_JOBS:-$(nproc)}
opt=${PERFSWEEP_FUZZ_OPT:--O1 -g}
cxx=$(command -v clang++ || command -v clang++-14 || true)
[ -n "$cxx" ] || { echo "fuzz-long: clang++ not found" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$dir" "${generator[@]}" "${launcher[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
  -DPERFSWEEP_FUZZ=ON -DPERFSWEEP_BUILD_TESTS=OFF -DPERFSWEEP_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="$opt" >/dev/null
cmake --build "$dir" -j "$(nproc)" --target fuzzers

out="$dir/fuzz-long-out"
rm -rf "$out"
mkdir -p "$out"
if [ -n "${PERFSWEEP_FUZZ_TARGETS:-}" ]; then
  read -r -a targets <<<"$PERFSWEEP_FUZZ_TARGETS"
else
  mapfile -t targets <"$dir/fuzz_targets.txt"
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_one() { # name seconds dir out
  local name=$1 secs=$2 dir=$3 out=$4 flags
  flags=$(grep "^$name " "$dir/fuzz_flags.txt" | cut -d' ' -f2-)
  mkdir -p "$out/$name/corpus"
  # -seed=0: a random seed per run. New inputs go to the scratch corpus.
  # shellcheck disable=SC2086
  "$dir/tests/fuzz/fuzz_$name" -seed=0 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$name/" $flags "$out/$name/corpus" \
    "tests/fuzz/corpus/$name" >"$out/$name/log" 2>&1
  echo $? >"$out/$name/rc"
}
export -f run_one
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$secs" "$dir" "$out"

total_exec=0 total_crash=0 added=0 failed=()
for name in "${targets[@]}"; do
  log="$out/$name/log"
  rc=$(cat "$out/$name/rc" 2>/dev/null || echo 1)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  found=0
  for f in "$out/$name"/crash-* "$out/$name"/leak-* "$out/$name"/timeout-* "$out/$name"/oom-*; do
    [ -f "$f" ] || continue
    found=$((found + 1))
    dest="tests/fuzz/corpus/$name/finding-$(sha1sum "$f" | cut -c1-16)"
    cp "$f" "$dest"
    echo "fuzz_$name: finding $(basename "$f") copied to $dest"
  done
  if [ "$rc" != 0 ] && [ "$found" = 0 ]; then found=1; fi
  if [ "${PERFSWEEP_FUZZ_MERGE:-0}" = 1 ]; then
    before=$(find "tests/fuzz/corpus/$name" -type f | wc -l)
    "$dir/tests/fuzz/fuzz_$name" -merge=1 "tests/fuzz/corpus/$name" "$out/$name/corpus" \
      >"$out/$name/merge.log" 2>&1 || true
    added=$((added + $(find "tests/fuzz/corpus/$name" -type f | wc -l) - before))
  fi
  echo "fuzz_$name: executions=${execs:-0} findings=$found"
  total_exec=$((total_exec + ${execs:-0}))
  total_crash=$((total_crash + found))
  if [ "$found" != 0 ]; then failed+=("$name"); fi
done
for name in "${failed[@]}"; do
  echo "== fuzz_$name found something (inputs kept in $out/$name/):"
  grep -vE '^(#[0-9]+|INFO:|MERGE|\s*$)' "$out/$name/log" | tail -40
done
echo "FIGURE fuzz-long: targets=${#targets[@]} seconds_per_target=$secs executions=$total_exec findings=$total_crash corpus_added=$added"
[ ${#failed[@]} -eq 0 ]
