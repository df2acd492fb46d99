#!/bin/bash
# check_shm_cleanup.sh RDMACHRUN BOOT_JOB N
#
# Every rank of `boot_job N leak-shm` leaves /dev/shm/rdmach-<kvsname>-leak<rank>
# behind (as a killed rank would); rdmachrun must remove them all, and must not
# touch another job's file.
set -u
run=$1 job=$2 n=$3
other=/dev/shm/rdmach-otherjob$$-keep
fail() { echo "check_shm_cleanup.sh: FAIL: $*"; rm -f "$other"; exit 1; }
: > "$other" || fail "cannot create $other"
out=$("$run" -n "$n" "$job" "$n" leak-shm 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "exit status $rc"
files=$(printf '%s\n' "$out" | sed -nE 's/^boot_job: rank [0-9]+ left (.*)$/\1/p')
count=$(printf '%s\n' "$files" | grep -c rdmach- || true)
[ "$count" -eq "$n" ] || fail "$count ranks reported a file, expected $n"
for f in $files; do
    [ ! -e "$f" ] || fail "$f is still there"
done
[ -e "$other" ] || fail "another job's file $other was removed"
rm -f "$other"
echo "check_shm_cleanup.sh: PASS ($count files removed)"
