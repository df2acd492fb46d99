/*
 * The tuning table: which algorithm a collective uses for a network profile,
 * a communicator shape (nodes × ranks per node, size) and a message size.
 *
 * Rows are read in order; the first row of the collective whose ranges all
 * contain the call wins. A row naming an algorithm that does not apply to
 * the call (allgather recdbl on a non-power of two) is passed over; with no
 * row left, the collective's fallback runs. Collectives with a single
 * algorithm have no rows. The message size of a call (coll_select.c,
 * msg_bytes) is the same on every rank, so every rank picks the same row;
 * alltoallv's is 0 (its sizes differ per rank), so it is chosen by shape.
 *
 * Two sources, one format (docs/TUNING.md): the built-in rows below, and the
 * rows of a tuning file written by rdmach-tune (RDMACH_TUNING_FILE), which
 * are consulted first.
 *
 * Within one node alltoall and allreduce go through the node's shared
 * segment (shmseg; alltoall_shmseg.c, allreduce_shmseg.c): a call is one
 * node-wide synchronisation per chunk and copies, no message. Alltoall
 * takes it or messages as each communicator measures them (adaptive,
 * coll_adapt.c): every block size up to 8 ranks (after its first
 * chunk, the large area takes chunks of a p-th of its rows); from 9 ranks
 * only blocks that fit a slot of the segment (1 KiB up to 11, 256 B up to
 * 64); allgather and reduce_scatter likewise at every size; allreduce up
 * to 4 KiB, one row, and above by reduce-scatter + allgather in the large
 * area (shmrsag).
 *
 * The built-in alltoall rows follow the published results of the node-aware
 * algorithms (leader-based vs core-parallel alltoall on onload and offload
 * InfiniBand HCAs, as summarized in issue 7): within a node the
 * original algorithms (Bruck for small blocks, everything posted at once for
 * medium, pairwise for large; thresholds measured with bench/alltoall-algos);
 * across nodes the core-parallel exchange on onload NICs for medium and
 * large blocks and the leader-based one on offload NICs. rdmach-tune
 * replaces the thresholds with measurements of the allocation at hand.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#include "coll/coll_impl.h"

#define KiB 1024ULL
#define ANY_ { 0, RCH_COLL_UNBOUNDED }
#define UPTO(x) { 0, (x) }
#define FROM(x) { (x), RCH_COLL_UNBOUNDED }
#define ONE { 1, 1 }
#define NIC_ANY RCH_COLL_NIC_ANY
#define ONLOAD RCH_COLL_NIC_ONLOAD
#define OFFLOAD RCH_COLL_NIC_OFFLOAD

static struct rch_coll_tuning_row rows[] = {
    /* coll                  nic      nodes    ppn      size  bytes        algorithm */
    /* one node, small vectors: through the node segment (one synchronisation
     * instead of lg p message rounds; every rank reduces in rank order) */
    { RCH_COLL_ALLREDUCE,      NIC_ANY, ONE,     ANY_,    ANY_, UPTO(4 * KiB), "shmseg" },
    /* one node, larger vectors: reduce-scatter + allgather through the
     * segment's large area (each rank reduces 1/p, one phase per chunk) */
    { RCH_COLL_ALLREDUCE,      NIC_ANY, ONE,     ANY_,    ANY_, ANY_,        "shmrsag" },
    { RCH_COLL_ALLREDUCE,      NIC_ANY, ANY_,    ANY_,    ANY_, ANY_,        "recdbl" },
    /* one node, from the rendezvous sizes: through the segment's large
     * area (one synchronisation per chunk instead of message rounds) or
     * by the binomial tree's rendezvous (single copy), whichever the
     * communicator's calls measure faster (coll_adapt.c): on an AMD EPYC
     * (Zen 4, 2 vCPUs) 2 ranks of 1 MiB took 75-79 us through the segment
     * and 43 by the tree, 8 ranks (4 a core) 534 against 959-1198 */
    { RCH_COLL_BCAST,          NIC_ANY, ONE,     ANY_,    ANY_, FROM(16 * KiB), "adaptive" },
    /* one node: through the segment or by messages, whichever the
     * communicator's calls measure faster (coll_adapt.c): small vectors
     * are within 0.1 us either way on a core per rank, the segment 2-7
     * times faster on an oversubscribed node, and large ones depend on what
     * a cache line costs between the cores (alltoall below) */
    { RCH_COLL_ALLGATHER,      NIC_ANY, ONE,     ANY_,    ANY_, ANY_,        "adaptive" },
    { RCH_COLL_ALLGATHERV,     NIC_ANY, ONE,     ANY_,    ANY_, ANY_,        "adaptive" },
    { RCH_COLL_GATHER,         NIC_ANY, ANY_,    ANY_,    ANY_, UPTO(16 * KiB), "binomial" },
    { RCH_COLL_GATHER,         NIC_ANY, ANY_,    ANY_,    ANY_, ANY_,        "linear" },
    { RCH_COLL_SCATTER,        NIC_ANY, ANY_,    ANY_,    ANY_, UPTO(16 * KiB), "binomial" },
    { RCH_COLL_SCATTER,        NIC_ANY, ANY_,    ANY_,    ANY_, ANY_,        "linear" },
    { RCH_COLL_ALLGATHER,      NIC_ANY, ANY_,    ANY_,    ANY_, UPTO(64 * KiB), "recdbl" },
    { RCH_COLL_ALLGATHER,      NIC_ANY, ANY_,    ANY_,    ANY_, ANY_,        "ring" },
    { RCH_COLL_REDUCE_SCATTER, NIC_ANY, ONE,     ANY_,    ANY_, ANY_,        "adaptive" },
    { RCH_COLL_REDUCE_SCATTER, NIC_ANY, ANY_,    ANY_,    ANY_, ANY_,        "pairwise" },

    /* one node: through the node segment (one synchronisation per chunk,
     * no message; on an oversubscribed node one wake-up per rank instead of
     * one per message) or by messages, whichever the communicator's calls
     * measure faster (coll_adapt.c): which wins depends on what a cache
     * line costs between the cores, and that changes with where the cores
     * are, not only with the processor. On an AMD EPYC (Zen 4, 2 vCPUs),
     * 8 ranks of 64 KiB blocks: 123 us through the segment against 205 by
     * messages (linear) with a line between the cores in 28 ns, 587 against
     * 261 with it in 170 ns; 2 ranks above the shm eager limit (16 KiB):
     * pairwise 8.3 us against 10.6 at 64 KiB there, shmseg 5% faster on
     * Zen 5. Up to 8 ranks every block size, its chunks after the first
     * going through the large area; more ranks share the area in smaller
     * chunks, so only small blocks there. */
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    UPTO(8), ANY_,     "adaptive" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    { 9, 11 }, UPTO(1 * KiB), "adaptive" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    { 12, 64 }, UPTO(256), "adaptive" },
    /* two ranks: one exchange; anything else only adds copies */
    { RCH_COLL_ALLTOALL,       NIC_ANY, ANY_,    ANY_,    UPTO(2), ANY_,     "pairwise" },
    { RCH_COLL_ALLTOALLV,      NIC_ANY, ANY_,    ANY_,    UPTO(2), ANY_,     "pairwise" },
    /* alltoall within a node, or one rank per node: the original algorithms
     * (bench/alltoall-algos on 2 cores: Bruck from 5 ranks up to 256 B,
     * everything posted at once up to 256 KiB even when oversubscribed) */
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    UPTO(4), UPTO(256 * KiB), "linear" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    ANY_, UPTO(256),   "bruck" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    ANY_, UPTO(256 * KiB), "linear" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ONE,     ANY_,    ANY_, ANY_,        "pairwise" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ANY_,    ONE,     ANY_, UPTO(256),   "bruck" },
    { RCH_COLL_ALLTOALL,       NIC_ANY, ANY_,    ONE,     ANY_, ANY_,        "pairwise" },
    /* across nodes: leader-based on offload NICs, core-parallel on onload ones */
    { RCH_COLL_ALLTOALL,       OFFLOAD, FROM(2), FROM(2), ANY_, ANY_,        "leader" },
    { RCH_COLL_ALLTOALL,       ONLOAD,  FROM(2), FROM(2), ANY_, UPTO(256),   "bruck" },
    { RCH_COLL_ALLTOALL,       ONLOAD,  FROM(2), FROM(2), ANY_, ANY_,        "coreparallel" },
    /* alltoallv (and alltoallw): by shape only */
    { RCH_COLL_ALLTOALLV,      NIC_ANY, ONE,     ANY_,    ANY_, ANY_,        "linear" },
    { RCH_COLL_ALLTOALLV,      NIC_ANY, ANY_,    ONE,     ANY_, ANY_,        "pairwise" },
    { RCH_COLL_ALLTOALLV,      OFFLOAD, FROM(2), FROM(2), ANY_, ANY_,        "leader" },
    { RCH_COLL_ALLTOALLV,      ONLOAD,  FROM(2), FROM(2), ANY_, ANY_,        "coreparallel" },
};

