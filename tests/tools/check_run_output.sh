#!/bin/bash
# check_run_output.sh RDMACHRUN FORTRAN_ABORT_PROGRAM
#
# The ranks' output when rdmachrun's stdout/stderr are regular files
# (tools/run_io.c: through a pipe rdmachrun copies, as under Hydra):
#  1. a Fortran rank's lines (gfortran buffers a unit on a regular file)
#     are in the file although another rank's MPI_ABORT ends the job, and
#     rdmachrun's verdict comes after them; exit status 3;
#  2. 8 ranks x 300 lines to one file with stderr shared (> f 2>&1): every
#     line whole and once, each rank's in order, stdout and stderr of a
#     rank in the order it wrote them;
#  3. stdout and stderr to two files: each gets its own.
set -u
run=$1 fprog=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "check_run_output: FAIL: $*"; fail=1; }

"$run" -n 2 "$fprog" > "$work/abort.out" 2>&1
rc=$?
[ $rc -eq 3 ] || bad "abort job: exit status $rc, not 3"
n=$(grep -c '^f_abort_output: rank 0 line [0-9]*$' "$work/abort.out")
[ "$n" -eq 50 ] || { bad "abort job: $n of rank 0's 50 lines in the file"; cat "$work/abort.out"; }
tail -n 1 "$work/abort.out" | grep -q '^rdmachrun: rank 1 (pid [0-9]*) called abort with exit code 3$' ||
    { bad "abort job: rdmachrun's verdict is not the last line"; cat "$work/abort.out"; }

"$run" -n 8 sh -c 'i=1; while [ $i -le 300 ]; do echo "out $PMI_RANK $i"; echo "err $PMI_RANK $i" >&2; i=$((i + 1)); done' \
    > "$work/both.out" 2>&1
rc=$?
[ $rc -eq 0 ] || bad "lines job: exit status $rc"
awk '
    $1 != "out" && $1 != "err" || NF != 3 { print "check_run_output: not a whole line: " $0; bad = 1; next }
    # per rank: out k, err k, out k+1, ...
    { want = ($1 == "out") ? 2 * $3 - 1 : 2 * $3; seq[$2]++
      if (seq[$2] != want) { print "check_run_output: rank " $2 " line " NR " out of order: " $0; bad = 1 } }
    END { for (r = 0; r < 8; r++) if (seq[r] != 600) { print "check_run_output: rank " r ": " seq[r] " of 600 lines"; bad = 1 }
          exit bad }' "$work/both.out" || bad "lines job: lost, torn or reordered lines"

"$run" -n 4 sh -c 'echo "to out $PMI_RANK"; echo "to err $PMI_RANK" >&2' > "$work/o" 2> "$work/e"
rc=$?
[ $rc -eq 0 ] || bad "two files job: exit status $rc"
[ "$(grep -c '^to out [0-3]$' "$work/o")" = 4 ] && ! grep -q err "$work/o" || bad "two files job: stdout file: $(cat "$work/o")"
[ "$(grep -c '^to err [0-3]$' "$work/e")" = 4 ] && ! grep -q out "$work/e" || bad "two files job: stderr file: $(cat "$work/e")"

[ $fail -eq 0 ] && echo "check_run_output: ok"
exit $fail
