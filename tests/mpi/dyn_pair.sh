#!/bin/bash
# Two jobs started separately: "server" opens and publishes a port and
# prints it; once that line is out, "client" is started with it and
# connects. Usage:
#   dyn_pair.sh [--np <ranks per job, 2>] [--server-args "<words>"] [--client-args "<words>"] <program> <launcher and its arguments...>
# (the launcher is run as "<launcher...> <server words> -n 2 <program> server",
# then "<launcher...> <client words> -n 2 <program> client <port>"; the
# words, e.g. "-hosts h1", place each job).
# The names go to a directory of this run only (RDMACH_NAMESERV_DIR).
set -o pipefail
sargs=() cargs=() np=2
while [ $# -gt 0 ]; do
    case $1 in
    --np) np=$2; shift 2 ;;
    --server-args) read -r -a sargs <<<"$2"; shift 2 ;;
    --client-args) read -r -a cargs <<<"$2"; shift 2 ;;
    *) break ;;
    esac
done
prog=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
export RDMACH_NAMESERV_DIR=$dir
"$@" "${sargs[@]}" -n "$np" "$prog" server | {
    read -r word port || { echo "dyn_pair: the server printed no port" >&2; exit 1; }
    [ "$word" = PORT ] || { echo "dyn_pair: the server printed '$word $port'" >&2; exit 1; }
    echo "dyn_pair: the server's port is $port"
    # not the server's output as its stdin (Hydra forwards stdin to rank 0)
    "$@" "${cargs[@]}" -n "$np" "$prog" client "$port" </dev/null || exit 1
    cat
}
