/*
 * Shared by the datatype unit tests: MPI as a singleton (no launcher) with
 * MPI_ERRORS_RETURN, and a check of a datatype against the reference model
 * (test_type_model.h): bounds, size, and pack / unpack / partial unpack /
 * element counts for 1..3 elements in a buffer with data on both sides of
 * the base pointer (negative displacements).
 */
#ifndef TEST_TYPE_UTIL_H
#define TEST_TYPE_UTIL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "mpi/mpi_impl.h"
#include "test_type_model.h"

static inline void type_setup(void)
{
    cr_assert_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    cr_assert_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
}

static inline void type_teardown(void)
{
    MPI_Finalize();
}

static inline int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static inline void fill_pattern(unsigned char *p, long n, unsigned seed)
{
    for (long i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131 + seed * 7 + 1) & 0xff);
}

/* Check committed type t against model m; `what` names the case in failures. */
static inline void check_type(MPI_Datatype t, const struct model *m, const char *what)
{
    MPI_Aint lb, ext, tlb, text;
    int size;

    cr_assert_eq(MPI_Type_size(t, &size), MPI_SUCCESS, "%s: Type_size", what);
    cr_assert_eq(size, model_size(m), "%s: size %d, expected %ld", what, size, model_size(m));
    cr_assert_eq(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
    cr_assert_eq(lb, m->lb, "%s: lb %ld, expected %ld", what, (long)lb, m->lb);
    cr_assert_eq(ext, model_extent(m), "%s: extent %ld, expected %ld", what, (long)ext, model_extent(m));
    cr_assert_eq(MPI_Type_get_true_extent(t, &tlb, &text), MPI_SUCCESS);
    if (size > 0) {
        cr_assert_eq(tlb, model_true_lb(m), "%s: true_lb %ld, expected %ld", what, (long)tlb, model_true_lb(m));
        cr_assert_eq(text, model_true_ub(m) - model_true_lb(m), "%s: true extent %ld, expected %ld", what,
                     (long)text, model_true_ub(m) - model_true_lb(m));
    }

    for (int count = 1; count <= 3; count++) {
        long lo, hi, bytes = (long)count * size;
        model_span(m, count, &lo, &hi);
        long span = hi - lo + 16;
        unsigned char *src = malloc((size_t)span), *dst = malloc((size_t)span), *exp = malloc((size_t)span);
        unsigned char *packed = malloc((size_t)bytes + 1), *mpacked = malloc((size_t)bytes + 1);
        unsigned char *sbase = src - lo + 8, *dbase = dst - lo + 8, *ebase = exp - lo + 8;
        int pos = 0;

        fill_pattern(src, span, (unsigned)count);
        /* pack through MPI_Pack and directly, against the model */
        model_pack(m, sbase, count, mpacked);
        cr_assert_eq(MPI_Pack(sbase, count, t, packed, (int)bytes, &pos, MPI_COMM_WORLD), MPI_SUCCESS,
                     "%s: MPI_Pack", what);
        cr_assert_eq(pos, bytes, "%s: position %d after MPI_Pack, expected %ld", what, pos, bytes);
        cr_assert(memcmp(packed, mpacked, (size_t)bytes) == 0, "%s: MPI_Pack of %d elements differs from the model",
                  what, count);
        /* full unpack */
        memset(dst, 0, (size_t)span);
        memset(exp, 0, (size_t)span);
        pos = 0;
        cr_assert_eq(MPI_Unpack(packed, (int)bytes, &pos, dbase, count, t, MPI_COMM_WORLD), MPI_SUCCESS,
                     "%s: MPI_Unpack", what);
        model_unpack(m, packed, bytes, ebase, count);
        cr_assert(memcmp(dst, exp, (size_t)span) == 0, "%s: MPI_Unpack of %d elements differs from the model",
                  what, count);
        /* truncated unpack: every prefix length delivers exactly that prefix */
        for (long cut = 0; cut <= bytes; cut += (bytes > 40 ? bytes / 13 + 1 : 1)) {
            memset(dst, 0, (size_t)span);
            memset(exp, 0, (size_t)span);
            rch_mpi_type_unpack(packed, (size_t)cut, dbase, count, rch_mpi_type_get(t));
            model_unpack(m, packed, cut, ebase, count);
            cr_assert(memcmp(dst, exp, (size_t)span) == 0, "%s: unpack of %ld of %ld bytes differs", what, cut,
                      bytes);
            cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(t), (size_t)cut), model_elements(m, cut),
                         "%s: elements in %ld bytes: %ld, expected %ld", what, cut,
                         (long)rch_mpi_type_elements(rch_mpi_type_get(t), (size_t)cut), model_elements(m, cut));
        }
        cr_assert_eq(rch_mpi_type_elements(rch_mpi_type_get(t), (size_t)bytes), model_elements(m, bytes),
                     "%s: elements in all %ld bytes", what, bytes);
        free(src);
        free(dst);
        free(exp);
        free(packed);
        free(mpacked);
    }
}

#endif
