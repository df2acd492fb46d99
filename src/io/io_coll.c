/*
 * Collective buffering (two-phase I/O, ROMIO's design): in a collective
 * access the union of everyone's file range is cut into one domain per
 * aggregator (by default one rank per node), each domain is moved in rounds
 * of cb_buffer_size bytes, and in every round each rank sends (writes) or
 * asks for (reads) the parts of its pieces that fall in each aggregator's
 * window. An aggregator then issues one large contiguous access per window
 * however finely the ranks' pieces interleave; windows with holes are read
 * first and written back whole (under a lock) when the descriptor can read.
 *
 * Every rank takes part in every round's exchange even after a local
 * failure of the file access, so that a failing aggregator never leaves the
 * others waiting; the caller agrees on the outcome afterwards. A rank that
 * cannot make a round's buffers cannot take part in its exchange: each round
 * makes them all before exchanging anything, and one allreduce tells every
 * rank whether to stop there (together, the failure then reported on all).
 * That allreduce also picks the int or the large-count exchange, so byte
 * counts beyond INT_MAX (overlapping reads) are moved whole.
 *
 * The blocking calls and the non-blocking requests run the same steps
 * (struct rch_io_cb below): blocking, each step's collective completes in
 * the step; non-blocking, it is started and progress runs the next step
 * when it completes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "base/tunables.h"
#include "io/io_impl.h"

static size_t work_size(int P);
static int open_fail_injected(const struct ADIOI_FileD *f);

int rch_io_coll_aggregators(struct ADIOI_FileD *f)
{
    MPI_Comm node;
    int nrank = 0;
    if (PMPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return EIO;
    PMPI_Comm_rank(node, &nrank);
    PMPI_Comm_free(&node);
    /* Everything this needs, and the arrays of collective buffering (so
     * that no rank fails to make them in the middle of a collective call),
     * made first; then every rank learns whether all could, before the
     * exchange a failed rank could not take part in. */
    int *lead = malloc((size_t)f->size * sizeof(int));
    int *aggr = malloc((size_t)f->size * sizeof(int));
    if (!f->cb_work && !open_fail_injected(f))
        f->cb_work = malloc(work_size(f->size));
    int ok = lead && aggr && f->cb_work;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (!ok) {
        free(lead);
        free(aggr);
        return ENOMEM;
    }
    int me = nrank == 0;
    PMPI_Allgather(&me, 1, MPI_INT, lead, 1, MPI_INT, f->comm);
    int want = f->hints.cb_nodes > 0 && f->hints.cb_nodes < f->size ? f->hints.cb_nodes : 0;
    int n = 0;
    for (int r = 0; r < f->size; r++)
        if (lead[r] && (!want || n < want))
            aggr[n++] = r;
    /* more aggregators than nodes asked for: add ranks in order */
    for (int r = 0; want && n < want && r < f->size; r++)
        if (!lead[r])
            aggr[n++] = r;
    /* keep them ascending */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && aggr[j - 1] > aggr[j]; j--) {
            int t = aggr[j];
            aggr[j] = aggr[j - 1];
            aggr[j - 1] = t;
        }
    free(lead);
    free(f->aggr);
    f->aggr = aggr;
    f->naggr = n;
    return 0;
}

static int cmp_piece(const void *a, const void *b)
{
    const struct rch_io_piece *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The requested pieces (n, unsorted) sorted and merged into *cover. */
static int coverage(const struct rch_io_piece *p, int n, struct rch_io_piece **cover, int *ncover)
{
    struct rch_io_piece *c = malloc((size_t)(n ? n : 1) * sizeof(*c));
    if (!c)
        return ENOMEM;
    memcpy(c, p, (size_t)n * sizeof(*c));
    qsort(c, (size_t)n, sizeof(*c), cmp_piece);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m && c[i].off <= c[m - 1].off + c[m - 1].len) {
            MPI_Offset end = c[i].off + c[i].len;
            if (end > c[m - 1].off + c[m - 1].len)
                c[m - 1].len = end - c[m - 1].off;
        } else
            c[m++] = c[i];
    }
    *cover = c;
    *ncover = m;
    return 0;
}

/* The geometry of one collective access. */
struct plan {
    MPI_Offset base, dsize, glo, ghi, cb;
    int rounds;
};

