#!/bin/bash
# A real Slurm cluster on this machine for one command: munged with a key of
# its own, slurmctld in a "ctl" network namespace and one slurmd per host
# namespace h1..hN (own address on a bridge, so Slurm sees N nodes with
# their own NodeAddr). The command runs in ctl with SLURM_CONF set, once
# `sinfo` shows every node idle; then every daemon is stopped and every
# namespace removed (trap), leaving nothing behind.
#
#   usage: slurm_cluster.sh [--hosts N] [--cpus C] [--timeout S] -- COMMAND...
#
# Needs root, Debian's slurmctld, slurmd, slurm-client and munge
# (scripts/install-deps). The run's state (config, logs, spool, munge key and
# socket, RCH_SLURM_STATE in the command's environment) is /var/tmp/rchs<pid>;
# the namespaces are RCH_SLURM_PREFIX-ctl, RCH_SLURM_PREFIX-h<i>. Exit status: the command's, 124 if it timed out,
# 2 if the cluster could not be built.
set -u

NET=10.213.18
nhosts=2
cpus=4
timeout=120
die() { echo "slurm_cluster.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --hosts) [[ ${2:-} =~ ^[1-9]$ ]] || die "--hosts needs 1..9"; nhosts=$2; shift 2 ;;
    --cpus) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || die "--cpus needs 1..99"; cpus=$2; shift 2 ;;
    --timeout) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--timeout needs seconds"; timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (usage: slurm_cluster.sh [--hosts N] [--cpus C] [--timeout S] -- COMMAND...)" ;;
    esac
