#!/bin/bash
# drills_reaper.sh HYDRA PROGRAM kill|exit NP
#
# A job under Hydra (which removes nothing from /dev/shm) leaves a file of
# its own there (drills_reaper.c), then its ranks are killed (kill) or end
# normally (exit). Passes if the file is gone within 10 s of the job's end:
# the reaper left by the first rank of the host (src/device/reaper.c)
# removes the job's /dev/shm/rdmach-<kvsname>-* files once every rank of the
# host has ended. Without it the file stays until someone removes it.
set -u
hydra=$1 prog=$2 mode=$3 np=$4
out=$(timeout 30 "$hydra" -n "$np" "$prog" "$mode" 2>&1)
rc=$?
file=$(sed -n 's/^LEFTOVER //p' <<<"$out" | head -n 1)
if [ -z "$file" ]; then
    echo "drills_reaper.sh: FAIL: the job (exit status $rc) named no file:"
    echo "$out"
    exit 1
fi
echo "drills_reaper.sh: job ended (status $rc) leaving $file"
for ((t = 0; t < 200; t++)); do
    [ -e "$file" ] || break
    sleep 0.05
done
if [ -e "$file" ]; then
    rm -f "$file"
    echo "drills_reaper.sh: FAIL: $file is still there 10 s after the job ended"
    exit 1
fi
echo "drills_reaper.sh: PASS: $file removed after the job ended ($mode, $np ranks)"
