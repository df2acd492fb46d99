/*
 * The barrier framework on the thread-based fake device (fake_dev.h): every
 * backend that can run in one process (dissemination, shm, hier, hwsim —
 * the last one exercising the toggle-write-read protocol that ppdev shares)
 * forced in turn, over communicator sizes 1..9 and many consecutive
 * barriers, with a shared arrival counter as the witness that no rank
 * leaves a barrier before every rank has arrived at it. Then the choice:
 * priorities, forcing, a forced backend that does not apply, and a backend
 * whose init fails everywhere (ppdev on a port that does not exist) falling
 * back to dissemination on every rank.
 *
 * The shared-memory backends make real /dev/shm segments (mapped twice by
 * one process here) and their setup messages go through the fake device.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "rdmach_config.h"
#include "base/tunables.h"
#include "coll/barrier.h"
#include "coll/nbc_impl.h"
#include "fake_dev.h"

#define MAXP 16
#define ROUNDS 300

struct run {
    int p;
    const char *expect;        /* backend every rank must report */
    atomic_uint arrived;
    atomic_int bad;
    char err[MAXP][256];
};

static const int worlds[MAXP] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

static void body(int world, void *arg)
{
    struct run *r = arg;
    struct rch_coll_comm c = { .rank = world, .size = r->p, .world_of = worlds, .ctx = 41 };
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(r->err[world], sizeof(r->err[world]), "comm init: %s", rdmach_last_error());
        return;
    }
    for (unsigned k = 0; k < ROUNDS; k++) {
        atomic_fetch_add(&r->arrived, 1);
        /* a late rank now and then, so the others really wait */
        if ((k + (unsigned)world) % 37 == 0)
            for (volatile int spin = 0; spin < 20000; spin++)
                ;
        rdmach_status_t st = rch_coll_barrier(&c);
        if (st != RDMACH_OK) {
            snprintf(r->err[world], sizeof(r->err[world]), "barrier %u: %s", k, rdmach_last_error());
            break;
        }
        unsigned seen = atomic_load(&r->arrived);
        if (seen < (k + 1) * (unsigned)r->p) {
            snprintf(r->err[world], sizeof(r->err[world]),
                     "left barrier %u when only %u of %u arrivals had happened", k, seen,
                     (k + 1) * (unsigned)r->p);
            atomic_store(&r->bad, 1);
            break;
        }
        if (r->expect && strcmp(c.state->bar->name, r->expect) != 0) {
            snprintf(r->err[world], sizeof(r->err[world]), "ran backend %s, expected %s",
                     c.state->bar->name, r->expect);
            break;
        }
    }
    rch_coll_comm_free(&c);
}

static void setup_tunables(int backend, int vnode)
{
    memset(&rch_tun, 0, sizeof(rch_tun));
    rch_tun.spin_count = 200;
    rch_tun.yield_count = 20;
    rch_tun.barrier = backend;
    rch_tun.coll_vnode_size = vnode;
}

static void run_backend(int backend, const char *name, int vnode, int pmin, int pmax)
{
    static const int sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9 };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        int p = sizes[i];
        if (p < pmin || p > pmax)
            continue;
        static struct run r;
        memset(&r, 0, sizeof(r));
        r.p = p;
        r.expect = name;
        setup_tunables(backend, vnode);
        int rc = fake_dev_run(p, (size_t)-1, body, &r);
        for (int q = 0; q < p; q++)
            cr_assert(r.err[q][0] == 0, "%s p=%d vnode=%d: rank %d: %s", name, p, vnode, q, r.err[q]);
        cr_assert_eq(rc, 0, "%s p=%d: deadlock", name, p);
        cr_assert_eq(fake_dev_leftovers(), 0, "%s p=%d: %d messages left over", name, p,
                     fake_dev_leftovers());
    }
}

Test(barrier, dissemination_nobody_leaves_early)
{
    run_backend(RCH_BARRIER_DISSEMINATION, "dissemination", 0, 1, 9);
}

Test(barrier, shm_nobody_leaves_early)
{
    run_backend(RCH_BARRIER_SHM, "shm", 0, 2, 9);
}

Test(barrier, hwsim_nobody_leaves_early)
{
    run_backend(RCH_BARRIER_HWSIM, "hwsim", 0, 2, 9);
}

Test(barrier, hier_nobody_leaves_early_uneven_nodes)
{
    /* pretend nodes of 3 ranks: 4 -> 3+1, 5 -> 3+2, 7 -> 3+3+1, 8 -> 3+3+2 */
    run_backend(RCH_BARRIER_HIER, "hier", 3, 4, 9);
    run_backend(RCH_BARRIER_HIER, "hier", 2, 3, 9);
}

/* ---- the choice ---- */

static const char *choice(int p, int vnode, int backend)
{
    static char why[256];
    setup_tunables(backend, vnode);
    struct rch_coll_comm c = { .rank = 0, .size = p, .world_of = worlds, .ctx = 3 };
    return rch_coll_barrier_choose(&c, why, sizeof(why))->name;
}

