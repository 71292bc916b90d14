#!/usr/bin/env bash
# Build a small real source history around the JAX LBM benchmark, for the end-to-end GPU run.
#
#   bash examples/gpu/make_lbm_world.sh DIR
#
# DIR/repos/lbm    the benchmark (mlups_lbm.py + settings.env + build.sh/run.sh), like JAX
# DIR/repos/flags  runtime settings read by run.sh, like XLA (a second repo to keep in step)
# DIR/nightlies/YYYY-MM-DD/{lbm,flags,manifest.txt}  "nightly builds": main of both repos as of
#                  04:00Z that day, with a manifest naming their commits (read by --commits-probe)
#
# One pull request in lbm (committed 2023-09-03T08:00Z, merged 15:30Z) is the culprit. With
# LBM_CULPRIT=aos (the default) it switches the populations from structure-of-arrays to
# array-of-structs, which makes the kernel several times slower on a GPU; with LBM_CULPRIT=sync32
# it waits for the device every 32 steps of the timed loop (a progress log's host sync), which
# costs 2-5 % on an H200 (docs/detection.md). Commit times are set explicitly, so the history is
# the same on every machine.
set -euo pipefail
root=${1:?usage: make_lbm_world.sh DIR}
culprit=${LBM_CULPRIT:-aos}
case "$culprit" in aos|sync32) ;; *) echo "make_lbm_world: LBM_CULPRIT must be aos or sync32, got '$culprit'" >&2; exit 2;; esac
here=$(cd "$(dirname "$0")" && pwd)
[ ! -e "$root" ] || [ -z "$(ls -A "$root")" ] || { echo "make_lbm_world: $root is not empty" >&2; exit 2; }
mkdir -p "$root/repos/lbm" "$root/repos/flags" "$root/nightlies"
root=$(cd "$root" && pwd)

commit() { # repo iso-time author message
  local repo=$1 t=$2 who=$3 msg=$4
  git -C "$root/repos/$repo" add -A
  GIT_AUTHOR_DATE=$t GIT_COMMITTER_DATE=$t GIT_AUTHOR_NAME=$who GIT_COMMITTER_NAME=$who \
    GIT_AUTHOR_EMAIL="$who@example.com" GIT_COMMITTER_EMAIL="$who@example.com" \
    git -C "$root/repos/$repo" commit -q -m "$msg"
}
for r in lbm flags; do
  git -C "$root/repos/$r" init -q -b main
  git -C "$root/repos/$r" remote add origin "https://github.com/perfsweep-demo/$r.git"
done

# lbm: the benchmark and its build/run scripts.
cp "$here/../jax/mlups_lbm.py" "$root/repos/lbm/mlups_lbm.py"
printf 'LAYOUT=soa\nDTYPE=float32\n' > "$root/repos/lbm/settings.env"
cat > "$root/repos/lbm/build.sh" <<'EOS'
#!/usr/bin/env bash
# Build: byte-compile the sources and compile the kernel once on a tiny lattice (smoke test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/settings.env"
python3 -m py_compile "$here/mlups_lbm.py"
python3 "$here/mlups_lbm.py" 16 2 --layout "$LAYOUT" --dtype "$DTYPE" >/dev/null
echo "build ok: layout=$LAYOUT dtype=$DTYPE"
EOS
cat > "$root/repos/lbm/run.sh" <<'EOS'
#!/usr/bin/env bash
# Run: bash run.sh FLAGS_DIR N STEPS [more mlups_lbm.py args]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
flags=$1; shift
source "$here/settings.env"
set -a; source "$flags/runtime.env"; set +a
exec python3 "$here/mlups_lbm.py" "$@" --layout "$LAYOUT" --dtype "$DTYPE"
EOS
echo "lattice kernels" > "$root/repos/lbm/CHANGES.txt"
commit lbm 2023-09-01T00:30:00Z alice "Initial import of the D3Q19 benchmark"
printf 'JAX_DEFAULT_MATMUL_PRECISION=default\n' > "$root/repos/flags/runtime.env"
echo "flags" > "$root/repos/flags/CHANGES.txt"
commit flags 2023-09-01T00:45:00Z bob "Initial runtime settings"

# Background commits: lbm every 6h, flags every 8h (Sep 1-6).
for d in 01 02 03 04 05 06; do
  for h in 02 08 14 20; do
    [ "$d$h" = "0614" ] && break
    echo "lbm $d $h" >> "$root/repos/lbm/CHANGES.txt"
    commit lbm "2023-09-${d}T${h}:10:00Z" carol "docs: notes for 09-$d $h:10"
    if [ "$d$h" = 0314 ]; then
      # The culprit: a PR committed at 08:00, merged at 15:30 (after the 14:10 commit on main).
      git -C "$root/repos/lbm" checkout -q -b "pr/$culprit" "$(git -C "$root/repos/lbm" rev-list -1 --before=2023-09-03T08:00:00Z main)"
      if [ "$culprit" = aos ]; then
        sed -i 's/^LAYOUT=soa$/LAYOUT=aos/' "$root/repos/lbm/settings.env"
        commit lbm 2023-09-03T08:00:00Z dave "lbm: store populations as array-of-structs f[x,y,z,q]"
      else
        python3 - "$root/repos/lbm/mlups_lbm.py" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
old = "        for _ in range(steps):\n            f = step(f)\n"
new = ("        for i in range(steps):\n            f = step(f)\n"
       "            if (i + 1) % 32 == 0:\n"
       "                f.block_until_ready()  # progress: the device is done with 32 more steps\n")
assert old in s, "make_lbm_world: the timed loop of mlups_lbm.py has changed"
open(path, "w").write(s.replace(old, new))
PY
        commit lbm 2023-09-03T08:00:00Z dave "lbm: wait for the device every 32 steps so progress can be logged"
      fi
      git -C "$root/repos/lbm" checkout -q main
      GIT_COMMITTER_DATE=2023-09-03T15:30:00Z GIT_AUTHOR_DATE=2023-09-03T15:30:00Z GIT_AUTHOR_NAME=dave GIT_AUTHOR_EMAIL=dave@example.com \
        GIT_COMMITTER_NAME=dave GIT_COMMITTER_EMAIL=dave@example.com \
        git -C "$root/repos/lbm" merge -q --no-ff -m "Merge pull request #42 from dave/$culprit" "pr/$culprit"
    fi
  done
  for h in 05 13 21; do
    [ "$d$h" = "0613" ] && break
    echo "flags $d $h" >> "$root/repos/flags/CHANGES.txt"
    commit flags "2023-09-${d}T${h}:20:00Z" bob "settings: tidy 09-$d $h:20"
  done
done
for r in lbm flags; do git -C "$root/repos/$r" update-ref refs/remotes/origin/main main; done

# Nightlies: main as of 04:00Z each day.
for d in 01 02 03 04 05 06; do
  n="$root/nightlies/2023-09-$d"; mkdir -p "$n"
  for r in lbm flags; do
    sha=$(git -C "$root/repos/$r" rev-list -1 --first-parent --before="2023-09-${d}T04:00:00Z" main)
    [ -n "$sha" ] || continue
    mkdir -p "$n/$r"; git -C "$root/repos/$r" archive "$sha" | tar -x -C "$n/$r"
    echo "$r $sha $(git -C "$root/repos/$r" log -1 --format=%cI "$sha")" >> "$n/manifest.txt"
  done
done
echo "$root"
