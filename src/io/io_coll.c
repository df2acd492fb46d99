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
 * failure, so that a failing aggregator never leaves the others waiting;
 * the caller agrees on the outcome afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "io/io_impl.h"

int rch_io_coll_aggregators(struct ADIOI_FileD *f)
{
    MPI_Comm node;
    int nrank = 0;
    if (PMPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return EIO;
    PMPI_Comm_rank(node, &nrank);
    PMPI_Comm_free(&node);
    int *lead = malloc((size_t)f->size * sizeof(int));
    int *aggr = malloc((size_t)f->size * sizeof(int));
    if (!lead || !aggr) {
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

/* Per-round buffers of one rank. */
struct round {
    int *scnt, *sdsp, *rcnt, *rdsp;          /* metadata (longs) */
    int *sbytes, *sbdsp, *rbytes, *rbdsp;    /* data (bytes) */
    int *udsp;                               /* data (bytes) in place in the user's data */
    MPI_Offset *smeta, *rmeta;
    MPI_Offset *spos;                        /* [pieces sent]: their place in the packed data */
    char *sdata, *rdata;
    size_t smeta_cap, rmeta_cap, spos_cap, sdata_cap, rdata_cap;
};

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
    memset(rd->scnt, 0, (size_t)P * sizeof(int));
    memset(rd->sbytes, 0, (size_t)P * sizeof(int));
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
            rd->sbytes[dest] += (int)(b - a);
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
        int m = rd->scnt[d] / 2;
        rd->udsp[d] = 0;
        if (!m)
            continue;
        if (rd->spos[k] > INT_MAX - rd->sbytes[d])
            return 0;
        rd->udsp[d] = (int)rd->spos[k];
        for (int j = k + 1; j < k + m; j++)
            if (rd->spos[j] != rd->spos[j - 1] + rd->smeta[2 * j - 1])
                return 0;
        k += m;
    }
    return k == nsent;
}

static void displs(const int *cnt, int *dsp, int P, size_t *total)
{
    size_t t = 0;
    for (int i = 0; i < P; i++) {
        dsp[i] = (int)t;
        t += (size_t)cnt[i];
    }
    *total = t;
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
 * gather write, not through the window buffer. EAGAIN when they do not. */
static int gather_write(const struct ADIOI_FileD *f, const MPI_Offset *meta, int npieces, const char *data)
{
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
    free(rd->scnt);
    free(rd->smeta);
    free(rd->rmeta);
    free(rd->spos);
    free(rd->sdata);
    free(rd->rdata);
}

/* One round: exchange, aggregate. Returns this rank's errno (0). */
static int one_round(struct ADIOI_FileD *f, const struct plan *pl, int r, int is_write, const struct rch_io_piece *p,
                     const MPI_Offset *ppos, int n, char *data, struct round *rd, char *wbuf, int e)
{
    int P = f->size, nsent = 0;
    size_t smeta_n, rmeta_n, sbytes_n, rbytes_n;
    int ce = cut(f, pl, r, p, ppos, n, rd, &nsent);
    if (ce) {
        /* cannot describe my part: send nothing, remember the failure */
        memset(rd->scnt, 0, (size_t)P * sizeof(int));
        memset(rd->sbytes, 0, (size_t)P * sizeof(int));
        nsent = 0;
        e = e ? e : ce;
    }
    displs(rd->scnt, rd->sdsp, P, &smeta_n);
    displs(rd->sbytes, rd->sbdsp, P, &sbytes_n);
    PMPI_Alltoall(rd->scnt, 1, MPI_INT, rd->rcnt, 1, MPI_INT, f->comm);
    displs(rd->rcnt, rd->rdsp, P, &rmeta_n);
    for (int i = 0; i < P; i++)
        rd->rbytes[i] = 0;
    if (grow((void **)&rd->rmeta, &rd->rmeta_cap, (rmeta_n + 1) * sizeof(MPI_Offset)))
        return ENOMEM;   /* cannot go on without the metadata buffer: the exchange would overrun */
    PMPI_Alltoallv(rd->smeta, rd->scnt, rd->sdsp, MPI_LONG, rd->rmeta, rd->rcnt, rd->rdsp, MPI_LONG, f->comm);
    for (int i = 0; i < P; i++)
        for (int k = rd->rdsp[i] / 2; k < (rd->rdsp[i] + rd->rcnt[i]) / 2; k++)
            rd->rbytes[i] += (int)rd->rmeta[2 * k + 1];
    displs(rd->rbytes, rd->rbdsp, P, &rbytes_n);
    int my_ai = -1;
    for (int ai = 0; ai < f->naggr; ai++)
        if (f->aggr[ai] == f->rank)
            my_ai = ai;
    MPI_Offset wlo = 0, whi = 0;
    if (my_ai >= 0)
        window(f, pl, my_ai, r, &wlo, &whi);
    int direct = in_place(rd, P, nsent);
    if (grow((void **)&rd->sdata, &rd->sdata_cap, direct ? 0 : sbytes_n + 1) ||
        grow((void **)&rd->rdata, &rd->rdata_cap, rbytes_n + 1))
        return ENOMEM;
    if (is_write) {
        MPI_Offset at = 0;
        for (int k = 0; !direct && k < nsent; k++) {
            memcpy(rd->sdata + at, data + rd->spos[k], (size_t)rd->smeta[2 * k + 1]);
            at += rd->smeta[2 * k + 1];
        }
        PMPI_Alltoallv(direct ? data : rd->sdata, rd->sbytes, direct ? rd->udsp : rd->sbdsp, MPI_BYTE, rd->rdata,
                       rd->rbytes, rd->rbdsp, MPI_BYTE, f->comm);
        if (!e && my_ai >= 0)
            e = agg_write(f, rd->rmeta, (int)(rmeta_n / 2), rd->rdata, wbuf, wlo);
    } else {
        if (!e && my_ai >= 0)
            e = agg_read(f, rd->rmeta, (int)(rmeta_n / 2), rd->rdata, wbuf, wlo);
        PMPI_Alltoallv(rd->rdata, rd->rbytes, rd->rbdsp, MPI_BYTE, direct ? data : rd->sdata, rd->sbytes,
                       direct ? rd->udsp : rd->sbdsp, MPI_BYTE, f->comm);
        MPI_Offset at = 0;
        for (int k = 0; !direct && k < nsent; k++) {
            memcpy(data + rd->spos[k], rd->sdata + at, (size_t)rd->smeta[2 * k + 1]);
            at += rd->smeta[2 * k + 1];
        }
    }
    return e;
}

/* Data bytes of my pieces before the end of the file (a read's count). */
static MPI_Offset before_eof(const struct ADIOI_FileD *f, const struct rch_io_piece *p, int n)
{
    struct stat st;
    MPI_Offset got = 0;
    if (fstat(f->fd, &st) != 0)
        return 0;
    for (int i = 0; i < n; i++) {
        MPI_Offset in = st.st_size <= p[i].off ? 0 : st.st_size >= p[i].off + p[i].len ? p[i].len
                                                                                       : st.st_size - p[i].off;
        got += in;
        if (in < p[i].len)
            break;
    }
    return got;
}

static int cmp_range(const void *a, const void *b)
{
    const MPI_Offset *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Do the ranks' [lo, hi) ranges (pairs; empty ones have lo > hi) overlap? */
static int interleaved(MPI_Offset *ranges, int n)
{
    qsort(ranges, (size_t)n, 2 * sizeof(MPI_Offset), cmp_range);
    MPI_Offset end = LONG_MIN;
    for (int r = 0; r < n; r++) {
        if (ranges[2 * r] >= ranges[2 * r + 1])
            continue;
        if (ranges[2 * r] < end)
            return 1;
        end = ranges[2 * r + 1];
    }
    return 0;
}

int rch_io_coll(struct ADIOI_FileD *f, int is_write, MPI_Offset pos, char *data, MPI_Offset nbytes,
                MPI_Offset *got)
{
    struct rch_io_piece *p = NULL;
    MPI_Offset *ppos = NULL;
    int n = 0, e = 0;
    *got = 0;
    if (rch_io_view_pieces(f, pos, nbytes, &p, &n) != MPI_SUCCESS || !(ppos = malloc((size_t)(n + 1) * sizeof(*ppos))))
        e = ENOMEM, n = 0;
    MPI_Offset lh[2] = { LONG_MAX, LONG_MIN }, at = 0;
    for (int i = 0; i < n; i++) {
        ppos[i] = at;
        at += p[i].len;
        if (p[i].off < lh[0])
            lh[0] = p[i].off;
        if (p[i].off + p[i].len > lh[1])
            lh[1] = p[i].off + p[i].len;
    }
    MPI_Offset *ranges = malloc((size_t)f->size * 2 * sizeof(MPI_Offset));
    if (!ranges) {
        /* cannot join the collective buffering: the caller's agreement fails the call everywhere */
        free(p);
        free(ppos);
        return ENOMEM;
    }
    PMPI_Allgather(lh, 2, MPI_LONG, ranges, 2, MPI_LONG, f->comm);
    struct plan pl = { .glo = LONG_MAX, .ghi = LONG_MIN, .cb = f->hints.cb_buffer_size };
    for (int r = 0; r < f->size; r++) {
        pl.glo = ranges[2 * r] < pl.glo ? ranges[2 * r] : pl.glo;
        pl.ghi = ranges[2 * r + 1] > pl.ghi ? ranges[2 * r + 1] : pl.ghi;
    }
    /* automatic (ROMIO's rule): ranks whose ranges do not interleave gain
     * nothing from the exchange, each accesses its own range directly */
    int hint = is_write ? f->hints.cb_write : f->hints.cb_read;
    int direct = hint == RCH_IO_AUTO && !interleaved(ranges, f->size);
    free(ranges);
    if (direct) {
        free(p);
        free(ppos);
        return e ? e : rch_io_indep(f, is_write, pos, data, nbytes, got);
    }
    if (pl.ghi > pl.glo) {
        MPI_Offset su = f->hints.striping_unit;
        pl.base = su > 0 ? pl.glo / su * su : pl.glo;
        pl.dsize = (pl.ghi - pl.base + f->naggr - 1) / f->naggr;
        if (su > 0)
            pl.dsize = (pl.dsize + su - 1) / su * su;
        pl.rounds = (int)((pl.dsize + pl.cb - 1) / pl.cb);
        int P = f->size;
        struct round rd = { 0 };
        int *ints = calloc((size_t)P * 9, sizeof(int));
        MPI_Offset wcap = pl.cb < pl.dsize ? pl.cb : pl.dsize;
        char *wbuf = malloc((size_t)wcap + 1);
        if (!ints || !wbuf) {
            /* every rank must still run the rounds: without buffers this one
             * cannot, so the job is failed here rather than hung */
            free(ints);
            free(wbuf);
            free(p);
            free(ppos);
            return ENOMEM;
        }
        rd.scnt = ints, rd.sdsp = ints + P, rd.rcnt = ints + 2 * P, rd.rdsp = ints + 3 * P;
        rd.sbytes = ints + 4 * P, rd.sbdsp = ints + 5 * P, rd.rbytes = ints + 6 * P, rd.rbdsp = ints + 7 * P;
        rd.udsp = ints + 8 * P;
        for (int r = 0; r < pl.rounds; r++)
            e = one_round(f, &pl, r, is_write, p, ppos, n, data, &rd, wbuf, e);
        round_free(&rd);
        free(wbuf);
    }
    if (!e)
        *got = is_write ? nbytes : before_eof(f, p, n);
    free(p);
    free(ppos);
    return e;
}
