#!/bin/bash
# expect.sh EXIT [REGEX...] -- COMMAND [ARGS...]
#
# Runs COMMAND with stdout and stderr together, prints what it printed, and
# fails unless its exit status is EXIT (a number, or "nonzero") and every
# REGEX (grep -E) matches a line of the output. For tests whose success is a
# particular failure: both the status and the message are asserted.
set -u
want=$1
shift
regexes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    regexes+=("$1")
    shift
done
if [ $# -lt 2 ]; then
    echo "expect.sh: usage: expect.sh EXIT [REGEX...] -- COMMAND [ARGS...]"
    exit 2
fi
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "expect.sh: exit status $rc"
fail=0
if [ "$want" = nonzero ]; then
    [ "$rc" -ne 0 ] || { echo "expect.sh: FAIL: expected a non-zero exit status"; fail=1; }
else
    [ "$rc" -eq "$want" ] || { echo "expect.sh: FAIL: expected exit status $want, got $rc"; fail=1; }
fi
for re in "${regexes[@]}"; do
    printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "expect.sh: FAIL: no line matches: $re"; fail=1; }
done
[ $fail -eq 0 ] && echo "expect.sh: PASS"
exit $fail
