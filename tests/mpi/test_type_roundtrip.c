/*
 * Derived datatypes across processes (any number of ranks, 1 included: a
 * rank sends to rank+1 and receives from rank-1 around a ring). Each case
 * sends with one type and receives with a different type of the same type
 * signature, and the receiver checks every element it owns and that nothing
 * outside the receive type's map was written:
 *   - vector -> contiguous and contiguous -> vector (strided columns);
 *   - indexed with a negative displacement -> struct of the same ints;
 *   - struct {int; double[2]; char} x 3 -> MPI_PACKED, unpacked with MPI_Unpack,
 *     and MPI_Pack'ed bytes sent as MPI_PACKED -> struct;
 *   - a matrix sent by resized columns, received by rows (transpose);
 *   - a 4 MiB strided message (the rendezvous path with pack/unpack);
 *   - MPI_BOTTOM with absolute addresses on both sides;
 *   - a non-contiguous Irecv whose type is freed before the Wait (legal);
 *   - a shorter message: MPI_Get_elements counts the basic elements of a
 *     partial struct, MPI_Get_count is MPI_UNDEFINED;
 *   - truncation into a non-contiguous type: MPI_ERR_TRUNCATE, the prefix
 *     delivered, the rest of the buffer untouched.
 */
#include <stddef.h>
#include "mpi_test.h"

static int rank, size, next, prev;

/* Send `sbuf` with (scount, stype) to next, receive into `rbuf` with
 * (rcount, rtype) from prev, with tag `tag`. */
