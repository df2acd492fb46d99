#!/bin/bash
# drills_depart.sh RUN PROGRAM NP [LINGER]
#
# Runs drills_depart (NP ranks; rank 0 keeps polling LINGER seconds after
# the others have finished and exited) and fails unless the job exits with
# 0, rank 0 saw every other rank's process end, and nobody reported a
# failure: a rank that finished MPI_Finalize and exited is a departure.
set -u
run=$1 prog=$2 np=$3 linger=${4:-0.5}
out=$(timeout 50 "$run" -n "$np" "$prog" "$linger" 2>&1)
rc=$?
printf '%s\n' "$out"
fail=0
[ "$rc" -eq 0 ] || { echo "drills_depart.sh: FAIL: exit status $rc, expected 0"; fail=1; }
grep -q "^drills_depart: rank 0 saw $((np - 1)) exits$" <<<"$out" ||
    { echo "drills_depart.sh: FAIL: rank 0 did not see the $((np - 1)) other ranks exit"; fail=1; }
bad=$(grep -Ei "failed|died|disconnected|has exited|is gone" <<<"$out")
[ -z "$bad" ] || { echo "drills_depart.sh: FAIL: a normal departure was reported as a failure:"; echo "$bad"; fail=1; }
[ "$fail" -eq 0 ] && echo "drills_depart.sh: PASS"
exit "$fail"
