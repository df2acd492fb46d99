#!/bin/sh
# expect_fail.sh <regex> <command...>: passes if the command exits non-zero
# and its output (stdout + stderr) matches the extended regex.
pattern=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
    echo "expect_fail: the command succeeded; it should have failed" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "expect_fail: exit status $rc, but the output does not match: $pattern" >&2
    exit 1
fi
echo "expect_fail: failed as expected (exit status $rc)"
