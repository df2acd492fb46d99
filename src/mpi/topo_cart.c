/*
 * Cartesian topologies: Dims_create, Cart_create, Cart_sub, Cart_map and the
 * local inquiries (Cart_coords, Cart_rank, Cart_get, Cartdim_get,
 * Cart_shift).
 *
 * Ranks are laid out row-major, the last dimension varying fastest (MPI's
 * numbering): rank = ((c0 * d1 + c1) * d2 + c2) ... Reordering is never done
 * (reorder is accepted and ignored: rank i of the grid is rank i of the old
 * communicator), so a grid smaller than the communicator leaves its highest
 * ranks out with MPI_COMM_NULL.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

/* The coordinates of rank in a grid (dims[ndims]). */
static void coords_of(int ndims, const int *dims, int rank, int *coords)
{
    for (int d = ndims - 1; d >= 0; d--) {
        coords[d] = rank % dims[d];
        rank /= dims[d];
    }
}

/* The rank `disp` steps from coords along dimension d: wrapped if that
 * dimension is periodic, MPI_PROC_NULL off its edge otherwise. */
static int step(const struct rch_mpi_topo *t, const int *coords, int d, int disp)
{
    long long x = (long long)coords[d] + disp;
    if (t->periods[d]) {
        x %= t->dims[d];
        if (x < 0)
            x += t->dims[d];
    } else if (x < 0 || x >= t->dims[d]) {
        return MPI_PROC_NULL;
    }
    int r = 0;
    for (int k = 0; k < t->ndims; k++)
        r = r * t->dims[k] + (k == d ? (int)x : coords[k]);
    return r;
}

/* A Cartesian topology for `rank` in a grid, neighbour lists included. */
static struct rch_mpi_topo *cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    struct rch_mpi_topo *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    /* zeroed: a 0-dimensional grid (ndims 0) writes no element, and its
     * arrays must still hold defined values (coords_of is passed them) */
    size_t n = (size_t)(ndims ? ndims : 1);
    t->dims = calloc(n, sizeof(int));
    t->periods = calloc(n, sizeof(int));
    t->coords = calloc(n, sizeof(int));
    t->in = calloc(2 * n, sizeof(int));
    t->out = calloc(2 * n, sizeof(int));
    if (!t->dims || !t->periods || !t->coords || !t->in || !t->out) {
        rch_mpi_topo_free(t);
        return NULL;
    }
    for (int d = 0; d < ndims; d++) {
        t->dims[d] = dims[d];
        t->periods[d] = periods[d] != 0;
    }
    coords_of(ndims, t->dims, rank, t->coords);
    t->indegree = t->outdegree = 2 * ndims;
    for (int d = 0; d < ndims; d++) {
        t->in[2 * d] = t->out[2 * d] = step(t, t->coords, d, -1);
        t->in[2 * d + 1] = t->out[2 * d + 1] = step(t, t->coords, d, +1);
    }
    return t;
}

/* The Cartesian topology of comm, or NULL with *err reported. */
static struct rch_mpi_topo *get_cart(const char *fn, MPI_Comm comm, struct rch_mpi_comm **cp, int *err)
{
    *err = rch_mpi_check_init(fn);
    if (*err)
        return NULL;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c) {
        *err = rch_mpi_comm_bad(fn, comm);
        return NULL;
    }
    if (!c->topo || c->topo->kind != MPI_CART) {
        *err = rch_mpi_err(comm, MPI_ERR_TOPOLOGY, "%s: communicator 0x%x in argument comm has no Cartesian topology", fn,
                           (unsigned)comm);
        return NULL;
    }
    if (cp)
        *cp = c;
    return c->topo;
}

/* Checks (ndims, dims, periods) of a grid for a communicator of `size`
 * ranks; *nranks = the grid's size. */
