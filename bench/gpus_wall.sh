#!/usr/bin/env bash
# Wall time of `perfsweep daily` with 4 GPUs against 1 on the seed replay, the real binary and a
# benchmark that sleeps like GPU runs of uneven length (1 s on even days, 2 s on odd ones, 0.2 s
# before a broken nightly fails): a round barrier makes every GPU wait for the slowest.
#   bash bench/gpus_wall.sh [perfsweep-binary]      (goal: 4 GPUs <= 0.35 of one GPU's wall)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/perfsweep}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sweep() { # GPUS -> prints "wall runs boundaries"
    local dir="$tmp/gpus-$1" start end
    mkdir -p "$dir"
    start=$(date +%s.%N)
    "$bin" daily --from 2023-07-01 --to 2023-09-18 --runtime none --gpus "$1" --json \
        --test "/usr/bin/python3 examples/scenarios/simbench.py examples/scenarios/seed_replay.json {date} --counter-dir $dir/c --sleep 1,2,0.2" \
        --metric MLUPS >"$dir/out.json" 2>"$dir/err.log" || true
    end=$(date +%s.%N)
    /usr/bin/python3 - "$dir/out.json" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs = d.get("runs", d.get("sweep", {}).get("runs", "?"))
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.1f} {runs} {len(d['boundaries'])}")
PY
}
read -r w1 r1 b1 < <(sweep 0)
read -r w4 r4 b4 < <(sweep 0,1,2,3)
printf '%-8s %8s %6s %11s\n' "GPUs" "wall s" "runs" "boundaries"
printf '%-8s %8s %6s %11s\n' 1 "$w1" "$r1" "$b1" 4 "$w4" "$r4" "$b4"
/usr/bin/python3 -c "import sys; r = $w4 / $w1; print(f'wall 4/1 = {r:.2f} (goal <= 0.35): ' + ('met' if r <= 0.35 else 'NOT met'))"
