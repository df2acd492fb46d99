#!/bin/bash
# ompi_watch.sh MPIRUN ARGS...: run Open MPI's mpirun (the PMIx server of
# the boot_openmpi_pmix_* tests) and pass its exit status through, with one
# exception. Under load, mpirun.openmpi 4.1 sometimes never exits after every
# rank it started has exited: its children stay zombies, unreaped, and the
# test would time out on a hang that is the launcher's own, with rdmach's
# part done. When every child of mpirun has been a zombie for 5 s, that run
# is ended and the job run again (at most twice), saying so. Likewise when
# mpirun itself dies of SIGSEGV in PMIx_server_finalize (libpmix 3, after the
# ranks are gone). Any other outcome, a hang with a rank still running
# included, is the test's. mpirun's stderr goes to a file, printed when the
# attempt ends: a reader of a pipe (tee) would be one more child of mpirun,
# alive while mpirun is, and the zombies would never be all its children.
set -u
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for attempt in 1 2 3; do
    "$@" 2>"$err" &
    pid=$!
    zombie_since=""
    while kill -0 "$pid" 2>/dev/null; do
        kids=$(ps -o stat= --ppid "$pid" 2>/dev/null)
        if [ -n "$kids" ] && ! echo "$kids" | grep -qv '^Z'; then
            zombie_since=${zombie_since:-$SECONDS}
            if [ $((SECONDS - zombie_since)) -ge 5 ]; then
                echo "ompi_watch.sh: $1 has not exited 5 s after all its ranks did (attempt $attempt);" \
                     "ending it and running the job again" >&2
                kill -9 "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
                cat "$err" >&2
                continue 2
            fi
        else
            zombie_since=""
        fi
        sleep 0.2
    done
    wait "$pid"
    rc=$?
    cat "$err" >&2
    if [ "$rc" -eq 139 ] && grep -q 'PMIx_server_finalize' "$err"; then
        echo "ompi_watch.sh: $1 crashed in PMIx_server_finalize (attempt $attempt); running the job again" >&2
        continue
    fi
    exit "$rc"
done
echo "ompi_watch.sh: $1 failed on its own (hang or crash after its ranks exited) in 3 attempts" >&2
exit 124
