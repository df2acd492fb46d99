#!/usr/bin/env bash
# bench/rma_dtype.sh: one-sided transfers of a derived target datatype (a
# vector of N ints, every other int of the window) in fence, PSCW and lock_all
# epochs, plus large contiguous accumulates with MPI_Win_flush_local — rdmach
# against Debian's MPICH, the same program (tests/mpi/test_conf_rma_dtype.c,
# which also checks every value) built with each library's mpicc.
#
#   bench/rma_dtype.sh [build-dir] [sizes] [ranks] [flavors]
#   bench/rma_dtype.sh build "65536 1048576 16777216" "2 4" "allocate create"
#
# Each line is one library, size, rank count and window flavor: seconds per
# put, accumulate and get (one epoch each), and for the 4 flush_local
# accumulates, and the contiguous path with the same data. rdmach runs on
# shared memory and, with RDMACH_VNODE_SIZE=1, over tcp between pretend
# nodes; MPICH (ch4:ucx) on shared memory and with UCX_TLS=tcp,self. Every run has a timeout (RMA_BENCH_TIMEOUT,
# default 300 s); a run that fails or times out says so.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
sizes=${2:-"65536 1048576 16777216"}
ranks=${3:-"2 4"}
flavors=${4:-"allocate create"}
limit=${RMA_BENCH_TIMEOUT:-300}
src=$here/../tests/mpi/test_conf_rma_dtype.c
rdmach_prog=$build/tests/mpi/test_conf_rma_dtype
run=$build/tools/rdmachrun
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$rdmach_prog" ] || { echo "no $rdmach_prog: build rdmach's tests first" >&2; exit 1; }
have_mpich=0
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
    mpicc.mpich -O2 -I"$here/../tests/mpi" "$src" -o "$work/dtype_mpich" && have_mpich=1
fi
[ $have_mpich = 1 ] || echo "MPICH (mpicc.mpich, mpiexec.mpich) not usable: its rows are skipped" >&2

one() {   # label, command...
    local label=$1 out
    shift
    if out=$(timeout "$limit" "$@" 2>&1); then
        grep '^conf_rma_dtype' <<<"$out" | sed "s/^conf_rma_dtype:/$label/"
    else
        echo "$label: failed or timed out after ${limit} s: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
    fi
}

for n in $sizes; do
    for np in $ranks; do
        for f in $flavors; do
            one "rdmach shm  " "$run" -n "$np" "$rdmach_prog" "$n" 1 "$f"
            one "rdmach tcp  " env RDMACH_VNODE_SIZE=1 "$run" -n "$np" "$rdmach_prog" "$n" 1 "$f"
            [ $have_mpich = 1 ] && one "MPICH shm   " mpiexec.mpich -n "$np" "$work/dtype_mpich" "$n" 1 "$f"
            [ $have_mpich = 1 ] && one "MPICH tcp   " env UCX_TLS=tcp,self mpiexec.mpich -n "$np" "$work/dtype_mpich" "$n" 1 "$f"
        done
    done
done
