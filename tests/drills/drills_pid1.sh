#!/bin/bash
# drills_pid1.sh RDMACHRUN DRILLS_EXIT
#
# rdmachrun as the first process (pid 1) of a new PID namespace, as in a
# container (unshare --pid --fork --mount-proc):
#  1. a plain program runs on every rank (every rank used to exit 127 at
#     once: a rank took "my parent is pid 1" for "rdmachrun died");
#  2. an MPI program's exit code (rank 1 returns 6 after MPI_Finalize) is
#     rdmachrun's;
#  3. SIGTERM sent to pid 1 from inside the namespace (where the kernel drops
#     signals that pid 1 has no handler for) ends the job: status 143;
#  4. orphans are reaped: rank 1 leaves a child behind that exits at once; it
#     is re-parented to rdmachrun (pid 1), which must reap it. Rank 0 waits
#     (polling, bounded at 10 s) until no zombie is left in the namespace.
# Skipped (77) where PID namespaces cannot be made (no root, no user
# namespaces).
set -u
run=$1 prog=$2
fail() { echo "drills_pid1.sh: FAIL: $*"; exit 1; }
ns() { unshare --pid --fork --mount-proc "$@"; }
if ! ns true 2>/dev/null && ! unshare --user --map-root-user true 2>/dev/null; then
    echo "drills_pid1.sh: SKIP: cannot create a PID namespace here"
    exit 77
fi
if ! ns true 2>/dev/null; then
    ns() { unshare --user --map-root-user --pid --fork --mount-proc "$@"; }
fi

out=$(ns "$run" -n 2 /bin/echo hi 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "rdmachrun -n 2 /bin/echo hi as pid 1: exit status $rc, expected 0"
[ "$(printf '%s\n' "$out" | grep -c '^hi$')" -eq 2 ] || fail "expected 'hi' from both ranks"

out=$(ns "$run" -n 2 "$prog" ret=1:6 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 6 ] || fail "rank 1 returned 6 after MPI_Finalize: exit status $rc, expected 6"
printf '%s\n' "$out" | grep -q '^drills_exit: rank 0 leaves with 0$' || fail "rank 0 did not finish"

out=$(ns "$run" -n 2 sh -c 'test "$PMI_RANK" = 0 && kill -TERM 1; exec sleep 30' 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 143 ] || fail "SIGTERM to pid 1: exit status $rc, expected 143"
printf '%s\n' "$out" | grep -q '^rdmachrun: received SIGTERM, ending the job$' || fail "no message about SIGTERM"

# rank 1: a child that outlives it, records its pid and exits at once (an
# orphan for pid 1); rank 0: wait until rank 1 and the orphan are both gone
# from /proc (a zombie keeps its entry, so an unreaped orphan holds the loop
# until the bound) and print the zombie count. Waiting for "no zombie" alone
# raced: the orphan could still be running at the check and a zombie at the
# count.
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
export PID1_DRILL_DIR=$tmp
script='
if [ "$PMI_RANK" = 1 ]; then ( sh -c "echo \$\$ > $PID1_DRILL_DIR/orphan.tmp; mv $PID1_DRILL_DIR/orphan.tmp $PID1_DRILL_DIR/orphan; exit 0" & ) ; exit 0; fi
zombies() { grep -l "^State:[[:space:]]*Z" /proc/[0-9]*/status 2>/dev/null | wc -l; }
orphan_alive() { [ ! -f "$PID1_DRILL_DIR/orphan" ] || [ -d "/proc/$(cat "$PID1_DRILL_DIR/orphan")" ]; }
end=$(( $(date +%s) + 10 ))
while { [ -d /proc/3 ] || orphan_alive; } && [ "$(date +%s)" -lt "$end" ]; do :; done
orphan_alive && echo "orphan $(cat "$PID1_DRILL_DIR/orphan" 2>/dev/null) not reaped"
echo "zombies left: $(zombies)"'
out=$(ns "$run" -n 2 sh -c "$script" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "orphan drill: exit status $rc"
printf '%s\n' "$out" | grep -q '^zombies left: 0$' || fail "pid 1 left a zombie"
echo "drills_pid1.sh: PASS"
