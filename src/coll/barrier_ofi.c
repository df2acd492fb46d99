/*
 * ofi: libfabric's own barrier (fi_barrier) where a provider offers
 * collectives (FI_COLLECTIVE on an RDM endpoint).
 *
 * The network channel (src/rdma/ofi) uses connected MSG endpoints of a core
 * provider; the core `tcp` provider has no collectives. This backend opens
 * its own RDM endpoint on a provider that has them, per communicator:
 *
 *   init:  fi_getinfo(FI_EP_RDM, FI_COLLECTIVE | FI_MSG) → fabric, domain,
 *          CQ, EQ, AV, endpoint; exchange the endpoint names (and each
 *          rank's status, so that all give up together if one failed)
 *          over the device on the setup tag; fi_av_insert in rank order;
 *          fi_av_set over all of them; fi_join_collective; wait for
 *          FI_JOIN_COMPLETE on the EQ
 *   enter: fi_barrier(ep, the collective's address)
 *   wait:  fi_cq_read until it completes (the device is progressed, and
 *          the core yielded, between empty reads)
 *
 * When it applies: a provider with FI_COLLECTIVE exists (RDMACH_OFI_PROVIDER,
 * if set, must be part of its name) and the communicator has two ranks or
 * more. Chosen automatically (priority 20: above dissemination, below the
 * shared-memory backends) only when the collectives are the provider's own;
 * a utility layer's (libfabric 1.17's tcp;ofi_rxm implements them in
 * software over tcp, as our dissemination does over our channel) only
 * when forced with RDMACH_BARRIER=ofi — on this machine the tcp;ofi_rxm
 * barrier works and is tested that way.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "coll/barrier.h"

#if RDMACH_HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include "base/dl.h"

#define OFI_VERSION FI_VERSION(1, 9)
#define NAME_MAX_BYTES 128
#define JOIN_TIMEOUT_NS (30ull * 1000000000ull)

/* What every rank tells every other during init. */
struct ofi_card {
    int32_t status;            /* RDMACH_OK, or why this rank cannot take part */
    uint32_t len;              /* bytes of name */
    unsigned char name[NAME_MAX_BYTES];
};

struct ofi_state {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    struct fid_cq *cq;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_av_set *set;
    struct fid_mc *mc;
    fi_addr_t coll;            /* the joined collective's address */
    int ctx;                   /* operation context (one barrier at a time) */
    struct rch_coll_bar_waiter waiter;
};

static struct fi_info *make_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_COLLECTIVE | FI_MSG;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    return h;
}

/* The provider answer to use (IPv4 over IPv6, as the channel does), or NULL. */
static struct fi_info *pick(struct fi_info *list)
{
    struct fi_info *first = NULL;
    for (struct fi_info *i = list; i; i = i->next) {
        if (!(i->caps & FI_COLLECTIVE))
            continue;
        if (rch_tun.ofi_provider[0] && !strstr(i->fabric_attr->prov_name, rch_tun.ofi_provider))
            continue;
        if (!first)
            first = i;
        if (i->addr_format == FI_SOCKADDR_IN && !strcmp(i->fabric_attr->prov_name, first->fabric_attr->prov_name))
            return i;
    }
    return first;
}

/* Probed once per process: which provider offers collectives. */
static int probed;
static char probe_prov[64];
static char probe_why[160];

static void probe(void)
{
    if (probed)
        return;
    probed = 1;
    if (rch_base_dl_open(&rch_base_dl_ofi) != RDMACH_OK) {
        snprintf(probe_why, sizeof(probe_why), "%s", rdmach_last_error());
        return;
    }
    struct fi_info *hints = make_hints(), *list = NULL;
    if (!hints) {
        snprintf(probe_why, sizeof(probe_why), "fi_allocinfo failed");
        return;
    }
    int ret = fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    struct fi_info *i = ret == 0 ? pick(list) : NULL;
    if (i)
        snprintf(probe_prov, sizeof(probe_prov), "%s", i->fabric_attr->prov_name);
    else
        snprintf(probe_why, sizeof(probe_why), "no libfabric provider%s%s%s offers FI_COLLECTIVE on RDM "
                 "endpoints", rch_tun.ofi_provider[0] ? " named like '" : "", rch_tun.ofi_provider,
                 rch_tun.ofi_provider[0] ? "'" : "");
    fi_freeinfo(list);
}

