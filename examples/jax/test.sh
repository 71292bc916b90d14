#!/usr/bin/env bash
# Benchmark entry point for use inside a nightly JAX container (e.g. ghcr.io/nvidia/jax:nightly-DATE)
# or on bare metal: runs the D3Q19 LBM benchmark and passes its exit code through.
#   bash test.sh [N [STEPS [extra mlups_lbm.py flags...]]]   (default: 256 200)
# perfsweep reads the `MLUPS: <n>` lines it prints; exit 1 means the physics check failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=${1:-256}
steps=${2:-200}
shift $(($# < 2 ? $# : 2))
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
fi
py=python3
command -v "$py" >/dev/null 2>&1 || py=python
exec "$py" "$here/mlups_lbm.py" "$n" "$steps" "$@"
