/*
 * Datatype constructors: every constructor's bounds, size and pack / unpack /
 * truncation / element counts against the reference model, nested and
 * resized types, negative displacements and strides, explicit MPI_LB/MPI_UB,
 * struct padding, contiguity detection, dup, envelope/contents, and a
 * randomized comparison of nested constructions with the model.
 */
#include <stddef.h>
#include <stdio.h>
#include "test_type_util.h"

static struct model m_char, m_short, m_int, m_double, m_double_int;

static void models_free(void)
{
    model_free(&m_char);
    model_free(&m_short);
    model_free(&m_int);
    model_free(&m_double);
    model_free(&m_double_int);
}

static void fini(void)
{
    models_free();
    type_teardown();
}

TestSuite(type_create, .init = type_setup, .fini = fini);

static void models(void)
{
    models_free();
    long offs[2] = { 0, 8 };
    int sizes[2] = { 8, 4 };
    model_basic(&m_char, 1);
    model_basic(&m_short, 2);
    model_basic(&m_int, 4);
    model_basic(&m_double, 8);
    model_predef(&m_double_int, 2, offs, sizes, 16, 8);
}

static int is_contig(MPI_Datatype t)
{
    return rch_mpi_type_get(t)->contig;
}

Test(type_create, contiguous_of_int_is_one_block_and_contiguous)
{
    MPI_Datatype t;
    struct model m;
    models();
    cr_assert_eq(MPI_Type_contiguous(5, MPI_INT, &t), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    model_contiguous(&m, 5, &m_int);
    check_type(t, &m, "contiguous(5, INT)");
    cr_assert(is_contig(t));
    cr_assert_eq(rch_mpi_type_get(t)->nblocks, 1);
    cr_assert_eq(rch_mpi_type_get(t)->basic, MPI_INT);
    cr_assert_eq(rch_mpi_type_get(t)->basic_count, 5);
    MPI_Type_free(&t);
    cr_assert_eq(t, MPI_DATATYPE_NULL);
    model_free(&m);
}

Test(type_create, vector_with_gaps_packs_the_blocks_in_order)
{
    MPI_Datatype t;
    struct model m;
    models();
    cr_assert_eq(MPI_Type_vector(3, 2, 4, MPI_INT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hvector(&m, 3, 2, 16, &m_int);
    check_type(t, &m, "vector(3, 2, 4, INT)");
    cr_assert_not(is_contig(t));
    cr_assert_eq(rch_mpi_type_get(t)->nblocks, 3);
    MPI_Type_free(&t);
    model_free(&m);
}

Test(type_create, vector_with_stride_equal_to_blocklength_is_contiguous)
{
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_vector(4, 3, 3, MPI_DOUBLE, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    cr_assert(is_contig(t));
    cr_assert_eq(rch_mpi_type_get(t)->nblocks, 1);
    MPI_Type_free(&t);
}

Test(type_create, vector_with_negative_stride_runs_backwards)
{
    MPI_Datatype t;
    struct model m;
    MPI_Aint lb, ext;
    models();
    cr_assert_eq(MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hvector(&m, 3, 1, -16, &m_double);
    check_type(t, &m, "vector(3, 1, -2, DOUBLE)");
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(lb, -32);
    cr_assert_eq(ext, 40);
    MPI_Type_free(&t);
    model_free(&m);
}

Test(type_create, hvector_with_odd_byte_stride)
{
    MPI_Datatype t;
    struct model m;
    models();
    cr_assert_eq(MPI_Type_create_hvector(4, 3, 5, MPI_CHAR, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hvector(&m, 4, 3, 5, &m_char);
    check_type(t, &m, "hvector(4, 3, 5B, CHAR)");
    MPI_Type_free(&t);
    model_free(&m);
    cr_assert_eq(MPI_Type_hvector(2, 1, 24, MPI_DOUBLE, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hvector(&m, 2, 1, 24, &m_double);
    check_type(t, &m, "deprecated hvector(2, 1, 24B, DOUBLE)");
    MPI_Type_free(&t);
    model_free(&m);
}

Test(type_create, indexed_with_negative_and_zero_length_blocks)
{
    int bl[4] = { 2, 0, 1, 3 }, disp[4] = { 5, 100, -3, 0 };
    long bdisp[4];
    MPI_Datatype t;
    struct model m;
    models();
    for (int i = 0; i < 4; i++)
        bdisp[i] = disp[i] * 4L;
    cr_assert_eq(MPI_Type_indexed(4, bl, disp, MPI_INT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hindexed(&m, 4, bl, bdisp, &m_int);
    check_type(t, &m, "indexed(INT) with negative and empty blocks");
    MPI_Type_free(&t);
    model_free(&m);
}

Test(type_create, hindexed_indexed_block_and_hindexed_block)
{
    int bl[3] = { 1, 2, 1 }, ibl[3] = { 2, 2, 2 }, idisp[3] = { 4, 0, -2 };
    MPI_Aint adisp[3] = { 24, -8, 40 };
    long ldisp[3] = { 24, -8, 40 }, lidisp[3] = { 16, 0, -8 };
    MPI_Datatype t;
    struct model m;
    models();

    cr_assert_eq(MPI_Type_create_hindexed(3, bl, adisp, MPI_DOUBLE, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hindexed(&m, 3, bl, ldisp, &m_double);
    check_type(t, &m, "hindexed(DOUBLE)");
    MPI_Type_free(&t);
    model_free(&m);

    cr_assert_eq(MPI_Type_create_indexed_block(3, 2, idisp, MPI_INT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hindexed(&m, 3, ibl, lidisp, &m_int);
    check_type(t, &m, "indexed_block(2, INT)");
    MPI_Type_free(&t);
    model_free(&m);

    cr_assert_eq(MPI_Type_create_hindexed_block(3, 2, adisp, MPI_SHORT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_hindexed(&m, 3, ibl, ldisp, &m_short);
    check_type(t, &m, "hindexed_block(2, SHORT)");
    MPI_Type_free(&t);
    model_free(&m);

    {
        MPI_Aint hd[2] = { 0, 12 };
        int hb[2] = { 1, 1 };
        cr_assert_eq(MPI_Type_hindexed(2, hb, hd, MPI_INT, &t), MPI_SUCCESS);
        MPI_Type_commit(&t);
        cr_assert_eq(rch_mpi_type_get(t)->size, 8);
        MPI_Type_free(&t);
    }
}

struct rec {
    char c;
    double d;
    int i[3];
    short s;
};

Test(type_create, struct_matches_the_c_layout_with_padding)
{
    struct rec r[2];
    int bl[4] = { 1, 1, 3, 1 };
    MPI_Aint disp[4] = { offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i),
                         offsetof(struct rec, s) };
    MPI_Datatype types[4] = { MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT }, t;
    MPI_Aint lb, ext;
    int pos = 0;
    unsigned char packed[2 * (1 + 8 + 12 + 2)];

    cr_assert_eq(MPI_Type_create_struct(4, bl, disp, types, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, (MPI_Aint)sizeof(struct rec), "extent %ld, sizeof %zu", (long)ext, sizeof(struct rec));
    cr_assert_eq(rch_mpi_type_get(t)->size, 23);
    cr_assert_eq(rch_mpi_type_get(t)->basic, MPI_DATATYPE_NULL);
    cr_assert_eq(rch_mpi_type_get(t)->basic_count, 6);

    memset(r, 0, sizeof(r));
    for (int k = 0; k < 2; k++) {
        r[k].c = (char)('a' + k);
        r[k].d = 1.5 + k;
        r[k].i[0] = 10 * k + 1, r[k].i[1] = 10 * k + 2, r[k].i[2] = 10 * k + 3;
        r[k].s = (short)(-7 - k);
    }
    cr_assert_eq(MPI_Pack(r, 2, t, packed, sizeof(packed), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, (int)sizeof(packed));
    {
        struct rec back[2];
        memset(back, 0x55, sizeof(back));
        pos = 0;
        cr_assert_eq(MPI_Unpack(packed, sizeof(packed), &pos, back, 2, t, MPI_COMM_WORLD), MPI_SUCCESS);
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(back[k].c, r[k].c);
            cr_assert_eq(back[k].d, r[k].d);
            cr_assert(memcmp(back[k].i, r[k].i, sizeof(r[k].i)) == 0);
            cr_assert_eq(back[k].s, r[k].s);
        }
    }
    MPI_Type_free(&t);
}

Test(type_create, struct_with_explicit_lb_ub_markers)
{
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { -8, 0, 20 };
    MPI_Datatype types[3] = { MPI_LB, MPI_INT, MPI_UB }, t, c;
    MPI_Aint lb, ext;
    struct model m, ml, mu;
    struct model *children[3] = { &ml, &m_int, &mu };
    models();
    model_marker(&ml, 0);
    model_marker(&mu, 1);

    cr_assert_eq(MPI_Type_struct(3, bl, disp, types, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(lb, -8);
    cr_assert_eq(ext, 28);
    model_struct(&m, 3, bl, (long[]){ -8, 0, 20 }, children, 1, 1);
    check_type(t, &m, "struct{LB@-8, INT@0, UB@20}");
    /* The markers are sticky: a contiguous of it keeps the 28-byte stride. */
    cr_assert_eq(MPI_Type_contiguous(3, t, &c), MPI_SUCCESS);
    MPI_Type_commit(&c);
    MPI_Type_get_extent(c, &lb, &ext);
    cr_assert_eq(lb, -8);
    cr_assert_eq(ext, 84);
    MPI_Type_free(&c);
    MPI_Type_free(&t);
    model_free(&m);
}

Test(type_create, resized_changes_bounds_not_data)
{
    MPI_Datatype t, r, v, s;
    MPI_Aint lb, ext, tlb, text;
    struct model mv, mr, mc, ms;
    models();

    /* vector(2, 1, 3, INT) = ints at 0 and 12; resized to lb -4, extent 32 */
    cr_assert_eq(MPI_Type_vector(2, 1, 3, MPI_INT, &v), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_create_resized(v, -4, 32, &r), MPI_SUCCESS);
    MPI_Type_commit(&r);
    MPI_Type_get_extent(r, &lb, &ext);
    MPI_Type_get_true_extent(r, &tlb, &text);
    cr_assert_eq(lb, -4);
    cr_assert_eq(ext, 32);
    cr_assert_eq(tlb, 0);
    cr_assert_eq(text, 16);
    model_hvector(&mv, 2, 1, 12, &m_int);
    model_resized(&mr, &mv, -4, 32);
    check_type(r, &mr, "resized(vector, -4, 32)");

    /* contiguous of the resized type steps by the new extent */
    cr_assert_eq(MPI_Type_contiguous(3, r, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    model_contiguous(&mc, 3, &mr);
    check_type(t, &mc, "contiguous(3, resized)");
    MPI_Type_free(&t);

    /* shrinking the extent below the data makes elements interleave */
    cr_assert_eq(MPI_Type_create_resized(MPI_DOUBLE, 0, 4, &s), MPI_SUCCESS);
    MPI_Type_commit(&s);
    cr_assert_not(is_contig(s));
    model_resized(&ms, &m_double, 0, 4);
    check_type(s, &ms, "resized(DOUBLE, 0, 4)");

    /* a struct holding a resized type takes its bounds and is not padded (MPICH agrees) */
    {
        MPI_Datatype ri, st;
        int bl = 1;
        MPI_Aint d = 0;
        cr_assert_eq(MPI_Type_create_resized(MPI_INT, 0, 6, &ri), MPI_SUCCESS);
        cr_assert_eq(MPI_Type_create_struct(1, &bl, &d, &ri, &st), MPI_SUCCESS);
        MPI_Type_get_extent(st, &lb, &ext);
        cr_assert_eq(ext, 6);
        MPI_Type_free(&st);
        MPI_Type_free(&ri);
    }
    MPI_Type_free(&s);
    MPI_Type_free(&r);
    MPI_Type_free(&v);
    model_free(&mv);
    model_free(&mr);
    model_free(&mc);
    model_free(&ms);
}

Test(type_create, resized_to_its_own_size_is_contiguous)
{
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_create_resized(MPI_INT, -4, 4, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    cr_assert(is_contig(t));
    MPI_Type_free(&t);
}

Test(type_create, nested_struct_of_vectors)
{
    MPI_Datatype v1, v2, s, c;
    int bl[3] = { 1, 2, 1 };
    MPI_Aint disp[3] = { 64, -40, 8 };
    MPI_Datatype types[3];
    struct model mv1, mv2, ms, mc;
    struct model *children[3];
    models();

    cr_assert_eq(MPI_Type_vector(3, 2, 3, MPI_SHORT, &v1), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_create_hvector(2, 1, -24, MPI_DOUBLE_INT, &v2), MPI_SUCCESS);
    types[0] = v1, types[1] = v2, types[2] = MPI_CHAR;
    cr_assert_eq(MPI_Type_create_struct(3, bl, disp, types, &s), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_contiguous(2, s, &c), MPI_SUCCESS);
    MPI_Type_commit(&c);

    model_hvector(&mv1, 3, 2, 6, &m_short);
    model_hvector(&mv2, 2, 1, -24, &m_double_int);
    children[0] = &mv1, children[1] = &mv2, children[2] = &m_char;
    model_struct(&ms, 3, bl, (long[]){ 64, -40, 8 }, children, 1, 1);
    model_contiguous(&mc, 2, &ms);
    check_type(c, &mc, "contiguous(2, struct{vector(SHORT), hvector(DOUBLE_INT), CHAR})");

    /* Freeing the parts does not disturb the type built from them. */
    MPI_Type_free(&v1);
    MPI_Type_free(&v2);
    MPI_Type_free(&s);
    check_type(c, &mc, "after freeing the parts");
    MPI_Type_free(&c);
    model_free(&mv1);
    model_free(&mv2);
    model_free(&ms);
    model_free(&mc);
}

Test(type_create, zero_count_types_are_empty)
{
    MPI_Datatype t;
    MPI_Aint lb, ext;
    int size;
    cr_assert_eq(MPI_Type_contiguous(0, MPI_INT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(size, 0);
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, 0);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(t), 0), 0);
    MPI_Type_free(&t);
    cr_assert_eq(MPI_Type_create_struct(0, NULL, NULL, NULL, &t), MPI_SUCCESS);
    MPI_Type_free(&t);
}

Test(type_create, dup_has_the_same_map_and_no_name)
{
    MPI_Datatype v, d;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    struct model m;
    models();
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_set_name(v, "halo");
    cr_assert_eq(MPI_Type_dup(v, &d), MPI_SUCCESS);
    /* the original was not committed, nor is the copy */
    cr_assert_not(rch_mpi_type_get(d)->committed);
    MPI_Type_commit(&d);
    model_hvector(&m, 2, 1, 16, &m_double);
    check_type(d, &m, "dup(vector)");
    MPI_Type_get_name(d, name, &len);
    cr_assert_eq(len, 0);
    MPI_Type_get_name(v, name, &len);
    cr_assert_str_eq(name, "halo");
    MPI_Type_free(&v);
    MPI_Type_free(&d);
    model_free(&m);

    cr_assert_eq(MPI_Type_dup(MPI_INT, &d), MPI_SUCCESS);
    cr_assert(rch_mpi_type_get(d)->committed);
    cr_assert_neq(d, MPI_INT);
    MPI_Type_free(&d);
}

Test(type_create, envelope_and_contents_describe_the_construction)
{
    MPI_Datatype v, s, types[2] = { 0, MPI_CHAR }, got[4];
    int bl[2] = { 1, 4 }, ni, na, nt, comb, ints[8];
    MPI_Aint disp[2] = { 0, 40 }, aints[4];

    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    cr_assert_eq(MPI_Type_get_envelope(v, &ni, &na, &nt, &comb), MPI_SUCCESS);
    cr_assert_eq(comb, MPI_COMBINER_VECTOR);
    cr_assert_eq(ni, 3);
    cr_assert_eq(na, 0);
    cr_assert_eq(nt, 1);
    cr_assert_eq(MPI_Type_get_contents(v, 8, 4, 4, ints, aints, got), MPI_SUCCESS);
    cr_assert_eq(ints[0], 3);
    cr_assert_eq(ints[1], 2);
    cr_assert_eq(ints[2], 5);
    cr_assert_eq(got[0], MPI_INT);

    types[0] = v;
    MPI_Type_create_struct(2, bl, disp, types, &s);
    MPI_Type_free(&v);     /* s's record keeps it alive */
    cr_assert_eq(MPI_Type_get_envelope(s, &ni, &na, &nt, &comb), MPI_SUCCESS);
    cr_assert_eq(comb, MPI_COMBINER_STRUCT);
    cr_assert_eq(ni, 3);
    cr_assert_eq(na, 2);
    cr_assert_eq(nt, 2);
    cr_assert_eq(MPI_Type_get_contents(s, 8, 4, 4, ints, aints, got), MPI_SUCCESS);
    cr_assert_eq(ints[0], 2);
    cr_assert_eq(ints[2], 4);
    cr_assert_eq(aints[1], 40);
    cr_assert_eq(got[1], MPI_CHAR);
    /* the returned derived type is usable and is ours to free */
    {
        int size = 0;
        cr_assert_eq(MPI_Type_size(got[0], &size), MPI_SUCCESS);
        cr_assert_eq(size, 24);
        cr_assert_eq(MPI_Type_get_envelope(got[0], &ni, &na, &nt, &comb), MPI_SUCCESS);
        cr_assert_eq(comb, MPI_COMBINER_VECTOR);
        cr_assert_eq(MPI_Type_free(&got[0]), MPI_SUCCESS);
    }
    cr_assert_eq(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb), MPI_SUCCESS);
    cr_assert_eq(comb, MPI_COMBINER_NAMED);
    cr_assert_eq(err_class(MPI_Type_get_contents(MPI_INT, 8, 4, 4, ints, aints, got)), MPI_ERR_TYPE);
    cr_assert_eq(err_class(MPI_Type_get_contents(s, 1, 4, 4, ints, aints, got)), MPI_ERR_ARG);
    MPI_Type_free(&s);
}

Test(type_create, freed_handles_are_reused_and_stale_ones_rejected)
{
    MPI_Datatype a, b, stale;
    int size;
    MPI_Type_contiguous(2, MPI_INT, &a);
    stale = a;
    MPI_Type_free(&a);
    cr_assert_eq(err_class(MPI_Type_size(stale, &size)), MPI_ERR_TYPE);
    MPI_Type_contiguous(3, MPI_INT, &b);
    cr_assert_eq(MPI_Type_size(b, &size), MPI_SUCCESS);
    cr_assert_eq(size, 12);
    MPI_Type_free(&b);
}

Test(type_create, many_types_alive_at_once)
{
    enum { N = 3000 };
    static MPI_Datatype t[N];
    for (int i = 0; i < N; i++)
        cr_assert_eq(MPI_Type_contiguous(i % 7 + 1, MPI_SHORT, &t[i]), MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        int size;
        cr_assert_eq(MPI_Type_size(t[i], &size), MPI_SUCCESS);
        cr_assert_eq(size, 2 * (i % 7 + 1));
    }
    for (int i = 0; i < N; i++)
        cr_assert_eq(MPI_Type_free(&t[i]), MPI_SUCCESS);
}

Test(type_create, long_vectors_match_the_model)
{
    /* long enough for the bulk vector builder, over children that are dense,
     * padded (DOUBLE_INT), non-contiguous and with explicit bounds */
    static const struct { int count, bl; long stride; } shapes[] = {
        { 9, 1, 2 }, { 8, 3, 3 }, { 7, 2, -3 }, { 6, 1, 0 }, { 10, 4, 5 }, { 5, 2, 1 },
    };
    MPI_Datatype kids[4], r;
    struct model mk[4], mv, mr;
    models();
    MPI_Type_create_resized(MPI_INT, -2, 9, &r);
    model_resized(&mr, &m_int, -2, 9);
    MPI_Type_vector(2, 1, 3, MPI_SHORT, &kids[2]);
    model_hvector(&mk[2], 2, 1, 6, &m_short);
    kids[0] = MPI_DOUBLE, kids[1] = MPI_DOUBLE_INT, kids[3] = r;
    model_contiguous(&mk[0], 1, &m_double);
    model_contiguous(&mk[1], 1, &m_double_int);
    model_contiguous(&mk[3], 1, &mr);
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (int k = 0; k < 4; k++) {
            MPI_Datatype v, hv;
            MPI_Aint lb, ext;
            char what[96];
            MPI_Type_get_extent(kids[k], &lb, &ext);
            cr_assert_eq(MPI_Type_vector(shapes[s].count, shapes[s].bl, (int)shapes[s].stride, kids[k], &v),
                         MPI_SUCCESS);
            MPI_Type_commit(&v);
            model_hvector(&mv, shapes[s].count, shapes[s].bl, shapes[s].stride * ext, &mk[k]);
            snprintf(what, sizeof(what), "vector(%d, %d, %ld) of child %d", shapes[s].count, shapes[s].bl,
                     shapes[s].stride, k);
            check_type(v, &mv, what);
            MPI_Type_free(&v);
            model_free(&mv);
            /* the same in bytes, with an odd stride */
            cr_assert_eq(MPI_Type_create_hvector(shapes[s].count, shapes[s].bl, shapes[s].stride * 7 + 1,
                                                 kids[k], &hv), MPI_SUCCESS);
            MPI_Type_commit(&hv);
            model_hvector(&mv, shapes[s].count, shapes[s].bl, shapes[s].stride * 7 + 1, &mk[k]);
            check_type(hv, &mv, what);
            MPI_Type_free(&hv);
            model_free(&mv);
        }
    for (int k = 0; k < 4; k++)
        model_free(&mk[k]);
    model_free(&mr);
    MPI_Type_free(&kids[2]);
    MPI_Type_free(&r);
}

Test(type_create, struct_of_one_type_is_not_padded_as_in_mpich)
{
    /* MPICH 4 builds these as hindexed: {short@1, 2 shorts@46} has extent
     * 49, while mixed types are padded to the largest alignment. */
    int bl[2] = { 1, 2 };
    MPI_Aint d[2] = { 1, 46 }, lb, ext;
    MPI_Datatype same[2] = { MPI_SHORT, MPI_SHORT }, mixed[2] = { MPI_INT, MPI_CHAR }, t;

    cr_assert_eq(MPI_Type_create_struct(2, bl, d, same, &t), MPI_SUCCESS);
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(lb, 1);
    cr_assert_eq(ext, 49);
    MPI_Type_free(&t);
    d[0] = 4, d[1] = 8, bl[1] = 1;
    cr_assert_eq(MPI_Type_create_struct(2, bl, d, mixed, &t), MPI_SUCCESS);
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(lb, 4);
    cr_assert_eq(ext, 8);     /* 5 bytes rounded up to int alignment, as MPICH */
    MPI_Type_free(&t);
}

Test(type_create, empty_children_bound_a_struct_but_empty_types_stay_empty)
{
    MPI_Datatype e, s, h, types[2];
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { -16, 6 }, lb, ext, tlb, text;

    MPI_Type_contiguous(0, MPI_INT, &e);
    types[0] = e, types[1] = MPI_INT;
    /* MPICH 4.0.2: lb -16, extent 28 */
    cr_assert_eq(MPI_Type_create_struct(2, bl, d, types, &s), MPI_SUCCESS);
    MPI_Type_get_extent(s, &lb, &ext);
    MPI_Type_get_true_extent(s, &tlb, &text);
    cr_assert_eq(lb, -16);
    cr_assert_eq(ext, 28);
    cr_assert_eq(tlb, 6);     /* the true extent covers the data only */
    cr_assert_eq(text, 4);
    /* an hindexed of an empty type is empty (MPICH: lb 0, extent 0) */
    cr_assert_eq(MPI_Type_create_hindexed(2, bl, d, e, &h), MPI_SUCCESS);
    MPI_Type_get_extent(h, &lb, &ext);
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, 0);
    MPI_Type_free(&h);
    MPI_Type_free(&s);
    MPI_Type_free(&e);
}

/* ---- randomized comparison with the model ---- */

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) % n;
}

/* Build a random type of the given depth both ways; returns the handle. */
static MPI_Datatype random_type(int depth, struct model *m, char *desc, size_t dlen)
{
    static const MPI_Datatype basics[] = { MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_DOUBLE_INT, MPI_2INT };
    MPI_Datatype t = MPI_DATATYPE_NULL, c;
    struct model mc;
    char cdesc[400];
    MPI_Aint clb, cext;
    int kind;

    models();
    if (depth == 0) {
        int b = (int)rnd(6);
        t = basics[b];
        if (b == 4)
            model_predef(m, 2, (long[]){ 0, 8 }, (int[]){ 8, 4 }, 16, 8);
        else if (b == 5)
            model_predef(m, 2, (long[]){ 0, 4 }, (int[]){ 4, 4 }, 8, 4);
        else
            model_basic(m, (int[]){ 1, 2, 4, 8 }[b]);
        snprintf(desc, dlen, "basic%d", b);
        return t;
    }
    c = random_type(depth - 1, &mc, cdesc, sizeof(cdesc));
    MPI_Type_get_extent(c, &clb, &cext);
    kind = (int)rnd(8);
    switch (kind) {
    case 0: {
        int n = (int)rnd(4);
        cr_assert_eq(MPI_Type_contiguous(n, c, &t), MPI_SUCCESS);
        model_contiguous(m, n, &mc);
        snprintf(desc, dlen, "contig(%d,%s)", n, cdesc);
        break;
    }
    case 1: {
        int n = 1 + (int)rnd(3), bl = (int)rnd(3), stride = (int)rnd(7) - 3;
        cr_assert_eq(MPI_Type_vector(n, bl, stride, c, &t), MPI_SUCCESS);
        model_hvector(m, n, bl, stride * (long)cext, &mc);
        snprintf(desc, dlen, "vector(%d,%d,%d,%s)", n, bl, stride, cdesc);
        break;
    }
    case 2: {
        int n = 1 + (int)rnd(3), bl = 1 + (int)rnd(2);
        long stride = (long)rnd(41) - 20;
        cr_assert_eq(MPI_Type_create_hvector(n, bl, stride, c, &t), MPI_SUCCESS);
        model_hvector(m, n, bl, stride, &mc);
        snprintf(desc, dlen, "hvector(%d,%d,%ld,%s)", n, bl, stride, cdesc);
        break;
    }
    case 3: {
        int n = 1 + (int)rnd(3), bl[3], d[3];
        long ld[3];
        for (int i = 0; i < n; i++) {
            bl[i] = (int)rnd(3);
            d[i] = (int)rnd(9) - 4;
            ld[i] = d[i] * (long)cext;
        }
        cr_assert_eq(MPI_Type_indexed(n, bl, d, c, &t), MPI_SUCCESS);
        model_hindexed(m, n, bl, ld, &mc);
        snprintf(desc, dlen, "indexed(%d,%s)", n, cdesc);
        break;
    }
    case 4: {
        int n = 1 + (int)rnd(3), bl[3];
        MPI_Aint d[3];
        long ld[3];
        for (int i = 0; i < n; i++) {
            bl[i] = 1 + (int)rnd(2);
            ld[i] = d[i] = (MPI_Aint)rnd(61) - 30;
        }
        cr_assert_eq(MPI_Type_create_hindexed(n, bl, d, c, &t), MPI_SUCCESS);
        model_hindexed(m, n, bl, ld, &mc);
        snprintf(desc, dlen, "hindexed(%d,%s)", n, cdesc);
        break;
    }
    case 5: {
        int n = 1 + (int)rnd(3), bl = 1 + (int)rnd(2), d[3], bls[3];
        long ld[3];
        for (int i = 0; i < n; i++) {
            d[i] = (int)rnd(7) - 3;
            ld[i] = d[i] * (long)cext;
            bls[i] = bl;
        }
        cr_assert_eq(MPI_Type_create_indexed_block(n, bl, d, c, &t), MPI_SUCCESS);
        model_hindexed(m, n, bls, ld, &mc);
        snprintf(desc, dlen, "indexed_block(%d,%d,%s)", n, bl, cdesc);
        break;
    }
    case 6: {
        /* struct of the child and a basic type on either side */
        struct model mb;
        MPI_Datatype types[2], bt = basics[rnd(4)];
        int bl[2] = { 1 + (int)rnd(2), 1 + (int)rnd(3) };
        MPI_Aint d[2] = { (MPI_Aint)rnd(33) - 16, (MPI_Aint)rnd(65) - 16 };
        long ld[2] = { d[0], d[1] };
        struct model *ch[2];
        model_basic(&mb, bt == MPI_CHAR ? 1 : bt == MPI_SHORT ? 2 : bt == MPI_INT ? 4 : 8);
        if (rnd(2)) {
            types[0] = c, types[1] = bt, ch[0] = &mc, ch[1] = &mb;
        } else {
            types[0] = bt, types[1] = c, ch[0] = &mb, ch[1] = &mc;
        }
        cr_assert_eq(MPI_Type_create_struct(2, bl, d, types, &t), MPI_SUCCESS);
        model_struct(m, 2, bl, ld, ch, 1, types[0] != types[1]);   /* one type: no padding, as MPICH */
        model_free(&mb);
        snprintf(desc, dlen, "struct(%s@%ld)", cdesc, (long)d[0]);
        break;
    }
    default: {
        MPI_Aint lb = (MPI_Aint)rnd(17) - 8, ext = (MPI_Aint)rnd(40) + 1;
        cr_assert_eq(MPI_Type_create_resized(c, lb, ext, &t), MPI_SUCCESS);
        model_resized(m, &mc, lb, ext);
        snprintf(desc, dlen, "resized(%s,%ld,%ld)", cdesc, (long)lb, (long)ext);
        break;
    }
    }
    model_free(&mc);
    if (!rch_mpi_type_get(c)->predefined)
        MPI_Type_free(&c);
    return t;
}

Test(type_create, random_nested_types_match_the_model)
{
    for (int iter = 0; iter < 400; iter++) {
        struct model m;
        char desc[512];
        MPI_Datatype t = random_type(1 + iter % 3, &m, desc, sizeof(desc));
        cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
        check_type(t, &m, desc);
        model_free(&m);
        if (!rch_mpi_type_get(t)->predefined)
            MPI_Type_free(&t);
    }
}
