#!/bin/sh
# slurm_cluster.sh: a one-node Slurm cluster on this machine, every file of it
# in one folder (docs/mpi.md#slurm): its own munge key and socket, slurm.conf,
# state, spool, logs and pid files, on two free TCP ports.  Nothing outside
# DIR is written; the system's munged and slurm services, if any, are not
# touched (the cluster's munged listens on DIR/munge.sock, not the default).
#
#   sh tools/scripts/slurm_cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   sh tools/scripts/slurm_cluster.sh stop DIR
#
# Needs root (slurmd runs jobs as their submitter) and Debian's slurm-wlm and
# munge (`sh tools/scripts/setup.sh --with-slurm`).  proctrack/linuxproc and
# task/affinity: no cgroups, so it also runs in a container; a step's processes
# are found by parentage, which is how scancel reaches every rank's children.
set -eu

die() { echo "slurm_cluster: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: slurm_cluster.sh start|stop DIR"
cmd=$1
D=$2

# the pid in file $1 if that process is alive, else nothing
alive() { [ -f "$1" ] && p=$(cat "$1") && [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p" || true; }

case "$cmd" in
stop)
    [ -d "$D" ] || die "$D: no such folder"
    for f in slurmd slurmctld munged; do
        p=$(alive "$D/$f.pid")
        [ -n "$p" ] || continue
        kill "$p" 2>/dev/null || true
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null || true
    done
    exit 0
    ;;
start) ;;
*) die "unknown command '$cmd' (start or stop)" ;;
esac

[ "$(id -u)" = 0 ] || die "needs root (slurmd starts jobs as their user)"
for p in munged mungekey slurmctld slurmd sinfo; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
        die "$p not found: sh tools/scripts/setup.sh --with-slurm installs slurm-wlm and munge"
done
PATH=$PATH:/usr/sbin
mkdir -p "$D"
D=$(cd "$D" && pwd)
[ -z "$(alive "$D/slurmctld.pid")" ] || die "$D: a cluster runs there already"
mkdir -p "$D/state" "$D/spool"
chmod 700 "$D"

# two adjacent free ports, from one that depends on this process (two test
# runs at once do not collide): ss lists the listening ones
port=$((20000 + $$ % 20000))
while ss -ltnH | awk '{print $4}' | grep -Eq ":($port|$((port + 1)))\$"; do port=$((port + 2)); done

host=$(hostname -s)
cpus=$(nproc)
rm -f "$D/munge.key"
mungekey --create --keyfile="$D/munge.key"
chmod 600 "$D/munge.key"
munged --force --socket="$D/munge.sock" --key-file="$D/munge.key" --log-file="$D/munged.log" \
    --pid-file="$D/munged.pid" --seed-file="$D/munged.seed" ||
    die "munged did not start (see $D/munged.log)"

cat >"$D/slurm.conf" <<EOF
# written by tools/scripts/slurm_cluster.sh: one node, this machine
ClusterName=routelab
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# scancel: SIGTERM, then SIGKILL after this many seconds
KillWait=10
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$D/slurm.conf" || die "slurmctld did not start (see $D/slurmctld.log)"
slurmd -f "$D/slurm.conf" || die "slurmd did not start (see $D/slurmd.log)"
i=0
until [ "$(SLURM_CONF=$D/slurm.conf sinfo -h -o %t 2>/dev/null)" = idle ]; do
    i=$((i + 1))
    [ $i -lt 300 ] || die "the node did not come up in 30 s (see $D/slurmctld.log, $D/slurmd.log)"
    sleep 0.1
done
echo "slurm_cluster: one node ($host, $cpus CPUs) up; export SLURM_CONF=$D/slurm.conf"
