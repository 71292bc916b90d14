#!/usr/bin/env bash
# Lay out a stand-in JAX-Toolbox image as a directory (its root file system), for the fake docker
# (tests/support/fake_docker) and the pyxis stand-in. What perfsweep relies on is laid out as in
# the real images of each generation:
#   jax:     /opt/NAME git clones (branch main, origin = the upstream), /opt/manifest.d/git-clone.yaml
#            (url, tracking_ref, latest_verified_commit, mode per repo), build-jax.sh on PATH
#            (tests/support/jax_toolbox/build-jax.sh: the real option set), jaxlib installed
#   nightly: /opt/NAME-source clones, no manifest, the 2023 build-jax.sh (build-jax-2023.sh), the
#            nightly's wheels in /opt/jax-source/dist
# plus /usr/local/bin/standin-bench (the benchmark) and the image's toolchain level.
# Usage: make-image.sh jax|nightly ROOTFS TOOLCHAIN NAME=UPSTREAM_DIR@SHA...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 4 ] || { echo "usage: $0 jax|nightly ROOTFS TOOLCHAIN NAME=UPSTREAM_DIR@SHA..." >&2; exit 2; }
gen=$1 root=$2 toolchain=$3
shift 3
case $gen in jax) suffix="" ;; nightly) suffix="-source" ;; *) echo "bad generation $gen" >&2; exit 2 ;; esac
mkdir -p "$root"/opt "$root"/usr/local/bin "$root"/usr/local/lib/perfsweep-standin \
    "$root"/usr/local/share/perfsweep-standin "$root"/root "$root"/tmp
chmod 1777 "$root/tmp"
echo "$toolchain" > "$root/usr/local/share/perfsweep-standin/toolchain"
cp "$here/compile.sh" "$root/usr/local/lib/perfsweep-standin/compile.sh"
cp "$here/bench.sh" "$root/usr/local/bin/standin-bench"
if [ "$gen" = jax ]; then
    cp "$here/build-jax.sh" "$root/usr/local/bin/build-jax.sh"
    mkdir -p "$root/opt/manifest.d"
    : > "$root/opt/manifest.d/git-clone.yaml"
else
    cp "$here/build-jax-2023.sh" "$root/usr/local/bin/build-jax.sh"
fi
for spec in "$@"; do
    name=${spec%%=*} rest=${spec#*=}
    upstream=${rest%@*} sha=${rest##*@}
    dir="$root/opt/$name$suffix"
    git init -q -b main "$dir"
    git -C "$dir" remote add origin "$upstream"
    # Only the history up to the nightly's commit: later commits must come from elsewhere.
    git -C "$dir" fetch -q --no-tags "$upstream" "$sha:refs/remotes/origin/main"
    git -C "$dir" checkout -q -B main "$sha"
    if [ "$gen" = jax ]; then
        cat >> "$root/opt/manifest.d/git-clone.yaml" <<YAML
$name:
  url: $upstream
  tracking_ref: main
  latest_verified_commit: $sha
  mode: git-clone
YAML
    fi
done
# The nightly's own build, as the image's Dockerfile ran it.
(
    . "$here/compile.sh"
    standin=$root/usr/local/share/perfsweep-standin
    site=$root/usr/local/lib/perfsweep-standin/site
    info=$(mktemp)
    standin_compile "$root/opt/jax$suffix" "$root/opt/xla$suffix" "" "$info" >/dev/null
    standin_install "$info"
    if [ "$gen" = nightly ]; then
        mkdir -p "$root/opt/jax-source/dist"
        cp "$info" "$root/opt/jax-source/dist/jaxlib-0.4.14.dev0+nightly-cp310-cp310-manylinux2014_x86_64.whl"
        cp "$info" "$root/opt/jax-source/dist/jax-0.4.14.dev0+nightly-py3-none-any.whl"
    else
        mkdir -p "$root/opt/jaxlibs/jaxlib" && cp "$info" "$root/opt/jaxlibs/jaxlib/BUILD-INFO"
    fi
    rm -f "$info"
)
