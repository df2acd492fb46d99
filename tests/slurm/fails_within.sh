#!/bin/bash
# fails_within.sh SECONDS COMMAND...: exit 0 when COMMAND fails (non-zero)
# within SECONDS, 1 when it succeeds or is still running then (killed).
set -u
t=$1
shift
timeout -k 5 "$t" "$@"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 -a "$SECONDS" -ge "$t" ]; then
    echo "fails_within.sh: still running after $t s: killed"
    exit 1
fi
if [ "$rc" -eq 0 ]; then
    echo "fails_within.sh: succeeded, expected a failure"
    exit 1
fi
echo "fails_within.sh: failed with status $rc in time"
