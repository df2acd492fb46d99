#!/bin/sh
# check_trace.sh <rdmachrun> <net_job>: run a 2-rank job in which the server
# (rank 0) speaks first, with RDMACH_LOG=debug, and check from its trace that
#   - the server posted its receives before accepting,
#   - the client's first post was the NOOP, made before it called itself ready,
#   - the server's first post to the client came after the client's NOOP arrived,
#     and it was the NOOP_ACK, which reached the client.
set -u
run=$1
job=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
RDMACH_LOG=debug RDMACH_VNODE_SIZE=1 "$run" -n 2 "$job" trace >/dev/null 2>"$log"
rc=$?
if [ $rc -ne 0 ]; then
    echo "check_trace: the job failed ($rc):"; cat "$log"; exit 1
fi
# line number of the first line of rank $1 matching $2 (0: none)
first() {
    grep -n "^rdmach\[$1\] net: debug: .*$2" "$log" | head -1 | cut -d: -f1 | sed 's/^$/0/'
}
fail=0
need() { # need <what> <line>
    if [ "${2:-0}" = 0 ]; then echo "check_trace: no trace line for: $1"; fail=1; fi
}
accepted=$(first 0 "server: accepted rank 1's connect request (.* receives posted before the accept)")
noop_in=$(first 0 "server: NOOP from rank 1 arrived; ready")
srv_post=$(first 0 "server: first post to rank 1")
srv_ack=$(first 0 "server: first post to rank 1 (NOOP_ACK send)")
cli_acked=$(first 1 "client: rank 0 answered the NOOP")
cli_post=$(first 1 "client: first post to rank 0")
cli_noop=$(first 1 "client: first post to rank 0 (NOOP send)")
cli_ready=$(first 1 "client: connected to rank 0; NOOP sent first; ready")
need "server accepted with receives posted" "$accepted"
need "server saw the NOOP" "$noop_in"
need "server's first post" "$srv_post"
need "client's first post" "$cli_post"
need "client ready" "$cli_ready"
need "client saw the NOOP_ACK" "$cli_acked"
if [ "$fail" = 0 ]; then
    [ "$accepted" -lt "$noop_in" ] || { echo "check_trace: NOOP before the accept"; fail=1; }
    [ "$noop_in" -lt "$srv_post" ] || { echo "check_trace: the server posted before the client's NOOP arrived"; fail=1; }
    [ "$srv_post" = "$srv_ack" ] || { echo "check_trace: the server's first post was not the NOOP_ACK"; fail=1; }
    [ "$cli_post" = "$cli_noop" ] || { echo "check_trace: the client's first post was not the NOOP"; fail=1; }
    [ "$cli_noop" -lt "$cli_ready" ] || { echo "check_trace: the client was ready before its NOOP"; fail=1; }
fi
if [ "$fail" != 0 ]; then
    echo "--- trace ---"; grep " net: " "$log"; exit 1
fi
echo "check_trace: server accepted (line $accepted), NOOP arrived (line $noop_in), server's first post the NOOP_ACK (line $srv_post); client's first post was the NOOP"
exit 0
