/*
 * The collectives' large scratch buffers (a reduction's accumulator and
 * receive buffer, a reduce_scatter's whole vector, a subtree's gathered
 * blocks, a schedule's temporaries), kept between calls.
 *
 * Why: freed, such a buffer goes back to glibc, which returns memory above
 * its trim threshold to the kernel once two of them are freed together; the
 * next call's first touch of each page then faults and the kernel zeroes it.
 * A 64 KiB reduce_scatter (reduce_scatterv) on 4 ranks took 464-491 µs,
 * against 82 µs with the memory kept (docs/PERFORMANCE.md; the simulator's
 * `fresh` term models the old behaviour for the saved measurements).
 *
 * Kept: up to SLOTS buffers of SCRATCH_MIN bytes or more, RDMACH_COLL_SCRATCH_KEEP
 * bytes in all (64 MiB); a request takes the smallest kept buffer that fits.
 * Smaller ones go to malloc and back (its free lists keep them). Every
 * buffer has a header with its capacity, so rch_coll_scratch_free needs no
 * size. A lock: schedules free theirs from whichever thread progresses them.
 */
#include <pthread.h>
#include <stdlib.h>
#include "base/tunables.h"
#include "coll/coll_impl.h"

#define SCRATCH_MIN (64u << 10)
#define SLOTS 8
#define HDR 64                   /* a multiple of malloc's 16-byte alignment: the data keep it */

struct hdr {
    size_t cap;                  /* 0: not for keeping */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct hdr *kept[SLOTS];
static int nkept;
static size_t kept_bytes;

void *rch_coll_scratch(size_t bytes)
{
    struct hdr *h = NULL;
    if (bytes >= SCRATCH_MIN) {
        pthread_mutex_lock(&lock);
        int best = -1;
        for (int i = 0; i < nkept; i++)
            if (kept[i]->cap >= bytes && (best < 0 || kept[i]->cap < kept[best]->cap))
                best = i;
        if (best >= 0) {
            h = kept[best];
            kept[best] = kept[--nkept];
            kept_bytes -= h->cap;
        }
        pthread_mutex_unlock(&lock);
        if (h)
            return (char *)h + HDR;
    }
    h = malloc(HDR + (bytes ? bytes : 1));
    if (!h)
        return NULL;
    h->cap = bytes >= SCRATCH_MIN ? bytes : 0;
    return (char *)h + HDR;
}

void rch_coll_scratch_free(void *p)
{
    if (!p)
        return;
    struct hdr *h = (struct hdr *)((char *)p - HDR);
    if (h->cap) {
        pthread_mutex_lock(&lock);
        int keep = nkept < SLOTS && kept_bytes + h->cap <= rch_tun.coll_scratch_keep;
        if (keep) {
            kept[nkept++] = h;
            kept_bytes += h->cap;
        }
        pthread_mutex_unlock(&lock);
        if (keep)
            return;
    }
    free(h);
}

void rch_coll_scratch_release_all(void)
{
    pthread_mutex_lock(&lock);
    while (nkept > 0)
        free(kept[--nkept]);
    kept_bytes = 0;
    pthread_mutex_unlock(&lock);
}
