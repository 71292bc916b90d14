#!/usr/bin/env bash
# Lay out a stand-in JAX-Toolbox image as a directory (its root file system), for the fake docker
# (tests/support/fake_docker) and the pyxis stand-in. What perfsweep relies on is laid out as in
# the real images of each generation:
#   jax:     /opt/NAME git clones (branch main, origin = the upstream), /opt/manifest.d/git-clone.yaml
#            (url, tracking_ref, latest_verified_commit, mode per repo), build-jax.sh on PATH
#            (tests/support/jax_toolbox/build-jax.sh at VERSION), jaxlib installed
#   nightly: /opt/NAME-source clones, no manifest, the 2023 build-jax.sh (build-jax-2023.sh at
#            VERSION), the nightly's wheels in /opt/jax-source/dist
# plus /usr/local/bin/standin-bench (the benchmark), a `bazel` that knows `clean --expunge`, the
# image's toolchain level, and the CUDA base images' entrypoint (/opt/nvidia/nvidia_entrypoint.sh,
# which prints a banner on every `docker run`), recorded next to the tree as ROOTFS.entrypoint,
# and the installed jax and jaxlib distributions (dist-info directories that the environment probe
# reads: version X.dev<DATE>, as the nightly's own build names them).
# Usage: make-image.sh jax|nightly ROOTFS TOOLCHAIN VERSION DATE NAME=UPSTREAM_DIR@SHA...
#   VERSION  the JAX-Toolbox commit whose build-jax.sh the image carries (see the stand-ins)
#   DATE     the nightly's date, YYYY-MM-DD
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 6 ] || { echo "usage: $0 jax|nightly ROOTFS TOOLCHAIN VERSION DATE NAME=UPSTREAM_DIR@SHA..." >&2; exit 2; }
gen=$1 root=$2 toolchain=$3 version=$4 date=$5
shift 5
case $gen in
    jax) suffix="" script=build-jax.sh release=0.5.4 ;;
    nightly) suffix="-source" script=build-jax-2023.sh release=0.4.14 ;;
    *) echo "bad generation $gen" >&2; exit 2 ;;
esac
mkdir -p "$root"/opt/nvidia "$root"/usr/local/bin "$root"/usr/local/lib/perfsweep-standin \
    "$root"/usr/local/share/perfsweep-standin "$root"/root "$root"/tmp
chmod 1777 "$root/tmp"
echo "$toolchain" > "$root/usr/local/share/perfsweep-standin/toolchain"
cp "$here/compile.sh" "$root/usr/local/lib/perfsweep-standin/compile.sh"
cp "$here/bench.sh" "$root/usr/local/bin/standin-bench"
sed "s/@BUILD_JAX_VERSION@/$version/" "$here/$script" > "$root/usr/local/bin/build-jax.sh"
chmod +x "$root/usr/local/bin/build-jax.sh"
cat > "$root/usr/local/bin/bazel" <<'SH'
#!/bin/sh
# Stand-in bazel: only what build-jax.sh's clean() calls. The output base is under ~/.cache/bazel.
case "$1" in
clean) rm -rf "$HOME/.cache/bazel/_bazel_root/standin" && echo "INFO: Starting clean." ;;
*) echo "stand-in bazel: '$1' is not emulated" >&2; exit 2 ;;
esac
SH
# The CUDA base images' entrypoint: a banner on stdout, then the command.
cat > "$root/opt/nvidia/nvidia_entrypoint.sh" <<'SH'
#!/bin/bash
printf '\n==========\n== CUDA ==\n==========\n\nCUDA Version 12.2.0\n\n'
echo "Container image Copyright (c) NVIDIA CORPORATION & AFFILIATES. All rights reserved."
echo
echo "This container image and its contents are governed by a license."
echo "By pulling and using the container, you accept the terms of that license:"
echo "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license"
echo
echo "A copy of the license is made available in this container for your convenience."
echo
exec "$@"
SH
chmod +x "$root/usr/local/bin/bazel" "$root/opt/nvidia/nvidia_entrypoint.sh"
echo '["/opt/nvidia/nvidia_entrypoint.sh"]' > "${root%/}.entrypoint"
# The stand-in runs this machine's python3 (/usr is bound in): its dist-packages under /usr/local.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
site_packages=$root/usr/local/lib/python$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
for dist in jax jaxlib; do
    mkdir -p "$site_packages/$dist-$release.dev${date//-/}.dist-info"
done
if [ "$gen" = jax ]; then
    mkdir -p "$root/opt/manifest.d"
    : > "$root/opt/manifest.d/git-clone.yaml"
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
# The nightly's own build, as the image's Dockerfile ran it (bazel's files in the image's /root).
(
    . "$here/compile.sh"
    standin=$root/usr/local/share/perfsweep-standin
    site=$root/usr/local/lib/perfsweep-standin/site
    HOME=$root/root
    info=$(mktemp)
    standin_compile "$root/opt/jax$suffix" "$root/opt/xla$suffix" "" "$info" >/dev/null
    if [ "$gen" = nightly ]; then
        standin_install "$info" # 2023: pip install of the wheels (copies)
        mkdir -p "$root/opt/jax-source/dist"
        cp "$info" "$root/opt/jax-source/dist/jaxlib-0.4.14.dev0+nightly-cp310-cp310-manylinux2014_x86_64.whl"
        cp "$info" "$root/opt/jax-source/dist/jax-0.4.14.dev0+nightly-py3-none-any.whl"
    else
        # Today's images: build-jax.sh's `pip install -e /opt/jaxlibs/jaxlib ...` (editable: the
        # link resolves inside the container).
        mkdir -p "$root/opt/jaxlibs/jaxlib" && cp "$info" "$root/opt/jaxlibs/jaxlib/BUILD-INFO"
        mkdir -p "$site" && ln -sfn /opt/jaxlibs/jaxlib/BUILD-INFO "$site/jaxlib.info"
    fi
    rm -f "$info"
)
