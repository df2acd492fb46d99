/*
 * Datatype queries and life cycle: MPI_Type_commit, _free, _dup, _size(_x),
 * _get_extent(_x), _get_true_extent(_x), the deprecated _lb/_ub/_extent,
 * _get_name/_set_name, _get_envelope/_get_contents, _match_size, and
 * MPI_Get_address (and the deprecated MPI_Address).
 *
 * Commit has little left to do: the map was flattened, merged and checked
 * for contiguity when the type was built (type_build.c), because
 * constructors can be applied to uncommitted types and need their maps.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "mpi/type_impl.h"

static int null_arg(const char *fn, const char *arg)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn, arg);
}

/* The object for a query: init checked, handle valid, then the output
 * arguments named arg1 and arg2 (either may be NULL: none) not NULL. */
static struct rch_mpi_type_obj *query(const char *fn, MPI_Datatype dt, int *rc, const void *out1,
                                      const char *arg1, const void *out2, const char *arg2)
{
    struct rch_mpi_type_obj *o;
    if ((*rc = rch_mpi_check_init(fn)) || !(o = rch_mpi_type_arg(fn, "datatype", dt, rc)))
        return NULL;
    if ((arg1 && !out1) || (arg2 && !out2)) {
        *rc = null_arg(fn, arg1 && !out1 ? arg1 : arg2);
        return NULL;
    }
    return o;
}

/* The object behind an in/out handle argument (commit, free): init checked,
 * the pointer and the handle valid. */
static struct rch_mpi_type_obj *handle_arg(const char *fn, const MPI_Datatype *datatype, int *rc)
{
    if ((*rc = rch_mpi_check_init(fn)))
        return NULL;
    if (!datatype) {
        *rc = null_arg(fn, "datatype");
        return NULL;
    }
    return rch_mpi_type_arg(fn, "datatype", *datatype, rc);
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = handle_arg("MPI_Type_commit", datatype, &rc);
    if (!o)
        return rc;
    o->t.committed = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_commit = PMPI_Type_commit

int PMPI_Type_free(MPI_Datatype *datatype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_free";
    int rc;
    struct rch_mpi_type_obj *o = handle_arg(fn, datatype, &rc);
    if (!o)
        return rc;
    if (o->t.predefined)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: cannot free predefined datatype %s", fn,
                           o->t.name);
    if (o->permanent)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: cannot free datatype 0x%x: types from "
                           "MPI_Type_create_f90_* are predefined", fn, (unsigned)*datatype);
    if (o->urefs <= 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: datatype 0x%x in argument datatype was freed already "
                           "(a copy of a freed handle; it lives on only for the operations still using it)", fn,
                           (unsigned)*datatype);
    if ((rc = rch_mpi_type_attr_delete_all(fn, o)))
        return rc;
    *datatype = MPI_DATATYPE_NULL;
    o->urefs--;
    rch_mpi_type_release(&o->t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_free = PMPI_Type_free

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_dup";
    struct rch_mpi_type_obj *old, *o;
    int rc;

    if ((rc = rch_mpi_check_init(fn)))
        return rc;
    if (!newtype)
        return null_arg(fn, "newtype");
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    if (!(o = rch_mpi_type_obj_copy(old)))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: out of memory", fn);
    o->t.committed = old->t.committed;     /* names are not copied (as MPICH) */
    if ((rc = rch_mpi_type_attr_copy(fn, old, o))) {
        rch_mpi_type_obj_destroy(o);
        *newtype = MPI_DATATYPE_NULL;     /* as Comm_dup's MPI_COMM_NULL: no new type */
        return rc;
    }
    return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype);
}
#pragma weak MPI_Type_dup = PMPI_Type_dup

/* ---- size and bounds ---- */

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_size", datatype, &rc, size, "size", NULL, NULL);
    if (!o)
        return rc;
    *size = o->t.size > INT_MAX ? MPI_UNDEFINED : (int)o->t.size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

