/*
 * A put and a get whose target datatype is a regular map with a different
 * first and last block (MPI-4.0 §12.3: the target's bytes are the type
 * map's, the holes keep their contents), to a window the device cannot
 * map (Win_create: the MPI layer walks the type into segments for V
 * packets or RDMA). The walk sends a regular map's equal blocks as one
 * segment without reading them (src/mpi/win_ops.c, walker_seg); this checks
 * the blocks around that segment: an 8-byte head, K 4-byte blocks at a
 * stride of 12, a 2-byte tail, three elements of it back to back.
 *
 * And a put then an accumulate (MPI_SUM) of 300 structs {int at 0; int[2]
 * at 12}, extent 24, whose data the walk rearranges a column at a time so
 * each of the two blocks is one segment (column_walk): every int lands
 * where the map puts it, plus the sum; the holes keep their contents.
 *
 * Rank r puts into rank (r + 1) % np, then gets it back. Usage:
 * test_rma_walk_regular [K].
 */
#include "mpi_test.h"

enum { HEAD = 8, BLK = 4, STRIDE = 12, TAIL = 2, COUNT = 3 };

enum { NS = 300, EXT_INTS = 6 };

static void structs(int me, int np)
{
    int bl[2] = { 1, 2 };
    MPI_Aint off[2] = { 0, 12 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, s, t;
    MPI_OK(MPI_Type_create_struct(2, bl, off, ty, &s));
    MPI_OK(MPI_Type_create_resized(s, 0, EXT_INTS * 4, &t));
    MPI_OK(MPI_Type_commit(&t));
    int *mem = malloc(sizeof(int) * NS * EXT_INTS), src[3 * NS];
    for (int i = 0; i < NS * EXT_INTS; i++)
        mem[i] = -1;
    for (int i = 0; i < 3 * NS; i++)
        src[i] = me * 100000 + i;
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * NS * EXT_INTS, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int to = (me + 1) % np, from = (me + np - 1) % np;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 3 * NS, MPI_INT, to, 0, NS, t, win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(src, 3 * NS, MPI_INT, to, 0, NS, t, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    int bad = 0;
    for (int e = 0; e < NS && bad < 5; e++)
        for (int i = 0; i < EXT_INTS; i++) {
            int k = i == 0 ? 0 : i == 3 ? 1 : i == 4 ? 2 : -1;   /* the map: ints 0, 3, 4 of each 6 */
            int want = k < 0 ? -1 : 2 * (from * 100000 + 3 * e + k);
            if (mem[e * EXT_INTS + i] != want && bad++ < 5)
                CHECK(0, "struct %d int %d: %d, put + accumulate from rank %d give %d", e, i,
                      mem[e * EXT_INTS + i], from, want);
        }
    MPI_OK(MPI_Win_free(&win));
    MPI_Type_free(&s);
    MPI_Type_free(&t);
    free(mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    int K = argc > 1 ? atoi(argv[1]) : 1000;
    int nb = K + 2, *len = malloc(sizeof(int) * (size_t)nb);
    MPI_Aint *off = malloc(sizeof(MPI_Aint) * (size_t)nb);
    off[0] = 0;
    len[0] = HEAD;
    for (int i = 0; i < K; i++) {
        off[1 + i] = 16 + (MPI_Aint)i * STRIDE;
        len[1 + i] = BLK;
    }
    off[K + 1] = 16 + (MPI_Aint)K * STRIDE;
    len[K + 1] = TAIL;
    MPI_Aint extent = off[K + 1] + 8;
    MPI_Datatype h, t;
    MPI_OK(MPI_Type_create_hindexed(nb, len, off, MPI_BYTE, &h));
    MPI_OK(MPI_Type_create_resized(h, 0, extent, &t));
    MPI_OK(MPI_Type_commit(&t));
    int size;
    MPI_Type_size(t, &size);
    CHECK(size == HEAD + K * BLK + TAIL, "type size %d", size);

    size_t span = (size_t)extent * COUNT, bytes = (size_t)size * COUNT;
    unsigned char *win_mem = malloc(span), *src = malloc(bytes), *back = malloc(bytes);
    memset(win_mem, 0xee, span);
    for (size_t i = 0; i < bytes; i++)
        src[i] = (unsigned char)(me * 37 + i * 11 + 1);
    MPI_Win win;
    MPI_OK(MPI_Win_create(win_mem, (MPI_Aint)span, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int to = (me + 1) % np, from = (me + np - 1) % np;

    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, (int)bytes, MPI_BYTE, to, 0, COUNT, t, win));
    MPI_OK(MPI_Win_fence(0, win));

    /* what rank `from` put, by the type map */
    unsigned char *want = malloc(span);
    memset(want, 0xee, span);
    size_t p = 0;
    for (int e = 0; e < COUNT; e++)
        for (int b = 0; b < nb; b++)
            for (int k = 0; k < len[b]; k++, p++)
                want[(size_t)e * (size_t)extent + (size_t)off[b] + (size_t)k] = (unsigned char)(from * 37 + p * 11 + 1);
    int bad = 0;
    for (size_t i = 0; i < span && bad < 5; i++)
        if (win_mem[i] != want[i]) {
            CHECK(0, "window byte %zu: %u, the put's type map gives %u", i, win_mem[i], want[i]);
            bad++;
        }

    MPI_OK(MPI_Get(back, (int)bytes, MPI_BYTE, to, 0, COUNT, t, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(memcmp(back, src, bytes) == 0, "get of what I put to rank %d differs", to);

    MPI_OK(MPI_Win_free(&win));
    structs(me, np);
    MPI_Type_free(&h);
    MPI_Type_free(&t);
    if (me == 0)
        printf("rma_walk_regular: %d ranks, %d-block regular map with head and tail (put, get), %d structs "
               "(put, accumulate): ok\n", np, nb, NS);
    free(want);
    free(win_mem);
    free(src);
    free(back);
    free(len);
    free(off);
    MPI_Finalize();
    return 0;
}
