#!/bin/bash
# Two jobs started separately: "server" opens and publishes a port and
# prints it; once that line is out, "client" is started with it and
# connects. Usage: dyn_pair.sh <program> <launcher and its arguments...>
# (the launcher is run as "<launcher...> -n 2 <program> <mode>").
# The names go to a directory of this run only (RDMACH_NAMESERV_DIR).
set -o pipefail
prog=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
export RDMACH_NAMESERV_DIR=$dir
"$@" -n 2 "$prog" server | {
    read -r word port || { echo "dyn_pair: the server printed no port" >&2; exit 1; }
    [ "$word" = PORT ] || { echo "dyn_pair: the server printed '$word $port'" >&2; exit 1; }
    "$@" -n 2 "$prog" client "$port" || exit 1
    cat
}
