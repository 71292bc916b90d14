#!/bin/bash
# Stand-in for the build-jax.sh of the 2023 JAX-Toolbox images (ghcr.io/nvidia/jax:nightly-DATE),
# for perfsweep's tests. Its sources are fixed at /opt/jax-source and /opt/xla-source (the 2023
# script had no source options); it builds wheels into /opt/jax-source/dist and installs every
# jax*.whl found there, so a wheel left from an earlier build makes the install fail the way pip
# does with two versions of one package: hence the method `rm /opt/jax-source/dist/jax*.whl;
# build-jax.sh`. Options: getopt with the 2023 long options (no --src-path-*, no --bazel-cache);
# bazel keeps its state under $HOME/.cache/bazel. See compile.sh.
set -e
. /usr/local/lib/perfsweep-standin/compile.sh

args=$(getopt -o h --long build-param:,clean,clean-only,cpu-arch:,debug,dry,help,jaxlib_only,no-clean,sm: -- "$@") || exit 1
echo "build-jax.sh $*"
eval set -- "$args"
while [ : ]; do
    case "$1" in
        --build-param|--cpu-arch|--sm) shift 2 ;;
        --clean|--clean-only|--debug|--dry|--jaxlib_only|--no-clean) shift ;;
        -h|--help) echo "Configure, build, and install JAX and Jaxlib (perfsweep stand-in)"; exit 1 ;;
        --) shift; break ;;
        *) echo "UNKNOWN OPTION $1"; exit 1 ;;
    esac
done
SRC=/opt/jax-source
mkdir -p "$SRC/dist"
tmp=$(mktemp)
standin_compile "$SRC" /opt/xla-source "$HOME/.cache/bazel" "$tmp"
short=$(git -c "safe.directory=*" -C "$SRC" rev-parse --short=8 HEAD)
ver="0.4.14.dev0+$short$(sha1sum < "$tmp" | cut -c1-6)"
cp "$tmp" "$SRC/dist/jaxlib-$ver-cp310-cp310-manylinux2014_x86_64.whl"
cp "$tmp" "$SRC/dist/jax-$ver-py3-none-any.whl"
rm -f "$tmp"
# pip install dist/*.whl
wheels=("$SRC"/dist/jaxlib-*.whl)
if [ "${#wheels[@]}" -ne 1 ]; then
    echo "ERROR: Double requirement given: jaxlib (${wheels[*]##*/})" >&2
    exit 1
fi
standin_install "${wheels[0]}"
echo "Successfully installed jax-$ver jaxlib-$ver"
