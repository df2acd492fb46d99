#!/bin/bash
# check_kill.sh rdmachrun|hydra RANK -- COMMAND...
#
# COMMAND runs boot_job in mode kill=RANK (or kill-noterm=RANK) under a
# launcher. Passes only if: the launcher exits non-zero; rank RANK reported
# raising SIGKILL with its pid and time; the launcher's message names that
# rank and pid (rdmachrun; exit status 137) or reports signal 9 (Hydra, which
# names no rank); and the job ended less than 2 s after the kill.
set -u
kind=$1
rank=$2
shift 3
out=$("$@" 2>&1)
rc=$?
end=$(date +%s.%N)
printf '%s\n' "$out"
echo "check_kill.sh: exit status $rc"
fail() { echo "check_kill.sh: FAIL: $*"; exit 1; }
line=$(printf '%s\n' "$out" | grep -E "^boot_job: rank $rank \(pid [0-9]+\) raises SIGKILL at [0-9.]+$" | head -1)
[ -n "$line" ] || fail "rank $rank did not report raising SIGKILL"
pid=$(printf '%s\n' "$line" | sed -E 's/.*\(pid ([0-9]+)\).*/\1/')
t=$(printf '%s\n' "$line" | sed -E 's/.* at ([0-9.]+)$/\1/')
[ "$rc" -ne 0 ] || fail "the launcher exited 0"
case $kind in
rdmachrun)
    [ "$rc" -eq 137 ] || fail "exit status $rc, expected 137 (128 + SIGKILL)"
    printf '%s\n' "$out" | grep -Fq "rdmachrun: rank $rank (pid $pid) killed by signal 9 (SIGKILL)" ||
        fail "no message naming rank $rank (pid $pid) and SIGKILL"
    ;;
hydra)
    printf '%s\n' "$out" | grep -Eq "BAD TERMINATION|signal 9" || fail "Hydra did not report the killed process"
    ;;
*)
    fail "unknown launcher kind $kind"
    ;;
esac
awk -v a="$t" -v b="$end" 'BEGIN { d = b - a; printf "check_kill.sh: job ended %.3f s after the kill\n", d; exit !(d < 2.0) }' ||
    fail "the job took 2 s or more to end after the kill"
echo "check_kill.sh: PASS"
