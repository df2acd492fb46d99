#!/bin/bash
# A small cluster on this machine, and one MPI job across it, launched by
# MPICH's Hydra (mpiexec.mpich) — see docs/CLUSTER.md.
#
#   usage: cluster.sh [--hosts N] [--timeout S] [--expect REGEX]... -- <mpiexec arguments>
#   e.g.   cluster.sh --hosts 2 -- -hosts h1:2,h2:2 -n 4 ./cluster_check h1,h1,h2,h2
#
# Each host is a network namespace with its own address, hostname (a UTS
# namespace) and /dev/shm (a mount namespace with its own tmpfs), so ranks of
# different hosts share neither a network stack nor shared memory:
#
#        netns <P>-ctl: hostname "ctl", 10.213.17.254 on bridge br0, runs mpiexec
#             |  br0
#     +-------+-------+----------- ...
#   veth    veth    veth
#     |       |       |
#    h1      h2      h3            netns <P>-h<i>: eth0 10.213.17.<i>, hostname h<i>
#
# Hydra's ssh launcher is pointed at enter_host.sh (-launcher ssh
# -launcher-exec): where ssh would log into host h<i>, it enters that host's
# namespaces and runs the hydra_pmi_proxy command there. Every proxy
# connects back to mpiexec's control port at "ctl" over the bridge; the
# hosts file of the cluster (bind-mounted over /etc/hosts inside the
# namespaces only) names ctl and h1..hN. The addresses exist only inside
# these namespaces (the root namespace gets no address or route).
#
# Everything is removed on exit, failure or signal (trap); namespaces left
# by a run that was killed outright (SIGKILL) are removed by the next run.
# Exit status: the job's (0 on success), 124 if it did not finish in time,
# 1 if an --expect pattern is missing or a host got no proxy, 2 on bad
# arguments or when the cluster cannot be built (needs root: CAP_SYS_ADMIN
# and CAP_NET_ADMIN).
set -u

NET=10.213.17
here=$(cd "$(dirname "$0")" && pwd)
nhosts=2
timeout=120
expects=()
MPIEXEC=${MPIEXEC:-mpiexec.mpich}

