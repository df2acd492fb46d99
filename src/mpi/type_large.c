/*
 * Contiguous types of more than INT_MAX elements (MPI_Type_contiguous_c, and
 * the type a _c call's buffer count over INT_MAX becomes: src/mpi/large.c).
 * Built as MPI_Type_contiguous builds its types, from an MPI_Aint count, so
 * the map has no bounds of its own (a resized type's would stick in a
 * struct made of it). Its construction record is MPI_COMBINER_CONTIGUOUS
 * with the count as a large count (MPI_Type_get_envelope_c, type_api.c).
 *
 * And the construction record of every type a _c constructor makes
 * (rch_mpi_type_record_c): those build their map through the int
 * constructors or a composition of them (large_type.c, large_indexed.c,
 * large_array.c), whose record is then replaced by the user's call.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/large.h"
#include "mpi/type_impl.h"

/* The call's large counts as one malloc'ed list of *len; NULL if out of memory. */
static MPI_Count *large_list(const struct rch_mpi_type_call_c *c, MPI_Count *len)
{
    MPI_Count k = 0;
    *len = c->nhead + (c->a ? c->n : 0) + (c->b ? c->n : 0);
    MPI_Count *l = malloc((size_t)(*len > 0 ? *len : 1) * sizeof(*l));
    if (!l)
        return NULL;
    for (int i = 0; i < c->nhead; i++)
        l[k++] = c->head[i];
    for (MPI_Count i = 0; c->a && i < c->n; i++)
        l[k++] = c->a[i];
    for (MPI_Count i = 0; c->b && i < c->n; i++)
        l[k++] = c->b[i];
    return l;
}

int rch_mpi_type_record_c(const char *fn, int err, MPI_Datatype *newtype, const struct rch_mpi_type_call_c *c)
{
    RCH_MPI_CS();   /* the _c constructors call it outside the lock: references of shared types change */
    if (err)
        return err;
    struct rch_mpi_type_obj *o = rch_mpi_type_lookup(*newtype), old = *o;
    MPI_Count n = 0;
    /* the new record first: it may retain the types the old one holds */
    o->nints = o->naints = o->ntypes = 0;
    o->ints = NULL;
    o->aints = NULL;
    o->types = NULL;
    o->large = large_list(c, &n);
    o->nlarge = o->large ? n : 0;
    err = !o->large ? MPI_ERR_OTHER :
          rch_mpi_type_set_contents(o, c->combiner, c->nints, c->ints, 0, NULL, c->ntypes, c->types);
    for (int i = 0; i < old.ntypes; i++) {
        struct rch_mpi_type_obj *t = rch_mpi_type_lookup(old.types[i]);
        if (t)
            rch_mpi_type_release(&t->t);
    }
    free(old.ints);
    free(old.aints);
    free(old.large);
    free(old.types);
    if (err) {
        PMPI_Type_free(newtype);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for the datatype's record", fn);
    }
    return MPI_SUCCESS;
}

int rch_mpi_type_contiguous_large(const char *fn, MPI_Count count, MPI_Datatype oldtype, int internal,
                                  MPI_Datatype *newtype)
{
    struct rch_mpi_type_builder b;
    struct rch_mpi_type_obj *old, *o;
    int rc;

    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    rch_mpi_type_build_begin(&b);
    rch_mpi_type_build_add(&b, 0, (MPI_Aint)count, old);
    if (!(o = rch_mpi_type_build_end(&b, 0)))
        return rch_mpi_err(MPI_COMM_NULL, b.err, "%s: %s", fn, b.why);
    o->large_base = oldtype;
    o->large_n = count;
    o->large_internal = internal;
    rc = rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL);
    return rch_mpi_type_record_c(fn, rc, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_CONTIGUOUS, .nhead = 1, .head = &count, .ntypes = 1, .types = &oldtype });
}

int rch_mpi_large_origin(const struct rch_mpi_type *t, MPI_Datatype *base, MPI_Count *n)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    if (t->predefined || !o->large_internal)
        return 0;
    *base = o->large_base;
    *n = o->large_n;
    return 1;
}
