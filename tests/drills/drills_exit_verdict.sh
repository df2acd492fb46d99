#!/bin/bash
# drills_exit_verdict.sh RDMACHRUN DRILLS_EXIT RUNS [kill|initkill]
#
# RUNS jobs of 4 ranks where rank 2 is killed (SIGKILL) while the others
# wait in MPI_Barrier (kill), or as soon as its MPI_Init returns, the others
# maybe still in theirs (initkill); they see it die and abort. rdmachrun's verdict (its
# first line) must name rank 2 and the signal every time, and the job's
# status must be 137 (128 + SIGKILL): a survivor's abort often reaches
# rdmachrun before rank 2's SIGCHLD, and used to be blamed (11 of 32 runs).
set -u
run=$1 prog=$2 runs=$3 mode=${4:-kill}
bad=0
for ((i = 1; i <= runs; i++)); do
    out=$(timeout 30 "$run" -n 4 "$prog" "$mode=2:0" 2>&1)
    rc=$?
    verdict=$(printf '%s\n' "$out" | grep -m1 '^rdmachrun: ')
    if [ "$rc" -ne 137 ] || ! printf '%s\n' "$verdict" | grep -Eq '^rdmachrun: rank 2 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\)$'; then
        printf '%s\n' "$out"
        echo "run $i: exit status $rc, verdict: $verdict"
        bad=$((bad + 1))
    fi
done
echo "drills_exit_verdict.sh: $((runs - bad)) of $runs verdicts name the killed rank"
[ "$bad" -eq 0 ] || { echo "drills_exit_verdict.sh: FAIL"; exit 1; }
echo "drills_exit_verdict.sh: PASS"
