#!/usr/bin/env bash
# A private copy of the make-world.sh world for one test, laid out once per content of the stand-in
# scripts and copied afterwards (a world is ~230 processes to create, a copy a few dozen files).
# Usage: world.sh CACHE DEST jax|nightly
#   CACHE  a directory that outlives the tests (e.g. under the build directory)
#   DEST   gets clones/, docker/ (a FAKE_DOCKER_STATE) and world.env as make-world.sh writes them;
#          the upstream repos stay in CACHE (only read: clones and images fetch from them), and
#          DEST/upstream links to them
# Concurrent callers are safe: the world is laid out under a lock (its paths are absolute, so it is
# made where it stays); world.env, written last, marks it complete.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: world.sh CACHE DEST jax|nightly}
dest=${2:?usage: world.sh CACHE DEST jax|nightly}
gen=${3:?usage: world.sh CACHE DEST jax|nightly}
key=$(cat "$here"/*.sh | sha256sum | cut -c1-16)
world=$cache/$gen-$key
mkdir -p "$cache"
exec 9>"$cache/.lock-$gen"
flock 9
if [ ! -f "$world/world.env" ]; then
    rm -rf "$world" # an interrupted earlier attempt
    bash "$here/make-world.sh" "$world" "$gen" >/dev/null
fi
flock -u 9
mkdir -p "$dest"
cp -a "$world/clones" "$world/docker" "$world/world.env" "$dest/"
ln -sfn "$world/upstream" "$dest/upstream"
