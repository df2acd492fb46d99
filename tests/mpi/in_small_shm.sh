#!/bin/bash
# in_small_shm.sh MIB -- COMMAND...: run COMMAND in a private mount namespace
# whose /dev/shm is a fresh tmpfs of MIB MiB, so a test can fill it without
# touching the machine's. Exits 77 (skipped) where that cannot be set up
# (no root, no unshare).
set -u
mib=$1
shift 2
command -v unshare >/dev/null || { echo "in_small_shm.sh: no unshare: skipped"; exit 77; }
unshare -m --propagation private true 2>/dev/null || { echo "in_small_shm.sh: cannot unshare the mount namespace: skipped"; exit 77; }
exec unshare -m --propagation private bash -c 'mount -t tmpfs -o size="$0"m tmpfs /dev/shm || exit 77; exec "$@"' "$mib" "$@"