static int ofi_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    probe();
    if (!probe_prov[0]) {
        snprintf(why, len, "%s", probe_why);
        return 0;
    }
    if (c->size < 2) {
        snprintf(why, len, "a single rank has nobody to wait for");
        return 0;
    }
    /* a utility provider's collectives ("core;ofi_util") are software */
    int utility = strstr(probe_prov, ";ofi_") != NULL;
    if (utility && rch_tun.barrier != RCH_BARRIER_OFI) {
        snprintf(why, len, "%s offers FI_COLLECTIVE only in software (a utility layer); "
                 "RDMACH_BARRIER=ofi forces it", probe_prov);
        return 0;
    }
    snprintf(why, len, "fi_barrier on %s", probe_prov);
    return 1;
}

static rdmach_status_t fi_fail(int ret, const char *what)
{
    return rch_base_err(ret == -FI_ENOMEM ? RDMACH_ERR_NO_MEMORY : RDMACH_ERR_IO,
                        "barrier ofi: %s: %s", what, fi_strerror(ret < 0 ? -ret : ret));
}

static void close_all(struct ofi_state *s)
{
    if (s->mc)
        fi_close(&s->mc->fid);
    if (s->set)
        fi_close(&s->set->fid);
    if (s->ep)
        fi_close(&s->ep->fid);
    if (s->av)
        fi_close(&s->av->fid);
    if (s->cq)
        fi_close(&s->cq->fid);
    if (s->eq)
        fi_close(&s->eq->fid);
    if (s->domain)
        fi_close(&s->domain->fid);
    if (s->fabric)
        fi_close(&s->fabric->fid);
    if (s->info)
        fi_freeinfo(s->info);
    free(s);
}

/* This rank's endpoint, up to its name. */
static rdmach_status_t open_local(struct ofi_state *s, struct ofi_card *card)
{
    rdmach_status_t st = rch_base_dl_open(&rch_base_dl_ofi);
    if (st != RDMACH_OK)
        return st;
    struct fi_info *hints = make_hints(), *list = NULL;
    int ret;
    if (!hints)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier ofi: fi_allocinfo failed");
    ret = fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    struct fi_info *i = ret == 0 ? pick(list) : NULL;
    if (!i) {
        fi_freeinfo(list);
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "barrier ofi: no provider offers FI_COLLECTIVE");
    }
    s->info = fi_dupinfo(i);
    fi_freeinfo(list);
    if (!s->info)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier ofi: fi_dupinfo failed");
    struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE };
    struct fi_av_attr ava = { .type = FI_AV_TABLE };
    struct fi_eq_attr eqa = { .wait_obj = FI_WAIT_NONE };
    if ((ret = fi_fabric(s->info->fabric_attr, &s->fabric, NULL)))
        return fi_fail(ret, "fi_fabric");
    if ((ret = fi_domain(s->fabric, s->info, &s->domain, NULL)))
        return fi_fail(ret, "fi_domain");
    if ((ret = fi_cq_open(s->domain, &cqa, &s->cq, NULL)))
        return fi_fail(ret, "fi_cq_open");
    if ((ret = fi_av_open(s->domain, &ava, &s->av, NULL)))
        return fi_fail(ret, "fi_av_open");
    if ((ret = fi_eq_open(s->fabric, &eqa, &s->eq, NULL)))
        return fi_fail(ret, "fi_eq_open");
    if ((ret = fi_endpoint(s->domain, s->info, &s->ep, NULL)))
        return fi_fail(ret, "fi_endpoint");
    if ((ret = fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (ret = fi_ep_bind(s->ep, &s->av->fid, 0)) || (ret = fi_ep_bind(s->ep, &s->eq->fid, 0)))
        return fi_fail(ret, "fi_ep_bind");
    if ((ret = fi_enable(s->ep)))
        return fi_fail(ret, "fi_enable");
    size_t len = sizeof(card->name);
    if ((ret = fi_getname(&s->ep->fid, card->name, &len)))
        return fi_fail(ret, "fi_getname");
    card->len = (uint32_t)len;
    return RDMACH_OK;
}

