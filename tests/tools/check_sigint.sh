#!/bin/bash
# check_sigint.sh RDMACHRUN
#
# SIGINT to rdmachrun ends the job: both ranks (sleeping, never exiting by
# themselves) are gone, rdmachrun says why and exits 130 (128 + SIGINT).
# Synchronized on the ranks' "ready" lines, not on time.
set -u
run=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/out"
"$run" -n 2 sh -c 'echo "ready $$"; exec sleep 120' > "$dir/out" 2> "$dir/err" &
rp=$!
exec 3< "$dir/out"
read -r _ p1 <&3
read -r _ p2 <&3
echo "check_sigint.sh: ranks $p1 and $p2 are up; sending SIGINT to rdmachrun $rp"
kill -INT "$rp"
wait "$rp"
rc=$?
cat "$dir/err"
fail() { echo "check_sigint.sh: FAIL: $*"; kill -KILL "$p1" "$p2" 2>/dev/null; exit 1; }
[ "$rc" -eq 130 ] || fail "exit status $rc, expected 130"
grep -Fq "rdmachrun: received SIGINT, ending the job" "$dir/err" || fail "no message about SIGINT"
kill -0 "$p1" 2>/dev/null && fail "rank pid $p1 still alive"
kill -0 "$p2" 2>/dev/null && fail "rank pid $p2 still alive"
echo "check_sigint.sh: PASS"
