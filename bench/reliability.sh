#!/usr/bin/env bash
# The long versions of the reliability and security suites (issue 8): every suite in tests/suites
# at PERFSWEEP_SUITE_SCALE (default 10), then the fuzzers for longer (bench/fuzz-long.sh, 600 s per
# target unless FUZZ_SECONDS is set; FUZZ_SECONDS=0 skips them). Prints every suite's FIGURE line.
# Usage: bash bench/reliability.sh [scale]
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-10}
[[ "$scale" =~ ^[0-9]+$ ]] && [ "$scale" -ge 1 ] || { echo "scale '$scale': expected an integer >= 1" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-reliability -G Ninja "${launcher[@]}" -DPERFSWEEP_BUILD_BENCH=OFF \
  -DPERFSWEEP_SANITIZERS="address;undefined" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" >/dev/null
cmake --build build-reliability -j "$(nproc)" --target perfsweep suites_tests
figures=$PWD/build-reliability/figures-scale-$scale.txt
rm -f "$figures"
PERFSWEEP_FIGURES=$figures PERFSWEEP_SUITE_SCALE=$scale ./build-reliability/tests/suites_tests
echo "== suites at scale $scale =="
sort "$figures"
if [ "${FUZZ_SECONDS:-600}" != 0 ] && command -v clang++ >/dev/null; then
  bash bench/fuzz-long.sh ${FUZZ_SECONDS:+"$FUZZ_SECONDS"}
fi