/* Everyone's card, in rank order (a linear exchange on the setup tag). */
static rdmach_status_t exchange(const struct rch_coll_comm *c, const struct ofi_card *mine,
                                struct ofi_card *all)
{
    struct rch_coll_batch b;
    rdmach_status_t st = rch_coll_batch_init(&b, c, RCH_COLL_TAG_BARRIER_SETUP, 2 * c->size);
    if (st != RDMACH_OK)
        return st;
    all[c->rank] = *mine;
    for (int r = 0; r < c->size && st == RDMACH_OK; r++)
        if (r != c->rank)
            st = rch_coll_batch_recv(&b, &all[r], sizeof(all[r]), r);
    for (int r = 0; r < c->size && st == RDMACH_OK; r++)
        if (r != c->rank)
            st = rch_coll_batch_send(&b, mine, sizeof(*mine), r);
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    return st;
}

static void progress_idle(struct ofi_state *s, unsigned *polls)
{
    if (++*polls > (unsigned)s->waiter.spin) {
        sched_yield();
        rch_dev_progress();
    } else if (*polls % (unsigned)s->waiter.progress_every == 0) {
        rch_dev_progress();
    }
}

static rdmach_status_t join(struct ofi_state *s, const struct rch_coll_comm *c,
                            const struct ofi_card *all)
{
    int p = c->size, ret;
    unsigned char *names = malloc((size_t)p * NAME_MAX_BYTES);
    fi_addr_t *fa = malloc((size_t)p * sizeof(*fa));
    rdmach_status_t st = RDMACH_OK;
    if (!names || !fa) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier ofi: no memory for %d addresses", p);
        goto out;
    }
    /* FI_AV_TABLE: one insert of p names gives the consecutive indices the set needs */
    for (int r = 0; r < p; r++) {
        if (all[r].len != all[0].len || all[r].len == 0 || all[r].len > NAME_MAX_BYTES) {
            st = rch_base_err(RDMACH_ERR_PROTOCOL, "barrier ofi: rank %d sent an address of %u bytes, "
                              "rank 0 one of %u", r, all[r].len, all[0].len);
            goto out;
        }
        memcpy(names + (size_t)r * all[0].len, all[r].name, all[0].len);
    }
    ret = fi_av_insert(s->av, names, (size_t)p, fa, 0, NULL);
    if (ret != p) {
        st = fi_fail(ret < 0 ? ret : -FI_EINVAL, "fi_av_insert");
        goto out;
    }
    struct fi_av_set_attr sa = { .count = (size_t)p, .start_addr = fa[0], .end_addr = fa[p - 1],
                                 .stride = 1 };
    fi_addr_t set_addr;
    if ((ret = fi_av_set(s->av, &sa, &s->set, NULL)) || (ret = fi_av_set_addr(s->set, &set_addr))) {
        st = fi_fail(ret, "fi_av_set");
        goto out;
    }
    if ((ret = fi_join_collective(s->ep, set_addr, s->set, 0, &s->mc, NULL))) {
        st = fi_fail(ret, "fi_join_collective");
        goto out;
    }
    uint64_t t0 = rch_base_now_ns();
    unsigned polls = 0;
    for (;;) {
        uint32_t event;
        struct fi_eq_entry entry;
        struct fi_cq_entry ce;
        fi_cq_read(s->cq, &ce, 1);   /* drives the provider's progress */
        ssize_t n = fi_eq_read(s->eq, &event, &entry, sizeof(entry), 0);
        if (n > 0 && event == FI_JOIN_COMPLETE)
            break;
        if (n != -FI_EAGAIN && n <= 0) {
            struct fi_eq_err_entry e = { 0 };
            fi_eq_readerr(s->eq, &e, 0);
            st = fi_fail(-e.err, "joining the collective");
            goto out;
        }
        if (rch_base_now_ns() - t0 > JOIN_TIMEOUT_NS) {
            st = rch_base_err(RDMACH_ERR_TIMEOUT, "barrier ofi: fi_join_collective of %d ranks did not "
                              "complete in 30 s", p);
            goto out;
        }
        progress_idle(s, &polls);
    }
    s->coll = fi_mc_addr(s->mc);
