#!/bin/bash
# drills_init_kill.sh rdmachrun|hydra LAUNCHER RUNS NP PROGRAM
#
# RUNS jobs of PROGRAM (drills_exit: MPI_Init, a ring, MPI_Finalize) on NP
# ranks; in each, one rank chosen at random is SIGKILLed by a timer of its
# own a random 0 to 100 ms after it starts (drills_exit timedkill=R:U): most
# often inside MPI_Init (8 ranks start in about 0.1 s here; the later the
# init, the earlier in it the kill). Then one healthy job.
# Passes if every job ends (30 s at most) and leaves no /dev/shm file once
# its end has been cleaned up (5 s allowed): rdmachrun removes its job's
# files itself; under Hydra the /dev/shm reaper every rank registers with
# before it makes a file (src/device/reaper.c) removes them once the host's
# ranks have all ended. After the healthy job's start-up (whose sweep,
# rch_shm_seg_sweep, would hide a leak) nothing may be left either.
# Prints per run the files its job left, and the totals.
set -u
kind=$1 launcher=$2 runs=$3 np=$4 prog=$5
prog=$(readlink -f "$prog")
fail() { echo "drills_init_kill.sh: FAIL: $*"; exit 1; }

# the job's files: its kvsname carries the launcher's pid
job_glob() {
    case $kind in
    rdmachrun) echo "/dev/shm/rdmach-run${1}x*" ;;
    hydra) echo "/dev/shm/rdmach-kvs_${1}_*" ;;
    *) fail "unknown launcher kind $kind" ;;
    esac
}
count_files() { local n=0 f; for f in $(job_glob "$1"); do [ -e "$f" ] && n=$((n + 1)); done; echo $n; }

pids=()
killed=0 late=0 left_max=0 left_total=0
for ((i = 1; i <= runs; i++)); do
    victim=$((RANDOM % np)) delay=$(((RANDOM * 32768 + RANDOM) % 100000))
    "$launcher" -n "$np" "$prog" "timedkill=$victim:$delay" >/tmp/drills_init_kill.$$ 2>&1 &
    lp=$!
    pids+=("$lp")
    end=$(($(date +%s) + 30))
    while kill -0 "$lp" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.05; done
    if kill -0 "$lp" 2>/dev/null; then
        cat /tmp/drills_init_kill.$$
        kill -KILL "$lp"
        fail "run $i: the job did not end within 30 s of the kill"
    fi
    wait "$lp"
    rc=$?
    if [ "$rc" -eq 0 ]; then late=$((late + 1)); else killed=$((killed + 1)); fi
    for ((t = 0; t < 100; t++)); do
        n=$(count_files "$lp")
        [ "$n" -eq 0 ] && break
        sleep 0.05
    done
    left_total=$((left_total + n))
    [ "$n" -gt "$left_max" ] && left_max=$n
    echo "run $i: rank $victim killed at $((delay / 1000)) ms, exit status $rc, files left by its job: $n"
done
rm -f /tmp/drills_init_kill.$$

# a healthy job: its start-up sweeps what the killed ones left
"$launcher" -n "$np" "$prog" ok >/dev/null 2>&1 || fail "the healthy job after the drill failed"
still=0
for lp in "${pids[@]}"; do
    for f in $(job_glob "$lp"); do
        [ -e "$f" ] && { echo "left: $f"; still=$((still + 1)); }
    done
done
echo "drills_init_kill.sh: $kind: $runs runs, $killed jobs lost a rank ($late exited 0: the kill came after the rank had left);" \
     "files left at a job's end: $left_total in all, at most $left_max;" \
     "after the next start-up: $still"
[ "$killed" -gt 0 ] || fail "no job lost a rank: the drill proved nothing"
[ "$left_total" -eq 0 ] || fail "$left_total file(s) of killed jobs were left in /dev/shm after their end"
[ "$still" -eq 0 ] || fail "$still file(s) of killed jobs are still in /dev/shm"
echo "drills_init_kill.sh: PASS"