die() { echo "cluster.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in
    --hosts) [ $# -ge 2 ] || die "--hosts needs a number of hosts (1..9)"
             [[ $2 =~ ^[1-9]$ ]] || die "invalid --hosts '$2': expected a number of hosts from 1 to 9"
             nhosts=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || die "--timeout needs a number of seconds"
               [[ $2 =~ ^[1-9][0-9]{0,4}$ ]] || die "invalid --timeout '$2': expected seconds from 1 to 99999"
               timeout=$2; shift 2 ;;
    --expect) [ $# -ge 2 ] || die "--expect needs a regular expression"
              expects+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (usage: cluster.sh [--hosts N] [--timeout S] [--expect REGEX]... -- <mpiexec arguments>)" ;;
    esac
done
[ $# -gt 0 ] || die "no mpiexec arguments after --"

# The hosts the job must run on: every one must get a proxy.
job_hosts=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = -hosts ] || [ "${args[i]}" = -host ]; then
        [ $((i + 1)) -lt ${#args[@]} ] || die "${args[i]} needs a host list"
        IFS=, read -r -a list <<<"${args[i + 1]}"
        for h in "${list[@]}"; do job_hosts+=("${h%%:*}"); done
    fi
done
[ ${#job_hosts[@]} -gt 0 ] || die "give the hosts of the job with -hosts (h1..h$nhosts); without it Hydra runs every rank next to mpiexec"
for h in "${job_hosts[@]}"; do
    [[ $h =~ ^h([1-9])$ ]] && [ "${BASH_REMATCH[1]}" -le "$nhosts" ] ||
        die "host '$h' in -hosts is not a host of this cluster (h1..h$nhosts)"
done

for cmd in ip unshare timeout "$MPIEXEC" hydra_pmi_proxy; do
    command -v "$cmd" >/dev/null || die "'$cmd' not found in PATH (needs iproute2, util-linux, coreutils, mpich)"
done

# ---- names, stale runs, cleanup ----

P=rchc$$
state=${TMPDIR:-/tmp}/$P
namespaces=()
job_pid=

# Namespaces of runs that were killed outright: rchc<pid>-* whose harness is gone.
remove_ns() {
    local ns=$1 pids
    pids=$(ip netns pids "$ns" 2>/dev/null)
    # processes of this cluster only: they live in its namespace
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
}
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^rchc[0-9]+-(ctl|h[1-9])$'); do
    pid=${ns#rchc}
    pid=${pid%%-*}
    # gone, or the pid now belongs to something else
    if [ "$pid" != $$ ] && ! tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q cluster.sh; then
        echo "cluster: removing $ns, left by a run that was killed" >&2
        remove_ns "$ns"
        rm -rf "${TMPDIR:-/tmp}/rchc$pid"
    fi
done

# 1 if the process runs (a zombie does not), else 0
alive() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ] && echo 1 || echo 0
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    # the job first (mpiexec ends its proxies), then whatever is left in
    # the namespaces — all of it started by this run
    if [ -n "$job_pid" ]; then
        kill -TERM "$job_pid" 2>/dev/null
        for ((t = 0; t < 60 && $(alive "$job_pid"); t++)); do sleep 0.05; done
    fi
    for ns in "${namespaces[@]}"; do
        remove_ns "$ns"
    done
    [ -z "$job_pid" ] || wait "$job_pid" 2>/dev/null
    rm -rf "$state"
    local left
    left=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$P-" | tr '\n' ' ')
    if [ -n "$left" ]; then
        echo "cluster.sh: could not remove namespaces: $left" >&2
        [ "$rc" -ne 0 ] || rc=1
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- build the cluster ----

rm -rf "$state"
mkdir -p "$state" || die "cannot create $state"
{
    echo "127.0.0.1 localhost"
    echo "$NET.254 ctl"
    for ((i = 1; i <= nhosts; i++)); do echo "$NET.$i h$i"; done
} >"$state/hosts"
echo "$P" >"$state/prefix"
: >"$state/launched"

addns() {
    local err
    if ! err=$(ip netns add "$1" 2>&1); then
        [ ${#namespaces[@]} -eq 0 ] &&
            die "cannot create network namespace $1: ${err:-ip netns add failed}; this test needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)"
        die "cannot create network namespace $1: $err"
    fi
    namespaces+=("$1")
    ip -n "$1" link set lo up || die "netns $1: cannot bring lo up"
}
run() { "$@" || die "failed: $*"; }

addns "$P-ctl"
run ip -n "$P-ctl" link add br0 type bridge
run ip -n "$P-ctl" addr add "$NET.254/24" dev br0
run ip -n "$P-ctl" link set br0 up
for ((i = 1; i <= nhosts; i++)); do
    addns "$P-h$i"
    # the veth pair is created inside the two namespaces: nothing in the root one
    run ip link add eth0 netns "$P-h$i" type veth peer name "h$i" netns "$P-ctl"
    run ip -n "$P-ctl" link set "h$i" master br0
    run ip -n "$P-ctl" link set "h$i" up
    run ip -n "$P-h$i" addr add "$NET.$i/24" dev eth0
    run ip -n "$P-h$i" link set eth0 up
done
# Ports forward at once without STP; wait (bounded) until the kernel says so.
for ((i = 1; i <= nhosts; i++)); do
    for ((t = 0; t < 100; t++)); do
        [ "$(ip netns exec "$P-ctl" cat "/sys/class/net/h$i/brport/state" 2>/dev/null)" = 3 ] && break
        sleep 0.05
    done
    [ "$(ip netns exec "$P-ctl" cat "/sys/class/net/h$i/brport/state" 2>/dev/null)" = 3 ] ||
        die "bridge port h$i is not forwarding after 5 s"
done

echo "cluster: ctl $NET.254 (netns $P-ctl, bridge br0): runs $MPIEXEC" >&2
for ((i = 1; i <= nhosts; i++)); do
    echo "cluster: h$i  $NET.$i (netns $P-h$i, own hostname and /dev/shm)" >&2
done

# ---- the job ----

echo "cluster: $MPIEXEC -launcher ssh -launcher-exec $here/enter_host.sh $*" >&2
export RCH_CLUSTER_STATE=$state
exec 3> >(tee "$state/out")
tee_pid=$!
ip netns exec "$P-ctl" unshare --uts --mount -- /bin/bash -c '
    hostname ctl && mount --bind "$RCH_CLUSTER_STATE/hosts" /etc/hosts || exit 2
    t=$1 mpiexec=$2 enter=$3
    shift 3
    exec timeout -k 10 "$t" "$mpiexec" -launcher ssh -launcher-exec "$enter" "$@"' \
    _ "$timeout" "$MPIEXEC" "$here/enter_host.sh" "$@" >&3 2>&1 3>&- &
job_pid=$!
wait "$job_pid"
rc=$?
job_pid=
exec 3>&-
wait "$tee_pid" 2>/dev/null   # tee has written everything it read

status=$rc
if [ $rc -eq 124 ]; then
    echo "cluster.sh: the job did not finish within $timeout s; killed" >&2
elif [ $rc -ne 0 ]; then
    echo "cluster.sh: the job failed with exit status $rc" >&2
fi
for h in "${job_hosts[@]}"; do
    n=$(grep -cx "$h" "$state/launched")
    if [ "$n" -ne 1 ]; then
        echo "cluster.sh: host $h got $n hydra proxies, expected 1" >&2
        [ $status -ne 0 ] || status=1
    fi
done
for re in "${expects[@]}"; do
    if ! grep -Eq -- "$re" "$state/out"; then
        echo "cluster.sh: the output has no line matching '$re'" >&2
        [ $status -ne 0 ] || status=1
    fi
done
[ $status -ne 0 ] || echo "cluster: job done on ${#job_hosts[@]} host entries (${job_hosts[*]}); cleaning up" >&2
exit $status