out:
    free(names);
    free(fa);
    return st;
}

static rdmach_status_t ofi_init(const struct rch_coll_comm *c, void **out)
{
    struct ofi_state *s = calloc(1, sizeof(*s));
    struct ofi_card mine = { 0 }, *all = calloc((size_t)c->size, sizeof(*all));
    rdmach_status_t st = s && all ? RDMACH_OK
                         : rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier ofi: no memory");
    char why[256] = "";
    if (st == RDMACH_OK) {
        rch_coll_bar_waiter_init(&s->waiter);
        st = open_local(s, &mine);
    }
    if (st != RDMACH_OK)
        snprintf(why, sizeof(why), "%s", rdmach_last_error());
    mine.status = st;
    /* Everyone exchanges, failed or not: nobody may be left waiting. */
    rdmach_status_t xst = all ? exchange(c, &mine, all) : st;
    if (st == RDMACH_OK && xst != RDMACH_OK)
        st = xst;
    for (int r = 0; st == RDMACH_OK && r < c->size; r++)
        if (all[r].status != RDMACH_OK)
            st = rch_base_err((rdmach_status_t)all[r].status, "barrier ofi: rank %d could not open "
                              "its endpoint", r);
    if (st == RDMACH_OK)
        st = join(s, c, all);
    else if (why[0])
        st = rch_base_err(st, "%s", why);
    free(all);
    if (st != RDMACH_OK) {
        if (s)
            close_all(s);
        return st;
    }
    *out = s;
    return RDMACH_OK;
}

static rdmach_status_t ofi_enter(void *state)
{
    struct ofi_state *s = state;
    ssize_t ret;
    unsigned polls = 0;
    while ((ret = fi_barrier(s->ep, s->coll, &s->ctx)) == -FI_EAGAIN) {
        struct fi_cq_entry ce;
        fi_cq_read(s->cq, &ce, 1);
        progress_idle(s, &polls);
    }
    return ret == 0 ? RDMACH_OK : fi_fail((int)ret, "fi_barrier");
}

static rdmach_status_t ofi_wait(void *state)
{
    struct ofi_state *s = state;
    struct fi_cq_entry ce;
    unsigned polls = 0;
    for (;;) {
        ssize_t n = fi_cq_read(s->cq, &ce, 1);
        if (n == 1 && ce.op_context == &s->ctx)
            return RDMACH_OK;
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry e = { 0 };
            fi_cq_readerr(s->cq, &e, 0);
            return fi_fail(-e.err, "fi_barrier completion");
        }
        if (n < 0 && n != -FI_EAGAIN)
            return fi_fail((int)n, "fi_cq_read");
        progress_idle(s, &polls);
    }
}

static void ofi_finalize(void *state)
{
    close_all(state);
}

#else /* !RDMACH_HAVE_OFI */

static int ofi_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    snprintf(why, len, "rdmach was built without libfabric");
    return 0;
}

static rdmach_status_t ofi_init(const struct rch_coll_comm *c, void **out)
{
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "barrier ofi: rdmach was built without libfabric");
}

static rdmach_status_t ofi_enter(void *state)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static rdmach_status_t ofi_wait(void *state)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static void ofi_finalize(void *state)
{
}

#endif

const struct rch_coll_barrier_ops rch_coll_barrier_ofi_ops = {
    .name = "ofi",
    .summary = "libfabric's fi_barrier on an RDM endpoint of a provider with FI_COLLECTIVE",
    .priority = 20,
    .applies = ofi_applies,
    .init = ofi_init,
    .enter = ofi_enter,
    .wait = ofi_wait,
    .finalize = ofi_finalize,
};
