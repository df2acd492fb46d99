/*
 * Predefined datatypes: MPICH's handle values decode to the right sizes,
 * bounds and names (as MPICH 4.0.2 reports them), the MINLOC/MAXLOC pair
 * types have their C structs' layouts, the markers MPI_LB/MPI_UB are empty,
 * and handles that are not datatypes are rejected.
 */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include "test_type_util.h"

TestSuite(type_predef, .init = type_setup, .fini = type_teardown);

static const struct {
    MPI_Datatype t;
    int size;
    const char *name;
} predefs[] = {
    { MPI_CHAR, sizeof(char), "MPI_CHAR" },
    { MPI_SIGNED_CHAR, sizeof(signed char), "MPI_SIGNED_CHAR" },
    { MPI_UNSIGNED_CHAR, sizeof(unsigned char), "MPI_UNSIGNED_CHAR" },
    { MPI_BYTE, 1, "MPI_BYTE" },
    { MPI_WCHAR, 4, "MPI_WCHAR" },
    { MPI_SHORT, sizeof(short), "MPI_SHORT" },
    { MPI_UNSIGNED_SHORT, sizeof(unsigned short), "MPI_UNSIGNED_SHORT" },
    { MPI_INT, sizeof(int), "MPI_INT" },
    { MPI_UNSIGNED, sizeof(unsigned), "MPI_UNSIGNED" },
    { MPI_LONG, sizeof(long), "MPI_LONG" },
    { MPI_UNSIGNED_LONG, sizeof(unsigned long), "MPI_UNSIGNED_LONG" },
    { MPI_FLOAT, sizeof(float), "MPI_FLOAT" },
    { MPI_DOUBLE, sizeof(double), "MPI_DOUBLE" },
    { MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE" },
    { MPI_LONG_LONG_INT, sizeof(long long), "MPI_LONG_LONG_INT" },
    { MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG_INT" },
    { MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long), "MPI_UNSIGNED_LONG_LONG" },
    { MPI_PACKED, 1, "MPI_PACKED" },
    { MPI_2INT, 2 * sizeof(int), "MPI_2INT" },
    { MPI_COMPLEX, 8, "MPI_COMPLEX" },
    { MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX" },
    { MPI_LOGICAL, 4, "MPI_LOGICAL" },
    { MPI_REAL, 4, "MPI_REAL" },
    { MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION" },
    { MPI_INTEGER, 4, "MPI_INTEGER" },
    { MPI_2INTEGER, 8, "MPI_2INTEGER" },
    { MPI_2REAL, 8, "MPI_2REAL" },
    { MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION" },
    { MPI_CHARACTER, 1, "MPI_CHARACTER" },
    { MPI_REAL4, 4, "MPI_REAL4" },
    { MPI_REAL8, 8, "MPI_REAL8" },
    { MPI_REAL16, 16, "MPI_REAL16" },
    { MPI_COMPLEX8, 8, "MPI_COMPLEX8" },
    { MPI_COMPLEX16, 16, "MPI_COMPLEX16" },
    { MPI_COMPLEX32, 32, "MPI_COMPLEX32" },
    { MPI_INTEGER1, 1, "MPI_INTEGER1" },
    { MPI_INTEGER2, 2, "MPI_INTEGER2" },
    { MPI_INTEGER4, 4, "MPI_INTEGER4" },
    { MPI_INTEGER8, 8, "MPI_INTEGER8" },
    { MPI_INT8_T, sizeof(int8_t), "MPI_INT8_T" },
    { MPI_INT16_T, sizeof(int16_t), "MPI_INT16_T" },
    { MPI_INT32_T, sizeof(int32_t), "MPI_INT32_T" },
    { MPI_INT64_T, sizeof(int64_t), "MPI_INT64_T" },
    { MPI_UINT8_T, sizeof(uint8_t), "MPI_UINT8_T" },
    { MPI_UINT16_T, sizeof(uint16_t), "MPI_UINT16_T" },
    { MPI_UINT32_T, sizeof(uint32_t), "MPI_UINT32_T" },
    { MPI_UINT64_T, sizeof(uint64_t), "MPI_UINT64_T" },
    { MPI_C_BOOL, sizeof(_Bool), "MPI_C_BOOL" },
    { MPI_C_FLOAT_COMPLEX, sizeof(float _Complex), "MPI_C_COMPLEX" },
    { MPI_C_COMPLEX, sizeof(float _Complex), "MPI_C_COMPLEX" },
    { MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), "MPI_C_DOUBLE_COMPLEX" },
    { MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), "MPI_C_LONG_DOUBLE_COMPLEX" },
    { MPIX_C_FLOAT16, 2, "MPIX_C_FLOAT16" },
    { MPI_AINT, sizeof(MPI_Aint), "MPI_AINT" },
    { MPI_OFFSET, sizeof(MPI_Offset), "MPI_OFFSET" },
    { MPI_COUNT, sizeof(MPI_Count), "MPI_COUNT" },
    { MPI_CXX_BOOL, 1, "MPI_CXX_BOOL" },
    { MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX" },
    { MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX" },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, 32, "MPI_CXX_LONG_DOUBLE_COMPLEX" },
};

Test(type_predef, every_predefined_type_has_its_size_bounds_and_name)
{
    for (size_t i = 0; i < sizeof(predefs) / sizeof(predefs[0]); i++) {
        int size = -1, len = -1, ni, na, nt, comb;
        MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
        char name[MPI_MAX_OBJECT_NAME];
        MPI_Datatype t = predefs[i].t;

        cr_assert_eq(MPI_Type_size(t, &size), MPI_SUCCESS, "%s", predefs[i].name);
        cr_assert_eq(size, predefs[i].size, "%s: size %d, expected %d", predefs[i].name, size, predefs[i].size);
        /* MPICH's handle encodes the size in bits 8-15 */
        cr_assert_eq(((unsigned)t >> 8) & 0xff, (unsigned)size, "%s", predefs[i].name);
        cr_assert_eq(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
        cr_assert_eq(lb, 0);
        cr_assert_eq(ext, size, "%s", predefs[i].name);
        cr_assert_eq(MPI_Type_get_true_extent(t, &tlb, &text), MPI_SUCCESS);
        cr_assert_eq(tlb, 0);
        cr_assert_eq(text, size);
        cr_assert_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
        cr_assert_str_eq(name, predefs[i].name);
        cr_assert_eq(len, (int)strlen(predefs[i].name));
        cr_assert_eq(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb), MPI_SUCCESS);
        cr_assert_eq(comb, MPI_COMBINER_NAMED);
        cr_assert(rch_mpi_type_get(t)->committed && rch_mpi_type_get(t)->contig);
        /* committing a predefined type is allowed and does nothing */
        cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    }
}

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };

Test(type_predef, pair_types_have_the_c_struct_layout)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
        size_t value_size, index_off, extent;
    } pairs[] = {
        { MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float), offsetof(struct float_int, i), sizeof(struct float_int) },
        { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double), offsetof(struct double_int, i), sizeof(struct double_int) },
        { MPI_LONG_INT, "MPI_LONG_INT", sizeof(long), offsetof(struct long_int, i), sizeof(struct long_int) },
        { MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(short), offsetof(struct short_int, i), sizeof(struct short_int) },
        { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double), offsetof(struct long_double_int, i),
          sizeof(struct long_double_int) },
    };
    cr_assert_eq(MPI_FLOAT_INT, (MPI_Datatype)0x8c000000);
    cr_assert_eq(MPI_LONG_DOUBLE_INT, (MPI_Datatype)0x8c000004);
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        int size, len;
        MPI_Aint lb, ext, tlb, text;
        char name[MPI_MAX_OBJECT_NAME];
        struct model m;
        long offs[2] = { 0, (long)pairs[i].index_off };
        int sizes[2] = { (int)pairs[i].value_size, 4 };

        MPI_Type_size(pairs[i].t, &size);
        MPI_Type_get_extent(pairs[i].t, &lb, &ext);
        MPI_Type_get_true_extent(pairs[i].t, &tlb, &text);
        MPI_Type_get_name(pairs[i].t, name, &len);
        cr_assert_eq(size, (int)(pairs[i].value_size + sizeof(int)), "%s", pairs[i].name);
        cr_assert_eq(lb, 0);
        cr_assert_eq(ext, (MPI_Aint)pairs[i].extent, "%s extent %ld", pairs[i].name, (long)ext);
        cr_assert_eq(tlb, 0);
        cr_assert_eq(text, (MPI_Aint)(pairs[i].index_off + sizeof(int)));
        cr_assert_str_eq(name, pairs[i].name);
        /* for reductions the element is the pair itself; for Get_elements its two parts */
        cr_assert_eq(rch_mpi_type_get(pairs[i].t)->basic, pairs[i].t);
        cr_assert_eq(rch_mpi_type_get(pairs[i].t)->basic_count, 1);
        model_predef(&m, 2, offs, sizes, (long)pairs[i].extent, 8);
        check_type(pairs[i].t, &m, pairs[i].name);
        model_free(&m);
    }
}

