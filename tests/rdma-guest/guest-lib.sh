# Helpers for commands run inside the rdma guest (sourced by smoke and measure).
# shellcheck shell=bash disable=SC2034 # the arrays filled here are used by the scripts that source this file
# The guest exports RDMACH_TEST_DEVICES="siw0:siw1 rxe0:rxe1" and
# RDMACH_TEST_ADDRS="192.0.2.1:192.0.2.2 198.51.100.1:198.51.100.2" (same order).

[[ ${RDMACH_TEST_GUEST:-} == 1 ]] || { echo "this runs inside the rdma guest (tests/rdma-guest/run)" >&2; exit 2; }

# transport_of <device>: siw0 -> siw
transport_of() { echo "${1%%[0-9]*}"; }

# Fills TRANSPORTS, and SRV_DEV/CLI_DEV/SRV_IP/CLI_IP keyed by transport name.
declare -a TRANSPORTS=()
declare -A SRV_DEV=() CLI_DEV=() SRV_IP=() CLI_IP=()
load_transports() {
  local -a devs addrs
  read -r -a devs <<<"$RDMACH_TEST_DEVICES"
  read -r -a addrs <<<"$RDMACH_TEST_ADDRS"
  ((${#devs[@]} == ${#addrs[@]})) || { echo "RDMACH_TEST_DEVICES and RDMACH_TEST_ADDRS differ in length" >&2; return 2; }
  local i t
  for ((i = 0; i < ${#devs[@]}; i++)); do
    t=$(transport_of "${devs[i]%%:*}")
    TRANSPORTS+=("$t")
    SRV_DEV[$t]=${devs[i]%%:*} CLI_DEV[$t]=${devs[i]#*:}
    SRV_IP[$t]=${addrs[i]%%:*} CLI_IP[$t]=${addrs[i]#*:}
  done
}

# wait_cm_listen <port> <device> <secs> [pid]: until an RDMA CM id listens on
# <port> on <device> (polls `rdma resource show cm_id`; a wildcard listener
# shows one line per device, "link rxe0/- ... state LISTEN ... :<port>", once
# it listens there). Gives up early if process <pid> is gone.
wait_cm_listen() {
  local port=$1 dev=$2 secs=$3 pid=${4:-} i
  for ((i = 0; i < secs * 20; i++)); do
    rdma resource show cm_id 2>/dev/null |
      grep -Eq "^link $dev/.* state LISTEN .*src-addr [^ ]*:$port( |$)" && return 0
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      echo "the server exited before listening on $dev port $port" >&2
      return 1
    fi
    sleep 0.05
  done
  echo "no RDMA CM listener on $dev port $port after ${secs}s" >&2
  return 1
}

# server_client <secs> <port> <server device> <server out> <client out> <server cmd...> -- <client cmd...>
# Starts the server, waits until it listens on <port> on <server device>, runs
# the client; each under a timeout of <secs>. If the client fails the server is
# stopped at once. Returns 0 only if both exit 0.
server_client() {
  local secs=$1 port=$2 dev=$3 sout=$4 cout=$5; shift 5
  local -a srv=() cli=()
  while (($#)) && [[ $1 != -- ]]; do srv+=("$1"); shift; done
  shift
  cli=("$@")
  timeout -k 5 "$secs" "${srv[@]}" >"$sout" 2>&1 &
  local spid=$! src=0 crc=0
  if ! wait_cm_listen "$port" "$dev" 20 "$spid"; then
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    echo "server did not listen: ${srv[*]}" >&2; cat "$sout" >&2
    return 1
  fi
  timeout -k 5 "$secs" "${cli[@]}" >"$cout" 2>&1 || crc=$?
  ((crc == 0)) || kill "$spid" 2>/dev/null
  wait "$spid" || src=$?
  if ((crc != 0 || src != 0)); then
    echo "server exit $src: ${srv[*]}" >&2; cat "$sout" >&2
    echo "client exit $crc: ${cli[*]}" >&2; cat "$cout" >&2
    echo "kernel log (last lines):" >&2; dmesg 2>/dev/null | tail -n 15 >&2
    return 1
  fi
  return 0
}

# hw_counter <device> <name>: a Soft-RoCE port counter (0 if the device has none).
hw_counter() {
  local f=/sys/class/infiniband/$1/ports/1/hw_counters/$2
  if [[ -r $f ]]; then cat "$f"; else echo 0; fi
}