static int size_of(const char *fn, MPI_Datatype datatype, MPI_Count *size)
{
    int rc;
    struct rch_mpi_type_obj *o = query(fn, datatype, &rc, size, "size", NULL, NULL);
    if (!o)
        return rc;
    *size = (MPI_Count)o->t.size;
    return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    RCH_MPI_CS();
    return size_of("MPI_Type_size_x", datatype, size);
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    RCH_MPI_CS();
    return size_of("MPI_Type_size_c", datatype, size);
}
#pragma weak MPI_Type_size_c = PMPI_Type_size_c

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_get_extent", datatype, &rc, lb, "lb", extent,
                                       "extent");
    if (!o)
        return rc;
    *lb = o->t.lb;
    *extent = o->t.extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_get_extent_x", datatype, &rc, lb, "lb", extent,
                                       "extent");
    if (!o)
        return rc;
    *lb = o->t.lb;
    *extent = o->t.extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_get_true_extent", datatype, &rc, true_lb, "true_lb",
                                       true_extent, "true_extent");
    if (!o)
        return rc;
    *true_lb = o->t.true_lb;
    *true_extent = o->t.true_ub - o->t.true_lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_get_true_extent_x", datatype, &rc, true_lb,
                                       "true_lb", true_extent, "true_extent");
    if (!o)
        return rc;
    *true_lb = o->t.true_lb;
    *true_extent = o->t.true_ub - o->t.true_lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x

/* Deprecated MPI-1 queries. */
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_extent", datatype, &rc, extent, "extent", NULL, NULL);
    if (!o)
        return rc;
    *extent = o->t.extent;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_extent = PMPI_Type_extent

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_lb", datatype, &rc, displacement, "displacement",
                                       NULL, NULL);
    if (!o)
        return rc;
    *displacement = o->t.lb;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_lb = PMPI_Type_lb

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_ub", datatype, &rc, displacement, "displacement",
                                       NULL, NULL);
    if (!o)
        return rc;
    *displacement = o->t.ub;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_ub = PMPI_Type_ub

/* ---- names ---- */

