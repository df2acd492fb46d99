#!/bin/bash
# check_death_pidns.sh -- COMMAND...: check_death.sh for a job one of whose
# ranks runs in a PID namespace of its own (the command puts it there with
# unshare --pid --fork --mount-proc, as a container runtime would); skipped
# (77) where no PID namespace can be made.
set -u
if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
    echo "check_death_pidns.sh: SKIP: cannot create a PID namespace here (needs root)"
    exit 77
fi
exec "$(dirname "$0")/check_death.sh" "$@"
