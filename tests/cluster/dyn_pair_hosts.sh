#!/bin/bash
# Two separately launched jobs on two hosts of a cluster.sh cluster, for
# MPI_Comm_accept/connect between hosts: cluster.sh runs this as its
# MPIEXEC (MPIEXEC=dyn_pair_hosts.sh cluster.sh ... -- -hosts S,C <program>),
#   dyn_pair_hosts.sh <Hydra launcher options...> -hosts <S>,<C> <program>
# and it runs tests/mpi/dyn_pair.sh with the server job (2 ranks) on host S
# and the client job (2 ranks; DYN_PAIR_NP ranks each if set) on host C,
# each under its own mpiexec.mpich.
set -u
here=$(cd "$(dirname "$0")" && pwd)
launcher=()
while [ $# -gt 0 ] && [ "$1" != -hosts ]; do
    launcher+=("$1")
    shift
done
if [ $# -ne 3 ] || ! [[ $2 =~ ^(h[1-9]),(h[1-9])$ ]]; then
    echo "dyn_pair_hosts.sh: usage: dyn_pair_hosts.sh <launcher options...> -hosts <server host>,<client host> <program>" >&2
    exit 2
fi
exec "$here/../mpi/dyn_pair.sh" --np "${DYN_PAIR_NP:-2}" --server-args "-hosts ${BASH_REMATCH[1]}" --client-args "-hosts ${BASH_REMATCH[2]}" \
    "$3" mpiexec.mpich "${launcher[@]}"
