#!/usr/bin/env bash
# The history-at-scale benchmark (bench/history_scale.cpp) of this tree against an older one:
# builds both as release binaries (the older one in a git worktree of REF, default main), then
# times `record` and `detect` of one series at 1e5 and 1e6 points with each, side by side.
#   bash bench/history_scale.sh [REF] [POINTS...]
# OLD_PERFSWEEP=PATH uses that binary as the older one (e.g. a release build of main already
# there) instead of building REF.
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:-main}
shift || true
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-bench -G Ninja "${launcher[@]}" -DPERFSWEEP_BUILD_TESTS=OFF \
  -DPERFSWEEP_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench --target perfsweep bench_history_scale
if [ -n "${OLD_PERFSWEEP:-}" ]; then
  echo "== new: $(git rev-parse --short HEAD)  old: $OLD_PERFSWEEP"
  exec ./build-bench/bench/bench_history_scale ./build-bench/perfsweep "$OLD_PERFSWEEP" "$@"
fi
old=build-bench-old
if [ ! -d "$old/src" ]; then
  git worktree add --detach "$old/src" "$ref" >/dev/null
else
  git -C "$old/src" checkout -q --detach "$ref"
fi
cmake -S "$old/src" -B "$old/build" -G Ninja "${launcher[@]}" -DPERFSWEEP_BUILD_TESTS=OFF \
  -DPERFSWEEP_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$old/build" --target perfsweep
echo "== new: $(git rev-parse --short HEAD)  old: $ref $(git -C "$old/src" rev-parse --short HEAD)"
./build-bench/bench/bench_history_scale ./build-bench/perfsweep "$old/build/perfsweep" "$@"
