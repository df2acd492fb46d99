#!/bin/bash
# Inside a cluster made by slurm_cluster.sh: RUNS steps of
# `srun --kill-on-bad-exit=1 --mpi=MPI -N HOSTS -n TASKS PROGRAM timedkill=R:U`
# (drills_exit: MPI_Init, a ring, MPI_Finalize; -K as sites run MPI: without
# it Slurm lets the other ranks wait in the start-up fence for ever), in each
# of which rank R, chosen at random, is SIGKILLed by a timer of its own a
# random U of 0 to 100 ms after it starts (no pid taken from outside, which
# the machine may have given to another process by then): most often inside
# MPI_Init; then one healthy step. Passes if every step ends, and after the
# step no /dev/shm/rdmach-* file is left on any host (each has its own
# /dev/shm, seen through /proc/<pid of its slurmd>/root), within 5 s of the
# step's end. What a killed step had not unlinked yet is removed by the
# /dev/shm reaper of its host, which every rank registers with before it
# makes a file (device/reaper.c), once the host's ranks have all ended,
# whenever in MPI_Init the kill came. Prints per run the kill's timer and
# the files left when the reaper is done, then the totals.
#
# With --self the script kills nothing: PROGRAM is drills_reaper kill, whose
# rank 0 leaves a file of the job in /dev/shm on purpose ("LEFTOVER path")
# before every rank SIGKILLs itself: a leftover each run, which only the
# reaper removes (the kills of the first form rarely land while a file
# exists).
#
#   init_kill_check.sh [--self] MPI HOSTS TASKS RUNS -- PROGRAM [ARGS...]
set -u
self=0
[ "$1" = --self ] && self=1 && shift
mpi=$1 nhosts=$2 tasks=$3 runs=$4
shift 5
prog=$1
shift
args=("$@")
fail() { echo "init_kill_check.sh: FAIL: $*"; exit 1; }

# each host's root, seen through its slurmd
host_roots() {
    local h p
    for ((h = 1; h <= nhosts; h++)); do
        for p in $(ip netns pids "$RCH_SLURM_PREFIX-h$h"); do
            if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmd ]; then
                echo "/proc/$p/root"
                break
            fi
        done
    done
}
# the rdmach files in every host's /dev/shm
hosts_shm() {
    local r
    for r in $(host_roots); do ls "$r/dev/shm" 2>/dev/null | grep '^rdmach-'; done | tr '\n' ' '
}
# the program's ranks on this cluster's hosts (not the reapers: same exe,
# but named rdmach-reaper)
ranks() {
    local h p
    for ((h = 1; h <= nhosts; h++)); do
        for p in $(ip netns pids "$RCH_SLURM_PREFIX-h$h" 2>/dev/null); do
            [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$prog" ] &&
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" != rdmach-reaper ] && echo "$p"
        done
    done
}

[ -z "$(hosts_shm)" ] || fail "files in the hosts' /dev/shm before the first run: $(hosts_shm)"
left_runs=0 killed=0
for ((i = 1; i <= runs; i++)); do
    ((self)) || args=("timedkill=$((RANDOM % tasks)):$(((RANDOM * 32768 + RANDOM) % 100000))")
    srun --kill-on-bad-exit=1 --mpi="$mpi" -N "$nhosts" -n "$tasks" "$prog" "${args[@]}" >"$RCH_SLURM_STATE/init_kill.out" 2>&1 &
    sp=$!
    end=$(($(date +%s) + 30))
    while kill -0 "$sp" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.05; done
    if kill -0 "$sp" 2>/dev/null; then
        cat "$RCH_SLURM_STATE/init_kill.out"
        kill -KILL "$sp"
        fail "run $i: the step did not end within 30 s of the kill"
    fi
    wait "$sp"
    rc=$?
    if ((self)); then
        grep -q '^LEFTOVER ' "$RCH_SLURM_STATE/init_kill.out" && killed=$((killed + 1))
    elif [ "$rc" -ne 0 ]; then
        killed=$((killed + 1))    # else the timer came after the rank had left
    fi
    # the step's ranks have ended; their hosts' reapers finish on their own
    t1=$(date +%s.%N)
    for ((t = 0; t < 100; t++)); do
        left=$(hosts_shm)
        [ -z "$left" ] && [ -z "$(ranks)" ] && break
        sleep 0.05
    done
    took=$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    echo "init_kill_check.sh: run $i: ${args[*]}, srun status $rc, files left: ${left:-none} (after ${took} s)"
    if [ -n "$left" ]; then
        left_runs=$((left_runs + 1))
        # the --self file has no header for the sweep: only the reaper removes it
        ((self)) && for r in $(host_roots); do rm -f "$r"/dev/shm/rdmach-*; done
    fi
done
echo "init_kill_check.sh: $runs steps, $killed $( ((self)) && echo "left a file on purpose" || echo "ranks killed"), $left_runs steps left files in /dev/shm when their reapers were done"
[ "$killed" -gt 0 ] || fail "no rank was killed, or no file left on purpose (the check would prove nothing)"
[ "$left_runs" -eq 0 ] || fail "$left_runs of $runs killed steps left files in /dev/shm"
if ! ((self)); then
    srun --kill-on-bad-exit=1 --mpi="$mpi" -N "$nhosts" -n "$tasks" "$prog" ok >"$RCH_SLURM_STATE/init_kill.out" 2>&1 ||
        { cat "$RCH_SLURM_STATE/init_kill.out"; fail "the healthy step failed"; }
    left=$(hosts_shm)
    [ -z "$left" ] || fail "files left in /dev/shm after a healthy step: $left"
    echo "init_kill_check.sh: after a healthy step: no file in the hosts' /dev/shm"
fi
echo "init_kill_check.sh: PASS"
