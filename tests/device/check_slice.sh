#!/bin/bash
# check_slice.sh RDMACHRUN MP_SLICE: 4 ranks beside 2 CPU-bound processes
# (as many as the cores here; a compile, another job) must take the short
# scheduler slice (src/device/slice.c), and with RDMACH_WAKE_SLICE_US=0 must
# not. mp_slice's 77 (a kernel without SCHED_OTHER slices) is passed on.
set -u
run=$1 prog=$2
hogs=()
for _ in 1 2; do sh -c 'while :; do :; done' & hogs+=($!); done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
"$run" -n 4 "$prog" short
rc=$?
[ $rc -ne 0 ] && exit $rc
RDMACH_WAKE_SLICE_US=0 "$run" -n 4 "$prog" never
