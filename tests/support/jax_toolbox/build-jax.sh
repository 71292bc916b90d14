#!/bin/bash
# Stand-in for JAX-Toolbox's build-jax.sh in today's images (ghcr.io/nvidia/jax:jax-YYYY-MM-DD),
# for perfsweep's tests. It parses its options with getopt exactly as the real script does (the
# same long options and -h; anything else: getopt's complaint and exit 1), "builds" the JAX and XLA
# trees it is pointed at (default /opt/jax and /opt/xla, like the real one), installs the result
# (the benchmark reads it) and records which source trees it built. See compile.sh.
set -e
. /usr/local/lib/perfsweep-standin/compile.sh

usage() {
    echo "Configure, build, and install JAX and Jaxlib (perfsweep stand-in)"
    echo "  Usage: $0 [OPTIONS]"
    exit "$1"
}

BAZEL_CACHE=""
BUILD_PATH_JAXLIB="/opt/jaxlibs"
CLEANONLY=0
INSTALL=1
SRC_PATH_JAX="/opt/jax"
SRC_PATH_XLA="/opt/xla"

args=$(getopt -o h --long bazel-cache:,bazel-cache-namespace:,build-param:,build-path-jaxlib:,clean,cpu-arch:,debug,extra-targets:,extra-target-dest:,no-clean,clean-only,help,install,no-install,src-path-jax:,src-path-xla:,sm: -- "$@") || exit 1
echo "build-jax.sh $*"
eval set -- "$args"
while [ : ]; do
    case "$1" in
        --bazel-cache) BAZEL_CACHE=$2; shift 2 ;;
        --bazel-cache-namespace|--build-param|--cpu-arch|--extra-targets|--extra-target-dest|--sm)
            shift 2 ;;
        --build-path-jaxlib) BUILD_PATH_JAXLIB=$2; shift 2 ;;
        --clean|--no-clean|--debug) shift ;;
        --clean-only) CLEANONLY=1; shift ;;
        -h|--help) usage 1 ;;
        --install) INSTALL=1; shift ;;
        --no-install) INSTALL=0; shift ;;
        --src-path-jax) SRC_PATH_JAX=$(realpath "$2"); shift 2 ;;
        --src-path-xla) SRC_PATH_XLA=$(realpath "$2"); shift 2 ;;
        --) shift; break ;;
        *) echo "UNKNOWN OPTION $1"; usage 1 ;;
    esac
done
echo "SRC_PATH_JAX: $SRC_PATH_JAX"
echo "SRC_PATH_XLA: $SRC_PATH_XLA"
echo "BAZEL_CACHE: $BAZEL_CACHE"
[ "$CLEANONLY" = 1 ] && exit 0
cache=""
case "$BAZEL_CACHE" in
    http://*|grpc://*|"") ;;
    *) cache=$BAZEL_CACHE ;;
esac
standin_compile "$SRC_PATH_JAX" "$SRC_PATH_XLA" "$cache" "$BUILD_PATH_JAXLIB/jaxlib/BUILD-INFO"
# Like the real script: point JAX's requirements at the local jaxlib (a tracked file changes).
[ -f "$SRC_PATH_JAX/build/requirements.in" ] &&
    sed -i "s|^jaxlib.*$|jaxlib @ file://$BUILD_PATH_JAXLIB/jaxlib|" "$SRC_PATH_JAX/build/requirements.in"
if [ "$INSTALL" = 1 ]; then
    standin_install "$BUILD_PATH_JAXLIB/jaxlib/BUILD-INFO"
fi