done
[ $# -gt 0 ] || die "no command after --"
for cmd in ip munged slurmctld slurmd sinfo srun; do
    command -v "$cmd" >/dev/null || die "'$cmd' not found (scripts/install-deps installs munge, slurmctld, slurmd, slurm-client)"
done

P=rchs$$
# Not under /tmp: each host has a /tmp of its own (below).
state=/var/tmp/$P
namespaces=()
pids=()

cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    # the daemons this run started, by pid; then anything left in its namespaces
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for ((t = 0; t < 100 && $(kill -0 "$p" 2>/dev/null && echo 1 || echo 0); t++)); do sleep 0.05; done
        kill -KILL "$p" 2>/dev/null
    done
    for ns in "${namespaces[@]}"; do
        local left
        left=$(ip netns pids "$ns" 2>/dev/null)
        [ -z "$left" ] || kill -KILL $left 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$state"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mkdir -p "$state"/{ctld,log,munge} || die "cannot create $state"
chmod 711 "$state/munge"

# ---- network: ctl (slurmctld, the command) and h1..hN (slurmd) on a bridge ----
addns() {
    ip netns add "$1" 2>/dev/null || die "cannot create network namespace $1 (needs root)"
    namespaces+=("$1")
    ip -n "$1" link set lo up
}
addns "$P-ctl"
ip -n "$P-ctl" link add br0 type bridge && ip -n "$P-ctl" addr add "$NET.254/24" dev br0 &&
    ip -n "$P-ctl" link set br0 up || die "cannot make the bridge"
for ((i = 1; i <= nhosts; i++)); do
    addns "$P-h$i"
    ip link add eth0 netns "$P-h$i" type veth peer name "h$i" netns "$P-ctl" &&
        ip -n "$P-ctl" link set "h$i" master br0 && ip -n "$P-ctl" link set "h$i" up &&
        ip -n "$P-h$i" addr add "$NET.$i/24" dev eth0 && ip -n "$P-h$i" link set eth0 up ||
        die "cannot connect h$i"
done

# ---- munge: a key of this run's own, a socket in the state directory ----
dd if=/dev/urandom of="$state/munge/key" bs=1024 count=1 status=none && chmod 400 "$state/munge/key"
munged --key-file="$state/munge/key" --socket="$state/munge/sock" --pid-file="$state/munge/pid" \
    --log-file="$state/log/munged" --seed-file="$state/munge/seed" --force --num-threads=2 ||
    die "munged did not start: $(tail -3 "$state/log/munged" 2>/dev/null)"
pids+=("$(cat "$state/munge/pid")")

# ---- slurm.conf ----
conf=$state/slurm.conf
{
    echo "ClusterName=rdmach"
    echo "SlurmctldHost=ctl($NET.254)"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$state/munge/sock"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$state/ctld"
    echo "SlurmdSpoolDir=$state/spool-%n"
    echo "SlurmctldPidFile=$state/slurmctld.pid"
    echo "SlurmdPidFile=$state/slurmd-%n.pid"
    echo "SlurmctldLogFile=$state/log/slurmctld"
    echo "SlurmdLogFile=$state/log/slurmd-%n"
    echo "SlurmctldPort=6917"
    echo "SlurmdPort=6918"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/filetxt"
    echo "JobCompLoc=$state/jobcomp"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    # the hosts share this machine: their CPUs are what this file says
    echo "SlurmdParameters=config_overrides"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/linear"
    echo "MinJobAge=600"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    echo "InactiveLimit=0"
    echo "KillWait=2"
    for ((i = 1; i <= nhosts; i++)); do
        echo "NodeName=h$i NodeAddr=$NET.$i NodeHostname=h$i CPUs=$cpus State=UNKNOWN"
    done
    echo "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >"$conf"
{
    echo "127.0.0.1 localhost"
    echo "$NET.254 ctl"
    for ((i = 1; i <= nhosts; i++)); do echo "$NET.$i h$i"; done
} >"$state/hosts"
export SLURM_CONF=$conf RCH_SLURM_STATE=$state RCH_SLURM_PREFIX=$P

# Each daemon in its namespace, with its own hostname and /etc/hosts. Not
# `ip netns exec`: it mounts a fresh /sys without /sys/fs/cgroup, which
# slurmd needs; nsenter --net switches the network stack only.
in_host() {
    local host=$1
    shift
    unshare --uts --mount -- nsenter --net="/run/netns/$P-$host" -- /bin/bash -c '
        hostname "$1" && mount --bind "$RCH_SLURM_STATE/hosts" /etc/hosts || exit 2
        shift; exec "$@"' _ "$host" "$@"
}

in_host ctl slurmctld -D -i -f "$conf" >"$state/log/slurmctld.out" 2>&1 &
pids+=($!)
for ((i = 1; i <= nhosts; i++)); do
    mkdir -p "$state/spool-h$i"
    # /dev/shm of its own too (ranks of different hosts share no memory), and
    # /tmp: Slurm's pmix plugin makes /tmp/spmix_appdir_<uid>_<step> on every
    # node, which collides on a shared /tmp. What /tmp held when the cluster
    # started (a source or build tree under /tmp, say) stays visible: each
    # directory of the shared /tmp is bound into the host's own.
    mkdir -p "$state/shared-tmp-h$i"
    unshare --uts --mount -- nsenter --net="/run/netns/$P-h$i" -- /bin/bash -c '
        old=$RCH_SLURM_STATE/shared-tmp-$1
        hostname "$1" && mount --bind "$RCH_SLURM_STATE/hosts" /etc/hosts &&
            mount -t tmpfs -o mode=1777 "shm-$1" /dev/shm &&
            mount --bind /tmp "$old" &&
            mount -t tmpfs -o mode=1777 "tmp-$1" /tmp || exit 2
        for d in "$old"/*/; do
            d=${d%/}; n=${d##*/}
            case $n in spmix_appdir_*) continue ;; esac
            mkdir -p "/tmp/$n" && mount --bind "$d" "/tmp/$n" || exit 2
        done
        exec slurmd -D -N "$1" -f "$SLURM_CONF"' _ "h$i" >"$state/log/slurmd-h$i.out" 2>&1 &
    pids+=($!)
done

# ---- wait until every node is idle ----
for ((t = 0; t < 600; t++)); do
    idle=$(in_host ctl sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    [ "$idle" -eq "$nhosts" ] && break
    sleep 0.1
done
if [ "$idle" -ne "$nhosts" ]; then
    echo "slurm_cluster.sh: only $idle of $nhosts nodes idle after 60 s:" >&2
    in_host ctl sinfo -N >&2
    for f in "$state"/log/*; do echo "== $f"; tail -n 5 "$f"; done >&2
    exit 2
fi
echo "slurm: $nhosts nodes idle (slurmctld on ctl $NET.254, slurmd on h1..h$nhosts; state in $state)" >&2

in_host ctl timeout -k 5 "$timeout" "$@"