Test(type_predef, double_int_array_round_trip_skips_padding)
{
    struct double_int in[3] = { { 1.25, 7 }, { -2.5, 8 }, { 1e300, -9 } }, out[3];
    unsigned char packed[3 * 12];
    int pos = 0;

    memset(out, 0, sizeof(out));
    cr_assert_eq(MPI_Pack(in, 3, MPI_DOUBLE_INT, packed, sizeof(packed), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    cr_assert_eq(pos, 36);
    pos = 0;
    cr_assert_eq(MPI_Unpack(packed, sizeof(packed), &pos, out, 3, MPI_DOUBLE_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(out[i].v, in[i].v);
        cr_assert_eq(out[i].i, in[i].i);
    }
}

Test(type_predef, elements_count_pair_parts_like_mpich)
{
    /* MPICH 4 counts MPI_2INT and the value-index pairs as two basic elements each */
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_2INT), 24), 6);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_2INT), 20), 5);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_FLOAT_INT), 16), 4);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_FLOAT_INT), 12), 3);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_DOUBLE_INT), 20), 3);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_DOUBLE_INT), 10), MPI_UNDEFINED);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_C_DOUBLE_COMPLEX), 32), 2);
    cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(MPI_INT), 10), MPI_UNDEFINED);
}

Test(type_predef, lb_and_ub_markers_are_empty)
{
    int size;
    MPI_Aint lb, ext;
    cr_assert_eq(MPI_Type_size(MPI_LB, &size), MPI_SUCCESS);
    cr_assert_eq(size, 0);
    cr_assert_eq(MPI_Type_get_extent(MPI_UB, &lb, &ext), MPI_SUCCESS);
    cr_assert_eq(lb, 0);
    cr_assert_eq(ext, 0);
}

