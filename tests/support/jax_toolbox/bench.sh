#!/bin/sh
# The stand-in image's benchmark: reports the speed of the installed jaxlib (what build-jax.sh
# installed last, never the source tree), with a small deterministic spread by repeat. With
# PERFSWEEP_OUTPUT_DIR set it writes a "dump" there, as an HLO dump or a profile would be. It
# prints $PERFSWEEP_PATH_JAX, the JAX tree as perfsweep tells it the benchmark sees it, and the
# GPUs the engine gave the container (tests/support/fake_docker: FAKE_DOCKER_GPUS).
info=/usr/local/lib/perfsweep-standin/site/jaxlib.info
[ -f "$info" ] || { echo "ImportError: no jaxlib installed" >&2; exit 1; }
line=$(cat "$info")
speed=${line#*speed=}
speed=${speed%% *}
rep=${PERFSWEEP_REPEAT:-1}
case $rep in *[!0-9]*) rep=1 ;; esac
echo "jaxlib: $line"
echo "jax tree: ${PERFSWEEP_PATH_JAX:-}"
echo "gpus: ${FAKE_DOCKER_GPUS:-none}"
if [ -n "${PERFSWEEP_OUTPUT_DIR:-}" ]; then
    echo "$line" > "$PERFSWEEP_OUTPUT_DIR/dump-$rep.txt" || exit 1
fi
awk -v s="$speed" -v r="$rep" 'BEGIN { printf "MLUPS: %.3f\n", s * (1 + 0.0004 * ((r % 3) - 1)) }'
