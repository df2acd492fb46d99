/*
 * MPI_Type_create_subarray and MPI_Type_create_darray, checked by brute
 * force: an array of ints holding their own linear index is packed with the
 * type, and the packed sequence must be exactly the indices the type owns,
 * in storage order; bounds are [0, whole array). For darray, the pieces of
 * all ranks must cover the array exactly once. Bad arguments are
 * MPI_ERR_ARG naming the argument.
 */
#include "test_type_util.h"

TestSuite(type_array, .init = type_setup, .fini = type_teardown);

#define MAXD 4

/* Linear storage index of coordinates x[] in an array of sizes g[]. */
static long linear(int nd, const int *g, const int *x, int order)
{
    long idx = 0;
    if (order == MPI_ORDER_C)
        for (int d = 0; d < nd; d++)
            idx = idx * g[d] + x[d];
    else
        for (int d = nd - 1; d >= 0; d--)
            idx = idx * g[d] + x[d];
    return idx;
}

/* Pack the whole index array with t; returns the number of ints packed. */
static int pack_indices(MPI_Datatype t, long total, int *out)
{
    int *a = malloc((size_t)total * sizeof(int)), size, pos = 0;
    for (long i = 0; i < total; i++)
        a[i] = (int)i;
    MPI_Type_size(t, &size);
    cr_assert_eq(MPI_Pack(a, 1, t, out, (int)(total * sizeof(int)), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, size);
    free(a);
    return size / (int)sizeof(int);
}

static void check_bounds(MPI_Datatype t, long total)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, total * (long)sizeof(int), "extent %ld, expected the whole array %ld", (long)ext,
                 total * (long)sizeof(int));
}

