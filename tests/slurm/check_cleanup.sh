#!/bin/bash
# check_cleanup.sh SLURM_CLUSTER_SH: after a run of the cluster (a command
# that succeeds, then one that fails), no process of it is left (munged,
# slurmctld, slurmd, slurmstepd name the run's state directory on their
# command lines or are in its namespaces), no namespace and no state.
set -u
sh=$1
fail() { echo "check_cleanup.sh: FAIL: $*"; exit 1; }
for cmd in true false; do
    out=$("$sh" --hosts 2 -- "$cmd" 2>&1)
    rc=$?
    echo "$out"
    want=0; [ "$cmd" = false ] && want=1
    [ "$rc" -eq "$want" ] || fail "slurm_cluster.sh -- $cmd exited $rc, expected $want"
    state=$(echo "$out" | sed -n 's/.*state in \(\/[^)]*\)).*/\1/p')
    [ -n "$state" ] || fail "no state directory in the output"
    prefix=$(basename "$state")
    [ ! -e "$state" ] || fail "$state is left behind"
    left=$(ip netns list | awk '{print $1}' | grep "^$prefix-")
    [ -z "$left" ] || fail "namespaces left behind: $left"
    for p in /proc/[0-9]*; do
        if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q "$state"; then
            fail "process ${p#/proc/} is left behind: $(tr '\0' ' ' <"$p/cmdline")"
        fi
    done
    echo "check_cleanup.sh: -- $cmd: exit $rc, nothing of $prefix left"
done
echo "check_cleanup.sh: PASS"