static void window(const struct ADIOI_FileD *f, const struct plan *pl, int a, int r, MPI_Offset *lo,
                   MPI_Offset *hi)
{
    MPI_Offset d0 = pl->base + a * pl->dsize, d1 = d0 + pl->dsize;
    if (d0 < pl->glo)
        d0 = pl->glo;
    if (d1 > pl->ghi)
        d1 = pl->ghi;
    *lo = d0 + r * pl->cb;
    *hi = *lo + pl->cb < d1 ? *lo + pl->cb : d1;
    if (*hi < *lo)
        *hi = *lo;
    (void)f;
}

/* Per-round state of one rank. The arrays (per rank of the file) are the
 * file's cb_work, made at open; the buffers grow as rounds need. Counts and
 * displacements are 64-bit: a round moves up to cb_buffer_size bytes per
 * aggregator, and overlapping reads ask for the same bytes many times. */
struct round {
    MPI_Count *scnt, *rcnt;                  /* metadata (longs) */
    MPI_Count *sbytes, *rbytes;              /* data (bytes) */
    MPI_Count *pairs, *pairr;                /* [2P] { metadata, bytes } sent, received */
    MPI_Aint *sdsp, *rdsp, *sbdsp, *rbdsp;
    MPI_Aint *udsp;                          /* data (bytes) in place in the user's data */
    int *ic, *id, *jc, *jd;                  /* int copies for the int form of the exchange */
    MPI_Offset *ranges;                      /* [3P] every rank's { lo, hi, arguments failed } */
    MPI_Offset *smeta, *rmeta;
    MPI_Offset *spos;                        /* [pieces sent]: their place in the packed data */
    char *sdata, *rdata;
    size_t smeta_cap, rmeta_cap, spos_cap, sdata_cap, rdata_cap;
};

/* The per-rank arrays of collective buffering (rch_io_coll_aggregators):
 * two sets, one for the blocking calls and one for the non-blocking
 * requests, which may be in progress at the same time (a blocking
 * collective called while a request is pending). */
static size_t set_size(int P)
{
    return (size_t)P * (3 * sizeof(MPI_Offset) + 8 * sizeof(MPI_Count) + 5 * sizeof(MPI_Aint) + 4 * sizeof(int));
}

static size_t work_size(int P)
{
    return 2 * set_size(P);
}

static void work_arrays(const struct ADIOI_FileD *f, int set, struct round *rd)
{
    size_t P = (size_t)f->size;
    rd->ranges = (MPI_Offset *)((char *)f->cb_work + (size_t)set * set_size(f->size));
    MPI_Count *c = (MPI_Count *)(rd->ranges + 3 * P);
    rd->scnt = c, rd->rcnt = c + P, rd->sbytes = c + 2 * P, rd->rbytes = c + 3 * P;
    rd->pairs = c + 4 * P, rd->pairr = c + 6 * P;
    MPI_Aint *a = (MPI_Aint *)(c + 8 * P);
    rd->sdsp = a, rd->rdsp = a + P, rd->sbdsp = a + 2 * P, rd->rbdsp = a + 3 * P, rd->udsp = a + 4 * P;
    int *i = (int *)(a + 5 * P);
    rd->ic = i, rd->id = i + P, rd->jc = i + 2 * P, rd->jd = i + 3 * P;
}

/* RDMACH_IO_FAIL_ALLOC "r:n": on rank r of a file's communicator, the n-th
 * allocation step of collective buffering fails (an aggregator's window
 * buffer, before the rounds, or a round's receive and send buffers, once
 * per round, needed or not): testing the way a failure reaches every rank,
 * at a round that n picks; n = 0: the arrays made at the first open. */
static int fail_injected(const struct ADIOI_FileD *f)
{
    static long seen;
    int r;
    long n;
    if (!rch_tun.io_fail_alloc[0] || sscanf(rch_tun.io_fail_alloc, "%d:%ld", &r, &n) != 2 || r != f->rank)
        return 0;
    return ++seen == n;
}

/* RDMACH_IO_FAIL_ALLOC "r:0": the arrays made at the process's first open
 * fail on rank r. */
static int open_fail_injected(const struct ADIOI_FileD *f)
{
    static int done;
    int r;
    long n;
    if (!rch_tun.io_fail_alloc[0] || sscanf(rch_tun.io_fail_alloc, "%d:%ld", &r, &n) != 2 || r != f->rank ||
        n != 0 || done)
        return 0;
    return done = 1;
}