/* Every row names its algorithm by the algorithm's own name pointer, as file
 * rows do, so selection finds it without strcmp (rch_coll_find_algo compares
 * pointers first). */
static void canonicalize(void)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct rch_coll_algo *a = rch_coll_find_algo(rows[i].coll, rows[i].algo);
        if (a)
            rows[i].algo = a->name;
    }
}

const struct rch_coll_tuning_row *rch_coll_tuning(size_t *nrows)
{
    /* once per process: ranks that are threads of one process (the fake
     * device of tests/coll) may select their first algorithm together */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, canonicalize);
    *nrows = sizeof(rows) / sizeof(rows[0]);
    return rows;
}

/* ---- tuning files ---- */

static struct rch_coll_tuning_row *file_rows;
static size_t n_file_rows;

const struct rch_coll_tuning_row *rch_coll_tuning_loaded(size_t *nrows)
{
    *nrows = n_file_rows;
    return file_rows;
}

/* One number: digits, with a k, m or g suffix (binary) where allowed. */
static int parse_num(const char *s, const char *end, int suffix, unsigned long long *out)
{
    unsigned long long v = 0, mul = 1;
    const char *p = s;
    if (p == end || *p < '0' || *p > '9')
        return -1;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (v > (RCH_COLL_UNBOUNDED - 9) / 10)
            return -1;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    if (p < end && suffix) {
        switch (*p) {
        case 'k': case 'K': mul = KiB; break;
        case 'm': case 'M': mul = KiB * KiB; break;
        case 'g': case 'G': mul = KiB * KiB * KiB; break;
        default: return -1;
        }
        p++;
    }
    if (p != end || v > (RCH_COLL_UNBOUNDED - 1) / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* "*", "N", "A-B" or "A-" (A or more). */
static int parse_range(const char *s, int suffix, struct rch_coll_range *r)
{
    const char *end = s + strlen(s), *dash = strchr(s, '-');
    if (strcmp(s, "*") == 0) {
        *r = (struct rch_coll_range)ANY_;
        return 0;
    }
    if (!dash) {
        if (parse_num(s, end, suffix, &r->lo))
            return -1;
        r->hi = r->lo;
        return 0;
    }
    if (parse_num(s, dash, suffix, &r->lo))
        return -1;
    if (dash + 1 == end) {
        r->hi = RCH_COLL_UNBOUNDED;
        return 0;
    }
    return parse_num(dash + 1, end, suffix, &r->hi);
}

static void format_range(const struct rch_coll_range *r, char *buf, size_t len)
{
    if (r->lo == 0 && r->hi == RCH_COLL_UNBOUNDED)
        snprintf(buf, len, "*");
    else if (r->hi == RCH_COLL_UNBOUNDED)
        snprintf(buf, len, "%llu-", r->lo);
    else if (r->lo == r->hi)
        snprintf(buf, len, "%llu", r->lo);
    else
        snprintf(buf, len, "%llu-%llu", r->lo, r->hi);
}

void rch_coll_tuning_format(const struct rch_coll_tuning_row *r, char *buf, size_t len)
{
    char f[4][48];
    format_range(&r->nodes, f[0], sizeof(f[0]));
    format_range(&r->ppn, f[1], sizeof(f[1]));
    format_range(&r->size, f[2], sizeof(f[2]));
    format_range(&r->bytes, f[3], sizeof(f[3]));
    snprintf(buf, len, "%-14s %-7s %-6s %-6s %-6s %-14s %s", rch_coll_name(r->coll),
             rch_coll_nic_name(r->nic), f[0], f[1], f[2], f[3], r->algo);
}

/* The accepted names of a field, for messages. */
static void coll_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int id = 0; id < RCH_COLL_ID_MAX && used < len; id++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", id ? "|" : "",
                                 rch_coll_name((enum rch_coll_id)id));
}

