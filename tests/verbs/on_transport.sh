#!/bin/bash
# on_transport.sh [--no-traffic] <siw|rxe> <command...>
# Runs one verbs test command over one transport of the rdma guest
# (tests/rdma-guest/run), and checks that the traffic took that transport.
#
# The guest exports RDMACH_TEST_DEVICES="siw0:siw1 rxe0:rxe1" (server:client
# device of each transport). This sets
#   RDMACH_NET=verbs
#   RDMACH_VERBS_DEVICE=<first>,<second>   node 0 listens on the first device,
#                                          node 1 on the second (node k: k mod 2)
# so ranks of different (virtual) nodes talk across the veth pair between the
# two devices. Outside the guest (no RDMACH_TEST_DEVICES) it FAILS: these
# tests carry the ctest label "verbs" and the default test run excludes them
# (ctest -LE verbs); tests/rdma-guest/run runs them where the devices exist.
#
# Afterwards, proof of the transport from the Soft-RoCE packet counters:
# over rxe both rxe devices must have received packets (unless --no-traffic:
# a test that opens the device but sends nothing); over siw the rxe counters
# must not have moved (siw has no counters; ctest runs the tests one at a time).
set -u
traffic=1
if [[ ${1:-} == --no-traffic ]]; then traffic=0; shift; fi
t=${1:?usage: on_transport.sh [--no-traffic] <siw|rxe> <command...>}
shift
(($#)) || { echo "on_transport.sh: no command" >&2; exit 2; }

if [[ -z ${RDMACH_TEST_DEVICES:-} ]]; then
    echo "on_transport.sh: FAIL: no RDMA test devices (RDMACH_TEST_DEVICES is unset). Verbs tests run" \
         "inside the rdma guest: tests/rdma-guest/run --build-dir <build>" >&2
    exit 1
fi
pair=
for p in $RDMACH_TEST_DEVICES; do
    [[ ${p%%[0-9]*} == "$t" ]] && pair=$p
done
[[ -n $pair ]] || { echo "on_transport.sh: FAIL: no $t devices in RDMACH_TEST_DEVICES='$RDMACH_TEST_DEVICES'" >&2; exit 1; }
a=${pair%%:*} b=${pair#*:}
for d in "$a" "$b"; do
    [[ -d /sys/class/infiniband/$d ]] || { echo "on_transport.sh: FAIL: device $d does not exist" >&2; exit 1; }
done

export RDMACH_NET=verbs RDMACH_VERBS_DEVICE="$a,$b"
unset RDMACH_VERBS_ADDR

counter() { # counter <device> <name>
    local f=/sys/class/infiniband/$1/ports/1/hw_counters/$2
    if [[ -r $f ]]; then cat "$f"; else echo 0; fi
}
rxe_devs=()
for p in $RDMACH_TEST_DEVICES; do
    [[ ${p%%[0-9]*} == rxe ]] && rxe_devs+=("${p%%:*}" "${p#*:}")
done
declare -A rx0=()
for d in "${rxe_devs[@]}"; do rx0[$d]=$(counter "$d" rcvd_pkts); done

echo "on_transport.sh: $t ($a for node 0, $b for node 1): $*"
# the guest's own variables are no tunables: keep them from rdmach's "not a tunable" warnings
env -u RDMACH_TEST_DEVICES -u RDMACH_TEST_ADDRS -u RDMACH_TEST_NETDEVS -u RDMACH_TEST_GUEST \
    -u RDMACH_GUEST_RESULTS "$@"
rc=$?
((rc == 0)) || { echo "on_transport.sh: the test failed over $t (exit $rc)"; exit "$rc"; }

moved=0
for d in "${rxe_devs[@]}"; do
    n=$(( $(counter "$d" rcvd_pkts) - rx0[$d] ))
    echo "on_transport.sh: $d received $n packets during the test"
    if ((traffic)) && [[ $t == rxe ]] && ((n == 0)) && [[ $d == "$a" || $d == "$b" ]]; then
        echo "on_transport.sh: FAIL: $d received no packet: the test did not run over rxe"; exit 1
    fi
    moved=$((moved + n))
done
if [[ $t == siw ]] && ((moved != 0)); then
    echo "on_transport.sh: FAIL: $moved Soft-RoCE packets during a siw test: it did not run over siw only"; exit 1
fi
exit 0
