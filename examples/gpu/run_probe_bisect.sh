#!/usr/bin/env bash
# `git bisect run perfsweep probe` on a real GPU (see docs/exit-code-mode.md).
#
#   bash examples/gpu/run_probe_bisect.sh PERFSWEEP WORKDIR OUTDIR
#
# 1. make_lbm_world.sh builds the LBM source history (the array-of-structs pull request in `lbm`
#    makes the kernel several times slower);
# 2. the environment fingerprint of this machine is recorded with the built-in probe
#    (`perfsweep run --env-probe default --json`) while measuring the good nightly's sources;
# 3. metric mode: `git bisect run perfsweep probe --reference GOOD --threshold 0.2` over the
#    whole lbm history between the first and the last nightly names the slow commit;
# 4. exit-code mode: a branch of six commits where the fourth mistypes a D3Q19 weight (mass is no
#    longer conserved, so the benchmark's physics check exits 1); `git bisect run perfsweep probe
#    --check exit-code` names it;
# 5. a usage error makes `git bisect run` abort (probe exits 128), marking nothing.
set -euo pipefail
ps=${1:?perfsweep binary}; work=${2:?work dir}; out=${3:?out dir}
ps=$(cd "$(dirname "$ps")" && pwd)/$(basename "$ps")
here=$(cd "$(dirname "$0")" && pwd)
N=${LBM_N:-128}; STEPS=${LBM_STEPS:-100}
mkdir -p "$work" "$out"
work=$(cd "$work" && pwd); out=$(cd "$out" && pwd)
bash "$here/make_lbm_world.sh" "$work/world" >/dev/null
w=$work/world
sha_of() { awk -v r="$1" '$1 == r {print $2}' "$w/nightlies/$2/manifest.txt"; }
good=$(sha_of lbm 2023-09-01); bad=$(sha_of lbm 2023-09-06)
flags=$w/nightlies/2023-09-01/flags
git config --global user.name >/dev/null 2>&1 || export GIT_AUTHOR_NAME=perfsweep \
  GIT_COMMITTER_NAME=perfsweep GIT_AUTHOR_EMAIL=perfsweep@example.com \
  GIT_COMMITTER_EMAIL=perfsweep@example.com

echo "== 1. environment fingerprint and the good level (nightly 2023-09-01's sources)"
"$ps" run --label 2023-09-01 --benchmark "mlups_lbm.py $N $STEPS" --repeats 3 --timeout 10m \
  --test "bash $w/nightlies/2023-09-01/lbm/run.sh $flags $N $STEPS" --env-probe default \
  --logs "$out/logs/run" --json > "$out/good.json"
ref=$(python3 -c 'import json,statistics,sys; print(statistics.median(json.load(open(sys.argv[1]))["values"]))' "$out/good.json")
python3 -c 'import json,sys; e=json.load(open(sys.argv[1])).get("environment",{}); [print(f"  {k}={v}") for k,v in sorted(e.items())]' "$out/good.json"
echo "good level: $ref MLUPS"

echo "== 2. metric mode: git bisect run perfsweep probe (lbm $good..$bad)"
git clone -q "$w/repos/lbm" "$work/bisect-metric"
cd "$work/bisect-metric"
git bisect start "$bad" "$good"
git bisect run "$ps" probe --build 'bash build.sh' \
  --test "bash run.sh $flags $N $STEPS" --reference "$ref" --threshold 0.2 --repeats 3 \
  --timeout 10m --logs "$out/logs/metric" 2>&1 | tee "$out/bisect-metric.txt"
git bisect log > "$out/bisect-metric.log"
git bisect reset >/dev/null

echo "== 3. exit-code mode: a mistyped lattice weight breaks the physics check"
git clone -q "$w/repos/lbm" "$work/bisect-exit"
cd "$work/bisect-exit"
git checkout -q -b weights "$good"
for i in 1 2 3 4 5 6; do
  if [ "$i" = 4 ]; then
    sed -i 's|\[1.0 / 36.0\] \* 12|[1.0 / 32.0] * 12|' mlups_lbm.py
    git commit -qam "lbm: tabulate the D3Q19 weights (typo: 1/32 for the diagonal links)"
  else
    echo "weights branch note $i" >> CHANGES.txt
    git commit -qam "docs: note $i"
  fi
done
git bisect start weights "$good"
git bisect run "$ps" probe --check exit-code --test "bash run.sh $flags 64 50" \
  --timeout 10m --logs "$out/logs/exit" 2>&1 | tee "$out/bisect-exit.txt"
git bisect log > "$out/bisect-exit.log"
git bisect reset >/dev/null

echo "== 4. a usage error aborts git bisect run instead of marking a commit bad"
git bisect start weights "$good"
set +e
git bisect run "$ps" probe --check exit-code --tset typo 2>&1 | tee "$out/bisect-usage.txt"
echo "git bisect run exit status: ${PIPESTATUS[0]}" | tee -a "$out/bisect-usage.txt"
set -e
git bisect reset >/dev/null
echo "done: $out"
