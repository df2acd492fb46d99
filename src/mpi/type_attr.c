/*
 * Datatype attributes (MPI 4.1 §7.7.4): MPI_Type_create_keyval,
 * MPI_Type_free_keyval, MPI_Type_set_attr, MPI_Type_get_attr,
 * MPI_Type_delete_attr; the copy callbacks run on MPI_Type_dup, the delete
 * callbacks on MPI_Type_free, MPI_Type_delete_attr and when a value is
 * replaced. Predefined datatypes take attributes too.
 *
 * Keyvals are their own table (not the communicators' of attr.c: a type
 * keyval on a communicator is MPI_ERR_KEYVAL there and here), encoded
 * 0xa4800000 + slot. A slot is never reused, so a freed keyval still
 * attached to a type keeps its callbacks (freeing only marks it).
 */
#include <stdlib.h>
#include "mpi/type_impl.h"

#define TYPE_KEYVAL(i) ((int)(0xa4800000u | (unsigned)(i)))

struct type_keyval {
    MPI_Type_copy_attr_function *copy_fn;
    MPI_Type_delete_attr_function *delete_fn;
    void *extra_state;
    int freed;
};
static struct type_keyval *keyvals;
static int nkeyvals, capkeyvals;

struct rch_mpi_type_attr {
    int index;
    void *value;
    struct rch_mpi_type_attr *next;
};

static int slot(int keyval)
{
    unsigned k = (unsigned)keyval;
    return k >= 0xa4800000u && k < 0xa4800000u + (unsigned)nkeyvals ? (int)(k - 0xa4800000u) : -1;
}

static int bad_keyval(const char *fn, int keyval)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, "%s: invalid datatype keyval 0x%x in argument type_keyval",
                       fn, (unsigned)keyval);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_create_keyval";
    int rc = rch_mpi_check_init(fn);
    if (rc)
        return rc;
    if (!type_keyval)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument type_keyval", fn);
    if (nkeyvals == capkeyvals) {
        int n = capkeyvals ? 2 * capkeyvals : 16;
        struct type_keyval *p = n < (1 << 22) ? realloc(keyvals, (size_t)n * sizeof(*p)) : NULL;
        if (!p)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for another keyval (%d exist)", fn,
                               nkeyvals);
        keyvals = p;
        capkeyvals = n;
    }
    keyvals[nkeyvals] = (struct type_keyval){ type_copy_attr_fn, type_delete_attr_fn, extra_state, 0 };
    *type_keyval = TYPE_KEYVAL(nkeyvals);
    nkeyvals++;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Type_free_keyval(int *type_keyval)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_free_keyval";
    int rc = rch_mpi_check_init(fn);
    if (rc)
        return rc;
    if (!type_keyval)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument type_keyval", fn);
    int i = slot(*type_keyval);
    if (i < 0 || keyvals[i].freed)
        return bad_keyval(fn, *type_keyval);
    keyvals[i].freed = 1;
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval

static struct rch_mpi_type_attr **find(struct rch_mpi_type_obj *o, int index)
{
    struct rch_mpi_type_attr **pp = &o->attrs;
    while (*pp && (*pp)->index != index)
        pp = &(*pp)->next;
    return pp;
}

static int run_delete(struct rch_mpi_type_obj *o, const struct rch_mpi_type_attr *a)
{
    const struct type_keyval *k = &keyvals[a->index];
    return k->delete_fn ? k->delete_fn(o->t.handle, TYPE_KEYVAL(a->index), a->value, k->extra_state)
                        : MPI_SUCCESS;
}

/* The checks of set/get/delete: the type's object and the keyval's slot
 * (a freed keyval may still be used on types that hold it). */
