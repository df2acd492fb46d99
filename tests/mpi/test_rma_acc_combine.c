/*
 * MPI_Accumulate and MPI_Get_accumulate into a window mapped at the origin
 * (MPI_Win_allocate over shared memory: the origin combines in place) with
 * target datatypes of every shape the datatype engine moves differently:
 * a regular map of small blocks and one of blocks of 100 ints, a negative
 * stride, a periodic indexed pattern, an irregular indexed map mixing small
 * and large blocks, a struct of {int; int[2]} resized (count > 1), a
 * contiguous type, ints 6 bytes apart (not aligned for an int: the block
 * kernels must not take them), and MPI_SHORT_INT with MPI_MAXLOC (its
 * padding: not whole elements). Each is larger than the engine's 16 KiB piece, so pieces and
 * their edges are crossed.
 *
 * Expected values follow MPI 4.1 §12.3.4: the target element at each
 * position of the target type map (in type-map order) becomes
 * origin op target, and Get_accumulate returns the values before. The
 * positions are computed here from the types' definitions, not by MPI.
 *
 * Rank 0 is the origin, rank 1 the target; both check.
 */
#include "mpi_test.h"

#define W 200000                 /* ints in the window */

static int me;
static int pos[W];               /* the target type map: int positions in the window, in order */
static int npos;

static int init_val(int i) { return i * 3 + 1; }
static int org_val(int k) { return 1000000 + k * 7; }

/* One accumulate of npos ints, target type tt (count tcount) at int `disp`;
 * pos[] already holds the positions. fetch: MPI_Get_accumulate. */