static int check_grid(const char *fn, MPI_Comm comm, int size, int ndims, const int dims[], const int periods[],
                      int *nranks)
{
    if (ndims < 0)
        return rch_mpi_err(comm, MPI_ERR_DIMS, "%s: negative ndims %d", fn, ndims);
    if (ndims > 0 && (!dims || !periods))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !dims ? "dims" : "periods");
    long long n = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return rch_mpi_err(comm, MPI_ERR_DIMS, "%s: dims[%d] = %d (every dimension must be positive)", fn, d,
                               dims[d]);
        n *= dims[d];
        if (n > size)
            break;
    }
    if (n > size)
        return rch_mpi_err(comm, MPI_ERR_TOPOLOGY,
                           "%s: the grid needs more processes than the communicator's %d (argument dims)", fn, size);
    *nranks = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_create";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *p = rch_mpi_comm_get(comm_old);
    if (!p)
        return rch_mpi_comm_bad(fn, comm_old);
    if ((err = rch_mpi_intra_only(fn, p, "comm_old")))
        return err;
    if (!comm_cart)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument comm_cart is NULL", fn);
    int n;
    err = check_grid(fn, comm_old, p->size, ndims, dims, periods, &n);
    if (err)
        return err;
    int in = p->rank < n;
    struct rch_mpi_topo *t = NULL;
    if (in) {
        /* Made before the collective part, so running out of memory cannot
         * leave the others holding a communicator this rank lacks. */
        t = cart_new(ndims, dims, periods, p->rank);
        if (!t)
            return rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    return rch_mpi_topo_comm(fn, p, in, t, comm_cart);
}
#pragma weak MPI_Cart_create = PMPI_Cart_create

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_map";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(fn, comm);
    if (!newrank)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument newrank is NULL", fn);
    int n;
    err = check_grid(fn, comm, c->size, ndims, dims, periods, &n);
    if (err)
        return err;
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_map = PMPI_Cart_map

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_sub";
    struct rch_mpi_comm *c;
    int err;
    struct rch_mpi_topo *t = get_cart(fn, comm, &c, &err);
    if (!t)
        return err;
    if (!newcomm)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument newcomm is NULL", fn);
    if (t->ndims > 0 && !remain_dims)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument remain_dims is NULL", fn);
    /* color: my position in the dropped dimensions; key: in the kept ones
     * (which is then my rank in the sub-grid). */
    int color = 0, key = 0, kept = 0;
    size_t nd = t->ndims > 0 ? (size_t)t->ndims : 1;
    int *dims = malloc(2 * nd * sizeof(int));
    if (!dims)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int *periods = dims + nd;
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            key = key * t->dims[d] + t->coords[d];
            dims[kept] = t->dims[d];
            periods[kept++] = t->periods[d];
        } else {
            color = color * t->dims[d] + t->coords[d];
        }
    }
    struct rch_mpi_topo *sub = cart_new(kept, dims, periods, key);
    free(dims);
    if (!sub)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    err = rch_mpi_comm_split_common(fn, c, color, key, newcomm, 0);
    if (err) {
        rch_mpi_topo_free(sub);
        return err;
    }
    rch_mpi_comm_get(*newcomm)->topo = sub;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_topo *t = get_cart("MPI_Cartdim_get", comm, NULL, &err);
    if (!t)
        return err;
    if (!ndims)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Cartdim_get: argument ndims is NULL");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_get";
    int err;
    struct rch_mpi_topo *t = get_cart(fn, comm, NULL, &err);
    if (!t)
        return err;
    if (maxdims < t->ndims)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: maxdims %d is less than the topology's %d dimensions", fn,
                           maxdims, t->ndims);
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           !dims ? "dims" : !periods ? "periods" : "coords");
    for (int d = 0; d < t->ndims; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
        coords[d] = t->coords[d];
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_get = PMPI_Cart_get

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_coords";
    struct rch_mpi_comm *c;
    int err;
    struct rch_mpi_topo *t = get_cart(fn, comm, &c, &err);
    if (!t)
        return err;
    if (rank < 0 || rank >= c->size)
        return rch_mpi_err(comm, MPI_ERR_RANK, "%s: invalid rank %d in argument rank (communicator size %d)", fn,
                           rank, c->size);
    if (maxdims < t->ndims)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: maxdims %d is less than the topology's %d dimensions", fn,
                           maxdims, t->ndims);
    if (t->ndims > 0 && !coords)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument coords is NULL", fn);
    coords_of(t->ndims, t->dims, rank, coords);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_coords = PMPI_Cart_coords

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_rank";
    int err;
    struct rch_mpi_topo *t = get_cart(fn, comm, NULL, &err);
    if (!t)
        return err;
    if (!rank || (t->ndims > 0 && !coords))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !rank ? "rank" : "coords");
    int r = 0;
    for (int d = 0; d < t->ndims; d++) {
        int x = coords[d];
        if (t->periods[d]) {
            x %= t->dims[d];
            if (x < 0)
                x += t->dims[d];
        } else if (x < 0 || x >= t->dims[d]) {
            return rch_mpi_err(comm, MPI_ERR_ARG,
                               "%s: coords[%d] = %d is outside the non-periodic dimension of size %d", fn, d,
                               coords[d], t->dims[d]);
        }
        r = r * t->dims[d] + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_rank = PMPI_Cart_rank

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Cart_shift";
    int err;
    struct rch_mpi_topo *t = get_cart(fn, comm, NULL, &err);
    if (!t)
        return err;
    if (!rank_source || !rank_dest)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !rank_source ? "rank_source" : "rank_dest");
    if (direction < 0 || direction >= t->ndims)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: invalid direction %d (the topology has %d dimensions)", fn,
                           direction, t->ndims);
    *rank_source = step(t, t->coords, direction, -disp);
    *rank_dest = step(t, t->coords, direction, disp);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_shift = PMPI_Cart_shift

