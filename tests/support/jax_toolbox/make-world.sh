#!/usr/bin/env bash
# A small JAX/XLA world with a planted culprit, and stand-in JAX-Toolbox nightly images of it, for
# perfsweep's tests (and anyone playing a user against them). Usage: make-world.sh DIR jax|nightly
# Creates:
#   DIR/upstream/{jax,xla}  the "GitHub" repos (main), commits at fixed UTC times
#   DIR/clones/{jax,xla}    full host clones (origin = upstream, origin/main fetched)
#   DIR/docker              a FAKE_DOCKER_STATE with three nightlies registered (images, rootfs/)
#   DIR/world.env           KEY=VALUE lines: GENERATION IMAGE_TEMPLATE GOOD_DATE BAD_DATE
#                           NEWER_DATE GOOD_TIME BAD_TIME CULPRIT CULPRIT_REPO FIX GOOD_JAX
#                           GOOD_XLA BAD_JAX BAD_XLA (times ISO 8601 UTC)
# The story (T0 = the good nightly's date at 00:00Z): the nightly of GOOD_DATE has main at T0+6h,
# the one of BAD_DATE main at T0+30h. In between: an XLA refactor (8h), a JAX pull request
# committed at 9h and merged at 16h, the culprit "xla: slower kernels" at 13:30 (speed 500 -> 465,
# -7 %), JAX docs (20h), XLA docs (22h). After that, at T0+40h, XLA "build with toolchain 2" (FIX):
# the NEWER_DATE nightly (main at T0+54h) has toolchain 2, where XLA trees older than FIX fail to
# build unless FIX is cherry-picked onto them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: make-world.sh DIR jax|nightly}
gen=${2:?usage: make-world.sh DIR jax|nightly}
case $gen in
    # The build-jax.sh of each nightly: today's images carry ed544116 (2026-03-20); the 2023
    # nightlies 526436f1 up to 08-24, 1d80d188 (2023-08-24 20:39Z) from 08-25.
    jax) d0=2026-03-23 d1=2026-03-24 d2=2026-03-25 t0=1774224000 v0=ed544116 v1=ed544116 v2=ed544116 ;;
    nightly) d0=2023-08-24 d1=2023-08-25 d2=2023-08-26 t0=1692835200 v0=526436f1 v1=1d80d188 v2=1d80d188 ;;
    *) echo "make-world.sh: generation must be jax or nightly" >&2; exit 2 ;;
esac
mkdir -p "$dir/upstream" "$dir/clones" "$dir/docker/rootfs"
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
at() { echo $((t0 + $1)); } # seconds after T0
commit() { # REPO SECONDS MESSAGE [FILE=CONTENT...]
    local repo=$1 when msg=$3
    when=$(at "$2")
    shift 3
    for fc in "$@"; do
        mkdir -p "$(dirname "$repo/${fc%%=*}")"
        printf '%s\n' "${fc#*=}" > "$repo/${fc%%=*}"
    done
    git -C "$repo" add -A
    GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
        git -C "$repo" -c user.name=Dev -c user.email=dev@example.com commit -q --allow-empty -m "$msg"
    git -C "$repo" rev-parse HEAD
}
merge() { # REPO SECONDS BRANCH MESSAGE
    local when
    when=$(at "$2")
    GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
        git -C "$1" -c user.name=Dev -c user.email=dev@example.com merge -q --no-ff -m "$4" "$3"
    git -C "$1" rev-parse HEAD
}
jax=$dir/upstream/jax xla=$dir/upstream/xla
for r in "$jax" "$xla"; do git init -q -b main "$r"; done
H=3600
commit "$jax" $((-10 * H)) "jax: init" factor.txt=1.0 build/requirements.in=jaxlib >/dev/null
commit "$jax" $((-2 * H)) "jax: docs" docs.txt=1 >/dev/null
commit "$xla" $((-10 * H)) "xla: init" speed.txt=500 build/toolchain=1 >/dev/null
good_jax=$(git -C "$jax" rev-parse HEAD) good_xla=$(git -C "$xla" rev-parse HEAD)
commit "$xla" $((8 * H)) "xla: refactor" other.txt=1 >/dev/null
git -C "$jax" checkout -q -b pr
commit "$jax" $((9 * H)) "jax: tidy the dispatch path" pr.txt=1 >/dev/null
git -C "$jax" checkout -q main
culprit=$(commit "$xla" $((13 * H + 1800)) "xla: slower kernels" speed.txt=465)
merge "$jax" $((16 * H)) pr "Merge pull request #101 from dev/tidy" >/dev/null
commit "$jax" $((20 * H)) "jax: docs 2" docs.txt=2 >/dev/null
commit "$xla" $((22 * H)) "xla: docs" other.txt=2 >/dev/null
bad_jax=$(git -C "$jax" rev-parse HEAD) bad_xla=$(git -C "$xla" rev-parse HEAD)
fix=$(commit "$xla" $((40 * H)) "xla: build with toolchain 2" build/toolchain=2)
newer_jax=$bad_jax newer_xla=$fix

for r in jax xla; do
    git clone -q "$dir/upstream/$r" "$dir/clones/$r"
done

case $gen in
    jax) template="ghcr.io/nvidia/jax:jax-{date}" ;;
    nightly) template="ghcr.io/nvidia/jax:nightly-{date}" ;;
esac
: > "$dir/docker/images"
image_of() { echo "${template/\{date\}/$1}"; }
add_image() { # DATE TOOLCHAIN VERSION JAX_SHA XLA_SHA
    local image key
    image=$(image_of "$1")
    key=$(echo "$image" | tr '/:' '__')
    bash "$here/make-image.sh" "$gen" "$dir/docker/rootfs/$key" "$2" "$3" "$1" \
        "jax=$jax@$4" "xla=$xla@$5"
    echo "$image" >> "$dir/docker/images"
}
add_image "$d0" 1 "$v0" "$good_jax" "$good_xla"
add_image "$d1" 1 "$v1" "$bad_jax" "$bad_xla"
add_image "$d2" 2 "$v2" "$newer_jax" "$newer_xla"
cat > "$dir/world.env" <<ENV
GENERATION=$gen
IMAGE_TEMPLATE=$template
GOOD_DATE=$d0
BAD_DATE=$d1
NEWER_DATE=$d2
GOOD_TIME=$(iso "$(at $((6 * H)))")
BAD_TIME=$(iso "$(at $((30 * H)))")
CULPRIT=$culprit
CULPRIT_REPO=xla
FIX=$fix
GOOD_JAX=$good_jax
GOOD_XLA=$good_xla
BAD_JAX=$bad_jax
BAD_XLA=$bad_xla
ENV
