/*
 * The barrier framework: the list of backends, the choice per communicator
 * and MPI_Barrier's path through it (see barrier.h for the contract).
 *
 * A communicator's first barrier after its young ones (young(), below:
 * those run by dissemination) chooses: the backend forced with
 * RDMACH_BARRIER if it applies, else the applicable backend of highest
 * priority. Every rank then runs that backend's init and the ranks agree on
 * the outcome (the minimum of their statuses, spread by dissemination on
 * the setup tag): if init failed anywhere — no /dev/shm room on one node, no
 * parallel port on another — every rank releases what it made and uses
 * dissemination, with a warning naming the backend and the reason. The
 * choice is the same on every rank because applies() reads only the
 * communicator's shape and the configuration, and the agreement makes a
 * failure anywhere a failure everywhere.
 *
 * A view without state (no rch_coll_comm_init: unit tests, internal
 * sub-views) runs dissemination directly and chooses nothing.
 */
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "coll/nbc_impl.h"

/* Every backend, in the order rdmach-info lists them. */
static const struct rch_coll_barrier_ops *const backends[] = {
    &rch_coll_barrier_shm_ops,
    &rch_coll_barrier_hier_ops,
    &rch_coll_barrier_hwsim_ops,
    &rch_coll_barrier_ppdev_ops,
    &rch_coll_barrier_ofi_ops,
    &rch_coll_barrier_dissemination_ops,
    NULL,
};

static const char *last = "";   /* atomic: threads may enter barriers at once */

const struct rch_coll_barrier_ops *const *rch_coll_barrier_backends(void)
{
    return backends;
}

