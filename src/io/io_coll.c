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
    MPI_Offset *smeta, *rmeta;
    MPI_Offset *spos;                        /* [pieces sent]: their place in the packed data */
    char *sdata, *rdata;
    size_t smeta_cap, rmeta_cap, spos_cap, sdata_cap, rdata_cap;
};

/* The per-rank arrays of collective buffering (rch_io_coll_aggregators). */
static size_t work_size(int P)
{
    return (size_t)P * (2 * sizeof(MPI_Offset) + 8 * sizeof(MPI_Count) + 5 * sizeof(MPI_Aint) + 4 * sizeof(int));
}

static void work_arrays(const struct ADIOI_FileD *f, struct round *rd)
{
    size_t P = (size_t)f->size;
    MPI_Count *c = (MPI_Count *)((MPI_Offset *)f->cb_work + 2 * P);
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

/* An all-to-all of blocks: the int form when every rank's arrays fit an
 * int (small, agreed), else the large-count one. */
static void exchange(const struct ADIOI_FileD *f, struct round *rd, int small, const void *sb, const MPI_Count *sc,
                     const MPI_Aint *sd, void *rb, const MPI_Count *rc, const MPI_Aint *rdp, MPI_Datatype t)
{
    if (!small) {
        PMPI_Alltoallv_c(sb, sc, sd, t, rb, rc, rdp, t, f->comm);
        return;
    }
    for (int i = 0; i < f->size; i++) {
        rd->ic[i] = (int)sc[i], rd->id[i] = (int)sd[i];
        rd->jc[i] = (int)rc[i], rd->jd[i] = (int)rdp[i];
    }
    PMPI_Alltoallv(sb, rd->ic, rd->id, t, rb, rd->jc, rd->jd, t, f->comm);
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
    free(rd->smeta);
    free(rd->rmeta);
    free(rd->spos);
    free(rd->sdata);
    free(rd->rdata);
}

/* One round: the counts exchanged, every buffer the round needs made, then
 * (one allreduce) whether any rank failed to make its buffers: if so every
 * rank stops here, before an exchange that rank could not take part in,
 * and *stop is set. Else exchange and aggregate. Returns this rank's errno.
 * `failed`: an allocation that failed
 * before this round (the window buffer). */
static int one_round(struct ADIOI_FileD *f, const struct plan *pl, long r, int is_write,
                     const struct rch_io_piece *p, const MPI_Offset *ppos, int n, char *data, struct round *rd,
                     char *wbuf, int e, int failed, int *stop)
{
    int P = f->size, nsent = 0;
    size_t smeta_n, rmeta_n, sbytes_n, rbytes_n;
    if (cut(f, pl, (int)r, p, ppos, n, rd, &nsent)) {
        /* cannot describe my part: send nothing, and stop everyone below */
        memset(rd->scnt, 0, (size_t)P * sizeof(MPI_Count));
        memset(rd->sbytes, 0, (size_t)P * sizeof(MPI_Count));
        nsent = 0;
        failed = 1;
    }
    for (int i = 0; i < P; i++)
        rd->pairs[2 * i] = rd->scnt[i], rd->pairs[2 * i + 1] = rd->sbytes[i];
    PMPI_Alltoall(rd->pairs, 2, MPI_COUNT, rd->pairr, 2, MPI_COUNT, f->comm);
    for (int i = 0; i < P; i++)
        rd->rcnt[i] = rd->pairr[2 * i], rd->rbytes[i] = rd->pairr[2 * i + 1];
    int large = displs(rd->scnt, rd->sdsp, P, &smeta_n);
    large |= displs(rd->rcnt, rd->rdsp, P, &rmeta_n);
    large |= displs(rd->sbytes, rd->sbdsp, P, &sbytes_n);
    large |= displs(rd->rbytes, rd->rbdsp, P, &rbytes_n);
    int direct = in_place(rd, P, nsent);
    for (int i = 0; direct && i < P; i++)
        large |= rd->udsp[i] > INT_MAX - rd->sbytes[i];
    if (!failed && (fail_injected(f) ||
                    grow((void **)&rd->rmeta, &rd->rmeta_cap, (rmeta_n + 1) * sizeof(MPI_Offset)) ||
                    grow((void **)&rd->sdata, &rd->sdata_cap, direct ? 0 : sbytes_n + 1) ||
                    grow((void **)&rd->rdata, &rd->rdata_cap, rbytes_n + 1)))
        failed = 1;
    int mine[2] = { failed, large }, all[2];
    PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, f->comm);
    if (all[0]) {
        *stop = 1;   /* 0 from the others: the caller's agreement names the rank that failed */
        return e ? e : failed ? ENOMEM : 0;
    }
    int small = !all[1];
    exchange(f, rd, small, rd->smeta, rd->scnt, rd->sdsp, rd->rmeta, rd->rcnt, rd->rdsp, MPI_LONG);
    int my_ai = -1;
    for (int ai = 0; ai < f->naggr; ai++)
        if (f->aggr[ai] == f->rank)
            my_ai = ai;
    MPI_Offset wlo = 0, whi = 0;
    if (my_ai >= 0)
        window(f, pl, my_ai, (int)r, &wlo, &whi);
    MPI_Aint *sd = direct ? rd->udsp : rd->sbdsp;
    if (is_write) {
        MPI_Offset at = 0;
        for (int k = 0; !direct && k < nsent; k++) {
            memcpy(rd->sdata + at, data + rd->spos[k], (size_t)rd->smeta[2 * k + 1]);
            at += rd->smeta[2 * k + 1];
        }
        exchange(f, rd, small, direct ? data : rd->sdata, rd->sbytes, sd, rd->rdata, rd->rbytes, rd->rbdsp,
                 MPI_BYTE);
        if (!e && my_ai >= 0)
            e = agg_write(f, rd->rmeta, (int)(rmeta_n / 2), rd->rdata, wbuf, wlo);
    } else {
        if (!e && my_ai >= 0)
            e = agg_read(f, rd->rmeta, (int)(rmeta_n / 2), rd->rdata, wbuf, wlo);
        exchange(f, rd, small, rd->rdata, rd->rbytes, rd->rbdsp, direct ? data : rd->sdata, rd->sbytes, sd,
                 MPI_BYTE);
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
    struct round rd = { 0 };
    work_arrays(f, &rd);
    MPI_Offset *ranges = f->cb_work;
    PMPI_Allgather(lh, 2, MPI_LONG, ranges, 2, MPI_LONG, f->comm);
    struct plan pl = { .glo = LONG_MAX, .ghi = LONG_MIN, .cb = f->hints.cb_buffer_size };
    for (int r = 0; r < f->size; r++) {
        pl.glo = ranges[2 * r] < pl.glo ? ranges[2 * r] : pl.glo;
        pl.ghi = ranges[2 * r + 1] > pl.ghi ? ranges[2 * r + 1] : pl.ghi;
    }
    /* automatic (ROMIO's rule): ranks whose ranges do not interleave gain
     * nothing from the exchange, each accesses its own range directly */
    int hint = is_write ? f->hints.cb_write : f->hints.cb_read;
    if (hint == RCH_IO_AUTO && !interleaved(ranges, f->size)) {
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
        /* cb is at most RCH_IO_CB_MAX (hints): no overflow here */
        long rounds = (long)((pl.dsize + pl.cb - 1) / pl.cb);
        MPI_Offset wcap = pl.cb < pl.dsize ? pl.cb : pl.dsize;
        int my_aggr = 0;
        for (int ai = 0; ai < f->naggr; ai++)
            my_aggr |= f->aggr[ai] == f->rank;
        char *wbuf = NULL;
        int failed = my_aggr && (fail_injected(f) || !(wbuf = malloc((size_t)wcap + 1)));
        /* every rank runs the rounds until one of them cannot (one_round) */
        int stop = 0;
        for (long r = 0; r < rounds && !stop; r++, failed = 0)
            e = one_round(f, &pl, r, is_write, p, ppos, n, data, &rd, wbuf, e, failed, &stop);
        round_free(&rd);
        free(wbuf);
    }
    if (!e)
        *got = is_write ? nbytes : before_eof(f, p, n);
    free(p);
    free(ppos);
    return e;
}
