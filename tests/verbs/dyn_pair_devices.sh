#!/bin/bash
# dyn_pair_devices.sh <program> <launcher...>
# tests/mpi/dyn_pair.sh (a server job started, then a client job that
# connects to its port) with each job on one device of the pair that
# on_transport.sh chose (RDMACH_VERBS_DEVICE=<first>,<second>): the server
# job on the first, the client job on the second, so every connection
# between the two jobs crosses the veth pair between the devices.
set -u
dev=${RDMACH_VERBS_DEVICE:?dyn_pair_devices.sh: RDMACH_VERBS_DEVICE=<first>,<second> is unset (run under on_transport.sh)}
[[ $dev == *,* ]] || { echo "dyn_pair_devices.sh: RDMACH_VERBS_DEVICE='$dev' names one device, not two" >&2; exit 2; }
prog=${1:?usage: dyn_pair_devices.sh <program> <launcher...>}
shift
(($#)) || { echo "dyn_pair_devices.sh: no launcher" >&2; exit 2; }
exec "$(dirname "$0")/../mpi/dyn_pair.sh" --server-args "RDMACH_VERBS_DEVICE=${dev%%,*} $*" \
    --client-args "RDMACH_VERBS_DEVICE=${dev#*,} $*" "$prog" env