static int grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = need * 2;
    void *q = realloc(*p, c);
    if (!q)
        return ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* Cut my pieces by round r's windows: metadata (off, len) per aggregator
 * in rd->smeta (counts in longs), their data positions in rd->spos. */
static int cut(const struct ADIOI_FileD *f, const struct plan *pl, int r, const struct rch_io_piece *p,
               const MPI_Offset *ppos, int n, struct round *rd, int *nsent)
{
    int P = f->size, k = 0;
    memset(rd->scnt, 0, (size_t)P * sizeof(MPI_Count));
    memset(rd->sbytes, 0, (size_t)P * sizeof(MPI_Count));
    for (int ai = 0; ai < f->naggr; ai++) {
        MPI_Offset lo, hi;
        window(f, pl, ai, r, &lo, &hi);
        int dest = f->aggr[ai];
        for (int i = 0; i < n && lo < hi; i++) {
            MPI_Offset a = p[i].off > lo ? p[i].off : lo;
            MPI_Offset b = p[i].off + p[i].len < hi ? p[i].off + p[i].len : hi;
            if (a >= b)
                continue;
            if (grow((void **)&rd->smeta, &rd->smeta_cap, (size_t)(k + 1) * 2 * sizeof(MPI_Offset)) ||
                grow((void **)&rd->spos, &rd->spos_cap, (size_t)(k + 1) * sizeof(MPI_Offset)))
                return ENOMEM;
            rd->smeta[2 * k] = a;
            rd->smeta[2 * k + 1] = b - a;
            rd->spos[k] = ppos[i] + (a - p[i].off);
            k++;
            rd->scnt[dest] += 2;
            rd->sbytes[dest] += b - a;
        }
    }
    *nsent = k;
    return 0;
}

/* Are the pieces sent to each rank one run of the packed data (the pieces
 * of a monotonic view, cut by windows, are)? Then that data is exchanged
 * in place, from or into data at rd->udsp, instead of through sdata. */
static int in_place(const struct round *rd, int P, int nsent)
{
    int k = 0;
    for (int d = 0; d < P; d++) {
        int m = (int)(rd->scnt[d] / 2);
        rd->udsp[d] = 0;
        if (!m)
            continue;
        rd->udsp[d] = (MPI_Aint)rd->spos[k];
        for (int j = k + 1; j < k + m; j++)
            if (rd->spos[j] != rd->spos[j - 1] + rd->smeta[2 * j - 1])
                return 0;
        k += m;
    }
    return k == nsent;
}

/* Displacements of consecutive blocks; 1 if a count or displacement does
 * not fit an int. */
static int displs(const MPI_Count *cnt, MPI_Aint *dsp, int P, size_t *total)
{
    size_t t = 0;
    for (int i = 0; i < P; i++) {
        dsp[i] = (MPI_Aint)t;
        t += (size_t)cnt[i];
    }
    *total = t;
    return t > INT_MAX;
}

/* A received piece and where its data is. */
struct src_piece {
    MPI_Offset off, len, at;
};

