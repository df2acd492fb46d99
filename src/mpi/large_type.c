/*
 * Datatype constructors' large-count forms whose counts may exceed an int
 * (large=defined): MPI_Type_contiguous_c (over INT_MAX: type_large.c),
 * MPI_Type_vector_c, MPI_Type_create_hvector_c,
 * MPI_Type_create_indexed_block_c, MPI_Type_create_hindexed_block_c,
 * MPI_Type_create_struct_c.
 *
 * What fits an int goes to the int constructor. A blocklength over INT_MAX
 * is one element of a contiguous type of that many oldtype (large.c): a
 * block of them has the same type map, so vector(count, b, stride, old) is
 * hvector(count, 1, stride * extent(old), contiguous(b, old)), the indexed
 * forms likewise in bytes, and a struct's block i (1, contiguous(b_i,
 * type_i)). Strides and displacements are then bytes in an MPI_Aint, so they
 * need not fit an int either. A count of more than INT_MAX blocks would be a
 * map of as many blocks, which the library does not hold: MPI_ERR_COUNT.
 *
 * Either way the type's record is then the user's call (MPI-4.1 5.1.13):
 * its combiner, its counts and displacements as large counts
 * (rch_mpi_type_record_c), its types.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/large.h"

static int fits(MPI_Count v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

/* The count of blocks as an int, or MPI_ERR_COUNT naming it. */
static int blocks(const struct rch_mpi_large_ctx *x, MPI_Count count, int *n)
{
    if (count > INT_MAX)
        return rch_mpi_large_err(x, MPI_ERR_COUNT, "count %lld in argument count: a type of more than INT_MAX "
                                 "blocks is more than this library holds", (long long)count);
    *n = (int)count;   /* a negative one is the int constructor's to report */
    return MPI_SUCCESS;
}

/* (blocklength, oldtype) as (*n, *block): itself if it fits an int, else
 * one element of a contiguous type; and the extent of oldtype. */
static int block_type(const struct rch_mpi_large_ctx *x, MPI_Count blocklength, MPI_Datatype oldtype, int *n,
                      MPI_Datatype *block, MPI_Aint *extent)
{
    MPI_Aint lb;
    int err = rch_mpi_large_buf(x, "blocklength", blocklength, oldtype, n, block);
    if (!err && (err = PMPI_Type_get_extent(oldtype, &lb, extent)))
        rch_mpi_large_buf_done(*block, oldtype);
    return err;
}

/* The record of an indexed_block_c or hindexed_block_c call. */
static int block_record(const char *fn, int err, MPI_Datatype *newtype, int combiner, MPI_Count count,
                        MPI_Count blocklength, const MPI_Count displs[], MPI_Datatype oldtype)
{
    MPI_Count head[2] = { count, blocklength };
    return rch_mpi_type_record_c(fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = combiner, .nhead = 2, .head = head, .n = count, .a = displs, .ntypes = 1, .types = &oldtype });
}

/* hvector / hindexed_block of the block's type at byte strides or displacements. */
static int hvector(const struct rch_mpi_large_ctx *x, MPI_Count count, MPI_Count blocklength, MPI_Aint stride,
                   int in_extents, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Datatype block;
    MPI_Aint ext, bytes;
    int n = 0, bl = 0, err;
    if ((err = blocks(x, count, &n)) || (err = block_type(x, blocklength, oldtype, &bl, &block, &ext)))
        return err;
    if (__builtin_mul_overflow(stride, in_extents ? ext : 1, &bytes))
        err = rch_mpi_large_err(x, MPI_ERR_ARG, "stride %ld in argument stride times the extent %ld overflows",
                                (long)stride, (long)ext);
    else
        err = PMPI_Type_create_hvector(n, bl, bytes, block, newtype);
    rch_mpi_large_buf_done(block, oldtype);
    return err;
}

