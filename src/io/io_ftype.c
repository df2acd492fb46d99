/*
 * Types in a file whose data representation is not native (MPI-4.1 14.5.1):
 * a view's etype and filetype describe file bytes with each predefined type
 * at its size in the representation (external32's table, or a user
 * representation's extent function), element strides scaled by those
 * sizes, byte displacements taken as they are ("no scaling will be done").
 *
 * Such a layout is made as a datatype of its own: the type is rebuilt from
 * its constructor calls (MPI_Type_get_envelope/get_contents) with every
 * predefined type whose file size differs from its native layout replaced
 * by that many bytes (a contiguous of MPI_BYTE), so the rebuilt type's
 * native map is the file's map. The data stream itself (type-map order,
 * each value at its file size) comes from MPI_Pack_external or the user's
 * conversion functions (io_rw.c, io_datarep.c).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "io/io_impl.h"
#include "mpi/type_impl.h"

MPI_Aint rch_io_named_file_size(int external32, const struct rch_io_datarep *u, MPI_Datatype t)
{
    MPI_Aint s = -1;
    if (external32) {
        if (PMPI_Pack_external_size("external32", 1, t, &s) != MPI_SUCCESS)
            return -1;
    } else if (u) {
        s = rch_io_datarep_extent(u, t);
    } else {
        /* the large-count query: MPI_Type_size answers MPI_UNDEFINED above INT_MAX */
        MPI_Count n = 0;
        if (PMPI_Type_size_c(t, &n) != MPI_SUCCESS)
            return -1;
        s = (MPI_Aint)n;
    }
    return s;
}

MPI_Offset rch_io_file_size(int external32, const struct rch_io_datarep *u, MPI_Datatype dt)
{
    if (!external32 && !u) {
        /* native: the type's size, which may exceed INT_MAX (a 2 GiB
         * struct is an ordinary buffer type), so not MPI_Type_size's int */
        const struct rch_mpi_type *t = rch_mpi_type_get(dt);
        return t ? (MPI_Offset)t->size : -1;
    }
    struct rch_mpi_type_obj *o = rch_mpi_type_lookup(dt);
    if (!o)
        return -1;
    MPI_Offset n = 0;
    for (int k = 0; k < o->nruns; k++) {
        MPI_Aint s = rch_io_named_file_size(external32, u, o->runs[k].type);
        if (s < 0)
            return -1;
        n += (MPI_Offset)s * (MPI_Offset)o->runs[k].count;
    }
    return n;
}

/* The layout of named type t: t itself when its file size is its native
 * size and it is one contiguous block, else that many bytes. */
static int named(int external32, const struct rch_io_datarep *u, MPI_Datatype t, MPI_Datatype *out, int *made)
{
    MPI_Aint s = rch_io_named_file_size(external32, u, t);
    const struct rch_mpi_type *n = rch_mpi_type_get(t);
    *made = 0;
    if (s < 0 || !n)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    if ((size_t)s == n->size && n->contig) {
        *out = t;
        return MPI_SUCCESS;
    }
    *made = 1;
    return PMPI_Type_contiguous((int)s, MPI_BYTE, out);
}

static int rebuild(int external32, const struct rch_io_datarep *u, MPI_Datatype t, MPI_Datatype *out, int *made,
                   int depth);

/* The large-count constructor (_c) of record comb (MPI-4.1 5.1.13: counts
 * and displacements in cv, the rest in iv) over types nt. */
static int derived_c(int comb, const int *iv, const MPI_Count *cv, const MPI_Datatype *nt, MPI_Datatype *out)
{
    MPI_Count c = cv[0];
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS: return PMPI_Type_contiguous_c(c, nt[0], out);
    case MPI_COMBINER_VECTOR: return PMPI_Type_vector_c(c, cv[1], cv[2], nt[0], out);
    case MPI_COMBINER_HVECTOR: return PMPI_Type_create_hvector_c(c, cv[1], cv[2], nt[0], out);
    case MPI_COMBINER_INDEXED: return PMPI_Type_indexed_c(c, cv + 1, cv + 1 + c, nt[0], out);
    case MPI_COMBINER_HINDEXED: return PMPI_Type_create_hindexed_c(c, cv + 1, cv + 1 + c, nt[0], out);
    case MPI_COMBINER_INDEXED_BLOCK: return PMPI_Type_create_indexed_block_c(c, cv[1], cv + 2, nt[0], out);
    case MPI_COMBINER_HINDEXED_BLOCK: return PMPI_Type_create_hindexed_block_c(c, cv[1], cv + 2, nt[0], out);
    case MPI_COMBINER_STRUCT: return PMPI_Type_create_struct_c(c, cv + 1, cv + 1 + c, nt, out);
    case MPI_COMBINER_SUBARRAY:
        return PMPI_Type_create_subarray_c(iv[0], cv, cv + iv[0], cv + 2 * iv[0], iv[1], nt[0], out);
    case MPI_COMBINER_DARRAY:
        return PMPI_Type_create_darray_c(iv[0], iv[1], iv[2], cv, iv + 3, iv + 3 + iv[2], iv + 3 + 2 * iv[2],
                                         iv[3 + 3 * iv[2]], nt[0], out);
    case MPI_COMBINER_RESIZED: return PMPI_Type_create_resized_c(nt[0], cv[0], cv[1], out);
    default: return MPI_ERR_UNSUPPORTED_DATAREP;
    }
}