/* ---- Dims_create ----
 * MPI: the free (zero) entries get dimensions "as close to each other as
 * possible", in non-increasing order. The standard leaves the measure and
 * the ties open; a drop-in for MPICH must decide as MPICH 4 does, whose
 * rule, read off its implementation and checked against every entry of its
 * test suite's table (topo/baddims.h), is:
 *  - a prime factor that occurs once and exceeds the square root of what is
 *    left gets a dimension of its own, largest first (never the smallest
 *    prime, and one free entry stays for the rest): 490685400 in 5-D is
 *    272603 x 9 x 8 x 5 x 5, the rest 1800 balanced by itself;
 *  - the rest is split with the least spread (largest minus smallest);
 *  - among equal spreads the larger smallest dimension wins, then the
 *    larger second smallest, and so on (360 in 3-D: 10 x 6 x 6, not
 *    9 x 8 x 5; 98784 in 5-D: 14 x 14 x 9 x 8 x 7, not 14 x 12 x 12 x 7 x 7).
 * A greedy assignment of prime factors misses the least spread (72 in 2-D:
 * 12 x 6, not 9 x 8), so the factorizations are searched: factors are
 * chosen in non-increasing order from the divisors of the number, each at
 * least the k-th root of what is left for k factors, and a branch stops as
 * soon as its spread cannot beat or tie the best found. */
struct dims_search {
    const int *div;          /* divisors of the number, ascending */
    int ndiv, k;
    int *cur, *best;         /* [k] */
    long long best_spread;
};

/* Of two non-increasing factorizations with equal spread, whether a wins
 * over b: compared from the smallest dimension up, the larger value wins. */
static int dims_tie_wins(const int *a, const int *b, int k)
{
    for (int d = k - 1; d >= 0; d--)
        if (a[d] != b[d])
            return a[d] > b[d];
    return 0;
}

/* A complete factorization in cur: keeps it if it beats the best so far. */
static void dims_offer(struct dims_search *s)
{
    long long spread = (long long)s->cur[0] - s->cur[s->k - 1];
    if (spread < s->best_spread ||
        (spread == s->best_spread && dims_tie_wins(s->cur, s->best, s->k))) {
        s->best_spread = spread;
        memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
    }
}

/* Whether f^e >= x (f >= 1, e >= 0), without overflow. */
static int pow_reaches(long long f, long long e, long long x)
{
    if (f <= 1)
        return x <= 1;
    long long p = 1;
    for (long long m = 0; m < e && p < x; m++)
        p *= f;
    return p >= x;
}

/* The first divisor f with f^left >= rest: a smaller one as the largest of
 * `left` factors cannot make up rest. */
static int dims_first(const struct dims_search *s, long long rest, int left)
{
    int lo = 0, hi = s->ndiv;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pow_reaches(s->div[mid], left, rest))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Fills cur[i..k) with factors of rest, each <= cur[i-1]. */
static void dims_dfs(struct dims_search *s, int i, long long rest)
{
    int left = s->k - i;
    if (left == 1 || rest == 1) {
        if (left == 1 && i > 0 && rest > s->cur[i - 1])
            return;
        for (int d = i; d < s->k; d++)
            s->cur[d] = d == i ? (int)rest : 1;
        dims_offer(s);
        return;
    }
    for (int j = dims_first(s, rest, left); j < s->ndiv; j++) {
        long long f = s->div[j];
        if (i > 0 && f > s->cur[i - 1])
            break;
        if (rest % f != 0)
            continue;
        /* To beat or tie the best spread, every factor from here on is at
         * least lo. Larger f only raise lo and shrink rest / f, so once the
         * later factors cannot all reach lo no larger f can do better. */
        long long lo = (i > 0 ? s->cur[0] : f) - s->best_spread;
        if (f < lo)
            continue;
        if (lo > 1 && pow_reaches(lo, left - 1, rest / f + 1))
            break;
        s->cur[i] = (int)f;
        dims_dfs(s, i + 1, rest / f);
    }
}

/* The most divisors of any int (2095133040 has 1600). */
#define DIMS_MAX_DIVISORS 1600

/* Merges the ascending div[0..n) with old[0..nold) * mul (also ascending)
 * into div; returns the new count. */