static int hindexed_block(const struct rch_mpi_large_ctx *x, MPI_Count count, MPI_Count blocklength,
                          const MPI_Aint displs[], int in_extents, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Datatype block;
    MPI_Aint ext, *bytes;
    int n = 0, bl = 0, err;
    if ((err = blocks(x, count, &n)) || (err = block_type(x, blocklength, oldtype, &bl, &block, &ext)))
        return err;
    if (!(bytes = malloc((size_t)(n > 0 ? n : 1) * sizeof(*bytes)))) {
        rch_mpi_large_buf_done(block, oldtype);
        return rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory for %d displacements", n);
    }
    for (int i = 0; i < n && !err; i++)
        if (__builtin_mul_overflow(displs ? displs[i] : 0, in_extents ? ext : 1, &bytes[i]))
            err = rch_mpi_large_err(x, MPI_ERR_ARG, "displacement %ld in argument array_of_displacements[%d] "
                                    "times the extent %ld overflows", (long)displs[i], i, (long)ext);
    if (!err)
        err = PMPI_Type_create_hindexed_block(n, bl, displs ? bytes : NULL, block, newtype);
    free(bytes);
    rch_mpi_large_buf_done(block, oldtype);
    return err;
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_vector_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    MPI_Count head[3] = { count, blocklength, stride };
    int err = fits(count) && fits(blocklength) && fits(stride) ?
              PMPI_Type_vector((int)count, (int)blocklength, (int)stride, oldtype, newtype) :
              hvector(&x, count, blocklength, stride, 1, oldtype, newtype);
    return rch_mpi_type_record_c(x.fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_VECTOR, .nhead = 3, .head = head, .ntypes = 1, .types = &oldtype });
}
#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_hvector_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    MPI_Count head[3] = { count, blocklength, stride };
    int err = fits(count) && fits(blocklength) ?
              PMPI_Type_create_hvector((int)count, (int)blocklength, stride, oldtype, newtype) :
              hvector(&x, count, blocklength, stride, 0, oldtype, newtype);
    return rch_mpi_type_record_c(x.fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_HVECTOR, .nhead = 3, .head = head, .ntypes = 1, .types = &oldtype });
}
#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_indexed_block_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int all = fits(count) && fits(blocklength), *d = NULL, err;
    for (MPI_Count i = 0; all && array_of_displacements && i < count; i++)
        all = fits(array_of_displacements[i]);
    if (!all)
        err = hindexed_block(&x, count, blocklength, array_of_displacements, 1, oldtype, newtype);
    else if (!(err = rch_mpi_large_ints(&x, "array_of_displacements", 1, array_of_displacements, count, &d)))
        err = PMPI_Type_create_indexed_block((int)count, (int)blocklength, d, oldtype, newtype);
    free(d);
    return block_record(x.fn, err, newtype, MPI_COMBINER_INDEXED_BLOCK, count, blocklength,
                        array_of_displacements, oldtype);
}
#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_hindexed_block_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int err = fits(count) && fits(blocklength) ?
              PMPI_Type_create_hindexed_block((int)count, (int)blocklength, array_of_displacements, oldtype,
                                              newtype) :
              hindexed_block(&x, count, blocklength, array_of_displacements, 0, oldtype, newtype);
    return block_record(x.fn, err, newtype, MPI_COMBINER_HINDEXED_BLOCK, count, blocklength,
                        array_of_displacements, oldtype);
}
#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_struct_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int n = 0, err, *bl = NULL;
    MPI_Datatype *types = NULL;
    if ((err = blocks(&x, count, &n)))
        return err;
    if (n > 0 && array_of_blocklengths && array_of_types) {
        bl = malloc((size_t)n * sizeof(*bl));
        types = malloc((size_t)n * sizeof(*types));
        if (!bl || !types) {
            free(bl);
            free(types);
            return rch_mpi_large_err(&x, MPI_ERR_NO_MEM, "no memory for %d blocks", n);
        }
    }
    int made = 0;
    for (; bl && made < n && !err; made++)
        err = rch_mpi_large_buf(&x, "array_of_blocklengths", array_of_blocklengths[made], array_of_types[made],
                                &bl[made], &types[made]);
    if (!err)
        err = PMPI_Type_create_struct(n, bl, array_of_displacements, types ? types : array_of_types, newtype);
    for (int i = 0; bl && i < made; i++)
        rch_mpi_large_buf_done(types[i], array_of_types[i]);
    free(bl);
    free(types);
    return rch_mpi_type_record_c(x.fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_STRUCT, .nhead = 1, .head = &count, .n = count, .a = array_of_blocklengths,
        .b = array_of_displacements, .ntypes = n, .types = array_of_types });
}
#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_contiguous_c";
    struct rch_mpi_large_ctx x = { fn, MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    if (fits(count))
        return rch_mpi_type_record_c(fn, PMPI_Type_contiguous((int)count, oldtype, newtype), newtype,
                                     &(struct rch_mpi_type_call_c){ .combiner = MPI_COMBINER_CONTIGUOUS,
                                     .nhead = 1, .head = &count, .ntypes = 1, .types = &oldtype });
    RCH_MPI_CS();
    MPI_Aint lb, ext, whole;
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (count < 0)
        return rch_mpi_large_err(&x, MPI_ERR_COUNT, "negative count %lld in argument count", (long long)count);
    if (!newtype)
        return rch_mpi_large_err(&x, MPI_ERR_ARG, "NULL pointer in argument newtype");
    if (rch_mpi_type_get(oldtype) && !PMPI_Type_get_extent(oldtype, &lb, &ext) &&
        __builtin_mul_overflow(count, ext, &whole))
        return rch_mpi_large_err(&x, MPI_ERR_COUNT, "count %lld of oldtype's %ld-byte extent overflows an "
                                 "address", (long long)count, (long)ext);
    return rch_mpi_type_contiguous_large(fn, count, oldtype, 0, newtype);
}
#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