/* MPI_DATATYPE_NULL is named "MPI_DATATYPE_NULL", as MPICH does (see
 * MPI_Comm_get_name); any other invalid handle is an error. */
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Type_get_name";
    int rc;
    if (datatype == MPI_DATATYPE_NULL) {
        if ((rc = rch_mpi_check_init(fn)))
            return rc;
        if (!type_name || !resultlen)
            return null_arg(fn, !type_name ? "type_name" : "resultlen");
        snprintf(type_name, MPI_MAX_OBJECT_NAME, "MPI_DATATYPE_NULL");
        *resultlen = (int)strlen(type_name);
        return MPI_SUCCESS;
    }
    struct rch_mpi_type_obj *o = query(fn, datatype, &rc, type_name, "type_name", resultlen, "resultlen");
    if (!o)
        return rc;
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", o->t.name);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_name = PMPI_Type_get_name

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = query("MPI_Type_set_name", datatype, &rc, type_name, "type_name",
                                       NULL, NULL);
    if (!o)
        return rc;
    /* Longer names are truncated, as the standard allows. */
    snprintf(o->t.name, sizeof(o->t.name), "%s", type_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_set_name = PMPI_Type_set_name

/* ---- addresses ---- */

static int address_of(const char *fn, const void *location, MPI_Aint *address)
{
    if (!address)
        return null_arg(fn, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    RCH_MPI_CS();
    return address_of("MPI_Get_address", location, address);
}
#pragma weak MPI_Get_address = PMPI_Get_address

int PMPI_Address(void *location, MPI_Aint *address)
{
    RCH_MPI_CS();
    return address_of("MPI_Address", location, address);
}
#pragma weak MPI_Address = PMPI_Address

/* ---- decoding (envelope and contents) ---- */

static struct rch_mpi_type_obj *envelope(const char *fn, MPI_Datatype datatype, const void *num_integers,
                                          const void *num_addresses, const void *num_datatypes,
                                          int *combiner, int *rc)
{
    struct rch_mpi_type_obj *o = query(fn, datatype, rc, num_integers, "num_integers",
                                       num_addresses, "num_addresses");
    if (!o)
        return NULL;
    if (!num_datatypes || !combiner) {
        *rc = null_arg(fn, !num_datatypes ? "num_datatypes" : "combiner");
        return NULL;
    }
    *combiner = o->t.predefined ? MPI_COMBINER_NAMED : o->combiner;
    return o;
}

/* MPI_Type_get_envelope/contents (int) of a type made by a large-count
 * constructor: its record holds large counts, which only the _c forms
 * return (MPI-4.1 5.1.13; MPI_ERR_TYPE, as MPICH). */
static int needs_c(const char *fn, const struct rch_mpi_type_obj *o)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: datatype %s was made by a large-count constructor: "
                       "its %lld large counts need %s_c", fn, o->t.name[0] ? o->t.name : "(unnamed)",
                       (long long)o->nlarge, fn);
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    RCH_MPI_CS();
    int rc;
    struct rch_mpi_type_obj *o = envelope("MPI_Type_get_envelope", datatype, num_integers, num_addresses,
                                          num_datatypes, combiner, &rc);
    if (!o)
        return rc;
    if (o->nlarge)
        return needs_c("MPI_Type_get_envelope", o);
    *num_integers = o->nints;
    *num_addresses = o->naints;
    *num_datatypes = o->ntypes;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope

/* A type made by a _c constructor records its counts as large counts
 * (rch_mpi_type_record_c); every other type has none. */
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                             MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_get_envelope_c";
    int rc;
    struct rch_mpi_type_obj *o = envelope(fn, datatype, num_integers, num_addresses, num_datatypes, combiner, &rc);
    if (!o)
        return rc;
    if (!num_large_counts)
        return null_arg(fn, "num_large_counts");
    *num_integers = o->nints;
    *num_addresses = o->naints;
    *num_large_counts = o->nlarge;
    *num_datatypes = o->ntypes;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c

/* The derived types returned are references the caller frees with
 * MPI_Type_free (MPI-3.1 4.1.13); predefined ones are returned as they are. */
/* is_c: the _c form, with max_large_counts and its array. */
static int contents(const char *fn, MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                    MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                    MPI_Datatype array_of_datatypes[], int is_c, MPI_Count max_large_counts, MPI_Count *large)
{
    int rc;
    struct rch_mpi_type_obj *o = query(fn, datatype, &rc, NULL, NULL, NULL, NULL);
    if (!o)
        return rc;
    if (o->t.predefined || o->combiner == MPI_COMBINER_NAMED)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE,
                           "%s: datatype %s is predefined (combiner MPI_COMBINER_NAMED): it has no contents",
                           fn, o->t.name[0] ? o->t.name : "(unnamed)");
    if (o->nlarge && !is_c)
        return needs_c(fn, o);
    if (max_integers < o->nints || max_addresses < o->naints || max_datatypes < o->ntypes)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                           "%s: arrays too small: max_integers %lld, max_addresses %lld, max_datatypes %lld "
                           "but the type needs %d, %d, %d (see MPI_Type_get_envelope)", fn,
                           (long long)max_integers, (long long)max_addresses, (long long)max_datatypes, o->nints,
                           o->naints, o->ntypes);
    if ((o->nints && !array_of_integers) || (o->naints && !array_of_addresses) ||
        (o->ntypes && !array_of_datatypes))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL output array", fn);
    if (o->nlarge && (max_large_counts < o->nlarge || !large))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: the type has %lld large counts: max_large_counts is "
                           "%lld or array_of_large_counts NULL", fn, (long long)o->nlarge,
                           (long long)max_large_counts);
    if (o->nlarge)
        memcpy(large, o->large, (size_t)o->nlarge * sizeof(*large));
    if (o->nints)
        memcpy(array_of_integers, o->ints, (size_t)o->nints * sizeof(int));
    if (o->naints)
        memcpy(array_of_addresses, o->aints, (size_t)o->naints * sizeof(MPI_Aint));
    for (int i = 0; i < o->ntypes; i++) {
        struct rch_mpi_type_obj *c = rch_mpi_type_lookup(o->types[i]);
        array_of_datatypes[i] = o->types[i];
        if (c && !c->t.predefined) {
            rch_mpi_type_retain(&c->t);
            c->urefs++;
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    RCH_MPI_CS();
    return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_datatypes, 0, 0, NULL);
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    RCH_MPI_CS();
    return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_datatypes, 1, max_large_counts,
                    array_of_large_counts);
}
#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c

/* ---- Fortran size-specific types ---- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_match_size";
    static const struct { int typeclass, size; MPI_Datatype type; } table[] = {
        { MPI_TYPECLASS_REAL, 4, MPI_REAL4 },         { MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
        { MPI_TYPECLASS_REAL, 16, MPI_REAL16 },       { MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
        { MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },   { MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
        { MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },   { MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
        { MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 }, { MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32 },
    };
    int rc;

    if ((rc = rch_mpi_check_init(fn)))
        return rc;
    if (!datatype)
        return null_arg(fn, "datatype");
    if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid typeclass %d", fn, typeclass);
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].typeclass == typeclass && table[i].size == size) {
            *datatype = table[i].type;
            return MPI_SUCCESS;
        }
    }
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: no %s type of size %d", fn,
                       typeclass == MPI_TYPECLASS_REAL ? "real" :
                       typeclass == MPI_TYPECLASS_INTEGER ? "integer" : "complex", size);
}
#pragma weak MPI_Type_match_size = PMPI_Type_match_size