/* Rebuild t's constructor over its inner types, re-laid; *made 0 when none
 * changed (out = t). nc: its large counts (a type made by a _c constructor,
 * MPI_Type_get_envelope_c), rebuilt by the same constructor. */
static int derived(int external32, const struct rch_io_datarep *u, MPI_Datatype t, int ni, int na, MPI_Count nc,
                   int nd, int comb, MPI_Datatype *out, int *made, int depth)
{
    MPI_Count *cv = malloc(sizeof(MPI_Count) * (size_t)(nc + 1));
    int *iv = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *av = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1)), *nt = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    int *mk = calloc((size_t)nd + 1, sizeof(int));
    int err = !cv || !iv || !av || !tv || !nt || !mk ? MPI_ERR_NO_MEM : MPI_SUCCESS, any = 0, got = 0;
    if (!err)
        err = PMPI_Type_get_contents_c(t, ni, na, nc, nd, iv, av, cv, tv);
    got = !err;
    for (int k = 0; !err && k < nd; k++) {
        err = rebuild(external32, u, tv[k], &nt[k], &mk[k], depth + 1);
        any |= mk[k];
    }
    *made = 0;
    if (!err && !any)
        *out = t;
    else if (!err) {
        *made = 1;
        int c = ni > 0 ? iv[0] : 0;
        switch (nc ? -1 : comb) {
        case -1: err = derived_c(comb, iv, cv, nt, out); *made = !err; break;
        case MPI_COMBINER_DUP: err = PMPI_Type_dup(nt[0], out); break;
        case MPI_COMBINER_CONTIGUOUS: err = PMPI_Type_contiguous(c, nt[0], out); break;
        case MPI_COMBINER_VECTOR: err = PMPI_Type_vector(c, iv[1], iv[2], nt[0], out); break;
        case MPI_COMBINER_HVECTOR: err = PMPI_Type_create_hvector(c, iv[1], av[0], nt[0], out); break;
        case MPI_COMBINER_INDEXED: err = PMPI_Type_indexed(c, iv + 1, iv + 1 + c, nt[0], out); break;
        case MPI_COMBINER_HINDEXED: err = PMPI_Type_create_hindexed(c, iv + 1, av, nt[0], out); break;
        case MPI_COMBINER_INDEXED_BLOCK: err = PMPI_Type_create_indexed_block(c, iv[1], iv + 2, nt[0], out); break;
        case MPI_COMBINER_HINDEXED_BLOCK: err = PMPI_Type_create_hindexed_block(c, iv[1], av, nt[0], out); break;
        case MPI_COMBINER_STRUCT: err = PMPI_Type_create_struct(c, iv + 1, av, nt, out); break;
        case MPI_COMBINER_SUBARRAY:
            err = PMPI_Type_create_subarray(c, iv + 1, iv + 1 + c, iv + 1 + 2 * c, iv[1 + 3 * c], nt[0], out);
            break;
        case MPI_COMBINER_DARRAY:
            err = PMPI_Type_create_darray(iv[0], iv[1], iv[2], iv + 3, iv + 3 + iv[2], iv + 3 + 2 * iv[2],
                                          iv + 3 + 3 * iv[2], iv[3 + 4 * iv[2]], nt[0], out);
            break;
        case MPI_COMBINER_RESIZED: err = PMPI_Type_create_resized(nt[0], av[0], av[1], out); break;
        default: err = MPI_ERR_UNSUPPORTED_DATAREP; *made = 0; break;
        }
    }
    for (int k = 0; got && k < nd; k++) {
        if (mk[k])
            PMPI_Type_free(&nt[k]);
        const struct rch_mpi_type *x = rch_mpi_type_get(tv[k]);
        if (x && !x->predefined)
            PMPI_Type_free(&tv[k]);   /* get_contents' new handles */
    }
    free(cv);
    free(iv);
    free(av);
    free(tv);
    free(nt);
    free(mk);
    return err;
}

static int rebuild(int external32, const struct rch_io_datarep *u, MPI_Datatype t, MPI_Datatype *out, int *made,
                   int depth)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    *made = 0;
    if (depth > 64 || PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb) != MPI_SUCCESS ||
        ni > INT_MAX || na > INT_MAX || nd > INT_MAX || (size_t)nc > SIZE_MAX / sizeof(MPI_Count) - 1)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL || comb == MPI_COMBINER_F90_COMPLEX ||
        comb == MPI_COMBINER_F90_INTEGER)
        return named(external32, u, t, out, made);
    return derived(external32, u, t, (int)ni, (int)na, nc, (int)nd, comb, out, made, depth);
}

struct rch_mpi_type *rch_io_file_layout(int external32, const struct rch_io_datarep *u, MPI_Datatype t)
{
    MPI_Datatype out;
    int made = 0;
    if (rebuild(external32, u, t, &out, &made, 0) != MPI_SUCCESS)
        return NULL;
    if (made && PMPI_Type_commit(&out) != MPI_SUCCESS) {
        PMPI_Type_free(&out);
        return NULL;
    }
    struct rch_mpi_type *l = rch_mpi_type_get(out);
    if (l)
        rch_mpi_type_retain(l);
    if (made)
        PMPI_Type_free(&out);   /* the retained object lives on */
    return l;
}