static int merge_scaled(int *div, int n, const int *old, int nold, long long mul)
{
    int out[DIMS_MAX_DIVISORS], k = 0, i = 0, j = 0;
    while (i < n || j < nold) {
        long long y = j < nold ? old[j] * mul : 0;
        if (j >= nold || (i < n && div[i] < y))
            out[k++] = div[i++];
        else
            out[k++] = (int)y, j++;
    }
    memcpy(div, out, (size_t)k * sizeof(int));
    return k;
}

/* A prime factorization: an int has at most 9 distinct primes. */
struct dims_primes {
    int n;
    int p[10], e[10];   /* ascending primes, their exponents */
};

static void dims_factor(int n, struct dims_primes *f)
{
    f->n = 0;
    long long m = n;
    for (long long p = 2; m > 1; p += p == 2 ? 1 : 2) {
        if (p * p > m)
            p = m;                   /* what is left is prime */
        if (m % p != 0)
            continue;
        f->p[f->n] = (int)p;
        f->e[f->n] = 0;
        for (; m % p == 0; m /= p)
            f->e[f->n]++;
        f->n++;
    }
}

/* The divisors of the number factored in f, ascending, into div (room for
 * DIMS_MAX_DIVISORS); returns their number. Kept sorted by merging in each
 * power of each prime: trial division up to sqrt(n), or a general sort,
 * would cost more than the search itself. */
static int dims_divisors(const struct dims_primes *f, int *div)
{
    int ndiv = 1, old[DIMS_MAX_DIVISORS];
    div[0] = 1;
    for (int i = 0; i < f->n; i++) {
        int nold = ndiv;
        memcpy(old, div, (size_t)nold * sizeof(int));
        long long pk = 1;
        for (int j = 0; j < f->e[i]; j++) {
            pk *= f->p[i];
            ndiv = merge_scaled(div, ndiv, old, nold, pk);
        }
    }
    return ndiv;
}

/* MPICH's first step (see above): the large single primes of n, largest
 * first, into out; removes them from f and n and returns their number.
 * MPICH 4.2 squares p in an int, which overflows for p > 46340 and then
 * takes the prime or not by chance; the square here is exact, so for such
 * primes the two may differ (452947824 in 4-D: MPICH 449353 x 14 x 9 x 8,
 * rdmach 449353 x 12 x 12 x 7). */
static int dims_large_primes(struct dims_primes *f, int *n, int k, int *out)
{
    int taken = 0;
    while (f->n > 1 && taken < k - 1) {
        long long p = f->p[f->n - 1];
        if (f->e[f->n - 1] != 1 || p * p <= *n)
            break;
        out[taken++] = (int)p;
        *n /= (int)p;
        f->n--;
    }
    return taken;
}

/* The balanced k factors of n (k >= 1), non-increasing, into out; -1 if out of memory. */
static int dims_balance(int n, int k, int *out)
{
    struct dims_primes f;
    dims_factor(n, &f);
    int taken = dims_large_primes(&f, &n, k, out);
    int div[DIMS_MAX_DIVISORS];
    int ndiv = dims_divisors(&f, div);
    int *cur = malloc((size_t)(k - taken) * sizeof(int));
    if (!cur)
        return -1;
    struct dims_search s = { div, ndiv, k - taken, cur, out + taken, (long long)n + 1 };
    dims_dfs(&s, 0, n);
    free(cur);
    return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Dims_create";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (nnodes <= 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: nnodes %d must be positive", fn, nnodes);
    if (ndims < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS, "%s: negative ndims %d", fn, ndims);
    if (ndims > 0 && !dims)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument dims is NULL", fn);
    long long fixed = 1;
    int nfree = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS, "%s: dims[%d] = %d is negative", fn, d, dims[d]);
        if (dims[d] == 0)
            nfree++;
        else if ((fixed *= dims[d]) > nnodes)
            break;
    }
    /* MPI: the error is nnodes not a multiple of the fixed entries' product.
     * All entries fixed with a smaller product is not one (MPICH agrees): a
     * program may ask for a grid over part of its processes. */
    if (fixed > nnodes || nnodes % fixed != 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS,
                           "%s: nnodes %d is not a multiple of the product of the non-zero entries of dims", fn,
                           nnodes);
    if (nfree == 0)
        return MPI_SUCCESS;
    int *v = malloc((size_t)nfree * sizeof(int));
    if (!v || dims_balance((int)(nnodes / fixed), nfree, v) != 0) {
        free(v);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int d = 0, j = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = v[j++];
    free(v);
    return MPI_SUCCESS;
}
#pragma weak MPI_Dims_create = PMPI_Dims_create
