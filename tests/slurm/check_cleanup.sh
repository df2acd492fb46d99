#!/bin/bash
# check_cleanup.sh SLURM_CLUSTER_SH: after a run of the cluster (a command
# that succeeds, then one that fails, then one with accounting), no process
# of it is left (munged, mariadbd name the run's state directory on their
# command lines; everything started in its namespaces has it in its
# environment as RCH_SLURM_STATE), no namespace and no state. Then a run
# with accounting killed outright (SIGKILL: its trap cannot run) is removed
# by the next run.
set -u
sh=$1
fail() { echo "check_cleanup.sh: FAIL: $*"; exit 1; }
# processes of the run whose state directory is $1
run_procs() {
    local p
    for p in /proc/[0-9]*; do
        grep -qszx -e ".*$1/.*" -e "RCH_SLURM_STATE=$1" "$p/cmdline" "$p/environ" && echo "${p#/proc/}"
    done
}
check_gone() {
    local state=$1 prefix left
    prefix=$(basename "$state")
    [ ! -e "$state" ] || fail "$state is left behind"
    left=$(ip netns list | awk '{print $1}' | grep "^$prefix-")
    [ -z "$left" ] || fail "namespaces left behind: $left"
    left=$(run_procs "$state")
    [ -z "$left" ] || fail "processes left behind: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
}
for run in true false "--accounting true"; do
    words=($run)      # [--accounting] command
    out=$("$sh" --hosts 2 "${words[@]:0:${#words[@]}-1}" -- "${words[-1]}" 2>&1)
    rc=$?
    echo "$out"
    want=0; [ "$run" = false ] && want=1
    [ "$rc" -eq "$want" ] || fail "slurm_cluster.sh $run exited $rc, expected $want"
    state=$(echo "$out" | sed -n 's/.*state in \(\/[^)]*\)).*/\1/p')
    [ -n "$state" ] || fail "no state directory in the output"
    check_gone "$state"
    echo "check_cleanup.sh: $run: exit $rc, nothing of $(basename "$state") left"
done

# SIGKILL once the cluster (with accounting) is up and its command runs
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$sh" --hosts 1 --accounting -- sleep 60 >"$log" 2>&1 &
pid=$!
state=/var/tmp/rchs$pid
for ((t = 0; t < 600; t++)); do
    grep -q "nodes idle" "$log" && break
    kill -0 $pid 2>/dev/null || fail "the cluster to kill did not start: $(cat "$log")"
    sleep 0.1
done
n=$(run_procs "$state" | wc -l)
kill -KILL $pid
wait $pid 2>/dev/null
left=$(run_procs "$state" | wc -l)
echo "check_cleanup.sh: killed slurm_cluster.sh (SIGKILL) with $n processes up; $left left"
[ "$left" -gt 0 ] || fail "nothing was left to sweep (the check would prove nothing)"
out=$("$sh" --hosts 1 -- true 2>&1)
echo "$out"
echo "$out" | grep -q "removing $state, left by a run that was killed" || fail "the next run did not remove $state"
check_gone "$state"
echo "check_cleanup.sh: SIGKILL: the next run removed all of $(basename "$state")"
echo "check_cleanup.sh: PASS"
