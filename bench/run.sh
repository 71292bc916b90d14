#!/usr/bin/env bash
# Build and run every benchmark (README "Benchmarks"). Each prints ratios measured side by side.
#   bash bench/run.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
cmake -S . -B "$b" -DPERFSWEEP_BUILD_BENCH=ON >/dev/null
cmake --build "$b" -j "$(nproc)" --target bench_detect bench_daily_runs bench_git_states \
    bench_run_output bench_gpu_time bench_compare bench_evidence perfsweep
echo "== bench_detect (detect on 10,000 points x 5 repeats, one core)"
taskset -c 0 "./$b/bench/bench_detect"
echo "== bench_daily_runs (runs used by adaptive and bisect vs exhaustive)"
"./$b/bench/bench_daily_runs"
echo "== bench_git_states (75 hourly states over 2 x 35,000-commit repos vs git rev-list)"
"./$b/bench/bench_git_states"
echo "== bench_run_output (1 GiB of benchmark output: alone vs under perfsweep run, peak RSS)"
"./$b/bench/bench_run_output"
echo "== bench_gpu_time (runs and builds of the planners vs a pass/fail bisection; hourly builds, and builds of a state already built without and with kept builds)"
"./$b/bench/bench_gpu_time"
echo "== bench_compare (the pull-request verdict, simulated: 200 PR jobs per scenario, runs spent)"
"./$b/bench/bench_compare"
echo "== bench_evidence (the whole pipeline in-process: re-measured known states without and with the evidence store)"
"./$b/bench/bench_evidence"
echo "== dashboard render budget (200 series x 2,000 points, headless Chromium; goals < 1 s, < 5 MB)"
d="$b/bench-dashboard"
rm -rf "$d" && mkdir -p "$d"
python3 bench/dashboard_history.py >"$d/history.jsonl"
s=$SECONDS
"./$b/perfsweep" dashboard --history "$d/history.jsonl" --output-dir "$d/site" | sed -n 1p
echo "perfsweep dashboard took $((SECONDS - s)) s"
node bench/dashboard_budget.js --site "$d/site" --runs 3
echo "== gpus_wall (4 GPUs vs 1, the real binary, a sleeping benchmark over the seed replay)"
cmake --build "$b" -j "$(nproc)" --target perfsweep
bash bench/gpus_wall.sh "./$b/perfsweep"