const struct rch_coll_barrier_ops *rch_coll_barrier_find(const char *name)
{
    for (int i = 0; backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

const char *rch_coll_barrier_last(void)
{
    return __atomic_load_n(&last, __ATOMIC_RELAXED);
}

RDMACH_API const char *rdmach_barrier_backend(void)
{
    return rch_coll_barrier_last();
}

/* The backend RDMACH_BARRIER names, NULL for auto. */
static const struct rch_coll_barrier_ops *forced(void)
{
    const struct rch_tun_row *row = rch_base_tun_find("BARRIER");
    char name[64];
    if (!row || rch_tun.barrier == RCH_BARRIER_AUTO)
        return NULL;
    rch_base_tun_format(row, name, sizeof(name));
    return rch_coll_barrier_find(name);
}

const struct rch_coll_barrier_ops *rch_coll_barrier_choose(const struct rch_coll_comm *c, char *why,
                                                           size_t len)
{
    const struct rch_coll_barrier_ops *f = forced(), *best = &rch_coll_barrier_dissemination_ops;
    char reason[192];
    if (f) {
        if (f->applies(c, reason, sizeof(reason))) {
            snprintf(why, len, "RDMACH_BARRIER=%s: %s", f->name, reason);
            return f;
        }
        RCH_INFO("barrier", "RDMACH_BARRIER=%s does not apply to a communicator of %d ranks (%s); "
                 "choosing by priority", f->name, c->size, reason);
    }
    if (c->size == 1) {
        /* nothing to wait for: no backend's set-up is worth its cost (the
         * libfabric one's probe loads the provider, 0.3-0.6 s) */
        snprintf(why, len, "one rank");
        return best;
    }
    snprintf(why, len, "nothing else applies");
    for (int i = 0; backends[i]; i++) {
        const struct rch_coll_barrier_ops *b = backends[i];
        if (b->priority > best->priority && b->applies(c, reason, sizeof(reason))) {
            best = b;
            snprintf(why, len, "priority %d: %s", b->priority, reason);
        }
    }
    return best;
}

/*
 * Agreement: every rank ends with the minimum of all ranks' statuses.
 * Dissemination with the minimum as the combining step: after round k a
 * rank holds the minimum over 2^(k+1) consecutive ranks, so after
 * ceil(lg p) rounds over all of them (the minimum tolerates counting a rank
 * twice).
 */
rdmach_status_t rch_coll_agree_min(const struct rch_coll_comm *c, int32_t mine, int32_t *all)
{
    int p = c->size;
    int32_t v = mine, in;
    for (int k = 1; k < p; k <<= 1) {
        rdmach_status_t st = rch_coll_sendrecv(c, &v, sizeof(v), (c->rank + k) % p, &in, sizeof(in),
                                               (c->rank - k + p) % p, RCH_COLL_TAG_BARRIER_SETUP);
        if (st != RDMACH_OK)
            return st;
        if (in < v)
            v = in;
    }
    *all = v;
    return RDMACH_OK;
}

/* One warning per backend and process (every communicator would repeat it). */
static int warned_once(const struct rch_coll_barrier_ops *b)
{
    static unsigned warned;    /* atomic: ranks may be threads of one process */
    for (unsigned i = 0; backends[i]; i++)
        if (backends[i] == b)
            return (__atomic_fetch_or(&warned, 1u << i, __ATOMIC_RELAXED) >> i) & 1u;
    return 0;
}

static rdmach_status_t choose_and_init(struct rch_coll_cstate *cs)
{
    const struct rch_coll_comm *c = &cs->view;
    char why[256];
    const struct rch_coll_barrier_ops *b = rch_coll_barrier_choose(c, why, sizeof(why));
    void *state = NULL;
    rdmach_status_t st = b->init(c, &state);
    if (b != &rch_coll_barrier_dissemination_ops) {
        char cause[256];
        snprintf(cause, sizeof(cause), "%s", st != RDMACH_OK ? rdmach_last_error() : "");
        int32_t all = RDMACH_OK;
        rdmach_status_t ast = rch_coll_agree_min(c, st, &all);
        if (ast != RDMACH_OK) {
            if (st == RDMACH_OK)
                b->finalize(state);
            return ast;
        }
        if (all != RDMACH_OK) {
            if (st == RDMACH_OK)
                b->finalize(state);
            if (st != RDMACH_OK && !warned_once(b))
                RCH_WARN("barrier", "backend %s failed here: %s; every rank of the communicator "
                         "uses dissemination", b->name, cause);
            else if (st != RDMACH_OK)
                RCH_DEBUG("barrier", "backend %s failed here: %s; using dissemination", b->name, cause);
            else
                RCH_DEBUG("barrier", "backend %s failed on another rank (%s); using dissemination",
                          b->name, rdmach_strerror((rdmach_status_t)all));
            b = &rch_coll_barrier_dissemination_ops;
            snprintf(why, sizeof(why), "fallback after a failed init");
            st = b->init(c, &state);
        }
    }
    if (st != RDMACH_OK)
        return st;
    RCH_DEBUG("barrier", "communicator of %d ranks (ctx %u): backend %s (%s)", c->size,
              (unsigned)c->ctx, b->name, why);
    cs->bar = b;
    cs->bar_state = state;
    return RDMACH_OK;
}

/* A young communicator's barriers (the first COLL_SEG_AFTER calls of it that
 * would set up shared memory, counted with its collectives': coll_select.c)
 * run by dissemination and choose nothing yet, unless a backend is forced.
 * Every rank calls every barrier, so the count is the same on all. */
static int young(struct rch_coll_cstate *cs)
{
    if (cs->view.size < 2 || cs->seg_deferred >= (uint32_t)rch_tun.coll_seg_after || forced())
        return 0;
    cs->seg_deferred++;
    return 1;
}

rdmach_status_t rch_coll_barrier_run(const struct rch_coll_comm *c)
{
    struct rch_coll_cstate *cs = c->state;
    if (!cs || (RCH_UNLIKELY(!cs->bar) && young(cs))) {
        __atomic_store_n(&last, rch_coll_barrier_dissemination_ops.name, __ATOMIC_RELAXED);
        return rch_coll_barrier_dissem_run(c, RCH_COLL_TAG_BARRIER);
    }
    if (RCH_UNLIKELY(!cs->bar)) {
        rdmach_status_t st = choose_and_init(cs);
        if (st != RDMACH_OK)
            return st;
    }
    __atomic_store_n(&last, cs->bar->name, __ATOMIC_RELAXED);
    rdmach_status_t st = cs->bar->enter(cs->bar_state);
    return st != RDMACH_OK ? st : cs->bar->wait(cs->bar_state);
}
