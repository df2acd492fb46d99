#!/bin/bash
# A real Slurm cluster on this machine for one command: munged with a key of
# its own, slurmctld in a "ctl" network namespace and one slurmd per host
# namespace h1..hN (own address on a bridge, so Slurm sees N nodes with
# their own NodeAddr). The command runs in ctl with SLURM_CONF set, once
# `sinfo` shows every node idle; then every daemon is stopped and every
# namespace removed (trap), leaving nothing behind.
#
#   usage: slurm_cluster.sh [--hosts N] [--cpus C] [--timeout S] [--accounting] -- COMMAND...
#
# --accounting adds job accounting (sacct): a private mariadbd of the run
# (datadir on a tmpfs of its own, socket in the state directory, TCP only on
# ctl's own loopback) holding slurm_acct_db, and slurmdbd in ctl; slurm.conf
# then has AccountingStorageType=accounting_storage/slurmdbd and the cluster
# is added with sacctmgr. It costs about 3 s of start-up, so only the tests
# that read sacct ask for it.
#
# Needs root, Debian's slurmctld, slurmd, slurm-client and munge
# (scripts/install-deps); --accounting also slurmdbd and mariadb-server.
# The run's state (config, logs, spool, munge key and socket, database;
# RCH_SLURM_STATE in the command's environment) is /var/tmp/rchs<pid>; the
# namespaces are RCH_SLURM_PREFIX-ctl, RCH_SLURM_PREFIX-h<i>. Exit status:
# the command's, 124 if it timed out, 2 if the cluster could not be built.
# A command still running 10 s before its timeout has the run's processes
# and the tasks' stacks printed (report_hang).
set -u

NET=10.213.18
nhosts=2
cpus=4
timeout=120
accounting=0
die() { echo "slurm_cluster.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --hosts) [[ ${2:-} =~ ^[1-9]$ ]] || die "--hosts needs 1..9"; nhosts=$2; shift 2 ;;
    --cpus) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || die "--cpus needs 1..99"; cpus=$2; shift 2 ;;
    --timeout) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--timeout needs seconds"; timeout=$2; shift 2 ;;
    --accounting) accounting=1; shift ;;
    --) shift; break ;;
    *) die "unknown option '$1' (usage: slurm_cluster.sh [--hosts N] [--cpus C] [--timeout S] [--accounting] -- COMMAND...)" ;;
    esac
