#!/usr/bin/env bash
# End-to-end GPU run of the whole pipeline on the JAX LBM benchmark (see docs/investigate.md, "Real GPU run").
#
#   bash examples/gpu/run_pipeline.sh PERFSWEEP WORKDIR OUTDIR
#
# 1. make_lbm_world.sh builds two real source repos and six nightly snapshots (2023-09-01..06);
#    LBM_CULPRIT=aos (default) or sync32 picks the culprit pull request (see that script);
# 2. the nightly job's earlier runs are recorded (LBM_EARLIER, default 09-01, 09-02 and 09-05: the
#    runner was down on the 3rd and 4th) with `perfsweep daily --strategy exhaustive`;
# 3. `perfsweep investigate` records today's nightly (09-06), detects the drop, sweeps the missing
#    nightlies, rebuilds the two repos hour by hour between the last good and first bad nightly,
#    bisects to the commit and writes the report.
set -euo pipefail
ps=${1:?perfsweep binary}; work=${2:?work dir}; out=${3:?out dir}
here=$(cd "$(dirname "$0")" && pwd)
N=${LBM_N:-128}; STEPS=${LBM_STEPS:-100}; REPEATS=${LBM_REPEATS:-3}; MAX_REPEATS=${LBM_MAX_REPEATS:-$((2 * REPEATS))}
EARLIER=${LBM_EARLIER:-2023-09-01:2023-09-02 2023-09-05:2023-09-05}
bash "$here/make_lbm_world.sh" "$work/world" >/dev/null
w=$work/world
common=(--image "$w/nightlies/{date}" --test "bash {image}/lbm/run.sh {image}/flags $N $STEPS"
        --benchmark "mlups_lbm.py $N $STEPS" --commits-probe "cat {image}/manifest.txt"
        --repeats "$REPEATS" --max-repeats "$MAX_REPEATS" --timeout 5m --logs "$out/logs")
for range in $EARLIER; do
  set -- ${range/:/ }
  "$ps" daily --from "$1" --to "$2" --strategy exhaustive --history "$work/history.jsonl" "${common[@]}"
done
"$ps" investigate --history "$work/history.jsonl" --record 2023-09-06 "${common[@]}" \
  --repo "lbm=$w/repos/lbm" --repo "flags=$w/repos/flags" \
  --build "bash {path:lbm}/build.sh" --hourly-test "bash {path:lbm}/run.sh {path:flags} $N $STEPS" \
  --to-commit --state "$work/state" --output-dir "$out/report"
