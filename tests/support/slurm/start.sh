#!/usr/bin/env bash
# Start a throw-away single-node Slurm (slurmctld + slurmd, munge auth) whose state, logs and
# config live in DIR. Prints the slurm.conf path on success; set SLURM_CONF to it for srun/sinfo.
# Exit 0: the node is idle and ready. Exit 77: Slurm cannot start here (reason on stderr).
# Always pair with stop.sh DIR, even after a failure. PERFSWEEP_SLURM_PLUGSTACK=FILE adds
# PlugStackConfig=FILE (SPANK plugins such as the pyxis stand-in of tests/support/pyxis).
set -uo pipefail
dir=${1:?usage: start.sh DIR}
skip() { echo "slurm unavailable: $*" >&2; exit 77; }
for p in slurmctld slurmd srun sinfo munged; do
  command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || skip "$p is not installed (apt-get install slurm-wlm munge)"
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2>/dev/null || skip "needs root or password-less sudo to run the daemons"
  SUDO="sudo -n"
fi
PATH=$PATH:/usr/sbin
mkdir -p "$dir/state" "$dir/spool" && chmod 755 "$dir"
host=$(hostname -s)
port=$(( 20000 + (RANDOM % 5000) * 2 ))

# munge: reuse a running daemon, else start one (and remember to stop it).
if ! munge -n </dev/null >/dev/null 2>&1; then
  [ -r /etc/munge/munge.key ] || $SUDO test -r /etc/munge/munge.key || skip "no /etc/munge/munge.key"
  $SUDO install -d -o munge -g munge -m 0755 /run/munge /var/log/munge /var/lib/munge || skip "cannot create /run/munge"
  $SUDO su -s /bin/sh munge -c 'munged --force' || skip "munged did not start"
  touch "$dir/munged.ours"
  for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n </dev/null >/dev/null 2>&1 || skip "munge does not answer"
fi

cat > "$dir/slurm.conf" <<CONF
ClusterName=perfsweep-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
if [ -n "${PERFSWEEP_SLURM_PLUGSTACK:-}" ]; then
  echo "PlugStackConfig=$PERFSWEEP_SLURM_PLUGSTACK" >> "$dir/slurm.conf"
fi
export SLURM_CONF=$dir/slurm.conf
$SUDO env SLURM_CONF="$SLURM_CONF" slurmctld -c -f "$SLURM_CONF" || skip "slurmctld did not start (see $dir/slurmctld.log)"
$SUDO env SLURM_CONF="$SLURM_CONF" slurmd -c -f "$SLURM_CONF" || skip "slurmd did not start (see $dir/slurmd.log)"
for _ in $(seq 150); do
  state=$(sinfo -h -o %t 2>/dev/null | head -1)
  [ "$state" = "idle" ] && { echo "$SLURM_CONF"; exit 0; }
  sleep 0.1
done
skip "node did not become idle within 15 s (state '${state:-none}', see $dir/*.log)"