static void run(const char *name, MPI_Win win, int *mem, MPI_Datatype tt, int tcount, int disp, int fetch)
{
    int *org = malloc(sizeof(int) * (size_t)npos), *res = malloc(sizeof(int) * (size_t)npos);
    for (int k = 0; k < npos; k++) {
        org[k] = org_val(k);
        res[k] = -7;
    }
    for (int i = 0; i < W; i++)
        mem[i] = init_val(i);
    MPI_OK(MPI_Win_fence(0, win));
    if (me == 0) {
        if (fetch)
            MPI_OK(MPI_Get_accumulate(org, npos, MPI_INT, res, npos, MPI_INT, 1, disp, tcount, tt, MPI_SUM, win));
        else
            MPI_OK(MPI_Accumulate(org, npos, MPI_INT, 1, disp, tcount, tt, MPI_SUM, win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    if (me == 1) {
        static unsigned char hit[W];
        memset(hit, 0, sizeof(hit));
        for (int k = 0; k < npos; k++) {
            int i = pos[k];
            CHECK(mem[i] == init_val(i) + org_val(k), "%s: window int %d (map position %d) is %d, expected %d",
                  name, i, k, mem[i], init_val(i) + org_val(k));
            hit[i] = 1;
        }
        for (int i = 0; i < W; i++)
            CHECK(hit[i] || mem[i] == init_val(i), "%s: window int %d outside the map changed to %d", name, i,
                  mem[i]);
    }
    if (me == 0 && fetch)
        for (int k = 0; k < npos; k++)
            CHECK(res[k] == init_val(pos[k]), "%s: fetched value %d is %d, expected %d (window int %d)", name, k,
                  res[k], init_val(pos[k]), pos[k]);
    free(org);
    free(res);
}

static void both(const char *name, MPI_Win win, int *mem, MPI_Datatype tt, int tcount, int disp)
{
    MPI_OK(MPI_Type_commit(&tt));
    run(name, win, mem, tt, tcount, disp, 0);
    run(name, win, mem, tt, tcount, disp, 1);
    MPI_OK(MPI_Type_free(&tt));
}

/* Target elements not aligned for their type: ints every 6 bytes (a
 * hvector; every other one at an odd multiple of 2). MPI allows it, so the
 * combine must not assume aligned elements: each target int, read by
 * bytes, becomes init + origin, and the bytes around them keep theirs. */
static void misaligned(MPI_Win win, int *mem)
{
    enum { N = 9000, STRIDE = 6, BASE = 3 * 4 };
    unsigned char *bytes = (unsigned char *)mem;
    static int org[N];
    for (int i = 0; i < W * 4; i++)
        bytes[i] = (unsigned char)(i * 13 + 5);
    for (int k = 0; k < N; k++)
        org[k] = org_val(k);
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_hvector(N, 1, STRIDE, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Win_fence(0, win));
    if (me == 0)
        MPI_OK(MPI_Accumulate(org, N, MPI_INT, 1, 3, 1, t, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (me == 1) {
        for (int i = 0; i < W * 4; i++) {
            int in = i >= BASE && (i - BASE) / STRIDE < N && (i - BASE) % STRIDE < 4;
            CHECK(in || bytes[i] == (unsigned char)(i * 13 + 5), "misaligned: window byte %d outside the map "
                  "changed", i);
        }
        for (int k = 0; k < N; k++) {
            int at = BASE + k * STRIDE, got, init;
            unsigned char ib[4];
            for (int j = 0; j < 4; j++)
                ib[j] = (unsigned char)((at + j) * 13 + 5);
            memcpy(&init, ib, 4);
            memcpy(&got, bytes + at, 4);
            int want = (int)((unsigned)init + (unsigned)org_val(k));
            CHECK(got == want, "misaligned: int %d at byte %d is %d, expected %d", k, at, got, want);
        }
    }
    MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    int np;
    mt_init(&argc, &argv, &me, &np);
    CHECK(np == 2, "run on 2 ranks");
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate((MPI_Aint)W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Datatype t, s;

    /* regular, blocks of 1 int, stride 2 */
    npos = 0;
    for (int k = 0; k < 30000; k++)
        pos[npos++] = 5 + 2 * k;
    MPI_OK(MPI_Type_vector(30000, 1, 2, MPI_INT, &t));
    both("vector 1/2", win, mem, t, 1, 5);

    /* regular, blocks of 100 ints (400 bytes), stride 150 */
    npos = 0;
    for (int b = 0; b < 600; b++)
        for (int j = 0; j < 100; j++)
            pos[npos++] = 3 + 150 * b + j;
    MPI_OK(MPI_Type_vector(600, 100, 150, MPI_INT, &t));
    both("vector 100/150", win, mem, t, 1, 3);

    /* negative stride: blocks of 3 ints going down from int 180000 */
    npos = 0;
    for (int b = 0; b < 20000; b++)
        for (int j = 0; j < 3; j++)
            pos[npos++] = 180000 - 8 * b + j;
    MPI_OK(MPI_Type_vector(20000, 3, -8, MPI_INT, &t));
    both("vector negative stride", win, mem, t, 1, 180000);

    /* periodic indexed: blocks of 1, 2, 3 ints with gaps of 1, 2 */
    {
        static int bl[40000], dp[40000];
        int nb = 0, at = 0;
        npos = 0;
        for (int b = 0; b < 40000; b++) {
            bl[b] = 1 + b % 3;
            dp[b] = at;
            for (int j = 0; j < bl[b]; j++)
                pos[npos++] = 7 + at + j;
            at += bl[b] + 1 + b % 2;
            nb++;
        }
        MPI_OK(MPI_Type_indexed(nb, bl, dp, MPI_INT, &t));
        both("indexed periodic", win, mem, t, 1, 7);
    }

    /* irregular indexed: small blocks and, every 37th, one of 70-90 ints */
    {
        static int bl[20000], dp[20000];
        int at = 0;
        npos = 0;
        for (int b = 0; b < 20000 && at < 150000; b++) {
            bl[b] = b % 37 == 0 ? 70 + b % 21 : 1 + (b * 7) % 5;
            dp[b] = at;
            for (int j = 0; j < bl[b]; j++)
                pos[npos++] = at + j;
            at += bl[b] + 1 + (b * 3) % 4;
            if (at >= 150000 || b == 19999) {
                MPI_OK(MPI_Type_indexed(b + 1, bl, dp, MPI_INT, &t));
                break;
            }
        }
        both("indexed irregular", win, mem, t, 1, 0);
    }

    /* struct {int at 0; int[2] at 12}, extent 24, 20000 of them */
    {
        int bl[2] = { 1, 2 };
        MPI_Aint dp[2] = { 0, 12 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
        MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &s));
        MPI_OK(MPI_Type_create_resized(s, 0, 24, &t));
        MPI_OK(MPI_Type_free(&s));
        npos = 0;
        for (int e = 0; e < 20000; e++) {
            pos[npos++] = 11 + 6 * e;
            pos[npos++] = 11 + 6 * e + 3;
            pos[npos++] = 11 + 6 * e + 4;
        }
        both("struct resized", win, mem, t, 20000, 11);
    }

    /* contiguous type of 3 ints, 25000 of them */
    npos = 0;
    for (int i = 0; i < 75000; i++)
        pos[npos++] = 1000 + i;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    both("contiguous", win, mem, t, 25000, 1000);

    misaligned(win, mem);

    /* MPI_SHORT_INT (value at 0, index at 4: padding) with MPI_MAXLOC */
    {
        struct si { short v; int i; };
        MPI_Win w2;
        struct si *m2, *o2 = malloc(sizeof(struct si) * 4000);
        MPI_OK(MPI_Win_allocate(sizeof(struct si) * 9000, sizeof(struct si), MPI_INFO_NULL, MPI_COMM_WORLD, &m2,
                                &w2));
        for (int k = 0; k < 9000; k++)
            m2[k] = (struct si){ (short)(k % 100), k };
        for (int k = 0; k < 4000; k++)
            o2[k] = (struct si){ (short)(k % 7 == 0 ? 200 : k % 100 - 50), -k };
        MPI_OK(MPI_Type_vector(4000, 1, 2, MPI_SHORT_INT, &t));
        MPI_OK(MPI_Type_commit(&t));
        MPI_OK(MPI_Win_fence(0, w2));
        if (me == 0)
            MPI_OK(MPI_Accumulate(o2, 4000, MPI_SHORT_INT, 1, 1, 1, t, MPI_MAXLOC, w2));
        MPI_OK(MPI_Win_fence(0, w2));
        if (me == 1)
            for (int k = 0; k < 4000; k++) {
                int i = 1 + 2 * k;
                short tv = (short)(i % 100), ov = o2[k].v;
                struct si want = ov > tv ? o2[k] : ov < tv ? (struct si){ tv, i } : (struct si){ tv, -k < i ? -k : i };
                CHECK(m2[i].v == want.v && m2[i].i == want.i, "short_int maxloc: element %d is (%d, %d), expected "
                      "(%d, %d)", i, m2[i].v, m2[i].i, want.v, want.i);
            }
        MPI_OK(MPI_Type_free(&t));
        MPI_OK(MPI_Win_free(&w2));
        free(o2);
    }

    MPI_OK(MPI_Win_free(&win));
    if (me == 0)
        printf("accumulates into a mapped window: 7 target maps x (Accumulate, Get_accumulate) and MAXLOC on "
               "MPI_SHORT_INT checked\n");
    MPI_Finalize();
    return 0;
}