Test(barrier, choice_by_priority_and_forcing)
{
    cr_assert_str_eq(choice(4, 0, RCH_BARRIER_AUTO), "shm");
    cr_assert_str_eq(choice(1, 0, RCH_BARRIER_AUTO), "dissemination");   /* nobody to wait for */
    cr_assert_str_eq(choice(8, 3, RCH_BARRIER_AUTO), "hier");
    cr_assert_str_eq(choice(4, 1, RCH_BARRIER_AUTO), "dissemination");   /* one rank per node */
    cr_assert_str_eq(choice(4, 0, RCH_BARRIER_HWSIM), "hwsim");
    cr_assert_str_eq(choice(4, 0, RCH_BARRIER_DISSEMINATION), "dissemination");
    /* forced but not applicable: chosen by priority instead */
    cr_assert_str_eq(choice(8, 3, RCH_BARRIER_SHM), "hier");
    cr_assert_str_eq(choice(4, 0, RCH_BARRIER_HIER), "shm");
    /* ppdev only when configured with a port */
    cr_assert_str_eq(choice(4, 1, RCH_BARRIER_PPDEV), "dissemination");
}

Test(barrier, every_backend_listed_once_with_all_slots)
{
    const struct rch_coll_barrier_ops *const *b = rch_coll_barrier_backends();
    int n = 0, dissem = 0;
    for (; b[n]; n++) {
        cr_assert(b[n]->name && b[n]->summary && b[n]->applies && b[n]->init && b[n]->enter &&
                  b[n]->wait && b[n]->finalize, "backend %d has an empty slot", n);
        cr_assert_eq(rch_coll_barrier_find(b[n]->name), b[n]);
        dissem += strcmp(b[n]->name, "dissemination") == 0;
    }
    cr_assert(n >= 5);
    cr_assert_eq(dissem, 1);
}

/* ppdev on a port that does not exist: every rank's init fails, the ranks
 * agree on it and all use dissemination (and still synchronize). */
Test(barrier, ppdev_without_a_port_falls_back_everywhere)
{
    for (int p = 1; p <= 5; p += 2) {
        static struct run r;
        memset(&r, 0, sizeof(r));
        r.p = p;
        r.expect = "dissemination";
        setup_tunables(RCH_BARRIER_PPDEV, 1);   /* one rank per (pretend) node: ppdev applies */
        snprintf(rch_tun.ppdev, sizeof(rch_tun.ppdev), "/nonexistent/parport%d", p);
        char why[256];
        struct rch_coll_comm c = { .rank = 0, .size = p, .world_of = worlds, .ctx = 3 };
        cr_assert_str_eq(rch_coll_barrier_choose(&c, why, sizeof(why))->name, "ppdev", "%s", why);
        int rc = fake_dev_run(p, (size_t)-1, body, &r);
        for (int q = 0; q < p; q++)
            cr_assert(r.err[q][0] == 0, "ppdev p=%d: rank %d: %s", p, q, r.err[q]);
        cr_assert_eq(rc, 0);
        cr_assert_eq(fake_dev_leftovers(), 0);
    }
}

#if RDMACH_HAVE_OFI
/* libfabric's fi_barrier, forced (libfabric's tcp;ofi_rxm, which every
 * libfabric build with the tcp provider has, offers collectives in
 * software); each thread opens its own endpoint. Not chosen on its own. */
Test(barrier, ofi_nobody_leaves_early)
{
    char why[256];
    struct rch_coll_comm c = { .rank = 0, .size = 2, .world_of = worlds, .ctx = 3 };
    setup_tunables(RCH_BARRIER_AUTO, 1);
    cr_assert_str_eq(rch_coll_barrier_choose(&c, why, sizeof(why))->name, "dissemination", "%s", why);
    setup_tunables(RCH_BARRIER_OFI, 0);
    cr_assert_str_eq(rch_coll_barrier_choose(&c, why, sizeof(why))->name, "ofi", "%s", why);
    run_backend(RCH_BARRIER_OFI, "ofi", 0, 2, 4);
}
#endif

/* The node's leader cannot create the segment (its name is taken): it tells
 * the other ranks, nobody waits for anybody, and all use dissemination.
 * Criterion runs each test in a fresh process, so the leader's first
 * segment is number 0 of this pid. */
Test(barrier, shm_segment_failure_falls_back_everywhere)
{
    char name[128];
    snprintf(name, sizeof(name), "/rdmach-pid%ld-b41-0-0", (long)getpid());
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    cr_assert(fd >= 0, "shm_open(%s): %s", name, strerror(errno));
    close(fd);
    static struct run r;
    memset(&r, 0, sizeof(r));
    r.p = 3;
    r.expect = "dissemination";
    setup_tunables(RCH_BARRIER_SHM, 0);
    int rc = fake_dev_run(3, (size_t)-1, body, &r);
    shm_unlink(name);
    for (int q = 0; q < 3; q++)
        cr_assert(r.err[q][0] == 0, "rank %d: %s", q, r.err[q]);
    cr_assert_eq(rc, 0, "deadlock");
    cr_assert_eq(fake_dev_leftovers(), 0);
}
