#!/bin/sh
# f08_icount.sh [build dir [max extra self] [max extra null]]: instructions
# per iteration of f08_icount's loops (f08_icount.f90), C against
# `use mpi_f08`, counted by callgrind: each loop's inclusive count in a run
# of 2000 iterations less that in a run of 1000, over 1000. Given the
# maxima, `use mpi_f08`'s extra per MPI_Send + MPI_Recv to self and per
# MPI_Send to MPI_PROC_NULL are checked against them (the test
# fortran_f08_fast_path_instructions): exit 1 above either; the same with
# IERROR present against the maxima plus 20 (the caller's extra argument;
# the binding's call to C instead of a jump, with the frame that keeps
# IERROR's address, and the store of C's result). Needs valgrind;
# one rank, no launcher.
set -e
build=${1:-build}
max_self=${2:-}
max_null=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 1000 2000; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$build/bench/f08_icount" $n \
        > "$tmp/log.$n" 2>&1 || { cat "$tmp/log.$n"; exit 1; }
    callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.$n" > "$tmp/an.$n"
done
# "  1,234 ( 5.6%)  file:function [object]" -> the count of the function
count() {
    awk -v f="$2" '{ for (i = 2; i <= NF; i++) if ($i ~ (":" f "$")) { gsub(",", "", $1); print $1; exit } }' "$1"
}
printf '%-34s %8s %8s %8s\n' 'instructions per iteration' C mpi_f08 extra
for row in 'Send+Recv to self:bench_c_self:__f08_icount_loops_MOD_f08_self' \
           'Send to MPI_PROC_NULL:bench_c_send_null:__f08_icount_loops_MOD_f08_null' \
           'Send+Recv to self, IERROR:bench_c_self:__f08_icount_loops_MOD_f08_self_ierror' \
           'Send to MPI_PROC_NULL, IERROR:bench_c_send_null:__f08_icount_loops_MOD_f08_null_ierror'; do
    what=${row%%:*}; rest=${row#*:}; c=${rest%%:*}; f=${rest#*:}
    c1=$(count "$tmp/an.1000" "$c"); c2=$(count "$tmp/an.2000" "$c")
    f1=$(count "$tmp/an.1000" "$f"); f2=$(count "$tmp/an.2000" "$f")
    awk -v w="$what" -v c=$((c2 - c1)) -v f=$((f2 - f1)) \
        'BEGIN { printf "%-34s %8.1f %8.1f %8.1f\n", w, c / 1000, f / 1000, (f - c) / 1000 }'
    extra=$(( (f2 - f1 - c2 + c1 + 999) / 1000 ))
    max=$max_self
    [ "$c" = bench_c_self ] || max=$max_null
    case $f in *_ierror) [ -n "$max" ] && max=$((max + 20)) ;; esac
    if [ -n "$max" ] && [ "$extra" -gt "$max" ]; then
        echo "f08_icount: $what: mpi_f08 takes $extra instructions more than C, more than $max"
        fail=1
    fi
done
if [ -n "$max_self" ]; then
    [ -z "$fail" ] && echo "f08_icount: PASS" || exit 1
fi
