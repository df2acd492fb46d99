#!/bin/bash
# check_startup_scaling.sh RDMACHRUN PROGRAM SMALL LARGE
#
# Start-up grows linearly in the ranks of a node, per rank, without timing
# anything: PROGRAM (MPI_Init, a barrier, MPI_Finalize) runs with SMALL and
# LARGE ranks on this node under RDMACH_LOG=debug, and from what each rank
# logs:
#   - its key-value lookups (PMI "get") and stores ("put") do not depend on
#     the number of ranks (a lookup per peer made them grow with it);
#   - the bytes its shared-memory segment reserves at creation do not grow
#     with the local ranks: the header and the doorbell, a bit per local rank,
#     one page up to 30,000 (a page per local rank before: the ring heads,
#     polled whoever sent; a whole ring per local rank before that);
#   - the rings reserved in peers' segments (at the first record to each)
#     are far fewer than the pairs: only the pairs that talk;
#   - so are the single-copy probes (a process_vm_readv each), made when a
#     pair first needs single copy, not when the peer's segment is mapped.
set -u
run=$1 prog=$2 small=$3 large=$4
PAGE=4096
fail() { echo "check_startup_scaling.sh: FAIL: $*"; exit 1; }

# per rank: "<rank> <gets> <puts> <reserved at create> <rings reserved> <single-copy probes>"
measure() {
    local n=$1 out rc
    out=$(RDMACH_LOG=debug RDMACH_BIND=none "$run" -n "$n" "$prog" 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] || { printf '%s\n' "$out" | tail -20; fail "$n ranks: exit status $rc"; }
    printf '%s\n' "$out" | awk -v n="$n" '
        match($0, /^rdmach\[[0-9]+\] /) {
            r = substr($0, 8, RLENGTH - 9) + 0
            if ($0 ~ / pmi: debug: send cmd=get /) gets[r]++
            if ($0 ~ / pmi: debug: send cmd=put /) puts[r]++
            if ($0 ~ / shm: debug: created .* bytes reserved$/) { split($0, w, "; "); split(w[2], v, " "); res[r] = v[1] }
            if ($0 ~ / shm: debug: reserved our ring in rank /) rings[r]++
            if ($0 ~ / shm: debug: .*single copy/) probes[r]++
        }
        END { for (r = 0; r < n; r++) printf "%d %d %d %s %d %d\n", r, gets[r], puts[r], (r in res) ? res[r] : "none", rings[r], probes[r] }'
}

s=$(measure "$small") || { printf '%s\n' "$s"; exit 1; }
l=$(measure "$large") || { printf '%s\n' "$l"; exit 1; }
col_max() { awk -v c="$2" 'BEGIN { m = -1 } { if ($c + 0 > m) m = $c + 0 } END { print m }' <<< "$1"; }
col_min() { awk -v c="$2" 'BEGIN { m = -1 } { if (m < 0 || $c + 0 < m) m = $c + 0 } END { print m }' <<< "$1"; }
for which in s l; do
    if grep -q " none " <<< "${!which}"; then
        fail "a rank logged no 'created ... bytes reserved' line: $(grep ' none ' <<< "${!which}" | head -3 | tr '\n' ';')"
    fi
done

gs=$(col_max "$s" 2) gl=$(col_max "$l" 2) ps=$(col_max "$s" 3) pl=$(col_max "$l" 3)
echo "key-value gets per rank: $gs at $small ranks, $gl at $large; puts: $ps, $pl"
[ "$gl" -eq "$gs" ] || fail "key-value gets per rank grow with the ranks: $gs at $small, $gl at $large"
[ "$pl" -eq "$ps" ] || fail "key-value puts per rank grow with the ranks: $ps at $small, $pl at $large"

rs=$(col_max "$s" 4) rl=$(col_max "$l" 4)
[ "$rs" -eq "$(col_min "$s" 4)" ] && [ "$rl" -eq "$(col_min "$l" 4)" ] || fail "ranks reserve different sizes"
per=$(( (rl - rs) / (large - small) ))
echo "segment bytes reserved at creation: $rs at $small ranks, $rl at $large ($per more per local rank)"
[ "$rl" -eq "$PAGE" ] && [ "$rs" -eq "$PAGE" ] ||
    fail "reserved bytes at creation: $rs at $small ranks, $rl at $large, not one page ($PAGE) for both"

# Who talks at start-up: the agreement on MPI_COMM_WORLD's barrier backend
# (dissemination: ceil(log2 n) peers per rank), the first shared-memory
# barrier's set-up (the node's leader to every local rank and back), and
# MPI_Finalize's exchange along a binomial tree (a parent and children).
# At most n * ceil(log2 n) + 4 (n - 1) rings, against n (n - 1) pairs.
lg=0; while [ $(( 1 << lg )) -lt "$large" ]; do lg=$(( lg + 1 )); done
bound=$(( large * lg + 4 * (large - 1) ))
kl=$(col_max "$l" 5)
tl=$(awk '{ t += $5 } END { print t }' <<< "$l")
echo "rings reserved in peers' segments at $large ranks: $tl (bound $bound, pairs $((large * (large - 1)))), at most $kl by one rank"
[ "$tl" -ge 1 ] || fail "no rank reserved a ring (no 'reserved our ring' line): the barrier sent nothing?"
[ "$bound" -lt $(( large * (large - 1) )) ] || fail "LARGE=$large is too small to tell the bound from all pairs"
[ "$tl" -le "$bound" ] || fail "$tl rings reserved: more than the $bound of the pairs that talk"
# A probe per pair that needs single copy: at start-up (no rendezvous data,
# whose receivers would probe too) the senders' first records, not one per
# mapped peer.
pl=$(awk '{ t += $6 } END { print t }' <<< "$l")
echo "single-copy probes at $large ranks: $pl (bound $bound, pairs $((large * (large - 1))))"
[ "$pl" -le "$bound" ] || fail "$pl single-copy probes: one per mapped peer, not per pair that talks"
echo "check_startup_scaling.sh: PASS"