static void algo_names(enum rch_coll_id id, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < rch_coll_algo_count(id) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "",
                                 rch_coll_algo_name(id, i));
}

#define FIELDS 7
static const char *const field_names[FIELDS] = { "collective", "nic", "nodes", "ppn", "size",
                                                 "bytes", "algorithm" };

/* One row of the file: *row filled, or an error naming path:line. */
static rdmach_status_t parse_row(const char *path, int lineno, char **f,
                                 struct rch_coll_tuning_row *row)
{
    char names[512];
    struct rch_coll_range *ranges[4] = { &row->nodes, &row->ppn, &row->size, &row->bytes };

    row->coll = rch_coll_id_of(f[0]);
    if (row->coll == RCH_COLL_ID_MAX) {
        coll_names(names, sizeof(names));
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: '%s' is not a collective; "
                            "accepted: %s", path, lineno, f[0], names);
    }
    if (strcmp(f[1], "any") == 0)
        row->nic = RCH_COLL_NIC_ANY;
    else if (strcmp(f[1], "onload") == 0)
        row->nic = RCH_COLL_NIC_ONLOAD;
    else if (strcmp(f[1], "offload") == 0)
        row->nic = RCH_COLL_NIC_OFFLOAD;
    else
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: nic '%s' is not one of "
                            "any|onload|offload", path, lineno, f[1]);
    for (int i = 0; i < 4; i++) {
        if (parse_range(f[2 + i], i == 3, ranges[i]))
            return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: %s '%s' is not a range "
                                "(N, A-B, A- or *%s)", path, lineno, field_names[2 + i],
                                f[2 + i], i == 3 ? "; sizes may end in k, m or g" : "");
        if (ranges[i]->lo > ranges[i]->hi)
            return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: %s '%s' is an empty range",
                                path, lineno, field_names[2 + i], f[2 + i]);
    }
    const struct rch_coll_algo *algo = rch_coll_find_algo(row->coll, f[6]);
    if (!algo) {
        algo_names(row->coll, names, sizeof(names));
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: '%s' is not an algorithm of "
                            "%s; accepted: %s", path, lineno, f[6], f[0], names);
    }
    row->algo = algo->name;   /* static storage, unlike the line */
    return RDMACH_OK;
}