static int cmp_src(const void *a, const void *b)
{
    const struct src_piece *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* When the received pieces tile their range exactly (no hole, no
 * overlap), they go to the file straight from the received data in one
 * gather write, not through the window buffer. EAGAIN when they do not, or
 * when they are more than one pwritev takes: then a copy into the window
 * and one write cost less than a system call per IOV_MAX pieces (1-byte
 * pieces: 16 Ki calls per 16 MiB window). */
static int gather_write(const struct ADIOI_FileD *f, const MPI_Offset *meta, int npieces, const char *data)
{
    if (npieces > IOV_MAX)
        return EAGAIN;
    struct src_piece *s = malloc((size_t)npieces * sizeof(*s));
    struct iovec *iov = malloc((size_t)npieces * sizeof(*iov));
    int e = 0;
    if (!s || !iov)
        e = EAGAIN;
    MPI_Offset at = 0;
    for (int i = 0; !e && i < npieces; i++) {
        s[i] = (struct src_piece){ meta[2 * i], meta[2 * i + 1], at };
        at += meta[2 * i + 1];
    }
    if (!e)
        qsort(s, (size_t)npieces, sizeof(*s), cmp_src);
    for (int i = 0; !e && i < npieces; i++) {
        if (i && s[i].off != s[i - 1].off + s[i - 1].len)
            e = EAGAIN;
        iov[i] = (struct iovec){ (char *)data + s[i].at, (size_t)s[i].len };
    }
    if (!e)
        e = rch_io_writev(f, iov, npieces, s[0].off);
    free(s);
    free(iov);
    return e;
}

/* The aggregator's part of a write round: a gather write when the pieces
 * tile their range, else the received pieces into the window, holes filled
 * from the file when it can be read, one write. */
static int agg_write(const struct ADIOI_FileD *f, const MPI_Offset *meta, int npieces, const char *data,
                     char *wbuf, MPI_Offset wlo)
{
    struct rch_io_piece *cover;
    int ncover, e;
    if (npieces == 0)
        return 0;
    if ((e = gather_write(f, meta, npieces, data)) != EAGAIN)
        return e;
    if ((e = coverage((const struct rch_io_piece *)meta, npieces, &cover, &ncover)) != 0)
        return e;
    MPI_Offset lo = cover[0].off, hi = cover[ncover - 1].off + cover[ncover - 1].len;
    int whole = ncover == 1 || !(f->amode & MPI_MODE_WRONLY);
    int locked = 0;
    if (ncover > 1 && whole) {
        size_t have = 0;
        if (!f->atomic && (e = rch_io_lock(f->fd, F_WRLCK, lo, hi - lo)) == 0)
            locked = 1;
        if (!e)
            e = rch_io_pread(f->fd, wbuf + (lo - wlo), (size_t)(hi - lo), lo, &have);
        if (!e && have < (size_t)(hi - lo))
            memset(wbuf + (lo - wlo) + have, 0, (size_t)(hi - lo) - have);
    }
    MPI_Offset at = 0;
    for (int i = 0; !e && i < npieces; i++) {
        memcpy(wbuf + (meta[2 * i] - wlo), data + at, (size_t)meta[2 * i + 1]);
        at += meta[2 * i + 1];
    }
    if (!e && whole)
        e = rch_io_write(f, wbuf + (lo - wlo), (size_t)(hi - lo), lo);
    for (int i = 0; !e && !whole && i < ncover; i++)
        e = rch_io_write(f, wbuf + (cover[i].off - wlo), (size_t)cover[i].len, cover[i].off);
    if (locked)
        rch_io_lock(f->fd, F_UNLCK, lo, hi - lo);
    free(cover);
    return e;
}

/* The aggregator's part of a read round: the covered ranges read into the
 * window (one read when sieving pays), the requested pieces copied out in
 * request order into out. */
static int agg_read(const struct ADIOI_FileD *f, const MPI_Offset *meta, int npieces, char *out, char *wbuf,
                    MPI_Offset wlo)
{
    struct rch_io_piece *cover;
    int ncover, e;
    if (npieces == 0)
        return 0;
    if ((e = coverage((const struct rch_io_piece *)meta, npieces, &cover, &ncover)) != 0)
        return e;
    MPI_Offset lo = cover[0].off, hi = cover[ncover - 1].off + cover[ncover - 1].len;
    MPI_Offset data = 0;
    for (int i = 0; i < ncover; i++)
        data += cover[i].len;
    int one = f->hints.ds_read != RCH_IO_DISABLE && (f->hints.ds_read == RCH_IO_ENABLE || data * 4 >= hi - lo);
    for (int i = 0; !e && i < (one ? 1 : ncover); i++) {
        MPI_Offset a = one ? lo : cover[i].off, len = one ? hi - lo : cover[i].len;
        size_t have = 0;
        e = rch_io_pread(f->fd, wbuf + (a - wlo), (size_t)len, a, &have);
        if (!e && have < (size_t)len)
            memset(wbuf + (a - wlo) + have, 0, (size_t)len - have);
    }
    MPI_Offset at = 0;
    for (int i = 0; !e && i < npieces; i++) {
        memcpy(out + at, wbuf + (meta[2 * i] - wlo), (size_t)meta[2 * i + 1]);
        at += meta[2 * i + 1];
    }
    free(cover);
    return e;
}

static void round_free(struct round *rd)
{
    free(rd->smeta);
    free(rd->rmeta);
    free(rd->spos);
    free(rd->sdata);
    free(rd->rdata);
}

/* A read's pieces cut at the end of the file: *n shrinks to the pieces
 * holding data, the last one maybe shortened. Returns their data bytes (the
 * read's count). Nothing past the end is requested, so nothing is moved
 * into the user's buffer there (MPI-4.1 14.4.1: a read reads only what the
 * file holds; the status's count says how much). */
static MPI_Offset clip_at_eof(const struct ADIOI_FileD *f, struct rch_io_piece *p, int *n)
{
    struct stat st;
    MPI_Offset got = 0;
    if (fstat(f->fd, &st) != 0)
        st.st_size = 0;
    for (int i = 0; i < *n; i++) {
        MPI_Offset in = st.st_size <= p[i].off ? 0 : st.st_size >= p[i].off + p[i].len ? p[i].len
                                                                                       : st.st_size - p[i].off;
        got += in;
        if (in < p[i].len) {
            p[i].len = in;
            *n = in ? i + 1 : i;
            break;
        }
    }
    return got;
}

static int cmp_range(const void *a, const void *b)
{
    const MPI_Offset *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Do the ranks' [lo, hi) ranges (triples lo, hi, abort; empty ones have
 * lo > hi) overlap? */
static int interleaved(MPI_Offset *ranges, int n)
{
    qsort(ranges, (size_t)n, 3 * sizeof(MPI_Offset), cmp_range);
    MPI_Offset end = LONG_MIN;
    for (int r = 0; r < n; r++) {
        if (ranges[3 * r] >= ranges[3 * r + 1])
            continue;
        if (ranges[3 * r] < end)
            return 1;
        end = ranges[3 * r + 1];
    }
    return 0;
}

/*
 * The access as a state machine, so that the blocking call and the
 * non-blocking request (io_nb.c) run the same algorithm: each step does its
 * local work and ends by starting the one collective the next step needs.
 * Blocking, the collective is the blocking call and advance() runs every
 * step at once; non-blocking, it is the MPI_I* form on another communicator
 * (the file's acomm, whose collectives io_nb.c starts in posting order) and
 * advance() returns while it is in flight. Every rank goes through the same
 * steps and rounds (the plan is computed from everyone's ranges), so the
 * collectives match.
 *
 *   RANGES --allgather--> PLAN --(per round r)--> COUNTS --alltoall--> BUFFERS
 *     --allreduce (stop?)--> META --alltoallv--> DATA --alltoallv--> ACCESS --> COUNTS / DONE
 */
enum { CB_RANGES, CB_PLAN, CB_COUNTS, CB_BUFFERS, CB_META, CB_DATA, CB_ACCESS, CB_DONE };

struct rch_io_cb {
    struct ADIOI_FileD *f;
    MPI_Comm comm;
    int nb;                        /* collectives started (MPI_I*) rather than completed by a step */
    MPI_Request req;               /* the collective in flight (nb) */
    int state, is_write, abort;
    MPI_Offset pos, nbytes;
    char *data;
    struct rch_io_piece *p;
    MPI_Offset *ppos;
    int n;
    struct plan pl;
    long r, rounds;
    struct round rd;
    char *wbuf;
    int my_ai, failed, small, direct, nsent;
    size_t rmeta_n;
    MPI_Offset lh[3];
    int mine[2], all[2];
    int e;                         /* errno of this rank's part */
    int indep;                     /* outcome: no interleaving, access independently */
    MPI_Offset got;
    MPI_Offset rgot;               /* a read: my data bytes before the end of the file */
};

/* A collective of the access: completed now (blocking) or started (nb); a
 * collective that cannot start is this rank's failure. */
#define CB_COLL(cb, name, iname, ...)                                                               \
    cb_started(cb, (cb)->nb ? PMPI_##iname(__VA_ARGS__, (cb)->comm, &(cb)->req)                     \
                            : PMPI_##name(__VA_ARGS__, (cb)->comm))

static void cb_started(struct rch_io_cb *cb, int rc)
{
    if (rc != MPI_SUCCESS && !cb->e)
        cb->e = EIO;
}

/* An all-to-all of blocks: the int form when every rank's arrays fit an
 * int (small, agreed), else the large-count one. */
static void exchange(struct rch_io_cb *cb, const void *sb, const MPI_Count *sc, const MPI_Aint *sd, void *rb,
                     const MPI_Count *rc, const MPI_Aint *rdp, MPI_Datatype t)
{
    struct round *rd = &cb->rd;
    if (!cb->small) {
        CB_COLL(cb, Alltoallv_c, Ialltoallv_c, sb, sc, sd, t, rb, rc, rdp, t);
        return;
    }
    for (int i = 0; i < cb->f->size; i++) {
        rd->ic[i] = (int)sc[i], rd->id[i] = (int)sd[i];
        rd->jc[i] = (int)rc[i], rd->jd[i] = (int)rdp[i];
    }
    CB_COLL(cb, Alltoallv, Ialltoallv, sb, rd->ic, rd->id, t, rb, rd->jc, rd->jd, t);
}

/* My pieces and my range: everyone's ranges (and whether any rank's
 * arguments failed) gathered. */
static void step_ranges(struct rch_io_cb *cb)
{
    struct ADIOI_FileD *f = cb->f;
    if (!cb->abort && cb->nbytes > 0 &&
        (rch_io_view_pieces(f, cb->pos, cb->nbytes, &cb->p, &cb->n) != MPI_SUCCESS ||
         !(cb->ppos = malloc((size_t)(cb->n + 1) * sizeof(*cb->ppos)))))
        cb->e = ENOMEM, cb->n = 0;
    if (!cb->is_write && cb->n > 0)
        cb->rgot = clip_at_eof(f, cb->p, &cb->n);
    MPI_Offset at = 0;
    cb->lh[0] = LONG_MAX, cb->lh[1] = LONG_MIN, cb->lh[2] = cb->abort;
    for (int i = 0; i < cb->n; i++) {
        cb->ppos[i] = at;
        at += cb->p[i].len;
        if (cb->p[i].off < cb->lh[0])
            cb->lh[0] = cb->p[i].off;
        if (cb->p[i].off + cb->p[i].len > cb->lh[1])
            cb->lh[1] = cb->p[i].off + cb->p[i].len;
    }
    CB_COLL(cb, Allgather, Iallgather, cb->lh, 3, MPI_LONG, cb->rd.ranges, 3, MPI_LONG);
    cb->state = CB_PLAN;
}

/* The domains and rounds, or (ROMIO's automatic rule) none: ranks whose
 * ranges do not interleave gain nothing from the exchange. */
static void step_plan(struct rch_io_cb *cb)
{
    struct ADIOI_FileD *f = cb->f;
    MPI_Offset *ranges = cb->rd.ranges;
    struct plan *pl = &cb->pl;
    *pl = (struct plan){ .glo = LONG_MAX, .ghi = LONG_MIN, .cb = f->hints.cb_buffer_size };
    int abort = 0;
    for (int r = 0; r < f->size; r++) {
        pl->glo = ranges[3 * r] < pl->glo ? ranges[3 * r] : pl->glo;
        pl->ghi = ranges[3 * r + 1] > pl->ghi ? ranges[3 * r + 1] : pl->ghi;
        abort |= ranges[3 * r + 2] != 0;
    }
    cb->state = CB_DONE;
    int hint = cb->is_write ? f->hints.cb_write : f->hints.cb_read;
    if (abort)
        return;
    if (hint == RCH_IO_AUTO && !interleaved(ranges, f->size)) {
        cb->indep = 1;
        return;
    }
    if (pl->ghi <= pl->glo)
        return;
    MPI_Offset su = f->hints.striping_unit;
    pl->base = su > 0 ? pl->glo / su * su : pl->glo;
    pl->dsize = (pl->ghi - pl->base + f->naggr - 1) / f->naggr;
    if (su > 0)
        pl->dsize = (pl->dsize + su - 1) / su * su;
    /* cb is at most RCH_IO_CB_MAX (hints): no overflow here */
    cb->rounds = (long)((pl->dsize + pl->cb - 1) / pl->cb);
    MPI_Offset wcap = pl->cb < pl->dsize ? pl->cb : pl->dsize;
    cb->my_ai = -1;
    for (int ai = 0; ai < f->naggr; ai++)
        if (f->aggr[ai] == f->rank)
            cb->my_ai = ai;
    cb->failed = cb->my_ai >= 0 && (fail_injected(f) || !(cb->wbuf = malloc((size_t)wcap + 1)));
    cb->r = 0;
    cb->state = CB_COUNTS;
}

/* Round r: my pieces cut by the windows, the counts exchanged. */
static void step_counts(struct rch_io_cb *cb)
{
    struct ADIOI_FileD *f = cb->f;
    struct round *rd = &cb->rd;
    int P = f->size;
    if (cb->r >= cb->rounds) {
        cb->state = CB_DONE;
        return;
    }
    cb->nsent = 0;
    if (cut(f, &cb->pl, (int)cb->r, cb->p, cb->ppos, cb->n, rd, &cb->nsent)) {
        /* cannot describe my part: send nothing, and stop everyone below */
        memset(rd->scnt, 0, (size_t)P * sizeof(MPI_Count));
        memset(rd->sbytes, 0, (size_t)P * sizeof(MPI_Count));
        cb->nsent = 0;
        cb->failed = 1;
    }
    for (int i = 0; i < P; i++)
        rd->pairs[2 * i] = rd->scnt[i], rd->pairs[2 * i + 1] = rd->sbytes[i];
    CB_COLL(cb, Alltoall, Ialltoall, rd->pairs, 2, MPI_COUNT, rd->pairr, 2, MPI_COUNT);
    cb->state = CB_BUFFERS;
}

/* Every buffer the round needs made, then (one allreduce) whether any rank
 * failed to make its buffers: if so every rank stops before an exchange
 * that rank could not take part in. The allreduce also picks the int or
 * the large-count exchange. */
static void step_buffers(struct rch_io_cb *cb)
{
    struct ADIOI_FileD *f = cb->f;
    struct round *rd = &cb->rd;
    int P = f->size;
    size_t smeta_n, sbytes_n, rbytes_n;
    for (int i = 0; i < P; i++)
        rd->rcnt[i] = rd->pairr[2 * i], rd->rbytes[i] = rd->pairr[2 * i + 1];
    int large = displs(rd->scnt, rd->sdsp, P, &smeta_n);
    large |= displs(rd->rcnt, rd->rdsp, P, &cb->rmeta_n);
    large |= displs(rd->sbytes, rd->sbdsp, P, &sbytes_n);
    large |= displs(rd->rbytes, rd->rbdsp, P, &rbytes_n);
    cb->direct = in_place(rd, P, cb->nsent);
    for (int i = 0; cb->direct && i < P; i++)
        large |= rd->udsp[i] > INT_MAX - rd->sbytes[i];
    if (!cb->failed && (fail_injected(f) ||
                        grow((void **)&rd->rmeta, &rd->rmeta_cap, (cb->rmeta_n + 1) * sizeof(MPI_Offset)) ||
                        grow((void **)&rd->sdata, &rd->sdata_cap, cb->direct ? 0 : sbytes_n + 1) ||
                        grow((void **)&rd->rdata, &rd->rdata_cap, rbytes_n + 1)))
        cb->failed = 1;
    cb->mine[0] = cb->failed, cb->mine[1] = large;
    CB_COLL(cb, Allreduce, Iallreduce, cb->mine, cb->all, 2, MPI_INT, MPI_MAX);
    cb->state = CB_META;
}

/* Everyone could: the pieces' descriptions to the aggregators. */
static void step_meta(struct rch_io_cb *cb)
{
    struct round *rd = &cb->rd;
    if (cb->all[0]) {
        /* 0 from the others: the caller's agreement names the rank that failed */
        cb->e = cb->e ? cb->e : cb->failed ? ENOMEM : 0;
        cb->state = CB_DONE;
        return;
    }
    cb->failed = 0;
    cb->small = !cb->all[1];
    exchange(cb, rd->smeta, rd->scnt, rd->sdsp, rd->rmeta, rd->rcnt, rd->rdsp, MPI_LONG);
    cb->state = CB_DATA;
}

/* The data: a write's to the aggregators; a read's read by them and sent back. */
static void step_data(struct rch_io_cb *cb)
{
    struct round *rd = &cb->rd;
    MPI_Aint *sd = cb->direct ? rd->udsp : rd->sbdsp;
    char *mine = cb->direct ? cb->data : rd->sdata;
    if (cb->is_write) {
        MPI_Offset at = 0;
        for (int k = 0; !cb->direct && k < cb->nsent; k++) {
            memcpy(rd->sdata + at, cb->data + rd->spos[k], (size_t)rd->smeta[2 * k + 1]);
            at += rd->smeta[2 * k + 1];
        }
        exchange(cb, mine, rd->sbytes, sd, rd->rdata, rd->rbytes, rd->rbdsp, MPI_BYTE);
    } else {
        if (!cb->e && cb->my_ai >= 0) {
            MPI_Offset wlo, whi;
            window(cb->f, &cb->pl, cb->my_ai, (int)cb->r, &wlo, &whi);
            cb->e = agg_read(cb->f, rd->rmeta, (int)(cb->rmeta_n / 2), rd->rdata, cb->wbuf, wlo);
        }
        exchange(cb, rd->rdata, rd->rbytes, rd->rbdsp, mine, rd->sbytes, sd, MPI_BYTE);
    }
    cb->state = CB_ACCESS;
}

/* The end of the round: a write's aggregator writes its window; a read's
 * data goes to its place. */
static void step_access(struct rch_io_cb *cb)
{
    struct round *rd = &cb->rd;
    if (cb->is_write && !cb->e && cb->my_ai >= 0) {
        MPI_Offset wlo, whi;
        window(cb->f, &cb->pl, cb->my_ai, (int)cb->r, &wlo, &whi);
        cb->e = agg_write(cb->f, rd->rmeta, (int)(cb->rmeta_n / 2), rd->rdata, cb->wbuf, wlo);
    }
    MPI_Offset at = 0;
    for (int k = 0; !cb->is_write && !cb->direct && k < cb->nsent; k++) {
        memcpy(cb->data + rd->spos[k], rd->sdata + at, (size_t)rd->smeta[2 * k + 1]);
        at += rd->smeta[2 * k + 1];
    }
    cb->r++;
    cb->state = CB_COUNTS;
}

static void (*const steps[CB_DONE])(struct rch_io_cb *) = {
    [CB_RANGES] = step_ranges, [CB_PLAN] = step_plan,     [CB_COUNTS] = step_counts, [CB_BUFFERS] = step_buffers,
    [CB_META] = step_meta,     [CB_DATA] = step_data,     [CB_ACCESS] = step_access,
};

size_t rch_io_cb_size(void)
{
    return sizeof(struct rch_io_cb);
}

void rch_io_cb_init(struct rch_io_cb *cb, struct ADIOI_FileD *f, int nb, int abort, int is_write, MPI_Offset pos,
                    char *data, MPI_Offset nbytes)
{
    *cb = (struct rch_io_cb){ .f = f, .comm = nb ? f->acomm : f->comm, .nb = nb, .req = MPI_REQUEST_NULL,
                              .state = CB_RANGES, .is_write = is_write, .abort = abort, .pos = pos,
                              .data = data, .nbytes = data ? nbytes : 0, .my_ai = -1 };
    /* the blocking call's arrays, or the non-blocking requests' (one at a time per file) */
    work_arrays(f, nb, &cb->rd);
}

unsigned rch_io_cb_advance(struct rch_io_cb *cb)
{
    unsigned n = 0;
    if (cb->state == CB_DONE && !cb->rd.ranges)
        return 0;
    for (; cb->state != CB_DONE; n++) {
        if (cb->req != MPI_REQUEST_NULL) {
            if (!rch_io_req_done(cb->req))
                return n;
            PMPI_Request_free(&cb->req);
        }
        steps[cb->state](cb);
    }
    /* DONE is entered by steps that start no collective */
    round_free(&cb->rd);
    free(cb->wbuf);
    cb->wbuf = NULL;
    if (!cb->e && !cb->indep)
        cb->got = cb->is_write ? cb->nbytes : cb->rgot;
    free(cb->p);
    free(cb->ppos);
    cb->p = NULL, cb->ppos = NULL;
    cb->rd = (struct round){ 0 };   /* and done: ranges NULL */
    return n + 1;
}

int rch_io_cb_done(const struct rch_io_cb *cb)
{
    return cb->state == CB_DONE && !cb->rd.ranges;
}

int rch_io_cb_result(const struct rch_io_cb *cb, MPI_Offset *got, int *indep)
{
    *got = cb->got;
    *indep = cb->indep;
    return cb->e;
}

int rch_io_coll_applies(const struct ADIOI_FileD *f, int is_write)
{
    int hint = is_write ? f->hints.cb_write : f->hints.cb_read;
    return hint != RCH_IO_DISABLE && !f->atomic && f->size > 1;
}

int rch_io_coll(struct ADIOI_FileD *f, int is_write, MPI_Offset pos, char *data, MPI_Offset nbytes,
                MPI_Offset *got)
{
    struct rch_io_cb cb;
    int indep;
    rch_io_cb_init(&cb, f, 0, 0, is_write, pos, data, nbytes);
    rch_io_cb_advance(&cb);
    int e = rch_io_cb_result(&cb, got, &indep);
    if (indep && !e)
        e = rch_io_indep(f, is_write, pos, data, nbytes, got);
    return e;
}