done
[ $# -gt 0 ] || die "no command after --"
for cmd in ip munged slurmctld slurmd sinfo srun; do
    command -v "$cmd" >/dev/null || die "'$cmd' not found (scripts/install-deps installs munge, slurmctld, slurmd, slurm-client)"
done
if [ $accounting -eq 1 ]; then
    for cmd in slurmdbd sacctmgr mariadbd mariadb-install-db mariadb; do
        command -v "$cmd" >/dev/null || die "'$cmd' not found (scripts/install-deps installs slurmdbd and mariadb-server)"
    done
fi

P=rchs$$
# Not under /tmp: each host has a /tmp of its own (below).
state=/var/tmp/$P
namespaces=()
pids=()

# What a run killed outright (SIGKILL: no trap) left: its state directory
# /var/tmp/rchs<pid> whose slurm_cluster.sh is gone, the processes that name
# that directory on their command line (munged, mariadbd) or in their
# environment (all that ran in the namespaces), and its namespaces.
sweep_stale() {
    local dir old p ns
    for dir in /var/tmp/rchs[0-9]*; do
        [ -d "$dir" ] || continue
        old=${dir##*/}
        p=${old#rchs}
        [ "$p" != $$ ] || continue
        tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q slurm_cluster.sh && continue
        echo "slurm_cluster.sh: removing $dir, left by a run that was killed" >&2
        for p in /proc/[0-9]*; do
            # (-z: an argument or a variable a line; "$dir/": not rchs12 for rchs123)
            grep -qszx -e ".*$dir/.*" -e "RCH_SLURM_STATE=$dir" "$p/cmdline" "$p/environ" &&
                kill -KILL "${p#/proc/}" 2>/dev/null
        done
        for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$old-(ctl|h[1-9])$"); do
            p=$(ip netns pids "$ns" 2>/dev/null)
            [ -z "$p" ] || kill -KILL $p 2>/dev/null
            ip netns del "$ns" 2>/dev/null
        done
        rm -rf "$dir"
    done
}
sweep_stale

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
    if [ $accounting -eq 1 ]; then
        echo "AccountingStorageType=accounting_storage/slurmdbd"
        echo "AccountingStorageHost=ctl"
        echo "AccountingStoragePort=6919"
        # the munge socket for slurmdbd's connections (AuthInfo's is not used for them)
        echo "AccountingStoragePass=$state/munge/sock"
    else
        echo "AccountingStorageType=accounting_storage/none"
    fi
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

# Poll (0.1 s steps, at most $1 of them) until the command after it succeeds.
poll() {
    local n=$1 t
    shift
    for ((t = 0; t < n; t++)); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# ---- accounting (--accounting): mariadbd and slurmdbd in ctl ----
# The database lives on a tmpfs mounted in mariadbd's own mount namespace,
# gone with the process (on disk, its fdatasyncs made mariadb-install-db
# take 6 s instead of 2). TCP only on ctl's own loopback, so the port is
# the run's; the socket in the state directory is for `mariadb -S`.
if [ $accounting -eq 1 ]; then
    pass=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
    mkdir -p "$state/db"
    printf '%s\n' "[mariadbd]" "user=root" "datadir=$state/db" "socket=$state/db.sock" "pid-file=$state/db.pid" \
        "log-error=$state/log/mariadbd" "bind-address=127.0.0.1" "port=3306" "skip-log-bin" "skip-name-resolve" \
        "innodb-buffer-pool-size=16M" "innodb-log-file-size=8M" "innodb-flush-log-at-trx-commit=0" \
        "innodb-doublewrite=0" >"$state/my.cnf"
    in_host ctl /bin/bash -c '
        mount -t tmpfs -o mode=700,size=256m "db-$RCH_SLURM_PREFIX" "$1/db" &&
            mariadb-install-db --defaults-file="$1/my.cnf" --auth-root-authentication-method=socket \
                --skip-test-db --skip-name-resolve >"$1/log/mariadb-install-db" 2>&1 &&
            exec mariadbd --defaults-file="$1/my.cnf"' _ "$state" >"$state/log/mariadbd.out" 2>&1 &
    pids+=($!)
    db_pid=$!
    # up once its socket is (gone: failed, no need to wait on)
    poll 300 eval '[ -S "$state/db.sock" ] || ! kill -0 $db_pid 2>/dev/null' && [ -S "$state/db.sock" ] ||
        die "mariadbd did not start: $(tail -n 3 "$state"/log/mariadb* 2>/dev/null)"
    # root over the socket (unix_socket authentication); slurmdbd over TCP
    mariadb --no-defaults -S "$state/db.sock" -u root -e "CREATE DATABASE slurm_acct_db;
        CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" >"$state/log/db-init" 2>&1 ||
        die "cannot create the accounting database: $(cat "$state/log/db-init")"
    {
        echo "AuthType=auth/munge"
        echo "AuthInfo=socket=$state/munge/sock"
        echo "DbdHost=ctl"
        echo "DbdAddr=$NET.254"
        echo "DbdPort=6919"
        echo "SlurmUser=root"
        echo "LogFile=$state/log/slurmdbd"
        echo "PidFile=$state/slurmdbd.pid"
        echo "StorageType=accounting_storage/mysql"
        echo "StorageHost=127.0.0.1"
        echo "StoragePort=3306"
        echo "StorageUser=slurm"
        echo "StoragePass=$pass"
        echo "StorageLoc=slurm_acct_db"
    } >"$state/slurmdbd.conf"
    chmod 600 "$state/slurmdbd.conf"   # slurmdbd refuses a file others may read (the password)
    # slurmdbd finds slurmdbd.conf beside $SLURM_CONF
    in_host ctl slurmdbd -D >"$state/log/slurmdbd.out" 2>&1 &
    pids+=($!)
    dbd_pid=$!
    poll 300 eval 'in_host ctl timeout 5 sacctmgr -n show cluster >/dev/null 2>&1 || ! kill -0 $dbd_pid 2>/dev/null' &&
        kill -0 $dbd_pid 2>/dev/null ||
        die "slurmdbd did not answer within 30 s: $(tail -n 3 "$state/log/slurmdbd" 2>/dev/null)"
    in_host ctl sacctmgr -i add cluster rdmach >"$state/log/sacctmgr" 2>&1 ||
        die "sacctmgr add cluster failed: $(cat "$state/log/sacctmgr")"
fi

in_host ctl slurmctld -D -i -f "$conf" >"$state/log/slurmctld.out" 2>&1 &
pids+=($!)
for ((i = 1; i <= nhosts; i++)); do
    mkdir -p "$state/spool-h$i"
    # /dev/shm of its own too (ranks of different hosts share no memory), and
    # /tmp: Slurm's pmix plugin makes /tmp/spmix_appdir_<uid>_<step> on every
    # node, which collides on a shared /tmp. What /tmp held when the cluster
    # started (a source or build tree under /tmp, say) stays visible: each
    # directory of the shared /tmp is bound into the host's own. One that a
    # concurrent test removes between the listing and its bind is skipped
    # (a CI run lost a whole cluster to a mktemp directory gone that way).
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
            mkdir -p "/tmp/$n" && { mount --bind "$d" "/tmp/$n" || [ ! -d "$d" ]; } || exit 2
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

# ---- a command that hangs: what its processes wait in ----
# Printed 10 s before the timeout ends the command, while the processes are
# still there: every process of the run (RCH_SLURM_STATE in its
# environment), its state and kernel wait channel, the stacks of the
# tasks among them (gdb, 5 s each, at most 8), and the daemons' last log
# lines. A flake seen once under load is then diagnosable from
# its one log.
report_hang() {
    local p n=0 pid
    echo "slurm_cluster.sh: the command is still running after $1 s; the run's processes:" >&2
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] || continue
        grep -qszx -e "RCH_SLURM_STATE=$state" "$p/environ" || continue
        ps -o pid=,ppid=,stat=,wchan:24=,etimes=,args= -p "$pid" >&2
        # the tasks: children of slurmstepd (or of a launcher it started)
        case $(ps -o comm= -p "$(ps -o ppid= -p "$pid" | tr -d ' ')" 2>/dev/null) in
        slurmstepd | hydra_pmi_proxy | rdmachrun) ;;
        *) continue ;;
        esac
        if [ $n -lt 8 ] && command -v gdb >/dev/null; then
            n=$((n + 1))
            timeout 5 gdb -p "$pid" -batch -ex "thread apply all bt 25" 2>/dev/null |
                grep -E '^(Thread|#)' | sed "s/^/    [$pid] /" >&2
        fi
    done
    for f in "$state"/log/slurmctld "$state"/log/slurmd-h*; do
        [ -f "$f" ] && { echo "== $f (last lines)"; tail -n 10 "$f"; } >&2
    done
}

in_host ctl timeout -k 5 "$timeout" "$@" &
cmd=$!
watch_at=$((timeout > 20 ? timeout - 10 : timeout / 2))
sleep "$watch_at" &
sleeper=$!
wait -n -p first "$cmd" "$sleeper"
rc=$?
if [ "${first:-}" = "$sleeper" ]; then
    report_hang "$watch_at"
    wait "$cmd"
    rc=$?
else
    kill "$sleeper" 2>/dev/null
    wait "$sleeper" 2>/dev/null
fi
exit "$rc"
