#!/bin/bash
# drills_reaper_unregistered.sh HYDRA PROGRAM
#
# The rank that starts its host's /dev/shm reaper dies before it registers
# with it (RDMACH_SHM_REAPER_DIE): nobody ever registers, and the reaper
# must still leave, RDMACH_SHM_REAPER_IDLE_MS (here 300 ms) after it
# started. Passes if its abstract socket (named in the rank's warning) is
# gone from /proc/net/unix within 10 s of the job's end; a reaper that waits
# for a first registration for ever keeps it.
set -u
hydra=$1 prog=$2
out=$(RDMACH_SHM_REAPER_DIE=on RDMACH_SHM_REAPER_IDLE_MS=300 timeout 30 "$hydra" -n 1 "$prog" exit 2>&1)
rc=$?
name=$(sed -n 's/.*SHM_REAPER_DIE: exiting before registering with reaper @\([^ ]*\).*/\1/p' <<<"$out" | head -n 1)
if [ -z "$name" ]; then
    echo "drills_reaper_unregistered.sh: FAIL: the rank (exit status $rc) started no reaper:"
    echo "$out"
    exit 1
fi
echo "drills_reaper_unregistered.sh: job ended (status $rc); reaper @$name"
for ((t = 0; t < 200; t++)); do
    grep -q "@$name\$" /proc/net/unix || break
    sleep 0.05
done
if grep -q "@$name\$" /proc/net/unix; then
    echo "drills_reaper_unregistered.sh: FAIL: reaper @$name still listens 10 s after the job ended"
    exit 1
fi
echo "drills_reaper_unregistered.sh: PASS: the unregistered reaper left"