static void check_subarray(int nd, const int *sizes, const int *sub, const int *starts, int order)
{
    MPI_Datatype t;
    long total = 1, n = 0;
    int x[MAXD], *packed;

    for (int d = 0; d < nd; d++)
        total *= sizes[d];
    packed = malloc((size_t)total * sizeof(int));
    cr_assert_eq(MPI_Type_create_subarray(nd, sizes, sub, starts, order, MPI_INT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    check_bounds(t, total);
    int got = pack_indices(t, total, packed);
    /* every index of the array, in storage order, that lies in the subarray */
    for (long i = 0; i < total; i++) {
        long r = i;
        int in = 1;
        if (order == MPI_ORDER_C)
            for (int d = nd - 1; d >= 0; d--) {
                x[d] = (int)(r % sizes[d]);
                r /= sizes[d];
            }
        else
            for (int d = 0; d < nd; d++) {
                x[d] = (int)(r % sizes[d]);
                r /= sizes[d];
            }
        cr_assert_eq(linear(nd, sizes, x, order), i);
        for (int d = 0; d < nd; d++)
            in &= x[d] >= starts[d] && x[d] < starts[d] + sub[d];
        if (in) {
            cr_assert_lt(n, got, "too few elements packed");
            cr_assert_eq(packed[n], i, "element %ld is index %d, expected %ld", n, packed[n], i);
            n++;
        }
    }
    cr_assert_eq(n, got, "packed %d elements, expected %ld", got, n);
    MPI_Type_free(&t);
    free(packed);
}

Test(type_array, subarray_c_and_fortran_order)
{
    check_subarray(2, (int[]){ 4, 6 }, (int[]){ 2, 3 }, (int[]){ 1, 2 }, MPI_ORDER_C);
    check_subarray(2, (int[]){ 4, 6 }, (int[]){ 2, 3 }, (int[]){ 1, 2 }, MPI_ORDER_FORTRAN);
    check_subarray(3, (int[]){ 5, 4, 3 }, (int[]){ 3, 2, 3 }, (int[]){ 2, 1, 0 }, MPI_ORDER_C);
    check_subarray(3, (int[]){ 5, 4, 3 }, (int[]){ 1, 4, 2 }, (int[]){ 4, 0, 1 }, MPI_ORDER_FORTRAN);
    check_subarray(1, (int[]){ 9 }, (int[]){ 4 }, (int[]){ 5 }, MPI_ORDER_C);
    check_subarray(4, (int[]){ 3, 2, 4, 5 }, (int[]){ 2, 2, 3, 1 }, (int[]){ 1, 0, 0, 4 }, MPI_ORDER_C);
}

Test(type_array, whole_array_subarray_is_contiguous)
{
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_create_subarray(2, (int[]){ 3, 4 }, (int[]){ 3, 4 }, (int[]){ 0, 0 }, MPI_ORDER_C,
                                          MPI_DOUBLE, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    cr_assert(rch_mpi_type_get(t)->contig);
    MPI_Type_free(&t);
}

/* Owner coordinate of index x in one dimension. */
static int owner(int dist, int darg, int g, int p, int x)
{
    if (dist == MPI_DISTRIBUTE_NONE)
        return 0;
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / b;
    }
    return (x / (darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg)) % p;
}

static void check_darray(int nd, const int *g, const int *dist, const int *darg, const int *p, int order)
{
    long total = 1;
    int size = 1, *packed, *seen;

    for (int d = 0; d < nd; d++) {
        total *= g[d];
        size *= p[d];
    }
    packed = malloc((size_t)total * sizeof(int));
    seen = calloc((size_t)total, sizeof(int));
    for (int rank = 0; rank < size; rank++) {
        MPI_Datatype t;
        int coords[MAXD], left = rank, procs = size, x[MAXD];
        long n = 0;
        for (int d = 0; d < nd; d++) {
            procs /= p[d];
            coords[d] = left / procs;
            left %= procs;
        }
        cr_assert_eq(MPI_Type_create_darray(size, rank, nd, g, dist, darg, p, order, MPI_INT, &t), MPI_SUCCESS);
        MPI_Type_commit(&t);
        check_bounds(t, total);
        int got = pack_indices(t, total, packed);
        for (long i = 0; i < total; i++) {
            long r = i;
            int mine = 1;
            if (order == MPI_ORDER_C)
                for (int d = nd - 1; d >= 0; d--) {
                    x[d] = (int)(r % g[d]);
                    r /= g[d];
                }
            else
                for (int d = 0; d < nd; d++) {
                    x[d] = (int)(r % g[d]);
                    r /= g[d];
                }
            for (int d = 0; d < nd; d++)
                mine &= owner(dist[d], darg[d], g[d], p[d], x[d]) == coords[d];
            if (mine) {
                cr_assert_lt(n, got, "rank %d: too few elements", rank);
                cr_assert_eq(packed[n], i, "rank %d element %ld is index %d, expected %ld", rank, n, packed[n], i);
                n++;
                seen[i]++;
            }
        }
        cr_assert_eq(n, got, "rank %d packed %d, expected %ld", rank, got, n);
        MPI_Type_free(&t);
    }
    for (long i = 0; i < total; i++)
        cr_assert_eq(seen[i], 1, "index %ld owned %d times", i, seen[i]);
    free(packed);
    free(seen);
}

Test(type_array, darray_block_cyclic_and_none_match_brute_force)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    check_darray(1, (int[]){ 10 }, (int[]){ B }, (int[]){ D }, (int[]){ 3 }, MPI_ORDER_C);
    check_darray(1, (int[]){ 10 }, (int[]){ C }, (int[]){ 3 }, (int[]){ 3 }, MPI_ORDER_C);
    check_darray(2, (int[]){ 5, 7 }, (int[]){ B, C }, (int[]){ D, 2 }, (int[]){ 2, 3 }, MPI_ORDER_C);
    check_darray(2, (int[]){ 5, 7 }, (int[]){ B, C }, (int[]){ D, 2 }, (int[]){ 2, 3 }, MPI_ORDER_FORTRAN);
    check_darray(2, (int[]){ 6, 4 }, (int[]){ C, B }, (int[]){ D, 3 }, (int[]){ 4, 2 }, MPI_ORDER_C);
    check_darray(3, (int[]){ 4, 3, 5 }, (int[]){ C, N, B }, (int[]){ 1, D, 2 }, (int[]){ 2, 1, 3 },
                 MPI_ORDER_FORTRAN);
    check_darray(3, (int[]){ 4, 3, 5 }, (int[]){ B, C, C }, (int[]){ D, D, 2 }, (int[]){ 3, 2, 2 }, MPI_ORDER_C);
    /* more processes than elements in a dimension: some ranks own nothing */
    check_darray(1, (int[]){ 3 }, (int[]){ B }, (int[]){ D }, (int[]){ 5 }, MPI_ORDER_C);
    check_darray(1, (int[]){ 3 }, (int[]){ C }, (int[]){ D }, (int[]){ 5 }, MPI_ORDER_C);
}

Test(type_array, array_types_record_their_construction)
{
    MPI_Datatype t, got;
    int ni, na, nt, comb, ints[16];
    MPI_Aint aints[1];

    MPI_Type_create_subarray(2, (int[]){ 4, 6 }, (int[]){ 2, 3 }, (int[]){ 1, 2 }, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    cr_assert_eq(comb, MPI_COMBINER_SUBARRAY);
    cr_assert_eq(ni, 8);
    MPI_Type_get_contents(t, 16, 1, 1, ints, aints, &got);
    cr_assert_eq(ints[0], 2);
    cr_assert_eq(ints[3], 2);
    cr_assert_eq(ints[7], MPI_ORDER_C);
    cr_assert_eq(got, MPI_INT);
    MPI_Type_free(&t);
    MPI_Type_create_darray(4, 1, 2, (int[]){ 4, 4 }, (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK },
                           (int[]){ MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, (int[]){ 2, 2 },
                           MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    cr_assert_eq(comb, MPI_COMBINER_DARRAY);
    cr_assert_eq(ni, 12);
    MPI_Type_free(&t);
}

Test(type_array, bad_array_arguments_are_err_arg)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int B = MPI_DISTRIBUTE_BLOCK, D = MPI_DISTRIBUTE_DFLT_DARG;
    cr_assert_eq(err_class(MPI_Type_create_subarray(0, (int[]){ 1 }, (int[]){ 1 }, (int[]){ 0 }, MPI_ORDER_C,
                                                    MPI_INT, &t)), MPI_ERR_ARG);
    cr_assert_eq(err_class(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 5 }, (int[]){ 0 }, MPI_ORDER_C,
                                                    MPI_INT, &t)), MPI_ERR_ARG);
    cr_assert_eq(err_class(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 2 }, (int[]){ 3 }, MPI_ORDER_C,
                                                    MPI_INT, &t)), MPI_ERR_ARG);
    cr_assert_eq(err_class(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 2 }, (int[]){ 0 }, 99, MPI_INT,
                                                    &t)), MPI_ERR_ARG);
    cr_assert_eq(err_class(MPI_Type_create_subarray(1, (int[]){ 4 }, (int[]){ 2 }, (int[]){ 0 }, MPI_ORDER_C,
                                                    MPI_DATATYPE_NULL, &t)), MPI_ERR_TYPE);
    /* 2 x 2 processes but size 3 */
    cr_assert_eq(err_class(MPI_Type_create_darray(3, 0, 2, (int[]){ 4, 4 }, (int[]){ B, B }, (int[]){ D, D },
                                                  (int[]){ 2, 2 }, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG);
    /* blocks of 1 on 2 processes cannot cover 4 */
    cr_assert_eq(err_class(MPI_Type_create_darray(2, 0, 1, (int[]){ 4 }, (int[]){ B }, (int[]){ 1 }, (int[]){ 2 },
                                                  MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG);
    cr_assert_eq(err_class(MPI_Type_create_darray(2, 2, 1, (int[]){ 4 }, (int[]){ B }, (int[]){ D }, (int[]){ 2 },
                                                  MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG);
    cr_assert_eq(t, MPI_DATATYPE_NULL);
}
