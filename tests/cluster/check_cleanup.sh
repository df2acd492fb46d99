#!/bin/bash
# cluster.sh leaves nothing behind (docs/CLUSTER.md):
#   1. a job that fails: non-zero status, its namespaces and state directory gone;
#   2. cluster.sh stopped by SIGTERM while the job runs: status 143, the
#      namespaces gone and the job's processes (mpiexec, proxies, ranks) ended;
#   3. a job that hangs is killed at --timeout: status 124, nothing left;
#   4. namespaces of a run that was killed outright (SIGKILL, no trap) are
#      removed by the next run.
#
#   usage: check_cleanup.sh <cluster.sh>
set -u
cluster=${1:?usage: check_cleanup.sh <cluster.sh>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "check_cleanup: FAIL: $*"; fail=1; }

prefix_of() { grep -oE 'netns rchc[0-9]+-ctl' "$1" | head -1 | sed 's/netns //; s/-ctl$//'; }

# Nothing of run <prefix> may remain.
gone() {
    local p=$1 what=$2
    [ -n "$p" ] || { bad "$what: no cluster prefix in the output"; return; }
    local left='' f
    for f in /run/netns/"$p"-*; do
        [ -e "$f" ] && left="$left ${f##*/}"
    done
    [ -z "$left" ] || bad "$what: namespaces left: $left"
    [ ! -e "${TMPDIR:-/tmp}/$p" ] || bad "$what: state directory ${TMPDIR:-/tmp}/$p left"
}

# Up to 5 s until none of the pids in the files runs (zombies do not count).
procs_gone() {
    local what=$1 t pid st running
    shift
    for ((t = 0; t < 100; t++)); do
        running=
        for pid in $(cat "$@" 2>/dev/null); do
            st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
            [ -n "$st" ] && [ "$st" != Z ] && running="$running $pid"
        done
        [ -z "$running" ] && return
        sleep 0.05
    done
    bad "$what: processes of the job still run:$running"
}

# 1. a failing job
"$cluster" --hosts 2 --timeout 60 -- -hosts h1,h2 -n 2 false >"$work/1.out" 2>&1
rc=$?
cat "$work/1.out"
[ $rc -ne 0 ] || bad "a failing job: cluster.sh exited 0"
gone "$(prefix_of "$work/1.out")" "after a failing job"
echo "check_cleanup: 1. failing job: status $rc, cleaned up"

# 2. SIGTERM while the ranks run (each writes its pid, then sleeps)
"$cluster" --hosts 2 --timeout 60 -- -hosts h1,h2 -n 2 \
    bash -c "echo \$\$ > $work/rank.\$PMI_RANK; exec sleep 50" >"$work/2.out" 2>&1 &
cpid=$!
for ((t = 0; t < 400; t++)); do
    [ -s "$work/rank.0" ] && [ -s "$work/rank.1" ] && break
    sleep 0.05
done
if [ -s "$work/rank.0" ] && [ -s "$work/rank.1" ]; then
    kill -TERM "$cpid"
    wait "$cpid"
    rc=$?
    cat "$work/2.out"
    [ $rc -eq 143 ] || bad "SIGTERM: cluster.sh exited $rc, expected 143"
    gone "$(prefix_of "$work/2.out")" "after SIGTERM"
    procs_gone "after SIGTERM" "$work/rank.0" "$work/rank.1"
    echo "check_cleanup: 2. SIGTERM: status $rc, ranks ended, cleaned up"
else
    kill -TERM "$cpid"
    wait "$cpid"
    cat "$work/2.out"
    bad "the ranks of the job did not start within 20 s"
fi

# 3. a job that hangs: killed at --timeout, status 124
"$cluster" --hosts 2 --timeout 3 -- -hosts h1,h2 -n 2 \
    bash -c "echo \$\$ > $work/hang.\$PMI_RANK; exec sleep 50" >"$work/4.out" 2>&1
rc=$?
cat "$work/4.out"
[ $rc -eq 124 ] || bad "a hanging job: cluster.sh exited $rc, expected 124"
grep -q "the job did not finish within 3 s" "$work/4.out" || bad "a hanging job: no timeout message"
gone "$(prefix_of "$work/4.out")" "after a timeout"
procs_gone "after a timeout" "$work/hang.0" "$work/hang.1"
echo "check_cleanup: 3. hanging job: status $rc after 3 s, ranks ended, cleaned up"

# 4. leftovers of a run killed with SIGKILL: a namespace named for a pid that is gone
bash -c 'exit 0' &
dead=$!
wait $dead
stale=rchc$dead-h1
if ip netns add "$stale"; then
    "$cluster" --hosts 1 --timeout 60 -- -hosts h1 -n 1 true >"$work/3.out" 2>&1
    rc=$?
    cat "$work/3.out"
    [ $rc -eq 0 ] || bad "the run after a killed one exited $rc"
    if [ -e "/run/netns/$stale" ]; then
        bad "$stale was not removed"
        ip netns del "$stale"
    fi
    gone "$(prefix_of "$work/3.out")" "the run after a killed one"
    # (a cluster.sh running at the same time, e.g. under ctest -j, may be the one that removed it)
    by="this run"
    grep -q "removing $stale, left by a run that was killed" "$work/3.out" || by="a concurrent run"
    echo "check_cleanup: 4. a killed run's namespace $stale removed by $by"
else
    bad "cannot create $stale (needs root)"
fi

[ $fail -eq 0 ] && echo "check_cleanup: PASS"
exit $fail
