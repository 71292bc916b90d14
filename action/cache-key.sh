#!/usr/bin/env bash
# Prints the actions/cache key of the perfsweep binary to $GITHUB_OUTPUT as `key=...`: the OS
# release and architecture (the binary links the distribution's libgit2/libcurl) plus a SHA-256 over
# the sources that make the binary (src/**, CMakeLists.txt, this directory). Computed here because
# the hashFiles() expression only sees files under GITHUB_WORKSPACE, and an action used as
# `uses: owner/perfsweep@v1` lives outside it (actions/toolkit#1035, actions/runner#3765).
set -euo pipefail
root=${PERFSWEEP_ACTION_PATH:?PERFSWEEP_ACTION_PATH must name the action directory}
cd "$root"
os="unknown"
if [ -r /etc/os-release ]; then
  # shellcheck source=/dev/null
  os=$(. /etc/os-release && printf '%s-%s' "${ID:-linux}" "${VERSION_ID:-0}")
fi
sum=$(find src action CMakeLists.txt -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum |
  sha256sum | cut -c1-32)
key="perfsweep-bin-${os}-$(uname -m)-${sum}"
key=${key//[^A-Za-z0-9._-]/_}
echo "perfsweep cache key: $key"
if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'key=%s\n' "$key" >>"$GITHUB_OUTPUT"; fi
