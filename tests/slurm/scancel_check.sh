#!/bin/bash
# Inside a cluster made by slurm_cluster.sh --accounting: sbatch an rdmach program that
# runs until cancelled (srun across the hosts), wait until every rank has
# initialized and the hosts hold its shared-memory segments, scancel the
# job, and check that nothing of it is left: no process of the program on
# any host, no /dev/shm/rdmach-* file in any host's /dev/shm (each host has
# its own, seen through /proc/<pid of its slurmd>/root), and sacct says the
# job was CANCELLED.
#
#   scancel_check.sh MPI HOSTS TASKS -- COMMAND...
set -u
mpi=$1 nhosts=$2 tasks=$3
shift 4
prog=$1
dir=$(mktemp -d "$RCH_SLURM_STATE/scancel.XXXXXX") || exit 2
fail() { echo "scancel_check.sh: FAIL: $*"; cat "$dir/out" 2>/dev/null; exit 1; }

# a process of each host namespace (its slurmd): the host's /dev/shm
host_shm() {
    local p
    for p in $(ip netns pids "$RCH_SLURM_PREFIX-h$1"); do
        if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmd ]; then
            ls "/proc/$p/root/dev/shm" 2>/dev/null | grep '^rdmach-'
            return
        fi
    done
    echo "no-slurmd-on-h$1"
}
count_init() {
    cat "$dir/out" 2>/dev/null | grep -c "boot: info: rank [0-9]* of $tasks on h"
}
# The program's processes on this cluster's hosts only: other tests (other
# clusters) may run the same program at the same time (ctest -j). The ranks
# are those not named rdmach-reaper: the /dev/shm reaper each host's first
# rank leaves (src/device/reaper.c) runs the same executable, and must be
# gone too once the job is.
prog_pids() {
    local h p
    for ((h = 1; h <= nhosts; h++)); do
        for p in $(ip netns pids "$RCH_SLURM_PREFIX-h$h" 2>/dev/null); do
            [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$prog" ] &&
                { [ "${1:-}" = all ] || [ "$(cat "/proc/$p/comm" 2>/dev/null)" != rdmach-reaper ]; } && echo "$p"
        done
    done
}
count_procs() {
    prog_pids "$@" | wc -l
}

printf -v cmd ' %q' "$@"
id=$(RDMACH_LOG=info sbatch --parsable -N "$nhosts" -n "$tasks" -o "$dir/out" --wrap "srun --mpi=$mpi$cmd") ||
    fail "sbatch failed"
echo "scancel_check.sh: job $id submitted"
for ((t = 0; t < 300; t++)); do
    [ "$(count_init)" -eq "$tasks" ] && break
    sleep 0.1
done
[ "$(count_init)" -eq "$tasks" ] ||
    fail "the $tasks ranks did not all initialize within 30 s"
# The ranks map their segments (the library unlinks a segment as soon as
# every peer has attached it, so a SIGKILL leaves no file; the maps show it
# "(deleted)"): without any, the check after scancel would prove nothing.
mapped_segments() {
    local p
    for p in $(prog_pids); do
        grep -o '/dev/shm/rdmach-[^ ]*' "/proc/$p/maps" 2>/dev/null
    done | sort -u | tr '\n' ' '
}
# (the ranks create them after the bootstrap's log line)
for ((t = 0; t < 300; t++)); do
    mapped=$(mapped_segments)
    [ -n "$mapped" ] && break
    sleep 0.1
done
shm=""
for ((h = 1; h <= nhosts; h++)); do shm+=$(host_shm $h); done
echo "scancel_check.sh: running: $(count_procs) process(es) of $(basename "$prog");" \
     "mapped segments: $mapped; files in the hosts' /dev/shm: ${shm:-none}"
[ "$(count_procs)" -eq "$tasks" ] || fail "expected $tasks running processes of $prog"
[ -n "$(echo $mapped)" ] || fail "the ranks map no rdmach segment (the check would prove nothing)"

scancel "$id" || fail "scancel $id failed"
for ((t = 0; t < 300; t++)); do
    [ -z "$(squeue -h -j "$id" 2>/dev/null)" ] && [ "$(count_procs all)" -eq 0 ] && break
    sleep 0.1
done
. "$(dirname "$0")/sacct_wait.sh"
sacct_wait "$id" || fail "sacct: job $id did not reach a final state within 30 s"
state=$(sacct -j "$id" -n -X -P -o State)
echo "scancel_check.sh: after scancel: sacct says '$state', $(count_procs all) process(es) left"
# ("CANCELLED by <uid>" names who cancelled it)
[ "$state" = "CANCELLED by 0" ] || fail "sacct: job $id is '$state', expected 'CANCELLED by 0' (root's scancel)"
[ "$(count_procs all)" -eq 0 ] || fail "processes of $prog are left 30 s after scancel"
left=""
for ((h = 1; h <= nhosts; h++)); do left+=$(host_shm $h); done
[ -z "$left" ] || fail "shared-memory files left behind: $left"
echo "scancel_check.sh: PASS (job $id cancelled; no process, no /dev/shm/rdmach-* left on $nhosts hosts)"
