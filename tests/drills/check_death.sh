#!/bin/bash
# check_death.sh -- COMMAND...: run a drills_death job and judge it by the
# report the survivors append to $DRILLS_REPORT (a file: Hydra may exit
# before it forwards the output of a rank that ends right after the victim).
# Passes only if rank 0 reported PASS, no rank reported FAIL, and the
# launcher does not report a rank killed by SIGUSR1 (signal 10), or the
# "signal 11" Hydra makes of 9 | 10, and no lost connection is reported
# with an unrelated errno text.
set -u
[ "$1" = "--" ] && shift
report=$(mktemp /tmp/drills_death.XXXXXX)
trap 'rm -f "$report"' EXIT
out=$(DRILLS_REPORT=$report "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "check_death.sh: launcher exit status $rc; the survivors' report:"
cat "$report"
fail() { echo "check_death.sh: FAIL: $*"; exit 1; }
grep -q "FAIL" "$report" && fail "a survivor failed"
grep -q "^drills_death: PASS: rank 0$" "$report" || fail "rank 0 reported no PASS"
printf '%s\n' "$out" | grep -Eq "signal 10|signal 11|Segmentation|User defined signal" &&
    fail "the launcher reports a rank killed by a signal other than the victim's"
# a lost connection is reported with its cause, not an errno text left over
# in the provider (a flushed tcp operation came with ENOENT's)
printf '%s\n' "$out" | grep -q "connection lost.*No such file or directory" &&
    fail "a connection loss is reported with an unrelated errno text"
echo "check_death.sh: PASS"
