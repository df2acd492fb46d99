#!/bin/sh
# expect_exit.sh <status> <command...>: passes if the command exits with
# exactly <status> (e.g. the errorcode given to MPI_Abort).
want=$1
shift
"$@"
rc=$?
if [ "$rc" -ne "$want" ]; then
    echo "expect_exit: exit status $rc, expected $want" >&2
    exit 1
fi
echo "expect_exit: exit status $rc as expected"