static void ring(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 int tag, MPI_Status *st)
{
    MPI_Request r;
    MPI_OK(MPI_Irecv(rbuf, rcount, rtype, prev, tag, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(sbuf, scount, stype, next, tag, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, st));
}

/* Value of element i sent by rank r in case `tag`. */
static double val(int r, int tag, int i)
{
    return r * 1000000.0 + tag * 10000.0 + i;
}

static void vector_and_contiguous(void)
{
    enum { N = 50 };
    double strided[2 * N], dense[N];
    MPI_Datatype vec;
    MPI_Status st;

    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    for (int i = 0; i < 2 * N; i++)
        strided[i] = i % 2 ? -1.0 : val(rank, 1, i / 2);
    ring(strided, 1, vec, dense, N, MPI_DOUBLE, 1, &st);
    for (int i = 0; i < N; i++)
        CHECK(dense[i] == val(prev, 1, i), "vector->contiguous element %d: %g", i, dense[i]);

    for (int i = 0; i < N; i++)
        dense[i] = val(rank, 2, i);
    for (int i = 0; i < 2 * N; i++)
        strided[i] = -7.0;
    ring(dense, N, MPI_DOUBLE, strided, 1, vec, 2, &st);
    for (int i = 0; i < 2 * N; i++)
        CHECK(strided[i] == (i % 2 ? -7.0 : val(prev, 2, i / 2)), "contiguous->vector slot %d: %g", i, strided[i]);
    MPI_OK(MPI_Type_free(&vec));
}

static void indexed_to_struct(void)
{
    /* 6 ints from a buffer of 16, one block before the base pointer */
    int store[16], *base = store + 4, bl[3] = { 2, 1, 3 }, disp[3] = { -4, 5, 9 };
    int got[16], *gbase = got + 8;
    MPI_Datatype idx, st_t, types[3] = { MPI_INT, MPI_INT, MPI_INT };
    MPI_Aint sdisp[3] = { 0, 3 * sizeof(int), -5 * (MPI_Aint)sizeof(int) };
    int sbl[3] = { 1, 3, 2 };
    MPI_Status st;

    for (int i = 0; i < 16; i++)
        store[i] = (int)val(rank, 3, i);
    MPI_OK(MPI_Type_indexed(3, bl, disp, MPI_INT, &idx));
    MPI_OK(MPI_Type_commit(&idx));
    MPI_OK(MPI_Type_create_struct(3, sbl, sdisp, types, &st_t));
    MPI_OK(MPI_Type_commit(&st_t));
    for (int i = 0; i < 16; i++)
        got[i] = -1;
    ring(base, 1, idx, gbase, 1, st_t, 3, &st);
    {
        /* the sent sequence, in type-map order */
        int sent_at[6] = { -4, -3, 5, 9, 10, 11 }, recv_at[6] = { 0, 3, 4, 5, -5, -4 };
        int expect[16];
        for (int i = 0; i < 16; i++)
            expect[i] = -1;
        for (int k = 0; k < 6; k++)
            expect[8 + recv_at[k]] = (int)val(prev, 3, 4 + sent_at[k]);
        for (int i = 0; i < 16; i++)
            CHECK(got[i] == expect[i], "indexed->struct slot %d: %d, expected %d", i, got[i], expect[i]);
    }
    MPI_OK(MPI_Type_free(&idx));
    MPI_OK(MPI_Type_free(&st_t));
}

struct rec {
    int i;
    double d[2];
    char c;
};

static MPI_Datatype rec_type(void)
{
    int bl[3] = { 1, 2, 1 };
    MPI_Aint disp[3] = { offsetof(struct rec, i), offsetof(struct rec, d), offsetof(struct rec, c) };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, t;
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(ext == (MPI_Aint)sizeof(struct rec), "struct rec extent %ld, sizeof %zu", (long)ext, sizeof(struct rec));
    return t;
}

static void fill_rec(struct rec *r, int n, int from, int tag)
{
    for (int k = 0; k < n; k++) {
        r[k].i = (int)val(from, tag, k);
        r[k].d[0] = val(from, tag, 100 + k);
        r[k].d[1] = -val(from, tag, 200 + k);
        r[k].c = (char)('A' + (from + k) % 26);
    }
}

static void check_rec(const struct rec *r, int n, int from, int tag, const char *what)
{
    struct rec e[8];
    fill_rec(e, n, from, tag);
    for (int k = 0; k < n; k++)
        CHECK(r[k].i == e[k].i && r[k].d[0] == e[k].d[0] && r[k].d[1] == e[k].d[1] && r[k].c == e[k].c,
              "%s: record %d differs", what, k);
}

static void struct_and_packed(void)
{
    MPI_Datatype rt = rec_type();
    struct rec out[3], in[3];
    unsigned char packed[256];
    int psize, pos = 0;
    MPI_Status st;

    MPI_OK(MPI_Pack_size(3, rt, MPI_COMM_WORLD, &psize));
    CHECK(psize <= (int)sizeof(packed), "pack size %d", psize);

    /* typed -> MPI_PACKED, then MPI_Unpack */
    fill_rec(out, 3, rank, 4);
    ring(out, 3, rt, packed, psize, MPI_PACKED, 4, &st);
    memset(in, 0, sizeof(in));
    MPI_OK(MPI_Unpack(packed, psize, &pos, in, 3, rt, MPI_COMM_WORLD));
    CHECK(pos == psize, "unpacked %d of %d bytes", pos, psize);
    check_rec(in, 3, prev, 4, "struct->PACKED->Unpack");

    /* MPI_Pack -> MPI_PACKED -> typed */
    fill_rec(out, 3, rank, 5);
    pos = 0;
    MPI_OK(MPI_Pack(out, 3, rt, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
    memset(in, 0, sizeof(in));
    ring(packed, pos, MPI_PACKED, in, 3, rt, 5, &st);
    check_rec(in, 3, prev, 5, "Pack->PACKED->struct");
    MPI_OK(MPI_Type_free(&rt));
}

static void transpose(void)
{
    enum { R = 5, C = 7 };
    double a[R][C], t[C][R];
    MPI_Datatype col, col1;
    MPI_Status st;

    /* one column of a: R doubles C apart; resized so consecutive columns are 1 double apart */
    MPI_OK(MPI_Type_vector(R, 1, C, MPI_DOUBLE, &col));
    MPI_OK(MPI_Type_create_resized(col, 0, sizeof(double), &col1));
    MPI_OK(MPI_Type_commit(&col1));
    MPI_OK(MPI_Type_free(&col));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            a[i][j] = val(rank, 6, i * C + j);
    memset(t, 0, sizeof(t));
    ring(a, C, col1, t, R * C, MPI_DOUBLE, 6, &st);
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++)
            CHECK(t[j][i] == val(prev, 6, i * C + j), "transpose t[%d][%d] = %g", j, i, t[j][i]);
    MPI_OK(MPI_Type_free(&col1));
}

static void large_strided(void)
{
    const int n = 1 << 19;       /* 512 Ki doubles = 4 MiB of data, 8 MiB buffer */
    double *s = malloc((size_t)n * 2 * sizeof(double)), *r = malloc((size_t)n * 2 * sizeof(double));
    MPI_Datatype v;
    MPI_Status st;
    int count;

    CHECK(s && r, "out of memory");
    MPI_OK(MPI_Type_vector(n / 4, 4, 8, MPI_DOUBLE, &v));    /* 4 of every 8 */
    MPI_OK(MPI_Type_commit(&v));
    for (int i = 0; i < 2 * n; i++) {
        s[i] = (i % 8) < 4 ? val(rank, 7, i) : -3.0;
        r[i] = -5.0;
    }
    ring(s, 1, v, r, 1, v, 7, &st);
    for (int i = 0; i < 2 * n; i++) {
        double e = (i % 8) < 4 ? val(prev, 7, i) : -5.0;
        if (r[i] != e)
            CHECK(0, "large strided slot %d: %g, expected %g", i, r[i], e);
    }
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == n, "count %d, expected %d", count, n);
    MPI_OK(MPI_Type_free(&v));
    free(s);
    free(r);
}

static void bottom(void)
{
    int x = (int)val(rank, 8, 0), gx = -1;
    double y = val(rank, 8, 1), gy = -1;
    int bl[2] = { 1, 1 };
    MPI_Aint sd[2], rd[2];
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, st_s, st_r;
    MPI_Status st;

    MPI_OK(MPI_Get_address(&x, &sd[0]));
    MPI_OK(MPI_Get_address(&y, &sd[1]));
    MPI_OK(MPI_Get_address(&gx, &rd[0]));
    MPI_OK(MPI_Get_address(&gy, &rd[1]));
    MPI_OK(MPI_Type_create_struct(2, bl, sd, types, &st_s));
    MPI_OK(MPI_Type_create_struct(2, bl, rd, types, &st_r));
    MPI_OK(MPI_Type_commit(&st_s));
    MPI_OK(MPI_Type_commit(&st_r));
    ring(MPI_BOTTOM, 1, st_s, MPI_BOTTOM, 1, st_r, 8, &st);
    CHECK(gx == (int)val(prev, 8, 0) && gy == val(prev, 8, 1), "MPI_BOTTOM: got %d %g", gx, gy);
    MPI_OK(MPI_Type_free(&st_s));
    MPI_OK(MPI_Type_free(&st_r));
}

static void free_before_wait(void)
{
    enum { N = 64 };
    int s[N], r[2 * N];
    MPI_Datatype v;
    MPI_Request req;

    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    for (int i = 0; i < N; i++)
        s[i] = (int)val(rank, 9, i);
    for (int i = 0; i < 2 * N; i++)
        r[i] = -1;
    MPI_OK(MPI_Irecv(r, 1, v, prev, 9, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Type_free(&v));           /* legal: the pending receive keeps using it */
    CHECK(v == MPI_DATATYPE_NULL, "Type_free must set MPI_DATATYPE_NULL");
    {
        /* churn the datatype table so a freed type's memory would be reused */
        MPI_Datatype junk[8];
        for (int k = 0; k < 8; k++)
            MPI_OK(MPI_Type_contiguous(k + 1, MPI_CHAR, &junk[k]));
        for (int k = 0; k < 8; k++)
            MPI_OK(MPI_Type_free(&junk[k]));
    }
    MPI_OK(MPI_Send(s, N, MPI_INT, next, 9, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2 * N; i++)
        CHECK(r[i] == (i % 2 ? -1 : (int)val(prev, 9, i / 2)), "free-before-wait slot %d: %d", i, r[i]);
}

static void partial_elements(void)
{
    /* sent: one {int, int, double} then one more int: int,int,double,int */
    int bl[3] = { 2, 1, 1 };
    MPI_Aint disp[3] = { 0, 8, 16 };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_INT }, three, four;
    struct { int a, b; double d; int e; } s = { 1, 2, 3.5, 4 };
    struct { int a, b; double d; } r[2];      /* the extent of `three` */
    MPI_Status st;
    int elements, count;

    MPI_OK(MPI_Type_create_struct(2, bl, disp, types, &three));   /* {int x2, double} */
    MPI_OK(MPI_Type_commit(&three));
    MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &four));    /* {int x2, double, int} */
    MPI_OK(MPI_Type_commit(&four));
    memset(r, 0, sizeof(r));
    ring(&s, 1, four, r, 2, three, 10, &st);
    MPI_OK(MPI_Get_elements(&st, three, &elements));
    MPI_OK(MPI_Get_count(&st, three, &count));
    CHECK(elements == 4, "Get_elements %d, expected 4", elements);
    CHECK(count == MPI_UNDEFINED, "Get_count %d, expected MPI_UNDEFINED", count);
    CHECK(r[0].a == 1 && r[0].b == 2 && r[0].d == 3.5 && r[1].a == 4 && r[1].b == 0,
          "partial data %d %d %g %d %d", r[0].a, r[0].b, r[0].d, r[1].a, r[1].b);
    MPI_OK(MPI_Type_free(&three));
    MPI_OK(MPI_Type_free(&four));
}