/* The rows being read (rch_coll_load_tuning). */
struct load {
    struct rch_coll_tuning_row *rows;
    size_t n, cap;
};

/* A collective row of the file (the reader in src/base hands over every
 * line but the header and the `tunable` lines). */
static rdmach_status_t load_row(void *ctx, const char *path, int lineno, char **f, int nf)
{
    struct load *l = ctx;
    if (nf != FIELDS)
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: expected %d fields "
                            "(collective nic nodes ppn size bytes algorithm), found %s%d", path,
                            lineno, FIELDS, nf > FIELDS ? "more than " : "", nf > FIELDS ? FIELDS : nf);
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 16;
        struct rch_coll_tuning_row *g = realloc(l->rows, ncap * sizeof(*g));
        if (!g)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "tuning file %s: no memory for %zu rows", path, ncap);
        l->rows = g;
        l->cap = ncap;
    }
    rdmach_status_t st = parse_row(path, lineno, f, &l->rows[l->n]);
    if (st == RDMACH_OK)
        l->n++;
    return st;
}

rdmach_status_t rch_coll_load_tuning(const char *path)
{
    if (!path || !path[0]) {
        free(file_rows);
        file_rows = NULL;
        n_file_rows = 0;
        return RDMACH_OK;
    }
    struct load l = { 0 };
    rdmach_status_t st = rch_base_tune_file_read(path, 0, load_row, &l);
    if (st != RDMACH_OK) {
        free(l.rows);
        return st;
    }
    free(file_rows);
    file_rows = l.rows;
    n_file_rows = l.n;
    return RDMACH_OK;
}