static int args(const char *fn, MPI_Datatype dt, int keyval, struct rch_mpi_type_obj **o, int *index)
{
    int rc = rch_mpi_check_init(fn);
    if (rc)
        return rc;
    if (!(*o = rch_mpi_type_arg(fn, "datatype", dt, &rc)))
        return rc;
    if ((*index = slot(keyval)) < 0)
        return bad_keyval(fn, keyval);
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_set_attr";
    struct rch_mpi_type_obj *o;
    int i, rc = args(fn, datatype, type_keyval, &o, &i);
    if (rc)
        return rc;
    if (keyvals[i].freed)
        return bad_keyval(fn, type_keyval);
    struct rch_mpi_type_attr **pp = find(o, i);
    if (*pp) {   /* the old value is deleted first */
        if ((rc = run_delete(o, *pp)) != MPI_SUCCESS)
            return rch_mpi_err(MPI_COMM_NULL, rc, "%s: the delete callback of keyval 0x%x returned %d", fn,
                               (unsigned)type_keyval, rc);
        (*pp)->value = attribute_val;
        return MPI_SUCCESS;
    }
    struct rch_mpi_type_attr *a = malloc(sizeof(*a));
    if (!a)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for an attribute", fn);
    *a = (struct rch_mpi_type_attr){ i, attribute_val, o->attrs };
    o->attrs = a;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_get_attr";
    struct rch_mpi_type_obj *o;
    int i, rc = args(fn, datatype, type_keyval, &o, &i);
    if (rc)
        return rc;
    if (!attribute_val || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                           flag ? "attribute_val" : "flag");
    struct rch_mpi_type_attr *a = *find(o, i);
    *flag = a != NULL;
    if (a)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_delete_attr";
    struct rch_mpi_type_obj *o;
    int i, rc = args(fn, datatype, type_keyval, &o, &i);
    if (rc)
        return rc;
    struct rch_mpi_type_attr **pp = find(o, i), *a = *pp;
    if (!a)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, "%s: datatype has no attribute for keyval 0x%x", fn,
                           (unsigned)type_keyval);
    if ((rc = run_delete(o, a)) != MPI_SUCCESS)
        return rch_mpi_err(MPI_COMM_NULL, rc, "%s: the delete callback of keyval 0x%x returned %d", fn,
                           (unsigned)type_keyval, rc);
    *pp = a->next;
    free(a);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr

int rch_mpi_type_attr_copy(const char *fn, struct rch_mpi_type_obj *from, struct rch_mpi_type_obj *to)
{
    for (struct rch_mpi_type_attr *a = from->attrs; a; a = a->next) {
        const struct type_keyval *k = &keyvals[a->index];
        void *value = NULL;
        int flag = 0;
        if (!k->copy_fn)   /* MPI_TYPE_NULL_COPY_FN: not copied */
            continue;
        int rc = k->copy_fn(from->t.handle, TYPE_KEYVAL(a->index), k->extra_state, a->value, &value, &flag);
        if (rc != MPI_SUCCESS)
            return rch_mpi_err(MPI_COMM_NULL, rc, "%s: the copy callback of keyval 0x%x returned %d", fn,
                               (unsigned)TYPE_KEYVAL(a->index), rc);
        if (!flag)
            continue;
        struct rch_mpi_type_attr *c = malloc(sizeof(*c));
        if (!c)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for an attribute", fn);
        *c = (struct rch_mpi_type_attr){ a->index, value, to->attrs };
        to->attrs = c;
    }
    return MPI_SUCCESS;
}

int rch_mpi_type_attr_delete_all(const char *fn, struct rch_mpi_type_obj *o)
{
    while (o->attrs) {
        struct rch_mpi_type_attr *a = o->attrs;
        int rc = run_delete(o, a);
        if (rc != MPI_SUCCESS)
            return rch_mpi_err(MPI_COMM_NULL, rc, "%s: the delete callback of keyval 0x%x returned %d", fn,
                               (unsigned)TYPE_KEYVAL(a->index), rc);
        o->attrs = a->next;
        free(a);
    }
    return MPI_SUCCESS;
}

void rch_mpi_type_attr_drop(struct rch_mpi_type_obj *o)
{
    while (o->attrs) {
        struct rch_mpi_type_attr *a = o->attrs;
        o->attrs = a->next;
        free(a);
    }
}