static void truncation(void)
{
    enum { N = 40 };
    int s[N], r[2 * N];
    MPI_Datatype v;
    MPI_Request req;
    MPI_Status st;
    int rc, count;

    MPI_OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &v));     /* room for 20 ints, strided */
    MPI_OK(MPI_Type_commit(&v));
    for (int i = 0; i < N; i++)
        s[i] = (int)val(rank, 11, i);
    for (int i = 0; i < 2 * N; i++)
        r[i] = -1;
    MPI_OK(MPI_Irecv(r, 1, v, prev, 11, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Send(s, N, MPI_INT, next, 11, MPI_COMM_WORLD));     /* 40 ints into room for 20 */
    rc = MPI_Wait(&req, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "truncation: class %d", mt_class(rc));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == N / 2, "truncated count %d", count);
    for (int i = 0; i < 2 * N; i++) {
        int e = (i % 2 == 0 && i < N) ? (int)val(prev, 11, i / 2) : -1;
        CHECK(r[i] == e, "truncated receive slot %d: %d, expected %d", i, r[i], e);
    }
    MPI_OK(MPI_Type_free(&v));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    mt_rank = rank;
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    vector_and_contiguous();
    indexed_to_struct();
    struct_and_packed();
    transpose();
    large_strided();
    bottom();
    free_before_wait();
    partial_elements();
    truncation();

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("test_type_roundtrip: %d ranks passed\n", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
