#!/bin/bash
# Hydra's "ssh" inside a cluster made by cluster.sh (docs/CLUSTER.md).
#
#   enter_host.sh [-x] <host> <remote command words...>
#
# Hydra's ssh launcher runs `<launcher-exec> -x <host> "<proxy>" --control-port
# ctl:<port> ...`, exactly as it would run ssh. Like ssh, this joins the
# command words with spaces and has a shell run them — but "on" <host>:
# inside the host's network namespace (its address), a new UTS namespace
# (its hostname) and a new mount namespace with the cluster's hosts file
# over /etc/hosts and a private tmpfs over /dev/shm (its shared memory).
# All ranks of one host are children of that one proxy, so they share these.
#
# The cluster is named by RCH_CLUSTER_STATE (set by cluster.sh; mpiexec
# passes its environment to its launcher): a directory with "prefix" (the
# namespaces are <prefix>-h<i>), "hosts" and the log "launched".
# An unknown host fails like an unreachable one with ssh: status 255.
set -u

state=${RCH_CLUSTER_STATE:-}
if [ -z "$state" ] || [ ! -r "$state/prefix" ]; then
    echo "enter_host.sh: RCH_CLUSTER_STATE does not name a cluster made by cluster.sh" >&2
    exit 255
fi
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
    shift   # ssh options Hydra adds (-x: no X11 forwarding)
done
if [ $# -lt 2 ]; then
    echo "enter_host.sh: usage: enter_host.sh [-x] <host> <command...>" >&2
    exit 255
fi
host=$1
shift
prefix=$(cat "$state/prefix")
addr=$(awk -v h="$host" '$2 == h { print $1 }' "$state/hosts")
if ! [[ $host =~ ^h[1-9]$ ]] || [ -z "$addr" ] || [ ! -e "/run/netns/$prefix-$host" ]; then
    echo "enter_host.sh: ssh: Could not resolve hostname $host: not a host of cluster $prefix" \
         "(hosts: $(awk '$2 ~ /^h/ { printf "%s ", $2 }' "$state/hosts"))" >&2
    exit 255
fi
echo "$host" >>"$state/launched"
echo "cluster: hydra proxy on $host ($addr, netns $prefix-$host)" >&2

exec ip netns exec "$prefix-$host" unshare --uts --mount -- /bin/bash -c '
    host=$1 state=$2
    shift 2
    hostname "$host" && mount --bind "$state/hosts" /etc/hosts &&
        mount -t tmpfs -o mode=1777 "shm-$host" /dev/shm || exit 255
    exec /bin/bash -c "$*"' _ "$host" "$state" "$@"