Test(type_predef, handles_that_are_not_datatypes_are_rejected)
{
    static const MPI_Datatype bad[] = {
        MPI_DATATYPE_NULL,
        (MPI_Datatype)0x4c000805,   /* MPI_INT's index with the wrong size byte */
        (MPI_Datatype)0x4c0004ff,   /* an index MPICH does not use */
        (MPI_Datatype)0x4c000000,
        (MPI_Datatype)0x8c000005,   /* past the pair types */
        (MPI_Datatype)0x8c0000ff,   /* a derived handle never created */
        (MPI_Datatype)0xcc000008,
        (MPI_Datatype)0x44000000,   /* MPI_COMM_WORLD */
        (MPI_Datatype)0x58000003,   /* MPI_SUM */
        0, -1, 12345,
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int size = -7;
        cr_assert_eq(err_class(MPI_Type_size(bad[i], &size)), MPI_ERR_TYPE, "handle 0x%x", (unsigned)bad[i]);
        cr_assert_eq(size, -7);
        cr_assert_null(rch_mpi_type_get(bad[i]), "handle 0x%x", (unsigned)bad[i]);
    }
    cr_assert_eq(MPI_INTEGER16, MPI_DATATYPE_NULL);
}

Test(type_predef, predefined_types_cannot_be_freed)
{
    MPI_Datatype t = MPI_DOUBLE;
    cr_assert_eq(err_class(MPI_Type_free(&t)), MPI_ERR_TYPE);
    cr_assert_eq(t, MPI_DOUBLE);
    t = MPI_FLOAT_INT;
    cr_assert_eq(err_class(MPI_Type_free(&t)), MPI_ERR_TYPE);
}

Test(type_predef, names_can_be_changed_and_read_back)
{
    MPI_Datatype t;
    char name[MPI_MAX_OBJECT_NAME], longname[300];
    int len;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_get_name(t, name, &len);
    cr_assert_eq(len, 0);
    cr_assert_eq(MPI_Type_set_name(t, "pair of ints"), MPI_SUCCESS);
    MPI_Type_get_name(t, name, &len);
    cr_assert_str_eq(name, "pair of ints");
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    cr_assert_eq(MPI_Type_set_name(t, longname), MPI_SUCCESS);
    MPI_Type_get_name(t, name, &len);
    cr_assert_eq(len, MPI_MAX_OBJECT_NAME - 1);
    MPI_Type_free(&t);
}

Test(type_predef, match_size_gives_the_fortran_sized_types)
{
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t), MPI_SUCCESS);
    cr_assert_eq(t, MPI_REAL8);
    cr_assert_eq(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t), MPI_SUCCESS);
    cr_assert_eq(t, MPI_INTEGER4);
    cr_assert_eq(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t), MPI_SUCCESS);
    cr_assert_eq(t, MPI_COMPLEX16);
    cr_assert_eq(err_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t)), MPI_ERR_ARG);
    cr_assert_eq(err_class(MPI_Type_match_size(99, 4, &t)), MPI_ERR_ARG);
}

Test(type_predef, get_address_is_the_pointer_value)
{
    double d[4] = { 0 };
    MPI_Aint a0, a3;
    cr_assert_eq(MPI_Get_address(&d[0], &a0), MPI_SUCCESS);
    cr_assert_eq(MPI_Get_address(&d[3], &a3), MPI_SUCCESS);
    cr_assert_eq(a0, (MPI_Aint)(uintptr_t)&d[0]);
    cr_assert_eq(a3 - a0, 24);
    cr_assert_eq(MPI_Address(&d[1], &a3), MPI_SUCCESS);
    cr_assert_eq(a3 - a0, 8);
}
