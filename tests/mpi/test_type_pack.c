/*
 * MPI_Pack / MPI_Unpack / MPI_Pack_size and the engine's pack paths:
 * several items in one packed buffer, the contiguous fast path on a large
 * buffer, truncation (partial unpack delivers exactly the prefix), packing
 * from MPI_BOTTOM with absolute addresses, and element counts of partial
 * data for heterogeneous types.
 */
#include <stddef.h>
#include <stdint.h>
#include "test_type_util.h"

TestSuite(type_pack, .init = type_setup, .fini = type_teardown);

Test(type_pack, several_items_in_one_buffer_round_trip)
{
    int ints[3] = { 1, -2, 3 }, ints_out[3] = { 0 };
    double grid[12], grid_out[12];
    char text[6] = "hello", text_out[6] = { 0 };
    MPI_Datatype col;
    unsigned char buf[256];
    int pos = 0, size_ints, size_col, size_text;

    for (int i = 0; i < 12; i++) {
        grid[i] = i * 1.5;
        grid_out[i] = -1;
    }
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &col);    /* column 1 of a 4x3 grid */
    MPI_Type_commit(&col);
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size_ints);
    MPI_Pack_size(1, col, MPI_COMM_WORLD, &size_col);
    MPI_Pack_size(6, MPI_CHAR, MPI_COMM_WORLD, &size_text);
    cr_assert_eq(size_ints, 12);
    cr_assert_eq(size_col, 32);
    cr_assert_eq(size_text, 6);

    cr_assert_eq(MPI_Pack(ints, 3, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(MPI_Pack(&grid[1], 1, col, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(MPI_Pack(text, 6, MPI_CHAR, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 12 + 32 + 6);
    /* the column is packed densely */
    for (int r = 0; r < 4; r++) {
        double d;
        memcpy(&d, buf + 12 + 8 * r, 8);
        cr_assert_eq(d, grid[1 + 3 * r]);
    }
    pos = 0;
    cr_assert_eq(MPI_Unpack(buf, 50, &pos, ints_out, 3, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(MPI_Unpack(buf, 50, &pos, &grid_out[1], 1, col, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(MPI_Unpack(buf, 50, &pos, text_out, 6, MPI_CHAR, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 50);
    cr_assert(memcmp(ints, ints_out, sizeof(ints)) == 0);
    cr_assert_str_eq(text_out, "hello");
    for (int i = 0; i < 12; i++)
        cr_assert_eq(grid_out[i], i % 3 == 1 ? grid[i] : -1, "grid[%d]", i);
    MPI_Type_free(&col);
}

Test(type_pack, contiguous_fast_path_on_a_large_buffer)
{
    enum { N = 1 << 17 };
    double *in = malloc(N * sizeof(double)), *out = malloc(N * sizeof(double));
    unsigned char *packed = malloc(N * sizeof(double));
    MPI_Datatype c;
    const struct rch_mpi_type *t;

    for (int i = 0; i < N; i++)
        in[i] = i * 0.25;
    MPI_Type_contiguous(1024, MPI_DOUBLE, &c);
    MPI_Type_commit(&c);
    t = rch_mpi_type_get(c);
    cr_assert(t->contig);
    rch_mpi_type_pack(in, N / 1024, t, packed);
    cr_assert(memcmp(packed, in, N * sizeof(double)) == 0);
    memset(out, 0, N * sizeof(double));
    rch_mpi_type_unpack(packed, N * sizeof(double) - 12, out, N / 1024, t);
    cr_assert(memcmp(out, in, N * sizeof(double) - 12) == 0);
    cr_assert_eq(out[N - 2], 0.0);     /* the truncated tail was not written */
    cr_assert_eq(out[N - 1], 0.0);
    MPI_Type_free(&c);
    free(in);
    free(out);
    free(packed);
}

Test(type_pack, pack_into_too_small_buffer_is_truncate_and_writes_nothing)
{
    int a[4] = { 1, 2, 3, 4 };
    unsigned char buf[12];
    int pos = 0;
    memset(buf, 0x77, sizeof(buf));
    cr_assert_eq(err_class(MPI_Pack(a, 4, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD)), MPI_ERR_TRUNCATE);
    cr_assert_eq(pos, 0);
    cr_assert_eq(buf[0], 0x77);
    pos = 8;
    cr_assert_eq(err_class(MPI_Pack(a, 2, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD)), MPI_ERR_TRUNCATE);
    cr_assert_eq(pos, 8);
    cr_assert_eq(MPI_Pack(a, 1, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 12);
}

Test(type_pack, unpack_past_the_input_is_truncate)
{
    int a[4] = { 1, 2, 3, 4 }, b[4] = { 0 };
    int pos = 0;
    cr_assert_eq(err_class(MPI_Unpack(a, 12, &pos, b, 4, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_TRUNCATE);
    cr_assert_eq(pos, 0);
    cr_assert_eq(b[0], 0);
}

Test(type_pack, pack_from_mpi_bottom_with_absolute_addresses)
{
    struct { int a; char pad[20]; double d; } s = { 42, { 0 }, 2.5 };
    int bl[2] = { 1, 1 }, pos = 0, a;
    MPI_Aint disp[2];
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, t;
    unsigned char buf[12];
    double d;

    MPI_Get_address(&s.a, &disp[0]);
    MPI_Get_address(&s.d, &disp[1]);
    cr_assert_eq(MPI_Type_create_struct(2, bl, disp, types, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    cr_assert_eq(rch_mpi_type_check_buf(MPI_COMM_WORLD, "test", MPI_BOTTOM, 1, t), MPI_SUCCESS);
    cr_assert_eq(MPI_Pack(MPI_BOTTOM, 1, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 12);
    memcpy(&a, buf, 4);
    memcpy(&d, buf + 4, 8);
    cr_assert_eq(a, 42);
    cr_assert_eq(d, 2.5);
    s.a = 0;
    s.d = 0;
    pos = 0;
    cr_assert_eq(MPI_Unpack(buf, 12, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(s.a, 42);
    cr_assert_eq(s.d, 2.5);
    MPI_Type_free(&t);
}

Test(type_pack, elements_of_partial_heterogeneous_data)
{
    /* struct { int i[2]; double d; char c[3]; } : 2 + 1 + 3 = 6 basics, 19 bytes */
    int bl[3] = { 2, 1, 3 };
    MPI_Aint disp[3] = { 0, 8, 16 };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, t;
    const struct rch_mpi_type *rt;

    MPI_Type_create_struct(3, bl, disp, types, &t);
    MPI_Type_commit(&t);
    rt = rch_mpi_type_get(t);
    cr_assert_eq(rt->size, 19);
    cr_assert_eq(rch_mpi_type_elements(rt, 0), 0);
    cr_assert_eq(rch_mpi_type_elements(rt, 4), 1);
    cr_assert_eq(rch_mpi_type_elements(rt, 8), 2);
    cr_assert_eq(rch_mpi_type_elements(rt, 12), MPI_UNDEFINED);   /* half a double */
    cr_assert_eq(rch_mpi_type_elements(rt, 16), 3);
    cr_assert_eq(rch_mpi_type_elements(rt, 18), 5);
    cr_assert_eq(rch_mpi_type_elements(rt, 19), 6);
    cr_assert_eq(rch_mpi_type_elements(rt, 19 + 8), 8);
    cr_assert_eq(rch_mpi_type_elements(rt, 19 * 3), 18);
    cr_assert_eq(rch_mpi_type_elements(rt, 19 * 3 + 2), MPI_UNDEFINED);
    MPI_Type_free(&t);
}

Test(type_pack, free_while_in_use_is_safe_with_a_reference)
{
    MPI_Datatype v;
    struct rch_mpi_type *t;
    int in[6] = { 1, 2, 3, 4, 5, 6 }, packed[3];

    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    t = rch_mpi_type_get(v);
    rch_mpi_type_retain(t);          /* as a pending receive does */
    cr_assert_eq(MPI_Type_free(&v), MPI_SUCCESS);
    cr_assert_eq(v, MPI_DATATYPE_NULL);
    rch_mpi_type_pack(in, 1, t, packed);
    cr_assert_eq(packed[0], 1);
    cr_assert_eq(packed[1], 3);
    cr_assert_eq(packed[2], 5);
    rch_mpi_type_release(t);
}

/* The engine's fixed-length loops (rch_base_copy2d: vectors of 1- to 64-byte
 * blocks, unrolled 4 times, counts that leave a tail) and its two-block
 * element loop (4- and 8-byte blocks in every order, elements one after
 * another and a vector of them): each byte lands where the type map puts
 * it, computed here from the map, and the holes keep their contents. */
static void check_map(MPI_Datatype t, int count, const MPI_Aint *off, const int *len, int nb, MPI_Aint extent)
{
    enum { SPAN = 8192 };
    static unsigned char user[SPAN], back[SPAN], packed[SPAN], want[SPAN];
    int size, pos = 0;
    MPI_Type_size(t, &size);
    cr_assert_leq((size_t)size * (size_t)count, sizeof(packed));
    for (int i = 0; i < SPAN; i++)
        user[i] = (unsigned char)(i * 7 + 1);
    cr_assert_eq(MPI_Pack(user, count, t, packed, SPAN, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, size * count);
    size_t p = 0;
    memset(want, 0xee, sizeof(want));
    for (int e = 0; e < count; e++)
        for (int b = 0; b < nb; b++)
            for (int k = 0; k < len[b]; k++, p++) {
                MPI_Aint at = e * extent + off[b] + k;
                cr_assert_eq(packed[p], user[at], "element %d block %d byte %d", e, b, k);
                want[at] = packed[p];
            }
    memset(back, 0xee, sizeof(back));
    pos = 0;
    cr_assert_eq(MPI_Unpack(packed, size * count, &pos, back, count, t, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(memcmp(back, want, sizeof(back)), 0, "unpack: a byte of the map or of a hole differs");
}

Test(type_pack, small_blocks_by_fixed_length_loops)
{
    static const int lens[] = { 1, 2, 4, 8, 12, 16, 24, 32, 64, 5 };
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
        for (int n = 1; n <= 7; n++) {          /* 4 unrolled, then a tail of 0-3 */
            MPI_Datatype v;
            MPI_Type_vector(n, lens[l], 2 * lens[l] + 3, MPI_BYTE, &v);
            MPI_Type_commit(&v);
            MPI_Aint off[7];
            int len[7];
            for (int b = 0; b < n; b++) {
                off[b] = (MPI_Aint)b * (2 * lens[l] + 3);
                len[b] = lens[l];
            }
            check_map(v, 1, off, len, n, 0);
            MPI_Type_free(&v);
        }
}

Test(type_pack, two_block_structs_element_by_element)
{
    static const int lens[2] = { 4, 8 };
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            MPI_Datatype ty[2] = { lens[a] == 4 ? MPI_INT : MPI_DOUBLE, lens[b] == 4 ? MPI_INT : MPI_DOUBLE };
            int bl[2] = { 1, 1 }, len[2] = { lens[a], lens[b] };
            MPI_Aint off[2] = { 0, 12 }, ext = 24;
            MPI_Datatype s, r, v;
            MPI_Type_create_struct(2, bl, off, ty, &s);
            MPI_Type_create_resized(s, 0, ext, &r);
            MPI_Type_commit(&r);
            for (int count = 1; count <= 9; count++)
                check_map(r, count, off, len, 2, ext);
            /* a vector of them: the pair repeats at the vector's stride */
            MPI_Type_vector(5, 1, 2, r, &v);
            MPI_Type_commit(&v);
            MPI_Aint voff[10];
            int vlen[10];
            for (int e = 0; e < 5; e++)
                for (int k = 0; k < 2; k++) {
                    voff[2 * e + k] = 2 * e * ext + off[k];
                    vlen[2 * e + k] = len[k];
                }
            check_map(v, 3, voff, vlen, 10, 9 * ext);
            MPI_Type_free(&v);
            MPI_Type_free(&r);
            MPI_Type_free(&s);
        }
}

/* An irregular map (no constant stride, no period) of every block length
 * from 1 to 20 bytes: each block moves as the engine's two overlapping
 * fixed-size moves or a memcpy, and lands where the map puts it. */
Test(type_pack, irregular_blocks_of_every_small_length)
{
    enum { NB = 20 };
    MPI_Aint off[NB];
    int len[NB];
    MPI_Aint at = 3;
    for (int b = 0; b < NB; b++) {
        len[b] = b + 1;
        off[b] = at;
        at += len[b] + 1 + b % 5;
    }
    MPI_Datatype h;
    MPI_Type_create_hindexed(NB, len, off, MPI_BYTE, &h);
    MPI_Type_commit(&h);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(h, &lb, &ext);
    check_map(h, 3, off, len, NB, ext);
    MPI_Type_free(&h);
}
