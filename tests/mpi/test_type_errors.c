/*
 * Bad datatype arguments give the right MPI error class (as MPICH reports
 * them) and a message naming the function and the argument, and change
 * nothing: negative counts and block lengths, invalid and freed handles,
 * NULL arrays and outputs, uncommitted types in communication, NULL buffers
 * (and MPI_BOTTOM, which is allowed with absolute addresses), overflow.
 */
#include <stdint.h>
#include "test_type_util.h"

TestSuite(type_errors, .init = type_setup, .fini = type_teardown);

static char msg[MPI_MAX_ERROR_STRING];

static const char *errmsg(int rc)
{
    int len = 0;
    msg[0] = '\0';
    MPI_Error_string(rc, msg, &len);
    return msg;
}

#define ASSERT_ERR(call, cls, ...)                                                                     \
    do {                                                                                               \
        int rc_ = (call);                                                                              \
        cr_assert_eq(err_class(rc_), (cls), "%s: class %d, expected %d", #call, err_class(rc_), (cls)); \
        const char *m_ = errmsg(rc_);                                                                  \
        const char *want_[] = { __VA_ARGS__ };                                                         \
        for (size_t i_ = 0; i_ < sizeof(want_) / sizeof(want_[0]); i_++)                               \
            cr_assert(strstr(m_, want_[i_]), "%s: message \"%s\" lacks \"%s\"", #call, m_, want_[i_]); \
    } while (0)

Test(type_errors, negative_counts_and_block_lengths_are_err_count)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[2] = { 1, -1 }, d[2] = { 0, 4 };
    MPI_Aint ad[2] = { 0, 4 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };

    ASSERT_ERR(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_contiguous", "count");
    ASSERT_ERR(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector", "count");
    ASSERT_ERR(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_vector", "blocklength");
    ASSERT_ERR(MPI_Type_create_hvector(2, -3, 8, MPI_INT, &t), MPI_ERR_COUNT, "blocklength");
    ASSERT_ERR(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_indexed",
               "array_of_blocklengths[1]");
    ASSERT_ERR(MPI_Type_create_hindexed(-1, bl, ad, MPI_INT, &t), MPI_ERR_COUNT, "count");
    ASSERT_ERR(MPI_Type_create_indexed_block(2, -1, d, MPI_INT, &t), MPI_ERR_COUNT, "blocklength");
    ASSERT_ERR(MPI_Type_create_hindexed_block(-5, 1, ad, MPI_INT, &t), MPI_ERR_COUNT, "count");
    ASSERT_ERR(MPI_Type_create_struct(2, bl, ad, ty, &t), MPI_ERR_COUNT, "MPI_Type_create_struct",
               "array_of_blocklengths[1]");
    cr_assert_eq(t, MPI_DATATYPE_NULL, "a failed constructor must not set newtype");
}

Test(type_errors, invalid_old_types_are_err_type)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, freed;
    int bl[2] = { 1, 1 };
    MPI_Aint ad[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, (MPI_Datatype)0x4c000805 };

    ASSERT_ERR(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "MPI_Type_contiguous",
               "MPI_DATATYPE_NULL", "oldtype");
    ASSERT_ERR(MPI_Type_vector(2, 1, 1, (MPI_Datatype)0x12345678, &t), MPI_ERR_TYPE, "0x12345678");
    ASSERT_ERR(MPI_Type_create_struct(2, bl, ad, ty, &t), MPI_ERR_TYPE, "array_of_types[1]");
    MPI_Type_contiguous(2, MPI_INT, &freed);
    {
        MPI_Datatype copy = freed;
        MPI_Type_free(&freed);
        ASSERT_ERR(MPI_Type_dup(copy, &t), MPI_ERR_TYPE, "MPI_Type_dup");
        ASSERT_ERR(MPI_Type_free(&copy), MPI_ERR_TYPE, "MPI_Type_free");
    }
    freed = MPI_DATATYPE_NULL;
    ASSERT_ERR(MPI_Type_free(&freed), MPI_ERR_TYPE, "MPI_Type_free", "MPI_DATATYPE_NULL");
    ASSERT_ERR(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE, "oldtype");
    cr_assert_eq(t, MPI_DATATYPE_NULL);
}

Test(type_errors, null_arrays_and_outputs_are_err_arg)
{
    MPI_Datatype t;
    int bl[1] = { 1 };
    MPI_Aint ad[1] = { 0 };
    ASSERT_ERR(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG, "newtype");
    ASSERT_ERR(MPI_Type_indexed(1, NULL, (int[]){ 0 }, MPI_INT, &t), MPI_ERR_ARG, "array_of_blocklengths");
    ASSERT_ERR(MPI_Type_create_hindexed(1, bl, NULL, MPI_INT, &t), MPI_ERR_ARG, "array_of_displacements");
    ASSERT_ERR(MPI_Type_create_struct(1, bl, ad, NULL, &t), MPI_ERR_ARG, "array_of_types");
    ASSERT_ERR(MPI_Type_commit(NULL), MPI_ERR_ARG, "MPI_Type_commit");
    ASSERT_ERR(MPI_Type_free(NULL), MPI_ERR_ARG, "MPI_Type_free");
    ASSERT_ERR(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG, "size");
    ASSERT_ERR(MPI_Type_get_extent(MPI_INT, NULL, ad), MPI_ERR_ARG, "lb");
    ASSERT_ERR(MPI_Type_get_name(MPI_INT, NULL, bl), MPI_ERR_ARG, "type_name");
    ASSERT_ERR(MPI_Get_address(bl, NULL), MPI_ERR_ARG, "address");
}

Test(type_errors, displacement_overflow_is_reported_not_wrapped)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Aint big[2] = { INTPTR_MAX - 4, 0 };
    int bl[2] = { 1, 1 };
    ASSERT_ERR(MPI_Type_create_hindexed(2, bl, big, MPI_DOUBLE, &t), MPI_ERR_ARG, "MPI_Type_create_hindexed",
               "overflow");
    ASSERT_ERR(MPI_Type_create_hvector(3, 1, INTPTR_MAX / 2, MPI_INT, &t), MPI_ERR_ARG, "overflow");
    ASSERT_ERR(MPI_Type_create_resized(MPI_INT, INTPTR_MAX, 8, &t), MPI_ERR_ARG, "overflow");
    cr_assert_eq(t, MPI_DATATYPE_NULL);
}

Test(type_errors, buffer_check_catches_count_type_commit_and_null)
{
    MPI_Datatype v;
    int buf[8];

    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    ASSERT_ERR(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", buf, 1, v), MPI_ERR_TYPE, "MPI_Send",
               "not committed");
    ASSERT_ERR(MPI_Pack(buf, 1, v, buf + 4, 16, (int[]){ 0 }, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Pack",
               "not committed");
    MPI_Type_commit(&v);
    cr_assert_eq(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", buf, 1, v), MPI_SUCCESS);
    ASSERT_ERR(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", buf, -1, MPI_INT), MPI_ERR_COUNT, "MPI_Send",
               "count", "-1");
    ASSERT_ERR(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Recv", buf, 1, MPI_DATATYPE_NULL), MPI_ERR_TYPE,
               "MPI_Recv", "datatype");
    ASSERT_ERR(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", NULL, 3, MPI_INT), MPI_ERR_BUFFER, "MPI_Send",
               "buf");
    ASSERT_ERR(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", NULL, 1, v), MPI_ERR_BUFFER, "buf");
    /* NULL is fine when nothing is read or written */
    cr_assert_eq(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", NULL, 0, MPI_INT), MPI_SUCCESS);
    {
        MPI_Datatype empty;
        MPI_Type_contiguous(0, MPI_INT, &empty);
        MPI_Type_commit(&empty);
        cr_assert_eq(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", NULL, 5, empty), MPI_SUCCESS);
        MPI_Type_free(&empty);
    }
    MPI_Type_free(&v);
}

Test(type_errors, mpi_bottom_is_allowed_only_with_absolute_addresses)
{
    int x[3] = { 0 };
    MPI_Aint addr;
    MPI_Datatype abs_t, rel_t;
    MPI_Get_address(&x[1], &addr);
    MPI_Type_create_hindexed_block(1, 2, &addr, MPI_INT, &abs_t);
    MPI_Type_commit(&abs_t);
    cr_assert_eq(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", MPI_BOTTOM, 1, abs_t), MPI_SUCCESS);
    /* a type whose data starts at offset 8 is not an absolute address */
    MPI_Type_create_hindexed_block(1, 2, (MPI_Aint[]){ 8 }, MPI_INT, &rel_t);
    MPI_Type_commit(&rel_t);
    ASSERT_ERR(rch_mpi_type_check_buf(MPI_COMM_WORLD, "MPI_Send", MPI_BOTTOM, 1, rel_t), MPI_ERR_BUFFER, "buf");
    MPI_Type_free(&abs_t);
    MPI_Type_free(&rel_t);
}

Test(type_errors, pack_and_unpack_check_their_arguments)
{
    int a[2] = { 1, 2 }, pos = 0;
    unsigned char buf[16];
    ASSERT_ERR(MPI_Pack(a, 2, MPI_INT, buf, sizeof(buf), NULL, MPI_COMM_WORLD), MPI_ERR_ARG, "position");
    ASSERT_ERR(MPI_Pack(a, 2, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Pack");
    ASSERT_ERR(MPI_Pack(a, -2, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Pack");
    ASSERT_ERR(MPI_Pack(NULL, 2, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Pack");
    pos = 20;
    ASSERT_ERR(MPI_Pack(a, 2, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_ERR_ARG, "position");
    pos = 0;
    ASSERT_ERR(MPI_Unpack(buf, sizeof(buf), &pos, a, 2, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "MPI_Unpack");
    ASSERT_ERR(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &pos), MPI_ERR_COUNT, "MPI_Pack_size", "incount");
    ASSERT_ERR(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "size");
}
