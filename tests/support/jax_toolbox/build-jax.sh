#!/bin/bash
# Stand-in for JAX-Toolbox's build-jax.sh in today's images (ghcr.io/nvidia/jax:jax-YYYY-MM-DD),
# for perfsweep's tests. make-image.sh fixes the version below per image date, as the real
# nightlies carry the script of their day. Per version it has the real getopt specification
# (NVIDIA/JAX-Toolbox .github/container/build-jax.sh at that commit) and the real case branches:
#   087ff076  -o h   --long bazel-cache:,bazel-cache-namespace:,build-param:,build-path-jaxlib:,
#                     clean,cpu-arch:,debug,extra-targets:,extra-target-dest:,no-clean,clean-only,
#                     help,install,no-install,src-path-jax:,src-path-xla:,sm:
#   7f7ff35a  -o h,r, the same plus release after clean (2025-12-17: -r/--release)
#   5f2395b4  as 7f7ff35a, but --cpu-arch has no case branch (2026-01-22): UNKNOWN OPTION, exit 1
#   ed544116  as 5f2395b4 (2026-03-20, the last change)
# getopt's complaint or an unknown option exits 1, -h/--help prints the usage and exits 1.
# Defaults /opt/jax, /opt/xla, /opt/jaxlibs, --sm all, install on. It "builds" the trees it is
# pointed at (compile.sh: nothing is compiled), points build/requirements.in at the local jaxlib
# (a tracked file changes), installs the result editable like the real `pip install -e` (the
# benchmark reads what BUILD_PATH_JAXLIB holds at run time) and, with --clean (at the
# end) or --clean-only, runs clean(): `bazel clean --expunge` and `rm -rf $HOME/.cache/bazel`,
# which fails when that directory is a mount point (set -e: exit 1). What -r changes in the real
# build is not emulated: the stand-in builds the same way with it.
set -euo pipefail
version=@BUILD_JAX_VERSION@
. /usr/local/lib/perfsweep-standin/compile.sh

usage() {
    echo "Configure, build, and install JAX and Jaxlib (perfsweep stand-in, $version)"
    echo "  Usage: $0 [OPTIONS]"
    exit "$1"
}

BAZEL_CACHE=""
BUILD_PATH_JAXLIB="/opt/jaxlibs"
CLEAN=0
CLEANONLY=0
INSTALL=1
RELEASE=0
SRC_PATH_JAX="/opt/jax"
SRC_PATH_XLA="/opt/xla"
CUDA_COMPUTE_CAPABILITIES="all"

short=h release=0 cpu_arch=1
case $version in
    087ff076) ;;
    7f7ff35a) short=h,r release=1 ;;
    5f2395b4 | ed544116) short=h,r release=1 cpu_arch=0 ;;
    *) echo "stand-in build-jax.sh: unknown version $version" >&2; exit 2 ;;
esac
long=bazel-cache:,bazel-cache-namespace:,build-param:,build-path-jaxlib:,clean
if [ "$release" = 1 ]; then long=$long,release; fi
long=$long,cpu-arch:,debug,extra-targets:,extra-target-dest:,no-clean,clean-only,help,install,no-install,src-path-jax:,src-path-xla:,sm:
args=$(getopt -o "$short" --long "$long" -- "$@")
if [[ $? -ne 0 ]]; then
    exit 1
fi
echo "build-jax.sh $*"
eval set -- "$args"
while [ : ]; do
    case "$1" in
        --bazel-cache) BAZEL_CACHE=$2; shift 2 ;;
        --bazel-cache-namespace | --build-param | --extra-targets | --extra-target-dest) shift 2 ;;
        --build-path-jaxlib) BUILD_PATH_JAXLIB=$2; shift 2 ;;
        --clean) CLEAN=1; shift ;;
        --clean-only) CLEANONLY=1; shift ;;
        --cpu-arch)
            if [ "$cpu_arch" = 1 ]; then shift 2; else echo "UNKNOWN OPTION $1"; usage 1; fi ;;
        --debug) shift ;;
        --no-clean) CLEAN=0; shift ;;
        -h | --help) usage 1 ;;
        -r | --release)
            if [ "$release" = 1 ]; then RELEASE=1; shift; else echo "UNKNOWN OPTION $1"; usage 1; fi ;;
        --install) INSTALL=1; shift ;;
        --no-install) INSTALL=0; shift ;;
        --src-path-jax) SRC_PATH_JAX=$(realpath "$2"); shift 2 ;;
        --src-path-xla) SRC_PATH_XLA=$(realpath "$2"); shift 2 ;;
        --sm) CUDA_COMPUTE_CAPABILITIES=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "UNKNOWN OPTION $1"; usage 1 ;;
    esac
done

clean() {
    pushd "${SRC_PATH_JAX}" >/dev/null
    sed -i '/^build --\(remote_cache\|remote_instance_name\)=/d' .jax_configure.bazelrc
    bazel clean --expunge || true
    rm -rf "${HOME}/.cache/bazel"
    popd >/dev/null
}

for v in BAZEL_CACHE BUILD_PATH_JAXLIB CLEAN CLEANONLY CUDA_COMPUTE_CAPABILITIES INSTALL RELEASE \
    SRC_PATH_JAX SRC_PATH_XLA; do
    echo "$v: ${!v}"
done
if [[ ${CLEANONLY} == 1 ]]; then
    clean
    exit
fi
standin_compile "$SRC_PATH_JAX" "$SRC_PATH_XLA" "$BAZEL_CACHE" "$BUILD_PATH_JAXLIB/jaxlib/BUILD-INFO"
# Like the real script: point JAX's requirements at the local jaxlib (a tracked file changes).
sed -i "s|^jaxlib.*$|jaxlib @ file://$BUILD_PATH_JAXLIB/jaxlib|" "$SRC_PATH_JAX/build/requirements.in"
if [[ "${INSTALL}" == "1" ]]; then # pip install -e $BUILD_PATH_JAXLIB/jaxlib ... -e $SRC_PATH_JAX
    standin_install_editable "$BUILD_PATH_JAXLIB/jaxlib/BUILD-INFO"
fi
if [[ "$CLEAN" == "1" ]]; then
    clean
fi
