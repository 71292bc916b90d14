#!/usr/bin/env bash
# Stop the daemons start.sh started in DIR (by their pid files); safe to call more than once.
set -u
dir=${1:?usage: stop.sh DIR}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
for d in slurmd slurmctld; do
  f=$dir/$d.pid
  [ -s "$f" ] || continue
  pid=$(cat "$f")
  $SUDO kill "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  $SUDO kill -9 "$pid" 2>/dev/null
  rm -f "$f"
done
if [ -e "$dir/munged.ours" ]; then
  pid=$(cat /run/munge/munged.pid 2>/dev/null) && $SUDO kill "$pid" 2>/dev/null
  rm -f "$dir/munged.ours"
fi
exit 0
