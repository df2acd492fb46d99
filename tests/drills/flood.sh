#!/bin/sh
# flood.sh <rdmachrun> <flood_job> <flood> <ranks> <idle> <garbage> <max-log-lines> [seconds [fd-limit]]
#
# The job (flood_job) over the network channel with every pair a tcp pair,
# under `ulimit -n 1024` (or fd-limit), while the flooder holds <idle> silent connections
# to each rank's listener and makes <garbage> junk connection attempts to
# each (both counts per listener). Passes when the job ends with status 0
# and its "OK" line, the flooder found and flooded every rank, and the job
# wrote fewer than <max-log-lines> lines to stderr (rdmach's log, and
# anything else). Prints the figures: the job's line, the flooder's per
# listener, the log lines.
set -u
run=$1 job=$2 flood=$3 np=$4 idle=$5 garbage=$6 maxlines=$7 secs=${8:-120} fds=${9:-1024}
dir=$(mktemp -d "${TMPDIR:-/tmp}/rdmach-flood.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

# the soft limit, which is the one enforced: the flooder raises its own up
# to the hard limit, the job keeps 1024 (flood_job prints the limit it ran under)
ulimit -S -n "$fds" || { echo "flood.sh: cannot set ulimit -S -n $fds"; exit 1; }
export RDMACH_VNODE_SIZE=1 RDMACH_NET=ofi

"$run" -n "$np" "$job" "$dir" "$secs" >"$dir/job.out" 2>"$dir/job.err" &
jobpid=$!
"$flood" -p "$job" -n "$np" -d "$dir" -i "$idle" -g "$garbage" -t 30 >"$dir/flood.out" 2>&1 &
floodpid=$!
wait "$jobpid"
jobrc=$?
kill -TERM "$floodpid" 2>/dev/null
wait "$floodpid"
floodrc=$?

lines=$(wc -l <"$dir/job.err")
echo "--- job (status $jobrc):"
cat "$dir/job.out"
echo "--- flooder (status $floodrc):"
cat "$dir/flood.out"
echo "--- log lines: $lines (fewer than $maxlines wanted)"
head -60 "$dir/job.err"

fail=0
[ "$jobrc" -eq 0 ] || { echo "FAIL: the job ended with status $jobrc"; fail=1; }
grep -q 'OK$' "$dir/job.out" || { echo "FAIL: the job did not report OK"; fail=1; }
[ "$floodrc" -eq 0 ] || { echo "FAIL: the flooder did not flood every rank (status $floodrc)"; fail=1; }
[ "$(grep -c '^flood: listener' "$dir/flood.out")" -ge "$np" ] || { echo "FAIL: fewer listeners than ranks"; fail=1; }
[ "$lines" -lt "$maxlines" ] || { echo "FAIL: $lines log lines"; fail=1; }
exit $fail
