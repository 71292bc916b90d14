#!/usr/bin/env bash
# The long fuzzing run: every libFuzzer target of tests/fuzz for SECONDS each (default 600),
# built with -O1 (more executions per second than CI's quick -O0 build), in build-fuzz-long.
# Prints the same per-target lines and "FIGURE fuzz: ..." as .ci/fuzz; exits 1 on any finding.
# Usage: bash bench/fuzz-long.sh [seconds-per-target]
set -euo pipefail
cd "$(dirname "$0")/.."
PERFSWEEP_FUZZ_DIR=${PERFSWEEP_FUZZ_DIR:-build-fuzz-long} \
  PERFSWEEP_FUZZ_OPT=${PERFSWEEP_FUZZ_OPT:--O1 -g} \
  exec bash .ci/fuzz "${1:-600}"
