#!/bin/bash
# Stand-in for the build-jax.sh of the 2023 JAX-Toolbox images (ghcr.io/nvidia/jax:nightly-DATE),
# for perfsweep's tests, with the real getopt specification of the versions in the Aug 2023
# nightlies (NVIDIA/JAX-Toolbox .github/container/build-jax.sh at 526436f1, in the nightlies up to
# 2023-08-24, and 1d80d188, from 2023-08-25; make-image.sh fixes the version per image date; 1d80d188
# only adds 8.9 to --sm all): -o h --long bazel-cache:,build-param:,clean,cpu-arch:,debug,
# jaxlib_only,no-clean,clean-only,dry,help,src-path-jax:,src-path-xla:,sm:. getopt's complaint or an
# unknown option exits 1, -h/--help prints the usage and exits 1, --dry stops after the
# configuration. Defaults /opt/jax-source, /opt/xla-source, --sm local (./local_cuda_arch,
# relative to the working directory). It builds wheels into SRC_PATH_JAX/dist and installs every
# jaxlib wheel found there, so a wheel left from an earlier build makes the install fail the way
# pip does with two versions of one package: hence the method `rm /opt/jax-source/dist/jax*.whl;
# build-jax.sh`. An http:// or grpc:// --bazel-cache is a remote cache, anything else a disk
# cache. --clean-only, or --clean after the install, runs clean(): `bazel clean --expunge`,
# `rm -rf .jax_configure.bazelrc`, `rm -rf $HOME/.cache/bazel`, which fails when that directory
# is a mount point (set -e: exit 1). See compile.sh.
set -e
version=@BUILD_JAX_VERSION@
. /usr/local/lib/perfsweep-standin/compile.sh

usage() {
    echo "Configure, build, and install JAX and Jaxlib (perfsweep stand-in, $version)"
    echo "  Usage: $0 [OPTIONS]"
    exit "$1"
}

BAZEL_CACHE=""
BUILD_PARAM=""
CLEAN=0
CLEANONLY=0
CUDA_COMPUTE_CAPABILITIES="local"
DRY=0
JAXLIB_ONLY=0
SRC_PATH_JAX="/opt/jax-source"
SRC_PATH_XLA="/opt/xla-source"

args=$(getopt -o h --long bazel-cache:,build-param:,clean,cpu-arch:,debug,jaxlib_only,no-clean,clean-only,dry,help,src-path-jax:,src-path-xla:,sm: -- "$@")
if [[ $? -ne 0 ]]; then
    exit 1
fi
echo "build-jax.sh $*"
eval set -- "$args"
while [ : ]; do
    case "$1" in
        --bazel-cache) BAZEL_CACHE=$2; shift 2 ;;
        --build-param) BUILD_PARAM="$BUILD_PARAM $2"; shift 2 ;;
        -h | --help) usage 1 ;;
        --clean) CLEAN=1; shift ;;
        --clean-only) CLEANONLY=1; shift ;;
        --cpu-arch) shift 2 ;;
        --no-clean) CLEAN=0; shift ;;
        --debug) shift ;;
        --dry) DRY=1; shift ;;
        --jaxlib_only) JAXLIB_ONLY=1; shift ;;
        --src-path-jax) SRC_PATH_JAX=$2; shift 2 ;;
        --src-path-xla) SRC_PATH_XLA=$2; shift 2 ;;
        --sm) CUDA_COMPUTE_CAPABILITIES=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "UNKNOWN OPTION $1"; usage 1 ;;
    esac
done
SRC_PATH_JAX=$(realpath "$SRC_PATH_JAX")
SRC_PATH_XLA=$(realpath "$SRC_PATH_XLA")

clean() {
    pushd "${SRC_PATH_JAX}" >/dev/null
    bazel clean --expunge || true
    rm -rf .jax_configure.bazelrc
    rm -rf "${HOME}/.cache/bazel"
    popd >/dev/null
}

if [[ "$CUDA_COMPUTE_CAPABILITIES" == "all" ]]; then
    export TF_CUDA_COMPUTE_CAPABILITIES="5.2,6.0,6.1,7.0,7.5,8.0,8.6,9.0"
    [ "$version" = 526436f1 ] || TF_CUDA_COMPUTE_CAPABILITIES="5.2,6.0,6.1,7.0,7.5,8.0,8.6,8.9,9.0"
elif [[ "$CUDA_COMPUTE_CAPABILITIES" == "local" ]]; then
    export TF_CUDA_COMPUTE_CAPABILITIES=$(./local_cuda_arch)
else
    export TF_CUDA_COMPUTE_CAPABILITIES="${CUDA_COMPUTE_CAPABILITIES}"
fi
for v in BAZEL_CACHE BUILD_PARAM CLEAN CLEANONLY CUDA_COMPUTE_CAPABILITIES SRC_PATH_JAX \
    SRC_PATH_XLA TF_CUDA_COMPUTE_CAPABILITIES; do
    echo "$v: ${!v}"
done
if [[ ${DRY} == 1 ]]; then
    echo "Dry run, exiting..."
    exit
fi
if [[ ${CLEANONLY} == 1 ]]; then
    clean
    exit
fi
mkdir -p "$SRC_PATH_JAX/dist"
tmp=$(mktemp)
standin_compile "$SRC_PATH_JAX" "$SRC_PATH_XLA" "$BAZEL_CACHE" "$tmp"
short=$(git -c "safe.directory=*" -C "$SRC_PATH_JAX" rev-parse --short=8 HEAD)
ver="0.4.14.dev0+$short$(sha1sum < "$tmp" | cut -c1-6)"
cp "$tmp" "$SRC_PATH_JAX/dist/jaxlib-$ver-cp310-cp310-manylinux2014_x86_64.whl"
cp "$tmp" "$SRC_PATH_JAX/dist/jax-$ver-py3-none-any.whl"
rm -f "$tmp"
# pip install dist/*.whl
wheels=("$SRC_PATH_JAX"/dist/jaxlib-*.whl)
if [ "${#wheels[@]}" -ne 1 ]; then
    echo "ERROR: Double requirement given: jaxlib (${wheels[*]##*/})" >&2
    exit 1
fi
standin_install "${wheels[0]}"
if [[ "$JAXLIB_ONLY" == "1" ]]; then
    echo "Successfully installed jaxlib-$ver"
else
    echo "Successfully installed jax-$ver jaxlib-$ver"
fi
if [[ "$CLEAN" == "1" ]]; then
    clean
fi
