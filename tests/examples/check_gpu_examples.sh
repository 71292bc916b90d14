#!/usr/bin/env bash
# Runs examples/gpu/run_probe_bisect.sh without a GPU: a stand-in python3 first on PATH plays the
# LBM benchmark (array-of-structs 4x slower, a mistyped weight fails the physics check) and passes
# every other use (-c, -m, stdin scripts such as the environment probe) to the real python3.
# Checks that both `git bisect run perfsweep probe` runs name the planted commits and that the
# usage error aborts the bisect with 128.
#   check_gpu_examples.sh PERFSWEEP SOURCE_DIR
set -euo pipefail
ps=${1:?perfsweep binary}; src=${2:?source dir}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
real=$(command -v python3)
mkdir -p "$tmp/bin"
cat > "$tmp/bin/python3" <<EOS
#!/bin/sh
case "\$1" in
  -*|"") exec "$real" "\$@";;
esac
script=\$1; shift
case "\$script" in
  *mlups_lbm.py) ;;
  *) exec "$real" "\$script" "\$@";;
esac
layout=soa
while [ \$# -gt 0 ]; do [ "\$1" = --layout ] && layout=\$2; shift; done
grep -q '1.0 / 32.0' "\$script" && { echo 'physics check FAILED' >&2; exit 1; }
[ "\$layout" = aos ] && echo 'MLUPS: 1200.5' || echo 'MLUPS: 5400.5'
EOS
chmod +x "$tmp/bin/python3"
export PATH="$tmp/bin:$PATH" GIT_AUTHOR_NAME=ci GIT_COMMITTER_NAME=ci \
  GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_EMAIL=ci@example.com
bash ${CHECK_TRACE:+-x} "$src/examples/gpu/run_probe_bisect.sh" "$ps" "$tmp/work" "$tmp/out" > "$tmp/console.txt" 2>&1 || {
  cat "$tmp/console.txt"; echo "FAIL: run_probe_bisect.sh exited $?"; exit 1; }
fail=0
expect() { grep -qF -- "$2" "$tmp/out/$1" || { echo "FAIL: $1 lacks: $2"; fail=1; }; }
expect bisect-metric.txt "is the first bad commit"
expect bisect-metric.txt "lbm: store populations as array-of-structs"
expect bisect-exit.txt "is the first bad commit"
expect bisect-exit.txt "lbm: tabulate the D3Q19 weights"
expect bisect-usage.txt "git bisect run exit status: 128"
[ "$fail" = 0 ] || { cat "$tmp/console.txt"; exit 1; }
echo "ok: both bisects named the planted commits; the usage error aborted with 128"
