#!/bin/sh
# h5check.sh <file.h5> <command...>: runs the command (the HDF5 program, which
# is given the file as its last argument), then checks with h5dump that both
# datasets of the file hold element (i, j) = i * 100 + j, 8 x 6.
set -e
# A sanitizer build's tests preload its runtime (tests/CMakeLists.txt,
# RDMACH_ABI_ENV): it is for the MPI program only, not for this script's
# own shell, h5dump and sed (an uninstrumented dash under it fails).
if [ -n "${LD_PRELOAD:-}" ] && [ -z "${H5CHECK_PRELOAD+x}" ]; then
    H5CHECK_PRELOAD=$LD_PRELOAD exec env -u LD_PRELOAD "$0" "$@"
fi
file=$1
shift
rm -f "$file"
LD_PRELOAD=${H5CHECK_PRELOAD:-} "$@" "$file"
want=""
for i in 0 1 2 3 4 5 6 7; do
    for j in 0 1 2 3 4 5; do
        want="$want $((i * 100 + j))"
    done
done
for d in collective independent; do
    # -y: no indices; the numbers between "DATA {" and "}" in order
    got=$(h5dump -y -d "/$d" "$file" | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr -cs '0-9' ' ')
    if [ "$(echo $got)" != "$(echo $want)" ]; then
        echo "h5check: dataset /$d: h5dump shows: $got" >&2
        echo "h5check: expected: $want" >&2
        exit 1
    fi
    echo "h5check: h5dump of /$d shows the 48 expected values"
done
