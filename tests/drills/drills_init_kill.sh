#!/bin/bash
# drills_init_kill.sh rdmachrun|hydra LAUNCHER RUNS NP PROGRAM
#
# RUNS jobs of PROGRAM (drills_exit: MPI_Init, a ring, MPI_Finalize) on NP
# ranks; in each, as soon as the ranks exist, one chosen at random is killed
# with SIGKILL after a random 0 to 60 ms, most often inside MPI_Init (the
# whole job takes ~0.2 s here). Then one healthy job.
# Passes if every job ends (30 s at most) and, after the healthy job's
# start-up, no /dev/shm file of any of the killed jobs is left: what a job
# leaves when it dies before every rank mapped the segments is reclaimed by
# the next start-up's sweep (rch_shm_seg_sweep), whatever the launcher;
# rdmachrun also removes its own job's files when it ends.
# Prints per run the files its job left at its end, and the totals.
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

# the ranks of this job: processes running PROGRAM with DRILL_JOB=<tag> in
# their environment (both launchers pass it on)
ranks_of() {
    local p
    for p in $(find /proc -maxdepth 2 -path '/proc/[0-9]*/exe' -lname "$prog" 2>/dev/null | cut -d/ -f3); do
        grep -qz "^DRILL_JOB=$1\$" /proc/"$p"/environ 2>/dev/null && echo "$p"
    done
}

pids=()
killed=0 late=0 left_max=0 left_total=0
for ((i = 1; i <= runs; i++)); do
    DRILL_JOB=$$.$i "$launcher" -n "$np" "$prog" ok >/tmp/drills_init_kill.$$ 2>&1 &
    lp=$!
    pids+=("$lp")
    t0=$(date +%s.%N)
    victims=()
    until [ ${#victims[@]} -gt 0 ] || ! kill -0 "$lp" 2>/dev/null; do victims=($(ranks_of "$$.$i")); done
    # not a synchronisation: the kill lands at a random moment by design
    sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.3f", rand() * 0.06 }')"
    delay=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
    if [ ${#victims[@]} -gt 0 ]; then
        v=${victims[$((RANDOM % ${#victims[@]}))]}
        kill -KILL "$v" 2>/dev/null && killed=$((killed + 1))
    fi
    end=$(($(date +%s) + 30))
    while kill -0 "$lp" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.05; done
    if kill -0 "$lp" 2>/dev/null; then
        cat /tmp/drills_init_kill.$$
        kill -KILL "$lp"
        fail "run $i: the job did not end within 30 s of the kill"
    fi
    wait "$lp"
    rc=$?
    [ "$rc" -eq 0 ] && late=$((late + 1))
    n=$(count_files "$lp")
    left_total=$((left_total + n))
    [ "$n" -gt "$left_max" ] && left_max=$n
    echo "run $i: killed at ${delay} s, exit status $rc, files left by its job: $n"
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
echo "drills_init_kill.sh: $kind: $runs runs, $killed ranks killed ($late jobs exited 0: the kill came too late or after MPI_Finalize);" \
     "files left at a job's end: $left_total in all, at most $left_max;" \
     "after the next start-up: $still"
[ "$still" -eq 0 ] || fail "$still file(s) of killed jobs are still in /dev/shm"
echo "drills_init_kill.sh: PASS"
