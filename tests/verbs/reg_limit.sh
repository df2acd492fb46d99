#!/bin/bash
# reg_limit.sh <verbs_reg_limit>: run it without CAP_IPC_LOCK (dropped from the
# bounding set, so root loses it at exec) and with a 1 MiB memlock limit, the
# situation in which a memory registration can exhaust locked memory.
set -eu
prog=${1:?usage: reg_limit.sh <verbs_reg_limit>}
exec setpriv --bounding-set -ipc_lock bash -c 'ulimit -l 1024 && exec "$0"' "$prog"
